"""Timeouts, disconnects, replay on 2026-07-28, prompts and resources, and decorator misuse."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequestFormParams, ElicitResult, InputRequiredResult, TextContent
from pydantic import BaseModel

from tests.conftest import BOUND, task_count
from typed_elicit import Accepted
from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.elicits import elicits
from typed_elicit.errors import ElicitArgumentError, SchemaError
from typed_elicit.testing import ScriptedUser, accept, send_raw

pytestmark = pytest.mark.anyio


class Confirm(BaseModel):
    confirm: bool


class Note(BaseModel):
    text: str = "none"


server = MCPServer("lifecycle")
EVENTS: dict[str, anyio.Event] = {}
RUNS: list[int] = []


@server.tool()
@elicits(timeout=0.2)
async def hurried(ctx: ElicitContext, per_call: float | None = None) -> str:
    await ctx.elicit(Confirm, "Quick?", timeout=per_call)
    return "answered"


@server.tool()
@elicits
async def defaulted(ctx: ElicitContext) -> str:
    await ctx.elicit(Confirm, "Default timeout?")
    return "answered"


@server.tool()
@elicits
async def abandoned(ctx: ElicitContext) -> str:
    try:
        await ctx.elicit(Confirm, "Still there?")
        return "answered"
    finally:
        EVENTS["tool_done"].set()


@server.tool()
@elicits
async def drifting(ctx: ElicitContext, drift_on_round: int) -> str:
    """Asks a different first question from round `drift_on_round` on: not deterministic."""
    RUNS.append(1)
    first = Note if len(RUNS) >= drift_on_round else Confirm
    await ctx.elicit(first, "First?")
    await ctx.elicit(Note, "Second?")
    return "done"


@server.tool()
@elicits
async def confirm(ctx: ElicitContext) -> str:
    match await ctx.elicit(Confirm, "Sure?"):
        case Accepted(Confirm(confirm=yes)):
            return f"confirm={yes}"
        case _:
            return "no answer"


@server.prompt()
@elicits
async def greet(topic: str, ctx: ElicitContext) -> str:
    match await ctx.elicit(Note, "What should I say?"):
        case Accepted(Note(text=text)):
            return f"{topic}: {text}"
        case _:
            return f"{topic}: nothing"


@server.resource("note://{name}")
@elicits
async def note(name: str, ctx: ElicitContext) -> str:
    match await ctx.elicit(Note, f"Note for {name}?"):
        case Accepted(Note(text=text)):
            return f"{name}={text}"
        case _:
            return f"{name}=?"


def forever(started: anyio.Event, stopped: anyio.Event) -> Any:
    async def reply(params: ElicitRequestFormParams) -> ElicitResult:
        started.set()
        try:
            await anyio.Event().wait()
        finally:
            stopped.set()
        raise AssertionError("unreachable")

    return reply


async def test_push_timeout_cancels_the_pending_question_and_leaks_nothing(connect, push_era):
    asked, stopped = anyio.Event(), anyio.Event()
    async with connect(server, push_era, ScriptedUser(forever(asked, stopped))) as client:
        await anyio.wait_all_tasks_blocked()
        baseline = task_count()
        with anyio.fail_after(BOUND):
            result = await client.call_tool("hurried", {})
            await stopped.wait()
        await anyio.wait_all_tasks_blocked()
        assert task_count() == baseline
    assert result.is_error
    assert isinstance(result.content[0], TextContent)
    assert "ElicitationTimeout: no answer to Confirm within 0.2 s" in result.content[0].text
    assert "notifications/cancelled sent" in result.content[0].text


async def test_client_disconnect_mid_question_ends_the_tool_and_leaks_nothing(connect, era):
    EVENTS["tool_done"] = anyio.Event()
    asked, stopped = anyio.Event(), anyio.Event()
    await anyio.wait_all_tasks_blocked()
    before = task_count()

    async def use_then_vanish() -> None:
        async with connect(server, era, ScriptedUser(forever(asked, stopped))) as client:
            await client.call_tool("abandoned", {})

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as tg:
            tg.start_soon(use_then_vanish)
            await asked.wait()
            tg.cancel_scope.cancel()
        await EVENTS["tool_done"].wait()
        await stopped.wait()
    await anyio.wait_all_tasks_blocked()
    assert task_count() == before


async def test_a_different_question_on_replay_is_a_replay_mismatch(connect, era):
    RUNS.clear()
    async with connect(server, era, ScriptedUser(accept(confirm=True), accept(text="t"))) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("drifting", {"drift_on_round": 2})
    assert isinstance(result.content[0], TextContent)
    if era != "2026-07-28":
        assert result.content[0].text == "done"
        return
    assert result.is_error
    text = result.content[0].text
    assert "ReplayMismatch: question #1 of this call was tests.calls.test_context_lifecycle.Confirm" in text
    assert "must be deterministic" in text
    assert "ctx.once" in text


async def test_a_recorded_answer_pinned_to_another_question_is_a_replay_mismatch(connect):
    RUNS.clear()
    async with connect(server, "2026-07-28", ScriptedUser(accept(confirm=True), accept(text="t"))) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("drifting", {"drift_on_round": 3})
    assert result.is_error
    assert isinstance(result.content[0], TextContent)
    assert "ReplayMismatch" in result.content[0].text
    assert len(RUNS) == 3


async def test_a_missing_answer_gets_the_question_asked_again(connect):
    async with connect(server, "2026-07-28", ScriptedUser()) as client:
        session = client.session
        with anyio.fail_after(BOUND):
            first = await session.call_tool("confirm", {}, allow_input_required=True)
            assert isinstance(first, InputRequiredResult)
            assert first.input_requests is not None
            assert first.input_requests.keys() == {"q0"}
            again = await session.call_tool(
                "confirm", {}, request_state=first.request_state, allow_input_required=True
            )
            assert isinstance(again, InputRequiredResult)
            assert again.input_requests is not None
            assert again.input_requests.keys() == {"q0"}
            done = await session.call_tool(
                "confirm",
                {},
                input_responses={"q0": ElicitResult(action="accept", content={"confirm": True})},
                request_state=again.request_state,
            )
    assert isinstance(done.content[0], TextContent)
    assert done.content[0].text == "confirm=True"


async def test_an_answer_to_a_question_never_asked_is_ignored(connect):
    async with connect(server, "2026-07-28", ScriptedUser()) as client:
        with anyio.fail_after(BOUND):
            result = await client.session.call_tool(
                "confirm",
                {},
                input_responses={"q0": ElicitResult(action="accept", content={"confirm": True})},
                allow_input_required=True,
            )
    assert isinstance(result, InputRequiredResult)


async def test_prompts_can_elicit_on_every_era(connect, era):
    async with connect(server, era, ScriptedUser(accept(text="hello"))) as client:
        with anyio.fail_after(BOUND):
            result = await client.get_prompt("greet", {"topic": "news"})
    content = result.messages[0].content
    assert isinstance(content, TextContent)
    assert content.text == "news: hello"


async def test_resource_templates_can_elicit_on_every_era(connect, era):
    async with connect(server, era, ScriptedUser(accept(text="x"))) as client:
        with anyio.fail_after(BOUND):
            result = await client.read_resource("note://bob")
    assert getattr(result.contents[0], "text", None) == "bob=x"


async def test_prompt_errors_reach_the_client_with_their_cause(connect, era):
    async with connect(server, era, ScriptedUser(send_raw({"text": 3}))) as client:
        with pytest.raises(
            MCPError, match=r"InvalidResponse: the answer to Note is invalid: text: expected a string"
        ):
            with anyio.fail_after(BOUND):
                await client.get_prompt("greet", {"topic": "news"})


async def test_resource_errors_reach_the_client_with_their_cause(connect, era):
    async with connect(server, era, ScriptedUser(send_raw({"other": 1}))) as client:
        with pytest.raises(MCPError, match=r"InvalidResponse: .*other: was not asked for"):
            with anyio.fail_after(BOUND):
                await client.read_resource("note://bob")


def test_elicits_rejects_sync_functions():
    def sync(ctx: ElicitContext) -> str:
        return ""

    with pytest.raises(ElicitArgumentError, match="async def"):
        elicits(sync)  # type: ignore[type-var]


def test_elicits_needs_exactly_one_elicit_context_parameter():
    async def none(x: int) -> str:
        return ""

    async def two(a: ElicitContext, b: ElicitContext) -> str:
        return ""

    with pytest.raises(
        ElicitArgumentError, match=r"exactly one parameter annotated ElicitContext \(found none\)"
    ):
        elicits(none)
    with pytest.raises(ElicitArgumentError, match=r"found a, b"):
        elicits(two)


def test_elicits_refuses_a_second_sdk_context_parameter():
    async def both(ctx: ElicitContext, sdk: Context) -> str:  # type: ignore[type-arg]
        return ""

    with pytest.raises(ElicitArgumentError, match=r"\.sdk"):
        elicits(both)


def test_listed_models_are_reduced_at_import():
    class Nested(BaseModel):
        inner: Confirm

    with pytest.raises(SchemaError, match="nested model Confirm"):
        elicits(Nested)
