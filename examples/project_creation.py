"""Create a project, asking for its settings with sensible defaults."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, elicits

server = MCPServer("user-onboarding")


class ProjectSettings(BaseModel):
    description: str = Field(min_length=1, max_length=200)
    public: bool = False
    max_users: int = Field(default=10, ge=1, le=1000)


@server.tool()
@elicits(ProjectSettings)
async def create_project(name: str, ctx: ElicitContext) -> str:
    """Create a new project."""
    match await ctx.elicit(ProjectSettings, f"Configure project '{name}'"):
        case Accepted(ProjectSettings(description=desc, public=public, max_users=max_users)):
            return f"Created project '{name}': {desc} (public={public}, max_users={max_users})"
        case _:
            return "Project creation cancelled"


if __name__ == "__main__":
    server.run()
