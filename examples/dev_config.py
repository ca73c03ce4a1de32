"""Configure a development environment, with titled options for the editor."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, Titles, elicits, form

server = MCPServer("dev-setup")

Editor = Annotated[
    Literal["vscode", "vim", "emacs", "sublime"],
    Titles(vscode="VS Code", vim="Vim", emacs="Emacs", sublime="Sublime Text"),
]


@form(message="Configure your development environment")
class DevConfig(BaseModel):
    editor: Editor = Field(default="vscode", title="Preferred Editor")
    port: int = Field(default=3000, ge=1024, le=65535, title="Development Port")
    hot_reload: bool = Field(default=True, title="Enable Hot Reload")


@server.tool()
@elicits(DevConfig, on_unsupported="defaults")
async def configure_dev(project: str, ctx: ElicitContext) -> str:
    """Write the development settings of a project."""
    match await ctx.elicit(DevConfig):
        case Accepted(DevConfig(editor=editor, port=port, hot_reload=hot_reload)):
            return f"{project}: editor={editor} port={port} hot_reload={hot_reload}"
        case _:
            return f"{project}: unchanged"


if __name__ == "__main__":
    server.run()
