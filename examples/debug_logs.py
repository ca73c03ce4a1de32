"""Debugging a server's transports without writing answers to its log (`typed_elicit.logs`).

`MCPServer(..., log_level="DEBUG")` makes the SDK send every DEBUG record to stderr, and
the streamable HTTP transport then writes each message it streams: a re-ask's pre-filled
values with it. `hide_answer_values()` (opt-in: typed_elicit configures no logger of the
SDK's by itself) keeps the records and hides the values: the `content` of answers and the
`default`s of questions become "***".

Run it: `python examples/debug_logs.py [PORT]` (8000 by default), then call `join` from a
client at http://127.0.0.1:PORT/mcp and answer with an age under 18 first.
"""

from __future__ import annotations

import sys
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, elicits
from typed_elicit.logs import hide_answer_values


class Member(BaseModel):
    name: str
    age: Annotated[int, Field(ge=18)]


server = MCPServer("club", log_level="DEBUG")


@server.tool()
@elicits(Member)
async def join(ctx: ElicitContext) -> str:
    """Join the club; an invalid answer is asked again, with the valid fields pre-filled."""
    match await ctx.elicit(Member, "Who joins?", retries=2):
        case Accepted():
            return "Welcome to the club."
        case _:
            return "Nobody joined."


if __name__ == "__main__":
    hide_answer_values()  # before the first request, so that every transport record passes through it
    server.run("streamable-http", port=int(sys.argv[1]) if len(sys.argv) > 1 else 8000)
