from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, Declined, ElicitContext, Titles, elicits, form

server = MCPServer("deployer")


@form(message="Where should we deploy?")
class Target(BaseModel):
    env: Annotated[Literal["stg", "prod"], Titles(stg="Staging", prod="Production")]
    replicas: int = Field(default=2, ge=1, le=10)


@server.tool()
@elicits(Target)
async def deploy(app: str, ctx: ElicitContext) -> str:
    """Deploy an app where the user says."""
    match await ctx.elicit(Target):
        case Accepted(Target(env=env, replicas=n)):
            return f"deployed {app} to {env} x{n}"
        case Declined():
            return "not deployed: declined"
        case _:
            return "not deployed: cancelled"
