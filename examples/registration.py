"""Register an account with a multi-field form."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, EmailStr, Field

from typed_elicit import Accepted, ElicitContext, elicits, form

server = MCPServer("data-collector")


@form(message="Complete your profile")
class Profile(BaseModel):
    email: EmailStr
    age: int | None = Field(default=None, ge=13, le=130)
    newsletter: bool = False


@server.tool()
@elicits(Profile)
async def register(username: str, ctx: ElicitContext) -> str:
    """Register a new account."""
    match await ctx.elicit(Profile):
        case Accepted(Profile(email=email, age=age, newsletter=newsletter)):
            shown_age = "not provided" if age is None else age
            return f"Registered {username} with email {email} (age {shown_age}, newsletter={newsletter})"
        case _:
            return "Registration cancelled"


if __name__ == "__main__":
    server.run()
