"""Defaults and a multi-select shaped per call: split a bill with some of your friends."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, Choices, ElicitContext, elicits

server = MCPServer("split-bill")

FRIENDS = {"ann": "Ann", "bo": "Bo", "cy": "Cy", "di": "Di"}
"""Who you can split with (in a real server: read inside ctx.once)."""


class Split(BaseModel):
    """Who shares this bill, and how much each pays?"""

    friends: Annotated[list[str], Choices(), Field(min_length=1, max_length=3)]
    share: int = Field(ge=1, multiple_of=5, description="Each person's share, in cents")
    round_up: bool = Field(default=False, description="Round each share up to whole euros")


@server.tool()
@elicits
async def split_bill(total: int, ctx: ElicitContext) -> str:
    """Split `total` cents between you and up to three friends."""
    half = max(5, total // 2 // 5 * 5)  # a default must fit its field: ge=1, multiple_of=5
    result = await ctx.elicit(
        Split,
        options={"friends": FRIENDS},  # value -> title, shown in this order
        defaults={"friends": ["ann"], "share": half},  # the form comes pre-filled
    )
    if not isinstance(result, Accepted):
        return "Not split"
    split = result.data
    share = -(-split.share // 100) * 100 if split.round_up else split.share
    return f"{', '.join(FRIENDS[f] for f in split.friends)} pay {share} each"


if __name__ == "__main__":
    server.run()
