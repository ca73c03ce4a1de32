"""Offer the files that are really there: options computed per call, once, from a side effect."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, Choices, ElicitContext, elicits

server = MCPServer("file-picker")

LISTINGS: list[str] = []
"""Each directory listing the tool made (to show that a call lists once, on every era)."""


class PickFile(BaseModel):
    """Which file should I open?"""

    path: Annotated[str, Choices()] = Field(description="One of the files that match")


def list_files(directory: str, pattern: str) -> dict[str, str]:
    """The matching files, as option value (full path) -> title (file name)."""
    LISTINGS.append(directory)
    return {str(p): p.name for p in sorted(Path(directory).glob(pattern)) if p.is_file()}


@server.tool()
@elicits
async def open_file(directory: str, ctx: ElicitContext, pattern: str = "*.txt") -> str:
    """Let the user pick one of the files matching `pattern` in `directory`, and read it."""
    # On 2026-07-28 this body runs again for every round: list once, so the offer stays the
    # same (a replay that offered other files would be a ReplayMismatch).
    files = await ctx.once("files", lambda: list_files(directory, pattern))
    if not files:
        return f"No file in {directory} matches {pattern}"
    result = await ctx.elicit(PickFile, options={"path": files}, retries=1)
    if not isinstance(result, Accepted):
        return "Nothing opened"
    return f"{files[result.data.path]}: {Path(result.data.path).read_text().strip()}"


if __name__ == "__main__":
    server.run()
