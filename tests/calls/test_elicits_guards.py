"""Guards around `@elicits` and `ctx.elicit`: mistakes fail early, loudly, and name their fix.

Issue 9, items 10 to 13 and the smaller argument checks: models refused by the negotiated
revision, a misplaced decorator, concurrent or swallowed questions, policies that cannot
apply, blank messages, swapped arguments, and URLs whose query must never be repeated.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import sys
import traceback
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, InputRequiredResult, TextContent
from pydantic import BaseModel, Field

import typed_elicit._calls.signals as signals_module
from tests.conftest import BOUND, ERAS, serve_http
from typed_elicit import install_fallback
from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.elicits import elicits
from typed_elicit._calls.settle import failed, settled
from typed_elicit._calls.signals import FallbackRequired, InputRequired
from typed_elicit._cli import EXIT_OK, EXIT_PROBLEMS, main
from typed_elicit.errors import ElicitArgumentError, ElicitationUnsupported, ElicitUsageError
from typed_elicit.testing import ScriptedUser, accept

pytestmark = pytest.mark.anyio

# Built in from Python 3.11 (anyio uses a backport before); only the unit tests of `_settle` build them.
BaseExceptionGroup = getattr(builtins, "BaseExceptionGroup", None)
ExceptionGroup = getattr(builtins, "ExceptionGroup", None)
needs_groups = pytest.mark.skipif(sys.version_info < (3, 11), reason="builds exception groups directly")


async def _settle(call: Awaitable[Any], created: list[BaseException], name: str) -> Any:
    """What `@elicits` does with the body it awaits: `settled` if it returns, `failed` if it raises."""
    try:
        value = await call
    except BaseException as exc:
        return failed(exc, created, name)
    return settled(value, created, name)


class Confirm(BaseModel):
    confirm: bool


class Picks(BaseModel):
    """Pick any."""

    picks: list[Literal["a", "b"]] = Field(default_factory=list)


class Profile(BaseModel):
    name: str
    age: int
    newsletter: bool = False


SIDE_EFFECTS: list[str] = []

server = MCPServer("guards")


@server.tool()
@elicits(Confirm, Picks)
async def wizard(ctx: ElicitContext) -> str:
    SIDE_EFFECTS.append("started")
    first = await ctx.elicit(Confirm, "Step 1?")
    second = await ctx.elicit(Picks, "Step 2?")
    return f"{type(first).__name__} {type(second).__name__}"


@server.tool()
@elicits
async def both(ctx: ElicitContext) -> str:
    answers: list[str] = []

    async def ask(message: str) -> None:
        answers.append(f"{message}:{type(await ctx.elicit(Confirm, message)).__name__}")

    async with anyio.create_task_group() as tg:
        tg.start_soon(ask, "one")
        tg.start_soon(ask, "two")
    return ",".join(sorted(answers))


@server.tool()
@elicits
async def beside_a_heartbeat(ctx: ElicitContext, in_child: bool = False) -> str:
    answers: list[str] = []

    async def ask() -> None:
        answers.append(type(await ctx.elicit(Confirm, "Alone?")).__name__)

    async with anyio.create_task_group() as tg:
        tg.start_soon(anyio.sleep_forever)  # a sibling that never asks
        if in_child:
            async with anyio.create_task_group() as inner:
                inner.start_soon(ask)
        else:
            await ask()
        tg.cancel_scope.cancel()
    return ",".join(answers)


@server.tool()
@elicits
async def swallowing(ctx: ElicitContext) -> str:
    try:
        await ctx.elicit(Confirm, "Swallowed?")
    except BaseException:
        return "carried on"
    return "asked"


@server.tool()
@elicits
async def bare_except(ctx: ElicitContext) -> str:
    try:
        await ctx.elicit(Confirm, "Swallowed?")
    except:  # noqa: E722 - the mistake under test
        raise RuntimeError("something else") from None
    return "asked"


@server.tool()
@elicits
async def swallow_then_ask(ctx: ElicitContext) -> str:
    with contextlib.suppress(BaseException):  # the mistake under test
        await ctx.elicit(Confirm, "First?")
    await ctx.elicit(Confirm, "Second?")
    return "asked"


@server.tool()
@elicits
async def cleans_up(ctx: ElicitContext) -> str:
    try:
        result = await ctx.elicit(Confirm, "Clean?")
    except BaseException:
        SIDE_EFFECTS.append("cleaned")
        raise
    return type(result).__name__


@server.tool()
@elicits
async def ping(ctx: ElicitContext) -> str:
    return "pong"


@server.tool()
@elicits(on_unsupported="defaults")
async def needy(ctx: ElicitContext) -> str:
    await ctx.elicit(Profile)
    return "unreachable"


@server.tool()
@elicits
async def strict(ctx: ElicitContext) -> str:
    await ctx.elicit(Confirm, "Go?")
    return "unreachable"


@server.prompt()
@elicits
async def strict_prompt(ctx: ElicitContext) -> str:
    await ctx.elicit(Confirm, "Go?")
    return "unreachable"


@server.prompt()
@elicits(on_unsupported="fallback")
async def fallback_prompt(ctx: ElicitContext) -> str:
    SIDE_EFFECTS.append("prompt body")
    return type(await ctx.elicit(Confirm, "Greet?")).__name__


@server.resource("guard://{name}")
@elicits(on_unsupported="fallback")
async def fallback_resource(name: str, ctx: ElicitContext) -> str:
    SIDE_EFFECTS.append("resource body")
    return type(await ctx.elicit(Confirm, "Read?")).__name__


@server.prompt()
@elicits
async def fallback_per_call(ctx: ElicitContext) -> str:
    try:
        await ctx.elicit(Confirm, "Greet?", on_unsupported="fallback")
    except ElicitArgumentError as exc:
        return str(exc)
    return "asked"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    SIDE_EFFECTS.clear()


async def call(client: object, name: str) -> tuple[bool, str]:
    with anyio.fail_after(BOUND):
        result = await client.call_tool(name, {})  # type: ignore[attr-defined]
    assert isinstance(result, CallToolResult)
    assert isinstance(result.content[0], TextContent)
    return bool(result.is_error), result.content[0].text


async def outcome(client: object, name: str) -> str:
    """The text a tool call ends with: its result, or the error the client saw (any era)."""
    try:
        return (await call(client, name))[1]
    except MCPError as exc:
        return exc.message


# --- item 10: the models of @elicits meet the negotiated revision before the body runs ---------------


async def test_a_model_the_revision_refuses_fails_before_the_body_runs(connect, era):
    scripted = ScriptedUser(accept(confirm=True), accept(picks=["a"]))
    async with connect(server, era, scripted) as client:
        is_error, text = await call(client, "wizard")
    if era == "2025-06-18":
        assert is_error
        assert text.startswith("Error executing tool wizard: SchemaError: Picks cannot be elicited")
        assert "Picks.picks: multi-select fields need protocol 2025-11-25 or later" in text
        assert SIDE_EFFECTS == []
        assert scripted.questions == []
    else:
        assert (is_error, text) == (False, "Accepted Accepted")
        assert (["started"] * (3 if era == "2026-07-28" else 1)) == SIDE_EFFECTS


def test_the_wrapper_exposes_the_models_it_names():
    assert wizard.__typed_elicit_models__ == (Confirm, Picks)  # type: ignore[attr-defined]
    assert ping.__typed_elicit_models__ == ()  # type: ignore[attr-defined]


class More(BaseModel):
    more: list[Literal["x", "y"]]


async def test_several_refused_models_are_reported_together(connect):
    several = MCPServer("several")

    @several.tool()
    @elicits(Picks, More, Confirm, Picks)
    async def tool(ctx: ElicitContext) -> str:
        SIDE_EFFECTS.append("body")
        return ""

    assert tool.__typed_elicit_models__ == (Picks, More, Confirm)  # type: ignore[attr-defined]
    async with connect(several, "2025-06-18") as client:
        is_error, text = await call(client, "tool")
    assert is_error
    assert "SchemaError: Picks, More cannot be elicited (2 problems):" in text
    assert "  - Picks.picks: multi-select fields need protocol 2025-11-25 or later" in text
    assert "  - More.more: multi-select fields need protocol 2025-11-25 or later" in text
    assert SIDE_EFFECTS == []


GUARDED_MODULE = """
from typing import Literal
from pydantic import BaseModel, Field
from mcp.server.mcpserver import MCPServer
from typed_elicit import ElicitContext, elicits, form

