"""How a question travels: one asker per call, chosen from the era; without one, the policy decides."""

from __future__ import annotations

import math

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import TextContent

import typed_elicit._calls.policy as policy_module
from tests.calls.test_context_lifecycle import Confirm
from tests.calls.test_context_url import bare
from tests.conftest import BOUND
from typed_elicit import Declined, ElicitContext, elicits
from typed_elicit.errors import ElicitArgumentError, ElicitationUnsupported

pytestmark = pytest.mark.anyio


async def test_outside_a_request_the_policy_decides(monkeypatch):
    ctx = ElicitContext(Context(), policy_module.Policy(on_unsupported="decline"))
    assert ctx.protocol_version is None
    assert type(await ctx.elicit(Confirm)).__name__ == "Declined"
    assert await ctx.once("k", lambda: [1, "a"]) == [1, "a"]
    assert await ctx.once("k", lambda: [2]) == [1, "a"]
    with pytest.raises(ElicitArgumentError, match="JSON"):
        await ctx.once("t", lambda: (1, 2))  # type: ignore[arg-type, return-value]


async def test_outside_a_request_the_policy_decides_and_nothing_completes():
    assert (
        await bare("decline").elicit_url("https://example.com/", "Open it.", timeout=math.inf) == Declined()
    )
    with pytest.raises(ElicitationUnsupported, match="it is not running inside a request"):
        await bare("raise").elicit_url("https://example.com/", "Open it.")
    assert await bare().complete_url("any") is False


chooser = MCPServer("chooser")


@chooser.tool()
@elicits
async def which(ctx: ElicitContext) -> str:
    return type(ctx._asker).__name__  # pyright: ignore[reportPrivateUsage]


async def test_the_asker_is_chosen_once_per_call_from_the_negotiated_era(connect, era):
    async with connect(chooser, era) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("which", {})
    assert isinstance(result.content[0], TextContent)
    expected = "ReplayAsker" if era == "2026-07-28" else "PushAsker"
    assert result.content[0].text == expected


def test_a_context_outside_a_request_gets_the_unreachable_asker():
    ctx = ElicitContext(Context())
    assert type(ctx._asker).__name__ == "UnreachableAsker"  # pyright: ignore[reportPrivateUsage]
