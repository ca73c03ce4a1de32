"""Small pieces of the runtime: era mapping, replay state, answer validation, decorator edges."""

from __future__ import annotations

from typing import Literal

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import TextContent
from pydantic import BaseModel

from tests.conftest import BOUND, accept, user
from typed_elicit import Accepted, InvalidResponse
from typed_elicit._context import ElicitContext, negotiated_era
from typed_elicit._elicits import elicits
from typed_elicit._replay import ReplayState, schema_digest
from typed_elicit._validate import validate_content


class Picks(BaseModel):
    picks: list[Literal["a", "b"]] = []


class Flag(BaseModel):
    on: bool = False


@pytest.mark.parametrize(
    ("version", "era"),
    [
        (None, None),
        ("2024-11-05", None),
        ("2025-03-26", None),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2026-07-28"),
        ("2027-01-01", "2026-07-28"),
    ],
)
def test_negotiated_versions_map_to_elicitation_eras(version, era):
    assert negotiated_era(version) == era


@pytest.mark.parametrize("text", [None, "", "not json", '{"v": 99}', '{"v": 1, "answers": 3}'])
def test_unreadable_replay_state_starts_the_call_afresh(text):
    assert ReplayState.decode(text) == ReplayState()


def test_replay_state_round_trips():
    state = ReplayState(once={"code": "123"})
    assert ReplayState.decode(state.encode()) == state


def test_schema_digest_ignores_key_order():
    assert schema_digest({"a": 1, "b": [1, 2]}) == schema_digest({"b": [1, 2], "a": 1})
    assert schema_digest({"a": 1}) != schema_digest({"a": 2})


def test_validation_drops_nulls_and_checks_option_lists():
    schema = {"type": "object", "properties": {"picks": {"type": "array"}}}
    assert validate_content(Picks, schema, {"picks": None}) == Picks()
    assert validate_content(Picks, schema, None) == Picks()
    with pytest.raises(InvalidResponse) as caught:
        validate_content(Picks, schema, {"picks": "a"})
    assert caught.value.errors == (("picks", "expected a list of options, got 'a'"),)
    assert caught.value.content == {"picks": "a"}


def test_validation_rejects_string_booleans():
    schema = {"type": "object", "properties": {"on": {"type": "boolean"}}}
    with pytest.raises(InvalidResponse, match="on: expected true or false, got 'true'"):
        validate_content(Flag, schema, {"on": "true"})


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
    async with connect(server, era, user(accept(picks=["b", "a"]))) as client:
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
    with pytest.raises(ValueError, match="retries must be 0 or more"):
        await ctx.elicit(Flag, retries=-1)


def test_unresolvable_annotations_are_reported_at_decoration():
    async def broken(ctx: ElicitContext, x: Missing) -> str:  # type: ignore[name-defined]  # noqa: F821
        return ""

    with pytest.raises(TypeError, match="cannot resolve the annotations of"):
        elicits(broken)


def test_the_decorated_function_needs_the_sdk_context():
    @elicits
    async def tool(ctx: ElicitContext) -> str:
        return "x"

    with pytest.raises(TypeError, match="expects the SDK to inject its Context"):
        anyio.run(tool, "not a context")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "problem"), [({"timeout": 0}, "positive"), ({"retries": -1}, "0 or more")]
)
def test_decorator_settings_are_checked(options, problem):
    with pytest.raises(ValueError, match=problem):
        elicits(**options)
