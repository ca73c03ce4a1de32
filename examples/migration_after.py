"""The same server as examples/migration_before.py, with 0.3's imports: no warning.

docs/migration.md shows the two files side by side. Run either: both print the same lines.
"""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import TextContent
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, elicits, form
from typed_elicit.errors import InvalidResponse, SchemaError
from typed_elicit.stores import InProcessStore, configure
from typed_elicit.testing import ScriptedUser, accept, connect

server = MCPServer("diner")
configure(server, store=InProcessStore())


class Booking(BaseModel):
    seats: int = Field(ge=1, le=8, description="How many seats")


@server.tool()
@elicits(Booking)
async def book(ctx: ElicitContext) -> str:
    try:
        result = await ctx.elicit(Booking, "Book a table")
    except InvalidResponse:
        return "no booking: the answer did not fit"
    return f"booked {result.data.seats} seats" if isinstance(result, Accepted) else "no booking"


def refused_at_definition() -> str:
    try:

        @form
        class Limits(BaseModel):
            per_day: dict[str, int]

    except SchemaError as problem:
        return f"refused at definition: {problem.model_name}"
    return "accepted"


async def main() -> None:
    async with connect(server, "2025-11-25", elicitation_callback=ScriptedUser(accept(seats=2))) as client:
        result = await client.call_tool("book", {})
    print(*(block.text for block in result.content if isinstance(block, TextContent)))
    print(refused_at_definition())


if __name__ == "__main__":
    anyio.run(main)
