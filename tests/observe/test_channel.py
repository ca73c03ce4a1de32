"""The one observer channel: who listens to a call is decided once; each listener hears every report."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from tests.conftest import BOUND
from typed_elicit._observe import channel, telemetry
from typed_elicit._observe.channel import SILENT, Channel
from typed_elicit._observe.hooks import (
    AnswerEvent,
    ElicitHook,
    QuestionEvent,
    run_answer_hooks,
    run_question_hooks,
)
from typed_elicit.hooks import add_hooks, remove_hooks

pytestmark = pytest.mark.anyio


class Name(BaseModel):
    name: str


QUESTION = QuestionEvent(
    function="greet",
    mode="form",
    model=Name,
    message="Your name?",
    schema={"type": "object", "properties": {"name": {"type": "string"}}},
    url=None,
    protocol_version="2026-07-28",
    attempt=0,
    via="client",
)


class Noting(ElicitHook):
    """A hook that notes what it heard and appends its mark to an answer's name."""

    def __init__(self, mark: str, heard: list[str]) -> None:
        self.mark = mark
        self.heard = heard

    async def on_question(self, event: QuestionEvent) -> None:
        self.heard.append(f"{self.mark}:question:{event.function}")

    async def on_answer(self, event: AnswerEvent) -> dict[str, Any] | None:
        self.heard.append(f"{self.mark}:answer:{event.action}")
        if event.content is None:
            return None
        return {**event.content, "name": f"{event.content['name']}{self.mark}"}


class Counting:
    """A question trace that counts re-asks and waits."""

    def __init__(self) -> None:
        self.reasks: list[tuple[int, int]] = []
        self.waits: list[float] = []

    def reask(self, attempt: int, problems: int) -> None:
        self.reasks.append((attempt, problems))

    def waited_more(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def untraced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(telemetry, "enabled", lambda: False)


@pytest.fixture
def process_hook() -> Iterator[list[str]]:
    heard: list[str] = []
    hook = Noting("P", heard)
    add_hooks(hook)
    yield heard
    remove_hooks(hook)


@pytest.mark.usefixtures("untraced")
def test_a_call_nobody_observes_gets_the_silent_channel_which_is_falsy() -> None:
    observed = Channel.of(())
    assert observed is SILENT
    assert not observed
    assert not observed.traced


@pytest.mark.usefixtures("untraced")
async def test_process_hooks_hear_first_then_the_functions_own_each_rewriting_the_answer_in_turn(
    process_hook: list[str],
) -> None:
    own = Noting("F", process_hook)
    observed = Channel.of((own,))
    assert observed
    assert observed.hooks[1:] == (own,)
    assert not observed.traced
    sent = {"name": "Ada"}
    with anyio.fail_after(BOUND):
        await run_question_hooks(observed.hooks, QUESTION)
        content = await run_answer_hooks(observed.hooks, AnswerEvent(QUESTION, "accept", sent))
    assert process_hook == ["P:question:greet", "F:question:greet", "P:answer:accept", "F:answer:accept"]
    assert content == {"name": "AdaPF"}
    assert sent == {"name": "Ada"}  # the listeners work on a private copy


@pytest.mark.usefixtures("untraced")
async def test_a_declined_answer_reaches_the_listeners_without_content(process_hook: list[str]) -> None:
    with anyio.fail_after(BOUND):
        content = await run_answer_hooks(Channel.of(()).hooks, AnswerEvent(QUESTION, "decline", None))
    assert content is None
    assert process_hook == ["P:answer:decline"]


def test_re_asks_and_waits_reach_the_span_of_a_traced_call_only(monkeypatch: pytest.MonkeyPatch) -> None:
    trace = Counting()
    monkeypatch.setattr(telemetry, "current", lambda: trace)
    for observed in (Channel((), traced=True), Channel((Noting("F", []),), traced=False)):
        observed.reask(1, 3)
        observed.wait(0.25)
    assert trace.reasks == [(1, 3)]
    assert trace.waits == [0.25]


def test_a_traced_call_gets_the_trace_listener_after_the_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(telemetry, "enabled", lambda: True)
    hooked = Channel.of((Noting("F", []),))
    assert hooked.traced
    assert len(hooked.hooks) == 1
    assert hooked.listeners
    traced = Channel.of(())
    assert traced.traced
    assert traced.hooks == ()
    assert traced
    assert channel.SILENT is SILENT
