"""A Python host that shows app views: `elicitation_handler(app=...)` and `app_capability()`.

Its renderer stands in for a real one (which would put `request.html` in a sandboxed iframe,
forward `request.params` as `elicitation/create` over the MCP Apps bridge and return the
app's answer): it answers like the app would. Draft: see docs/howto/app_views.md.
"""

from __future__ import annotations

import anyio
from app_views import server
from mcp import Client
from mcp_types import ElicitResult, TextContent
from pydantic import BaseModel

from typed_elicit import Accepted, Declined
from typed_elicit.client import AppCannotRender, AppRequest, FormRequest, app_capability, elicitation_handler


async def render(request: AppRequest) -> ElicitResult:
    """Show the app (here: answer as a person would in it); raise AppCannotRender to use the form."""
    if request.resource_meta.get("ui", {}).get("csp") is None:
        raise AppCannotRender(request.resource_uri, "this host shows only apps that declare a CSP")
    return ElicitResult(action="accept", content={"warehouse": "w17", "speed": "express"})


async def form(request: FormRequest) -> Accepted[BaseModel] | Declined:
    """The plain form: used whenever the app cannot be."""
    return Declined()


async def main() -> str:
    handler = elicitation_handler(form, app=render)
    async with Client(server, elicitation_callback=handler, extensions=[app_capability()]) as client:
        result = await client.call_tool("ship", {"order": "A-1"})
    block = result.content[0]
    return block.text if isinstance(block, TextContent) else ""


if __name__ == "__main__":
    print(anyio.run(main))  # A-1 ships express from Warehouse 17
