"""Delete a file only after the user confirms."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, Cancelled, Declined, ElicitContext, elicits

server = MCPServer("approval-workflow")


class Confirmation(BaseModel):
    confirm: bool = Field(description="Delete the file for good")


@server.tool()
@elicits(Confirmation)
async def delete_file(path: str, ctx: ElicitContext) -> str:
    """Delete a file after confirmation."""
    match await ctx.elicit(Confirmation, f"Are you sure you want to delete {path}?"):
        case Accepted(Confirmation(confirm=True)):
            return f"Deleted {path}"
        case Accepted() | Declined():
            return "Deletion cancelled"
        case Cancelled():
            return "No answer; nothing deleted"


if __name__ == "__main__":
    server.run()
