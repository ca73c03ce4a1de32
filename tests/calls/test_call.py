"""A tool call's record: its era read once, its question keys, what it carries to the next round, cleanups."""

from __future__ import annotations

import anyio
import pytest
from mcp.server.mcpserver import Context

import typed_elicit._core.clock as clock
from tests.calls.test_questions import booking
from tests.conftest import BOUND
from typed_elicit._calls.call import Call
from typed_elicit._calls.policy import Policy
from typed_elicit._calls.state import ReplayState


def a_call() -> Call:
    return Call(Context(), Policy(), "book")


def test_a_call_outside_a_request_has_no_era_and_counts_as_a_tool() -> None:
    call = a_call()
    assert call.era is None
    assert call.request is None
    assert call.in_tool
    assert call.rounds == 1


def test_each_question_of_a_call_gets_the_next_key_in_order() -> None:
    call = a_call()
    assert [call.next_key() for _ in range(3)] == ["q0", "q1", "q2"]


def test_the_next_round_takes_over_the_start_once_results_and_round_of_the_last(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(clock, "now", lambda: 1000.0)
    first = a_call()
    first.once["code"] = "123"
    first.answered_now(booking(), "decline", None)
    carried = first.state()
    assert carried.rounds == 1
    assert [answer.question for answer in carried.answers] == [booking().id]
    monkeypatch.setattr(clock, "now", lambda: 1030.0)
    second = a_call()
    second.restore(ReplayState.decode(carried.encode()))
    assert second.started == 1000.0
    assert second.once == {"code": "123"}
    assert second.rounds == 2


@pytest.mark.anyio
async def test_cleanups_run_in_order_when_the_call_ends_and_a_failing_one_is_logged_by_type_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    call = a_call()
    ran: list[str] = []

    async def first() -> None:
        ran.append("first")

    async def failing() -> None:
        raise RuntimeError("the secret 4321")

    async def last() -> None:
        ran.append("last")

    for cleanup in (first, failing, last):
        call.on_end(cleanup)
    assert list(call.cleanups) == [first, failing, last]
    with anyio.fail_after(BOUND):
        await call.end()
        await call.end()  # once only
    assert ran == ["first", "last"]
    assert "a cleanup at the end of book failed with RuntimeError" in caplog.text
    assert "4321" not in caplog.text
    assert call.cleanups == ()
