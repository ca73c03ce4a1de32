"""A two-step deployment wizard: the second question depends on the first answer.

On protocol 2026-07-28 this function runs once per round; the first answer is
replayed from the sealed request state, so the code reads like a plain wizard.
"""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, elicits

server = MCPServer("deployment-wizard")


class Target(BaseModel):
    environment: Literal["staging", "production"]


class Resources(BaseModel):
    cpu_cores: int = Field(ge=1, le=64)
    memory_gb: int = Field(ge=1, le=512)
    auto_scale: bool = False


@server.tool()
@elicits(Target, Resources)
async def deploy(app_name: str, ctx: ElicitContext) -> str:
    """Deploy application with guided setup."""
    match await ctx.elicit(Target, "Select deployment environment"):
        case Accepted(Target(environment=environment)):
            pass
        case _:
            return "Deployment cancelled"
    match await ctx.elicit(Resources, f"Configure resources for {environment}"):
        case Accepted(Resources(cpu_cores=cpu, memory_gb=memory, auto_scale=auto_scale)):
            return f"Deployed {app_name} to {environment} ({cpu} cores, {memory}GB, auto_scale={auto_scale})"
        case _:
            return "Deployment cancelled"


if __name__ == "__main__":
    server.run()
