"""-32042: a tool that cannot run until the user has connected their drive, and a client that copes.

The tool does not wait: it ends the call at once with `url_required(...)`, the JSON-RPC
error -32042 (URL elicitation required, 2025-11-25) listing the page to open. The client's
`call_tool_with_urls` hands each URL to its URL handler and, once the user has finished,
calls the tool again, once.
"""

from __future__ import annotations

from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult

from typed_elicit import ElicitContext, UrlElicitation, elicits, url_required
from typed_elicit.client import UrlAnswer, UrlHandler, UrlRequest, call_tool_with_urls

server = MCPServer("drive")
CONNECTED: set[str] = set()
"""Users whose drive is connected (the page's own callback adds them; a real server keeps a database)."""


@server.tool()
@elicits
async def list_files(user: str, ctx: ElicitContext) -> str:
    """List the user's files."""
    if user not in CONNECTED:
        raise url_required(
            UrlElicitation("https://drive.example.com/connect", "Connect your drive to list your files")
        )
    return f"{user}: report.pdf, notes.txt"


async def list_my_files(client: Client, open_url: UrlHandler) -> CallToolResult:
    """The client half: run the URLs the tool asks for, then the retry."""
    return await call_tool_with_urls(client, "list_files", {"user": "ada"}, url=open_url)


async def open_in_browser(request: UrlRequest) -> UrlAnswer:
    """A URL handler: show `request.message` and the full URL, ask consent, open it, wait until done."""
    CONNECTED.add("ada")  # stands in for the user finishing the page
    return "accept"
