"""`@elicits` and `ctx.elicit` end to end, in memory, on every protocol era."""

from __future__ import annotations

from typing import Annotated, Literal

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY, ElicitRequestFormParams, TextContent
from pydantic import BaseModel, Field, field_validator

import typed_elicit._core.clock as clock_module
from tests.conftest import BOUND, ERAS
from typed_elicit import Accepted, Cancelled, Declined, Titles, form
from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.elicits import elicits
from typed_elicit.testing import ScriptedUser, accept, cancel, decline, send_raw

pytestmark = pytest.mark.anyio


class Confirm(BaseModel):
    confirm: bool


class Profile(BaseModel):
    """Tell us about yourself."""

    name: str = Field(min_length=1)
    age: int = Field(ge=0, le=150)
    newsletter: bool = False

    @field_validator("name")
    @classmethod
    def no_digits(cls, value: str) -> str:
        if any(c.isdigit() for c in value):
            raise ValueError("a name has no digits")
        return value


@form(message="Pick a colour")
class Colour(BaseModel):
    colour: Annotated[Literal["r", "g"], Titles(r="Red", g="Green")]


class Defaults(BaseModel):
    size: int = 3
    label: str = "x"


server = MCPServer("runtime")


@server.tool()
@elicits
async def confirm(path: str, ctx: ElicitContext) -> str:
    """Delete a file after confirmation."""
    match await ctx.elicit(Confirm, f"Delete {path}?"):
        case Accepted(Confirm(confirm=True)):
            return f"deleted {path}"
        case Accepted():
            return "kept"
        case Declined():
            return "declined"
        case Cancelled():
            return "cancelled"


@server.tool()
@elicits(Profile, retries=0)
async def profile(ctx: ElicitContext, retries: int = 0) -> str:
    match await ctx.elicit(Profile, retries=retries):
        case Accepted(Profile(name=name, age=age, newsletter=news)):
            return f"{name}/{age}/{news}"
        case _:
            return "no profile"


@server.tool()
@elicits
async def colour(ctx: ElicitContext) -> str:
    match await ctx.elicit(Colour):
        case Accepted(Colour(colour=c)):
            return c
        case _:
            return "none"


@server.tool()
@elicits(on_unsupported="defaults")
async def sized(ctx: ElicitContext) -> str:
    match await ctx.elicit(Defaults, "Size?"):
        case Accepted(Defaults(size=size, label=label)):
            return f"{label}{size}"
        case _:
            return "none"


@server.tool()
@elicits
async def polite(ctx: ElicitContext) -> str:
    match await ctx.elicit(Confirm, "Go?", on_unsupported="decline"):
        case Declined():
            return "declined"
        case _:
            return "other"


@server.tool()
@elicits
async def needy(ctx: ElicitContext) -> str:
    match await ctx.elicit(Profile, on_unsupported="defaults"):
        case _:
            return "unreachable"


SIDE_EFFECTS: list[str] = []


@server.tool()
@elicits
async def two_steps(ctx: ElicitContext) -> str:
    code = await ctx.once("send-code", _send_code)
    first = await ctx.elicit(Confirm, "First?")
    second = await ctx.elicit(Defaults, "Second?")
    return f"{code} {type(first).__name__} {type(second).__name__}"


async def _send_code() -> str:
    SIDE_EFFECTS.append("sent")
    return "123456"


def text_of(result: object) -> str:
    content = getattr(result, "content", [])
    assert content
    assert isinstance(content[0], TextContent)
    return content[0].text


async def call(client: object, name: str, arguments: dict[str, object] | None = None) -> tuple[bool, str]:
    with anyio.fail_after(BOUND):
        result = await client.call_tool(name, arguments or {})  # type: ignore[attr-defined]
    return bool(result.is_error), text_of(result)


async def test_accepted_answer_reaches_the_tool_as_a_typed_model(connect, era):
    scripted = ScriptedUser(accept(confirm=True))
    async with connect(server, era, scripted) as client:
        assert await call(client, "confirm", {"path": "/tmp/a"}) == (False, "deleted /tmp/a")
    assert [q.message for q in scripted.questions] == ["Delete /tmp/a?"]
    assert scripted.questions[0].requested_schema == {
        "type": "object",
        "properties": {"confirm": {"type": "boolean"}},
        "required": ["confirm"],
    }


@pytest.mark.parametrize(("reply", "expected"), [(decline(), "declined"), (cancel(), "cancelled")])
async def test_decline_and_cancel_reach_the_tool_as_their_own_outcomes(connect, era, reply, expected):
    async with connect(server, era, ScriptedUser(reply)) as client:
        assert await call(client, "confirm", {"path": "p"}) == (False, expected)


async def test_context_parameter_is_hidden_from_the_input_schema(connect, era):
    async with connect(server, era) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert tools["confirm"].input_schema["properties"] == {"path": {"title": "Path", "type": "string"}}
    assert tools["profile"].input_schema["properties"].keys() == {"retries"}
    assert tools["confirm"].output_schema is not None
    assert tools["confirm"].output_schema["properties"]["result"] == {"title": "Result", "type": "string"}


