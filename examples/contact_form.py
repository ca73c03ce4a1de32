"""Collect contact details; the email address is checked when the answer arrives."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, EmailStr, Field

from typed_elicit import Accepted, ElicitContext, elicits, form

server = MCPServer("contact-desk")


@form(message="Please provide your contact information")
class Contact(BaseModel):
    name: str = Field(min_length=1, description="Your name")
    email: EmailStr = Field(description="Where we reply")
    age: int = Field(default=25, ge=0, le=150)


@server.tool()
@elicits(Contact, retries=1)
async def contact_us(topic: str, ctx: ElicitContext) -> str:
    """Open a support ticket; an invalid email is asked for once more."""
    match await ctx.elicit(Contact):
        case Accepted(Contact(name=name, email=email)):
            return f"Ticket about {topic!r} opened for {name} <{email}>"
        case _:
            return "No ticket opened"


if __name__ == "__main__":
    server.run()
