"""Small pieces of the runtime: era mapping, replay state, answer validation, decorator edges."""

from __future__ import annotations

from typing import Literal

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import TextContent
from pydantic import BaseModel

from tests.conftest import BOUND
from typed_elicit import Accepted
from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.elicits import elicits
from typed_elicit._calls.state import ReplayState
from typed_elicit.errors import ElicitArgumentError, InvalidResponse
from typed_elicit.testing import ScriptedUser, accept


class Picks(BaseModel):
    picks: list[Literal["a", "b"]] = []


class Flag(BaseModel):
    on: bool = False


@pytest.mark.parametrize("text", [None, "", "not json", '{"v": 99}', '{"v": 1, "answers": 3}'])
def test_unreadable_replay_state_starts_the_call_afresh(text):
    assert ReplayState.decode(text) == ReplayState()


def test_replay_state_round_trips():
    state = ReplayState(once={"code": "123"})
    assert ReplayState.decode(state.encode()) == state


server = MCPServer("units")


@server.tool()
@elicits(Picks)
async def pick(ctx: ElicitContext) -> str:
    match await ctx.elicit(Picks, "Pick"):
        case Accepted(Picks(picks=picks)):
            return ",".join(picks)
        case _:
            return "none"


@pytest.mark.anyio
async def test_multi_select_is_a_schema_error_only_on_2025_06_18(connect, era):
    async with connect(server, era, ScriptedUser(accept(picks=["b", "a"]))) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("pick", {})
    assert isinstance(result.content[0], TextContent)
    if era == "2025-06-18":
        assert result.is_error
        assert "SchemaError: Picks cannot be elicited" in result.content[0].text
    else:
        assert result.content[0].text == "b,a"


def test_unresolvable_annotations_are_reported_at_decoration():
    async def broken(ctx: ElicitContext, x: Missing) -> str:  # type: ignore[name-defined]  # noqa: F821
        return ""

    with pytest.raises(ElicitArgumentError, match="cannot resolve the annotations of"):
        elicits(broken)


def test_the_decorated_function_needs_the_sdk_context():
    @elicits
    async def tool(ctx: ElicitContext) -> str:
        return "x"

    with pytest.raises(ElicitArgumentError, match="expects the SDK to inject its Context"):
        anyio.run(tool, "not a context")  # type: ignore[arg-type]


@pytest.mark.anyio
@pytest.mark.parametrize("elicitation_id", ["", None])
async def test_complete_url_refuses_an_empty_elicitation_id_on_every_era(elicitation_id):
    with pytest.raises(ElicitArgumentError, match=r"needs the elicitation_id given to ctx\.elicit_url"):
        await ElicitContext(Context()).complete_url(elicitation_id)


def test_invalid_response_advice_defaults_to_retries_and_can_be_replaced():
    default = InvalidResponse("Flag", [("on", "bad")], {"on": 1})
    assert str(default).endswith(
        "Pass retries=N to ctx.elicit to ask the user again with these problems stated."
    )
    custom = InvalidResponse("Flag", [("on", "bad")], {"on": 1}, advice="Fix the client.")
    assert str(custom).endswith("InvalidResponse.content.) Fix the client.")
    assert custom.content == {"on": 1}
    assert custom.errors == (("on", "bad"),)