async def test_message_comes_from_the_call_then_form_then_docstring(connect, era):
    scripted = ScriptedUser(accept(colour="g"), accept(name="Ann", age=3))
    async with connect(server, era, scripted) as client:
        assert await call(client, "colour") == (False, "g")
        assert await call(client, "profile") == (False, "Ann/3/False")
    assert [q.message for q in scripted.questions] == ["Pick a colour", "Tell us about yourself."]


async def test_titled_enums_travel_in_the_shape_of_the_negotiated_era(connect, era):
    scripted = ScriptedUser(accept(colour="r"))
    async with connect(server, era, scripted) as client:
        assert await call(client, "colour") == (False, "r")
    prop = scripted.questions[0].requested_schema["properties"]["colour"]
    if era == "2025-06-18":
        assert prop == {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]}
    else:
        assert prop == {
            "type": "string",
            "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}],
        }


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"name": "A", "age": True}, "age: expected a number, got a boolean"),
        ({"name": "A", "age": 3, "newsletter": 1}, "newsletter: expected true or false, got a number"),
        ({"name": "A", "age": 3, "extra": "x"}, "extra: was not asked for"),
        ({}, "name: Field required"),
    ],
)
async def test_answers_are_revalidated_strictly_on_arrival(connect, era, content, problem):
    async with connect(server, era, ScriptedUser(send_raw({**content}))) as client:
        is_error, text = await call(client, "profile")
    assert is_error
    assert problem in text


async def test_numeric_strings_count_as_numbers(connect, era):
    async with connect(server, era, ScriptedUser(accept(name="Ann", age="42", newsletter=True))) as client:
        assert await call(client, "profile") == (False, "Ann/42/True")


@pytest.mark.parametrize("age", [" 7 ", "1_0", "+7", "07", "NaN", "Infinity", "7.5"])
async def test_numeric_strings_outside_the_json_number_grammar_are_refused(connect, era, age):
    async with connect(server, era, ScriptedUser(send_raw({"name": "Ann", "age": age}))) as client:
        is_error, text = await call(client, "profile")
    assert is_error
    if age == "7.5":
        assert "age: expected a whole number, got a fraction" in text
    else:
        assert "age: expected a number, got a string that is not a JSON number" in text


async def test_missing_capability_raises_elicitation_unsupported(connect, era):
    async with connect(server, era) as client:
        if era == "2026-07-28":
            with pytest.raises(MCPError) as caught, anyio.fail_after(BOUND):
                await client.call_tool("confirm", {"path": "p"})
            assert caught.value.code == MISSING_REQUIRED_CLIENT_CAPABILITY
            assert caught.value.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}
            text = caught.value.message
        else:
            is_error, text = await call(client, "confirm", {"path": "p"})
            assert is_error
    assert (
        "ElicitationUnsupported: cannot ask for Confirm: the client did not declare the elicitation" in text
    )


async def test_unsupported_policy_can_use_defaults_or_decline(connect, era):
    async with connect(server, era) as client:
        assert await call(client, "sized") == (False, "x3")
        assert await call(client, "polite") == (False, "declined")


async def test_defaults_policy_still_fails_when_a_field_has_no_default(connect, era):
    async with connect(server, era) as client:
        if era == "2026-07-28":
            with pytest.raises(MCPError) as caught, anyio.fail_after(BOUND):
                await client.call_tool("needy", {})
            text = caught.value.message
        else:
            text = (await call(client, "needy"))[1]
    assert "has none for age, name" in text


async def test_capable_client_is_asked_even_when_a_policy_is_set(connect, era):
    async with connect(server, era, ScriptedUser(accept(size=9, label="y"))) as client:
        assert await call(client, "sized") == (False, "y9")


async def test_once_runs_a_side_effect_once_across_rounds(connect, era):
    SIDE_EFFECTS.clear()
    async with connect(server, era, ScriptedUser(accept(confirm=False), decline())) as client:
        assert await call(client, "two_steps") == (False, "123456 Accepted Declined")
    assert SIDE_EFFECTS == ["sent"]


async def test_the_same_tool_code_runs_three_rounds_on_2026_07_28_only(connect, era):
    async with connect(server, era, ScriptedUser(accept(confirm=True), accept())) as client:
        rounds = 0
        original = client.session.call_tool

        async def counting(*args: object, **kwargs: object) -> object:
            nonlocal rounds
            rounds += 1
            return await original(*args, **kwargs)  # type: ignore[arg-type]

        client.session.call_tool = counting  # type: ignore[method-assign]
        assert await call(client, "two_steps") == (False, "123456 Accepted Accepted")
    assert rounds == (3 if era == "2026-07-28" else 1)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_late_answer_on_2026_07_28_is_an_elicitation_timeout(connect, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(clock_module, "now", clock)

    async def slow(params: ElicitRequestFormParams):
        clock.now += 301
        return accept(confirm=True)

    async with connect(server, "2026-07-28", ScriptedUser(slow)) as client:
        is_error, text = await call(client, "confirm", {"path": "p"})
    assert is_error
    assert "ElicitationTimeout: the answer to Confirm arrived 301 s after it was asked" in text


def test_eras_cover_every_supported_revision():
    from typed_elicit import PROTOCOL_VERSIONS

    assert tuple(PROTOCOL_VERSIONS) == ERAS