server = MCPServer("checked")

class Tags(BaseModel):
    tags: list[Literal["a", "b"]] = Field(default_factory=list)

@form
class Fine(BaseModel):
    name: str

class Hidden(BaseModel):
    kinds: list[Literal["x", "y"]]

@server.tool()
@elicits(Tags, Fine)
async def tag(ctx: ElicitContext) -> str:
    return ""

def register(server):
    @server.tool()
    @elicits(Hidden)
    async def hidden(ctx: ElicitContext) -> str:
        return ""

register(server)

@server.prompt()
@elicits(on_unsupported="fallback")
async def greet(ctx: ElicitContext) -> str:
    return ""

@server.resource("note://{name}")
@elicits(on_unsupported="fallback")
async def note(name: str, ctx: ElicitContext) -> str:
    return ""
"""


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def test_check_reports_each_revision_refusing_a_model_named_in_elicits(tmp_path: Path):
    (tmp_path / "guarded.py").write_text(GUARDED_MODULE)

    code, out = run_cli("check", f"{tmp_path}/guarded.py")

    lines = out.splitlines()
    assert code == EXIT_PROBLEMS
    assert any(":Tags [2025-06-18]: Tags.tags: multi-select fields need protocol" in line for line in lines)
    assert any(":Hidden [2025-06-18]: Hidden.kinds: multi-select" in line for line in lines)
    assert any(
        line.startswith(
            f"{tmp_path}/guarded.py:greet: @elicits(on_unsupported='fallback') on the prompt 'greet': the "
            "fallback re-runs a tool call, so it works for tools only"
        )
        for line in lines
    )
    assert any(
        line.startswith(
            f"{tmp_path}/guarded.py:note: @elicits(on_unsupported='fallback') on the resource template "
            "'note://{name}'"
        )
        for line in lines
    )
    assert lines[-1] == "checked 3 form model(s) on 2025-06-18, 2025-11-25, 2026-07-28: 4 problems"


def test_check_passes_the_same_module_on_the_revisions_that_accept_its_models(tmp_path: Path):
    (tmp_path / "guarded.py").write_text(GUARDED_MODULE.split("@server.prompt()")[0])

    code, out = run_cli("check", f"{tmp_path}/guarded.py", "--protocol", "2025-11-25")

    assert code == EXIT_OK
    assert out.endswith("checked 3 form model(s) on 2025-11-25: 0 problems\n")


# --- item 11: a misplaced or forgotten @elicits says what to do ----------------------------------


def _register(kind: str, target: MCPServer) -> object:
    return {"tool": target.tool(), "prompt": target.prompt()}[kind]


@pytest.mark.parametrize("kind", ["tool", "prompt"])
def test_forgetting_elicits_names_the_fix_at_registration(kind):
    async def book(city: str, ctx: ElicitContext) -> str:
        return city

    with pytest.raises(ElicitUsageError, match=r"parameter 'ctx' is annotated ElicitContext") as caught:
        _register(kind, MCPServer("x"))(book)  # type: ignore[operator]
    assert "put @elicits directly under the SDK's decorator (and not above it)" in str(caught.value)
    assert (caught.value.problem, caught.value.subject) == ("unwrapped", "ctx")


@pytest.mark.parametrize("kind", ["tool", "prompt"])
def test_elicits_above_the_sdk_decorator_names_the_fix_at_registration(kind):
    async def book(city: str, ctx: ElicitContext) -> str:
        return city

    with pytest.raises(ElicitUsageError, match=r"put @elicits directly under the SDK's decorator"):
        elicits(_register(kind, MCPServer("x"))(book))  # type: ignore[operator]


def test_a_resource_template_without_elicits_is_refused_by_the_sdk_naming_the_parameter():
    """The SDK compares URI and parameters before anything of ours runs (documented in elicit.md)."""

    async def note(name: str, ctx: ElicitContext) -> str:
        return name

    with pytest.raises(ValueError, match=r"function parameters \{.*'ctx'.*\}"):
        MCPServer("x").resource("note://{name}")(note)
    with pytest.raises(ValueError, match=r"function parameters \{.*'ctx'.*\}"):
        elicits(MCPServer("x").resource("note://{name}")(note))


# --- item 12: concurrent questions -----------------------------------------------------------------


async def test_concurrent_questions_travel_in_one_round_on_2026_07_28_and_the_server_carries_on(connect):
    scripted = ScriptedUser(accept(confirm=True), accept(confirm=True), accept(confirm=True))
    async with connect(server, "2026-07-28", scripted) as client:
        assert await call(client, "both") == (False, "one:Accepted,two:Accepted")
        assert await call(client, "ping") == (False, "pong")
        assert await call(client, "cleans_up") == (False, "Accepted")
    assert sorted(q.message for q in scripted.questions) == ["Clean?", "one", "two"]


async def test_concurrent_questions_over_http_are_answered_not_a_500(connect):
    scripted = ScriptedUser(accept(confirm=True), accept(confirm=True))
    async with serve_http(server) as url, connect(url, "2026-07-28", scripted) as client:
        assert await call(client, "both") == (False, "one:Accepted,two:Accepted")
        assert await call(client, "ping") == (False, "pong")


async def test_concurrent_questions_are_separate_requests_on_push_eras(connect, push_era):
    scripted = ScriptedUser(accept(confirm=True), accept(confirm=False))
    async with connect(server, push_era, scripted) as client:
        assert await call(client, "both") == (False, "one:Accepted,two:Accepted")
    assert sorted(q.message for q in scripted.questions) == ["one", "two"]


@pytest.mark.parametrize("in_child", [False, True])
async def test_a_lone_question_inside_a_task_group_is_asked_on_every_era(connect, era, in_child):
    scripted = ScriptedUser(accept(confirm=True))
    async with connect(server, era, scripted) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("beside_a_heartbeat", {"in_child": in_child})
    assert not result.is_error
    assert result.structured_content == {"result": "Accepted"}
    assert [q.message for q in scripted.questions] == ["Alone?"]


def _suspension() -> InputRequired:
    return InputRequired(InputRequiredResult(input_requests={}, request_state="s"))


async def _raising(exc: BaseException) -> None:
    raise exc


@needs_groups
async def test_a_sibling_failure_beside_a_suspension_surfaces_without_the_internal_signal():
    asked = _suspension()
    with pytest.raises(ValueError, match="boom"):
        await _settle(_raising(BaseExceptionGroup("g", [asked, ValueError("boom")])), [asked], "f")
    failures = ExceptionGroup("inner", [ValueError("a"), KeyError("b")])
    with pytest.raises(ExceptionGroup) as caught:
        await _settle(_raising(BaseExceptionGroup("g", [asked, failures])), [asked], "f")
    assert not caught.value.subgroup((InputRequired, FallbackRequired))


@needs_groups
async def test_a_group_without_suspensions_passes_through_unless_one_was_swallowed():
    group = ExceptionGroup("g", [ValueError("a")])
    with pytest.raises(ExceptionGroup):
        await _settle(_raising(group), [], "f")
    with pytest.raises(ElicitUsageError, match="f swallowed the signal"):
        await _settle(_raising(group), [_suspension()], "f")


@needs_groups
async def test_concurrent_questions_through_the_fallback_carry_their_problem_and_function():
    asked = [FallbackRequired(CallToolResult(content=[])), FallbackRequired(CallToolResult(content=[]))]
    with pytest.raises(ElicitUsageError) as caught:
        await _settle(_raising(BaseExceptionGroup("g", asked)), list(asked), "book")
    assert (caught.value.problem, caught.value.subject) == ("concurrent", "book")
    assert str(caught.value).startswith("book asked 2 questions at the same time")


@needs_groups
async def test_a_nested_lone_suspension_is_the_round():
    asked = _suspension()
    nested = BaseExceptionGroup("outer", [BaseExceptionGroup("inner", [asked])])
    assert await _settle(_raising(nested), [asked], "f") is asked.result
    with pytest.raises(ElicitUsageError, match="swallowed"):
        await _settle(_raising(nested), [_suspension(), asked], "f")


# --- item 13: a swallowed question fails loudly ----------------------------------------------------


@pytest.mark.parametrize("tool", ["swallowing", "bare_except", "swallow_then_ask"])
async def test_swallowing_the_signal_of_ctx_elicit_fails_loudly_on_2026_07_28(connect, era, tool):
    scripted = ScriptedUser(accept(confirm=True), accept(confirm=True))
    async with connect(server, era, scripted) as client:
        is_error, text = await call(client, tool)
    if era == "2026-07-28":
        assert is_error
        assert f"ElicitUsageError: {tool} swallowed the signal with which ctx.elicit ends a round" in text
        assert "Catch `Exception` (or the typed_elicit errors) instead, or re-raise it" in text
        assert scripted.questions == []
    else:
        assert (is_error, text) == (False, "asked")
        assert len(scripted.questions) == (2 if tool == "swallow_then_ask" else 1)


async def test_re_raising_the_signal_after_cleaning_up_asks_normally(connect, era):
    async with connect(server, era, ScriptedUser(accept(confirm=True))) as client:
        assert await call(client, "cleans_up") == (False, "Accepted")
    assert (["cleaned"] if era == "2026-07-28" else []) == SIDE_EFFECTS


# --- smaller things: policies ------------------------------------------------------------------------


async def test_defaults_without_a_default_advise_giving_defaults_not_passing_defaults(connect, era):
    async with connect(server, era) as client:
        text = await outcome(client, "needy")
    assert (
        "on_unsupported='defaults' needs a default for every field, but Profile has none for age, name"
        in text
    )
    assert "Give those fields defaults, or pass on_unsupported='decline' or 'fallback'" in text
    assert "Pass on_unsupported='defaults'" not in text
    assert "install_fallback(server)" in text


async def test_the_unsupported_advice_offers_the_fallback_to_tools_only(connect, era):
    async with connect(server, era) as client:
        tool_text = await outcome(client, "strict")
        with pytest.raises(MCPError) as caught, anyio.fail_after(BOUND):
            await client.get_prompt("strict_prompt", {})
    assert "ElicitationUnsupported: cannot ask for Confirm" in tool_text
    assert "'defaults', 'decline' or 'fallback'" in tool_text
    assert "needs install_fallback(server)" in tool_text
    assert "cannot ask for Confirm" in caught.value.message
    # Every era knows the call serves a prompt: the fallback is not advised there.
    assert "'defaults' or 'decline' to ctx.elicit" in caught.value.message
    assert "fallback" not in caught.value.message


@pytest.mark.parametrize("era", ERAS)
async def test_fallback_on_a_prompt_or_resource_is_refused_before_the_body_runs(connect, era):
    async with connect(server, era, ScriptedUser(accept(confirm=True), accept(confirm=True))) as client:
        with pytest.raises(MCPError) as prompt_error, anyio.fail_after(BOUND):
            await client.get_prompt("fallback_prompt", {})
        with pytest.raises(MCPError) as resource_error, anyio.fail_after(BOUND):
            await client.read_resource("guard://bob")
    assert "ElicitArgumentError: @elicits got on_unsupported='fallback' in fallback_prompt" in (
        prompt_error.value.message
    )
    assert "which is not a tool but serves prompts/get" in prompt_error.value.message
    assert "serves resources/read" in resource_error.value.message
    assert SIDE_EFFECTS == []


async def test_fallback_passed_to_ctx_elicit_in_a_prompt_is_an_argument_error(connect, era):
    scripted = ScriptedUser(accept(confirm=True))
    async with connect(server, era, scripted) as client:
        with anyio.fail_after(BOUND):
            result = await client.get_prompt("fallback_per_call", {})
    content = result.messages[0].content
    assert isinstance(content, TextContent)
    assert "on_unsupported='fallback' in fallback_per_call, which is not a tool" in content.text
    assert scripted.questions == []


async def test_the_fallback_still_serves_tools(connect, era):
    fallback_server = MCPServer("fallback")
    install_fallback(fallback_server)

    @fallback_server.tool()
    @elicits(on_unsupported="fallback")
    async def relayed(ctx: ElicitContext) -> str:
        return type(await ctx.elicit(Confirm, "Relay?")).__name__

    async with connect(fallback_server, era) as client:
        is_error, text = await call(client, "relayed")
    assert is_error  # the fallback's result asks the model to relay the question
    assert "Relay?" in text
    assert "ElicitUsageError" not in text


# --- smaller things: arguments -----------------------------------------------------------------------


def outside() -> ElicitContext:
    return ElicitContext(Context())


@pytest.mark.parametrize("message", ["", " ", "\n\t "])
async def test_a_blank_message_is_refused_at_the_call(message):
    with pytest.raises(ElicitArgumentError, match=r"ctx\.elicit got a blank message for Confirm"):
        await outside().elicit(Confirm, message)


async def test_a_message_that_is_not_text_is_refused_at_the_call():
    with pytest.raises(ElicitArgumentError, match="needs the message for Confirm as a string, got int"):
        await outside().elicit(Confirm, 3)  # type: ignore[arg-type]


async def test_the_sdk_argument_order_gets_a_hint():
    with pytest.raises(
        ElicitArgumentError, match=r'model first and the message second: ctx.elicit\(Confirm, "..."\)'
    ):
        await outside().elicit("Sure?", Confirm)  # type: ignore[arg-type]


@pytest.mark.parametrize("model", [dict, "Confirm", None])
async def test_something_else_than_a_model_is_refused_naming_it(model):
    with pytest.raises(ElicitArgumentError, match=r"needs a pydantic\.BaseModel subclass to ask for, got"):
        await outside().elicit(model)  # type: ignore[arg-type]


async def test_a_message_is_still_optional():
    with pytest.raises(ElicitationUnsupported, match="it is not running inside a request"):
        await outside().elicit(Confirm)


SECRET = "tok_9f8e7d6c5b4a"


@pytest.mark.parametrize(
    "url",
    [
        f"https://ann:pw@example.com/cb?token={SECRET}#state={SECRET}",
        f"ftp://files.example.com/x?token={SECRET}",
        f"example.com/login?token={SECRET}",
        f"javascript:alert(1)#{SECRET}",
        f"https://example.com:99999/x?token={SECRET}",
        f"https://[::1/x?token={SECRET}",
    ],
)
async def test_a_refused_url_never_repeats_its_query_or_fragment(url):
    with pytest.raises(ElicitArgumentError, match=r"ctx\.elicit_url") as caught:
        await outside().elicit_url(url, "Open it.")
    shown = "".join(traceback.format_exception(caught.value))
    assert SECRET not in shown
    assert "pw" not in str(caught.value)


async def test_a_refused_url_still_shows_where_it_points():
    with pytest.raises(ElicitArgumentError, match="absolute https://") as caught:
        await outside().elicit_url(f"ftp://files.example.com/x?token={SECRET}", "Open it.")
    assert "got 'ftp://files.example.com/x?***'" in str(caught.value)


def test_an_internal_signal_made_outside_a_call_is_not_tracked():
    assert signals_module.suspensions.get() is None
    FallbackRequired(CallToolResult(content=[]))
    assert signals_module.suspensions.get() is None


async def test_outside_a_request_a_fallback_function_runs_and_its_policy_decides():
    @elicits(on_unsupported="fallback")
    async def tool(ctx: ElicitContext) -> str:
        SIDE_EFFECTS.append("body")
        return type(await ctx.elicit(Confirm, "Go?")).__name__

    with pytest.raises(ElicitationUnsupported, match="it is not running inside a request") as caught:
        await tool(ctx=Context())  # type: ignore[arg-type]
    assert SIDE_EFFECTS == ["body"]
    assert "fallback" not in str(caught.value).split(". Pass")[1]
