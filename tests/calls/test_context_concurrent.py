"""Several questions at once: concurrent `ctx.elicit` calls and `ctx.elicit_all`, on every era."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CallToolResult,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    TextContent,
)
from pydantic import BaseModel, Field

import typed_elicit._core.clock as clock_module
from tests.conftest import BOUND
from typed_elicit import Accepted, ElicitContext, elicits, install_fallback
from typed_elicit.errors import ElicitArgumentError


class Name(BaseModel):
    """Your name?"""

    name: str


class Age(BaseModel):
    """Your age?"""

    age: int = Field(ge=0)


class Town(BaseModel):
    """Your town?"""

    town: str


pytestmark = pytest.mark.anyio

RUNS: list[str] = []
SECOND: list[type[BaseModel]] = [Age]

server = MCPServer("concurrent")
install_fallback(server)


def shown(result: object) -> str:
    if isinstance(result, Accepted):
        return "/".join(str(value) for value in result.data.model_dump().values())  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType, reportUnknownVariableType]
    return type(result).__name__


@server.tool()
@elicits
async def both(ctx: ElicitContext) -> str:
    RUNS.append("both")
    name, age = await ctx.elicit_all(Name, SECOND[0], retries=1)
    return f"{shown(name)} {shown(age)}"


@server.tool()
@elicits
async def grouped(ctx: ElicitContext) -> str:
    RUNS.append("grouped")
    answers: dict[str, str] = {}

    async def ask(model: type[BaseModel]) -> None:
        answers[model.__name__] = shown(await ctx.elicit(model))

    async with anyio.create_task_group() as group:
        group.start_soon(ask, Name)
        group.start_soon(ask, Age)
    return f"{answers['Name']} {answers['Age']}"


@server.tool()
@elicits
async def one_by_one(ctx: ElicitContext) -> str:
    RUNS.append("one_by_one")
    name = await ctx.elicit(Name)
    age = await ctx.elicit(Age)
    return f"{shown(name)} {shown(age)}"


@server.tool()
@elicits(on_unsupported="fallback")
async def through_the_model(ctx: ElicitContext) -> str:
    name, age = await ctx.elicit_all(Name, Age)
    return f"{shown(name)} {shown(age)}"


class Answers:
    """A client that answers each question by the field it asks for, and records what it was asked."""

    def __init__(self, **replies: list[ElicitResult]) -> None:
        self.replies = replies
        self.asked: list[str] = []

    async def __call__(self, context: Any, params: ElicitRequestFormParams) -> ElicitResult:
        field = next(iter(params.requested_schema["properties"]))
        self.asked.append(field)
        return self.replies[field].pop(0)


def accept(**content: Any) -> ElicitResult:
    return ElicitResult(action="accept", content=content)


@pytest.fixture(autouse=True)
def _fresh() -> None:
    RUNS.clear()
    SECOND[:] = [Age]


async def run(client: Client, tool: str) -> str:
    with anyio.fail_after(BOUND):
        result = await client.call_tool(tool, {})
    assert isinstance(result.content[0], TextContent)
    assert not result.is_error, result.content[0].text
    return result.content[0].text


async def with_client(era: str, answers: Answers, tool: str, connect: Any) -> str:
    async with connect(server, era, answers) as client:
        return await run(client, tool)


@pytest.mark.parametrize("tool", ["both", "grouped"])
async def test_each_answer_reaches_its_own_question_on_every_era(connect, era, tool):
    answers = Answers(name=[accept(name="Ada")], age=[accept(age=36)])

    assert await with_client(era, answers, tool, connect) == "Ada 36"
    assert sorted(answers.asked) == ["age", "name"]


@pytest.mark.parametrize("tool", ["both", "grouped"])
async def test_declining_one_of_two_leaves_the_other_answered(connect, era, tool):
    answers = Answers(name=[ElicitResult(action="decline")], age=[accept(age=36)])

    assert await with_client(era, answers, tool, connect) == "Declined 36"


async def test_an_invalid_answer_re_asks_only_its_own_question(connect, era):
    answers = Answers(name=[accept(name="Ada")], age=[accept(age=-1), accept(age=36)])

    assert await with_client(era, answers, "both", connect) == "Ada 36"
    assert sorted(answers.asked) == ["age", "age", "name"]


async def test_two_questions_asked_together_take_one_round_on_2026_07_28(connect):
    answers = Answers(name=[accept(name="Ada"), accept(name="Ada")], age=[accept(age=36), accept(age=36)])
    async with connect(server, "2026-07-28", answers) as client:
        assert await run(client, "both") == "Ada 36"
        assert RUNS == ["both", "both"]  # one round, then the answered run
        RUNS.clear()
        assert await run(client, "one_by_one") == "Ada 36"
        assert RUNS == ["one_by_one"] * 3  # asked one after another: two rounds


async def test_one_input_required_result_carries_both_questions_under_stable_keys():
    async with Client(server, mode="auto", elicitation_callback=Answers()) as client:
        session = client.session
        with anyio.fail_after(BOUND):
            first = await session.call_tool("both", {}, allow_input_required=True)
            assert isinstance(first, InputRequiredResult)
            assert sorted(first.input_requests or {}) == ["q0", "q1"]
            again = await session.call_tool(
                "both",
                {},
                input_responses={"q0": accept(name="Ada")},
                request_state=first.request_state,
                allow_input_required=True,
            )
            assert isinstance(again, InputRequiredResult)  # q1 still pending, under the same key
            assert sorted(again.input_requests or {}) == ["q1"]
            done = await session.call_tool(
                "both",
                {},
                input_responses={"q1": accept(age=36)},
                request_state=again.request_state,
                allow_input_required=True,
            )
    assert isinstance(done, CallToolResult)
    assert isinstance(done.content[0], TextContent)
    assert done.content[0].text == "Ada 36"


async def test_a_re_run_that_asks_other_batched_questions_is_a_replay_mismatch():
    async with Client(server, mode="auto", elicitation_callback=Answers()) as client:
        session = client.session
        with anyio.fail_after(BOUND):
            first = await session.call_tool("both", {}, allow_input_required=True)
            assert isinstance(first, InputRequiredResult)
            SECOND[:] = [Town]  # the tool now asks something else in the second place
            done = await session.call_tool(
                "both",
                {},
                input_responses={"q0": accept(name="Ada"), "q1": accept(age=36)},
                request_state=first.request_state,
                allow_input_required=True,
            )
    assert isinstance(done, CallToolResult)
    assert done.is_error
    assert isinstance(done.content[0], TextContent)
    assert "ReplayMismatch" in done.content[0].text
    assert "Town" in done.content[0].text


async def test_elicit_all_through_the_fallback_says_it_asks_one_question_at_a_time(connect, era):
    async with connect(server, era, None) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("through_the_model", {})
    assert result.is_error
    assert isinstance(result.content[0], TextContent)
    assert "asked 2 questions at the same time" in result.content[0].text
    assert "through the fallback" in result.content[0].text


async def test_elicit_all_without_a_model_is_a_value_error():
    from typed_elicit._calls.context import ElicitContext as Context

    ctx = Context.__new__(Context)
    with pytest.raises(ElicitArgumentError, match=r"ctx.elicit_all needs at least one model"):
        await ctx.elicit_all()


async def test_a_resent_batched_round_is_refused_for_the_question_it_answered():
    async with Client(server, mode="auto", elicitation_callback=Answers()) as client:
        session = client.session
        with anyio.fail_after(BOUND):
            first = await session.call_tool("both", {}, allow_input_required=True)
            assert isinstance(first, InputRequiredResult)
            answers = {"q0": accept(name="Ada"), "q1": accept(age=36)}
            done = await session.call_tool(
                "both",
                {},
                input_responses=answers,
                request_state=first.request_state,
                allow_input_required=True,
            )
            assert isinstance(done, CallToolResult)
            assert not done.is_error
            with pytest.raises(MCPError, match="was already answered"):
                await session.call_tool(
                    "both",
                    {},
                    input_responses={"q0": accept(name="Eve"), "q1": accept(age=1)},
                    request_state=first.request_state,
                    allow_input_required=True,
                )


async def test_a_batched_question_past_its_timeout_ends_the_call(monkeypatch: pytest.MonkeyPatch):
    now = [1_000_000.0]
    monkeypatch.setattr(clock_module, "now", lambda: now[0])
    async with Client(server, mode="auto", elicitation_callback=Answers()) as client:
        session = client.session
        with anyio.fail_after(BOUND):
            first = await session.call_tool("both", {}, allow_input_required=True)
            assert isinstance(first, InputRequiredResult)
            now[0] += 10_000  # past the default question timeout
            done = await session.call_tool(
                "both",
                {},
                input_responses={"q0": accept(name="Ada"), "q1": accept(age=36)},
                request_state=first.request_state,
                allow_input_required=True,
            )
    assert isinstance(done, CallToolResult)
    assert done.is_error
    assert isinstance(done.content[0], TextContent)
    assert "ElicitationTimeout" in done.content[0].text
