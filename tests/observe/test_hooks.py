"""Elicitation hooks: what they see, when they run, how they rewrite answers and how they fail."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import TextContent
from pydantic import BaseModel, Field

from tests.conftest import BOUND, ERAS
from typed_elicit import Accepted, ElicitContext, elicits
from typed_elicit.errors import ElicitArgumentError, HookError
from typed_elicit.hooks import AnswerEvent, ElicitHook, QuestionEvent, add_hooks, remove_hooks
from typed_elicit.testing import ScriptedUser, accept, decline, send_raw
from typed_elicit.testing import accept as url_accept

pytestmark = pytest.mark.anyio

URL_ERAS = ERAS[1:]


class Name(BaseModel):
    """Your name?"""

    name: str = Field(min_length=2)


class Age(BaseModel):
    age: int = Field(ge=0)


class Recorder(ElicitHook):
    """Records every event; optionally rewrites or fails."""

    def __init__(self, label: str = "r", log: list[str] | None = None) -> None:
        self.label = label
        self.log = log if log is not None else []
        self.questions: list[QuestionEvent] = []
        self.answers: list[AnswerEvent] = []

    async def on_question(self, event: QuestionEvent) -> None:
        self.questions.append(event)
        self.log.append(f"{self.label}:q")

    async def on_answer(self, event: AnswerEvent) -> dict[str, Any] | None:
        self.answers.append(event)
        self.log.append(f"{self.label}:a")
        return None

    def __repr__(self) -> str:
        return f"Recorder({self.label!r})"


class Strip(ElicitHook):
    async def on_answer(self, event: AnswerEvent) -> dict[str, Any] | None:
        if event.content is None:
            return None
        return {k: v.strip() if isinstance(v, str) else v for k, v in event.content.items()}


class Raising(ElicitHook):
    def __init__(self, stage: str) -> None:
        self.stage = stage

    async def on_question(self, event: QuestionEvent) -> None:
        if self.stage == "on_question":
            raise RuntimeError("audit store down")

    async def on_answer(self, event: AnswerEvent) -> dict[str, Any] | None:
        if self.stage == "on_answer":
            raise RuntimeError("audit store down")
        return None

    def __repr__(self) -> str:
        return "Raising()"


class Returning(ElicitHook):
    def __init__(self, value: object) -> None:
        self.value = value

    async def on_answer(self, event: AnswerEvent) -> dict[str, Any] | None:
        value: Any = self.value
        return value

    def __repr__(self) -> str:
        return "Returning()"


def server_with(*hooks: ElicitHook, retries: int = 0) -> MCPServer:
    server = MCPServer("hooks")

    @server.tool()
    @elicits(hooks=hooks, retries=retries)
    async def greet(ctx: ElicitContext) -> str:
        name = await ctx.elicit(Name)
        if not isinstance(name, Accepted):
            return "no name"
        age = await ctx.elicit(Age, f"How old are you, {name.data.name}?")
        return f"{name.data.name}/{age.data.age}" if isinstance(age, Accepted) else f"{name.data.name}/?"

    @server.tool()
    @elicits(hooks=hooks)
    async def visit(ctx: ElicitContext) -> str:
        return type(await ctx.elicit_url("https://pay.example.com/x", "Pay here.")).__name__

    @server.tool()
    @elicits(hooks=hooks, on_unsupported="decline")
    async def polite(ctx: ElicitContext) -> str:
        return type(await ctx.elicit(Name)).__name__

    return server


async def call(client: Any, name: str) -> tuple[bool, str]:
    with anyio.fail_after(BOUND):
        result = await client.call_tool(name, {})
    assert isinstance(result.content[0], TextContent)
    return bool(result.is_error), result.content[0].text


async def test_hooks_see_each_question_sent_and_each_raw_answer_on_every_era(connect, era):
    hook = Recorder()
    scripted = ScriptedUser(send_raw({"name": "Ann"}), send_raw({"age": "41"}))
    async with connect(server_with(hook), era, scripted) as client:
        assert await call(client, "greet") == (False, "Ann/41")
    first, second = hook.questions
    assert first.function.endswith("greet")
    assert (first.mode, first.model, first.url, first.via, first.attempt) == ("form", Name, None, "client", 0)
    assert first.message == "Your name?"
    assert first.protocol_version == era
    assert first.schema == scripted.questions[0].requested_schema
    assert (second.model, second.message) == (Age, "How old are you, Ann?")
    assert [(a.action, a.content) for a in hook.answers] == [
        ("accept", {"name": "Ann"}),
        ("accept", {"age": "41"}),
    ]
    assert hook.answers[1].question.model is Age


async def test_a_sanitising_hook_rewrites_content_before_validation(connect, era):
    async with connect(
        server_with(Strip()), era, ScriptedUser(accept(name="  Ann  "), accept(age=3))
    ) as client:
        assert await call(client, "greet") == (False, "Ann/3")


async def test_replayed_answers_run_no_hook_and_keep_the_rewritten_content(connect, era):
    hook = Recorder()
    scripted = ScriptedUser(accept(name=" Bo "), accept(age=7))
    async with connect(server_with(Strip(), hook), era, scripted) as client:
        assert await call(client, "greet") == (False, "Bo/7")
    # 2026-07-28 runs the tool three times, yet each question and answer is seen once,
    # and the replayed first answer is the stripped one (the second message says "Bo").
    assert [q.model for q in hook.questions] == [Name, Age]
    assert len(hook.answers) == 2
    assert hook.answers[0].content == {"name": "Bo"}
    assert scripted.questions[1].message == "How old are you, Bo?"


async def test_a_reask_is_a_new_question_with_its_attempt_number(connect, era):
    hook = Recorder()
    scripted = ScriptedUser(send_raw({"name": "A"}), send_raw({"name": "Al"}), send_raw({"age": 1}))
    async with connect(server_with(hook, retries=1), era, scripted) as client:
        assert await call(client, "greet") == (False, "Al/1")
    assert [(q.model, q.attempt) for q in hook.questions] == [(Name, 0), (Name, 1), (Age, 0)]
    assert "Your previous answer could not be used" in hook.questions[1].message
    assert [a.content for a in hook.answers] == [{"name": "A"}, {"name": "Al"}, {"age": 1}]
    assert [a.question.message for a in hook.answers[:2]] == ["Your name?", "Your name?"]


async def test_decline_reaches_the_answer_hook_without_content(connect, era):
    hook = Recorder()
    async with connect(server_with(hook), era, ScriptedUser(decline())) as client:
        assert await call(client, "greet") == (False, "no name")
    assert [(a.action, a.content) for a in hook.answers] == [("decline", None)]


async def test_no_question_sent_means_no_hook_runs(connect, era):
    hook = Recorder()
    async with connect(server_with(hook), era) as client:
        assert await call(client, "polite") == (False, "Declined")
    assert hook.log == []


@pytest.mark.parametrize("era", URL_ERAS)
async def test_url_questions_run_hooks_with_the_url_and_no_schema(connect, era):
    hook = Recorder()
    async with connect(server_with(hook), era, ScriptedUser(url_accept())) as client:
        assert await call(client, "visit") == (False, "Consented")
    (question,) = hook.questions
    assert (question.mode, question.model, question.schema) == ("url", None, None)
    assert (question.url, question.message) == ("https://pay.example.com/x", "Pay here.")
    assert [(a.action, a.content) for a in hook.answers] == [("accept", None)]


@pytest.fixture
def process_hook() -> Iterator[Recorder]:
    log: list[str] = []
    hook = Recorder("global", log)
    add_hooks(hook)
    try:
        yield hook
    finally:
        remove_hooks(hook)


async def test_process_wide_hooks_run_first_then_the_functions_own(connect, era, process_hook):
    own = Recorder("own", process_hook.log)
    async with connect(server_with(own), era, ScriptedUser(accept(name="Ann"), accept(age=1))) as client:
        assert await call(client, "greet") == (False, "Ann/1")
    assert process_hook.log == ["global:q", "own:q", "global:a", "own:a"] * 2


def test_adding_a_hook_twice_or_removing_an_unknown_one_is_a_value_error():
    hook = Recorder()
    add_hooks(hook)
    try:
        with pytest.raises(ElicitArgumentError, match="already added"):
            add_hooks(hook)
    finally:
        remove_hooks(hook)
    with pytest.raises(ElicitArgumentError, match="never added"):
        remove_hooks(hook)


@pytest.mark.parametrize("stage", ["on_question", "on_answer"])
async def test_a_raising_hook_fails_the_call_with_hook_error(connect, era, stage):
    async with connect(server_with(Raising(stage)), era, ScriptedUser(accept(name="Ann"))) as client:
        is_error, text = await call(client, "greet")
    assert is_error
    assert f"HookError: the elicitation hook Raising.{stage} failed: it raised RuntimeError." in text
    assert "audit store down" not in text  # the hook's own words stay on the server (its __cause__)


def test_hook_error_keeps_the_hooks_exception_as_its_cause():
    from typed_elicit._observe.hooks import run_question_hooks

    event = QuestionEvent("f", "form", Name, "m", {}, None, None, 0, "client")
    with pytest.raises(HookError) as caught:
        anyio.run(run_question_hooks, (Raising("on_question"),), event)
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert (caught.value.hook, caught.value.stage) == ("Raising", "on_question")


CANARY = "canary-7f3e9b"
"""An answer no error text may repeat."""


class Leaky(ElicitHook):
    """A careless hook: its exception quotes what it saw, and so does its repr."""

    def __init__(self, stage: str) -> None:
        self.stage = stage
        self.seen: list[object] = []

    async def on_question(self, event: QuestionEvent) -> None:
        if self.stage == "on_question" and CANARY in event.message:  # the question quoting the name
            raise ValueError(f"refusing to send {event.message!r}")

    async def on_answer(self, event: AnswerEvent) -> dict[str, Any] | None:
        self.seen.append(event.content)
        if self.stage == "on_answer":
            raise ValueError(f"cannot audit {event.content!r}")
        return None

    def __repr__(self) -> str:
        return f"Leaky(seen={self.seen!r})"


@pytest.mark.parametrize("stage", ["on_question", "on_answer"])
async def test_a_hook_quoting_an_answer_in_its_exception_shows_the_client_only_its_name_stage_and_type(
    connect, era, stage
):
    async with connect(
        server_with(Leaky(stage)), era, ScriptedUser(accept(name=CANARY), accept(age=3))
    ) as client:
        is_error, text = await call(client, "greet")
    assert is_error
    assert f"HookError: the elicitation hook Leaky.{stage} failed: it raised ValueError." in text
    assert CANARY not in text


@pytest.mark.parametrize("stage", ["on_question", "on_answer"])
def test_a_hook_error_keeps_the_hooks_exception_text_on_the_server_only_as_its_cause(stage):
    from typed_elicit._observe.hooks import run_answer_hooks, run_question_hooks

    question = QuestionEvent("f", "form", Name, f"Hello {CANARY}?", {}, None, None, 0, "client")
    hook = Leaky(stage)
    run = (
        run_question_hooks(((hook,)), question)
        if stage == "on_question"
        else run_answer_hooks((hook,), AnswerEvent(question, "accept", {"name": CANARY}))
    )

    async def main() -> object:
        return await run

    with pytest.raises(HookError) as caught:
        anyio.run(main)
    error = caught.value
    assert (error.hook, error.stage, error.problem) == ("Leaky", stage, "raised ValueError")
    assert isinstance(error.__cause__, ValueError)
    assert CANARY in str(error.__cause__)
    assert CANARY not in str(error)
    assert CANARY not in repr(error)


@pytest.mark.parametrize(
    ("value", "reply", "problem"),
    [
        ({"name": "X"}, decline(), "returned content for a form answer with action 'decline'"),
        ("Ann", accept(name="Ann"), "returned str, not None or a dict with string keys"),
        (
            {1: "Ann"},
            accept(name="Ann"),
            "returned a dict with a key of type int, not None or a dict with string keys",
        ),
    ],
)
async def test_a_hook_returning_what_it_may_not_is_a_hook_error(connect, era, value, reply, problem):
    async with connect(server_with(Returning(value)), era, ScriptedUser(reply)) as client:
        is_error, text = await call(client, "greet")
    assert is_error
    assert problem in text


@pytest.mark.parametrize("era", URL_ERAS)
async def test_a_hook_cannot_invent_content_for_a_url_answer(connect, era):
    async with connect(server_with(Returning({"x": 1})), era, ScriptedUser(url_accept())) as client:
        is_error, text = await call(client, "visit")
    assert is_error
    assert "returned content for a url answer with action 'accept'" in text


async def test_hooks_cannot_change_the_schema_that_was_sent(connect, era):
    class Vandal(ElicitHook):
        async def on_question(self, event: QuestionEvent) -> None:
            assert event.schema is not None
            event.schema["properties"].clear()  # type: ignore[attr-defined]

    scripted = ScriptedUser(accept(name="Ann"), accept(age=1), accept(name="Bo"), accept(age=2))
    async with connect(server_with(Vandal()), era, scripted) as client:
        assert await call(client, "greet") == (False, "Ann/1")
        assert await call(client, "greet") == (False, "Bo/2")
    assert all(q.requested_schema["properties"] for q in scripted.questions)


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


async def test_audited_approval_example_logs_raw_answers_and_validates_trimmed_ones(connect, era):
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    module = importlib.import_module("audited_approval")
    module.AUDIT.clear()
    scripted = ScriptedUser(accept(approve=True, reason="  damaged  "))
    async with connect(module.server, era, scripted) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("refund", {"order": "A7", "amount": 12.5})
    assert isinstance(result.content[0], TextContent)
    assert result.content[0].text == "Refunded A7: damaged"
    asked, answered = module.AUDIT
    assert asked.startswith("asked ")
    assert asked.endswith("via client (attempt 0): Refund $12.50 for order A7?")
    assert answered.endswith("refund: accept {'approve': True, 'reason': '  damaged  '}")
