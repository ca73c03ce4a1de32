"""Small pieces of the runtime: era mapping, replay state, answer validation, decorator edges."""

from __future__ import annotations

from typing import Literal

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import TextContent
from pydantic import BaseModel

from tests.conftest import BOUND
from typed_elicit import Accepted, get_default_timeout, set_default_timeout
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


@pytest.mark.anyio
async def test_negative_retries_are_refused():
    ctx = ElicitContext(Context())
    with pytest.raises(ElicitArgumentError, match="retries must be 0 or more"):
        await ctx.elicit(Flag, retries=-1)


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


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"timeout": 0}, "positive"),
        ({"retries": -1}, "0 or more"),
        ({"retries": True}, r"@elicits retries must be 0 or more \(an int, not a bool\), got True"),
        ({"on_unsupported": "defualts"}, "@elicits takes on_unsupported='raise', 'defaults'.*got 'defualts'"),
    ],
)
def test_decorator_settings_are_checked(options, problem):
    with pytest.raises(ElicitArgumentError, match=problem):
        elicits(**options)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"on_unsupported": "defualts"}, "takes on_unsupported='raise', 'defaults', 'decline' or 'fallback'"),
        ({"on_unsupported": "url"}, "got 'url'"),
        ({"retries": True}, "retries must be 0 or more \\(an int, not a bool\\), got True"),
        ({"retries": 1.5}, "got 1.5"),
        ({"retries": -1}, "retries must be 0 or more"),
        ({"timeout": float("nan")}, "ctx.elicit got timeout=nan, which is not a positive number"),
    ],
)
async def test_elicit_refuses_a_misspelt_policy_or_a_non_integer_retry_count(options, problem):
    ctx = ElicitContext(Context())
    with pytest.raises(ElicitArgumentError, match=problem):
        await ctx.elicit(Flag, **options)


@pytest.mark.anyio
async def test_elicit_url_names_the_allowed_policies_when_refusing_one():
    ctx = ElicitContext(Context())
    with pytest.raises(
        ElicitArgumentError, match="takes on_unsupported='raise' or 'decline', got 'fallback': a URL-mode"
    ):
        await ctx.elicit_url("https://example.com/", "Open it.", on_unsupported="fallback")  # type: ignore[arg-type]


@pytest.mark.parametrize("timeout", [0, -1, float("nan")])
def test_every_timeout_is_checked_by_one_rule_naming_its_owner(timeout):
    with pytest.raises(
        ElicitArgumentError, match=r"^@elicits got timeout=.*, which is not a positive number of"
    ):
        elicits(timeout=timeout)
    with pytest.raises(
        ElicitArgumentError, match=r"^set_default_timeout got seconds=.*, which is not a positive"
    ):
        set_default_timeout(timeout)
    assert get_default_timeout() == 300.0


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
