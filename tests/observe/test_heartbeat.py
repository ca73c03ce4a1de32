"""Progress heartbeats while a push-era question waits (`typed_elicit._observe.heartbeat`), unit level."""

from __future__ import annotations

import anyio
import pytest

from tests.conftest import BOUND, task_count
from typed_elicit._observe.heartbeat import DEFAULT_HEARTBEAT, HEARTBEAT_MESSAGE, Heartbeat, check_heartbeat

pytestmark = pytest.mark.anyio


class Session:
    """Records every progress report; sets `enough` once `wanted` have arrived."""

    def __init__(self, wanted: int = 3, *, broken: bool = False) -> None:
        self.reports: list[tuple[float, float | None, str | None]] = []
        self.wanted = wanted
        self.broken = broken
        self.enough = anyio.Event()
        self.tried = anyio.Event()

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        self.tried.set()
        if self.broken:
            raise anyio.ClosedResourceError
        self.reports.append((progress, total, message))
        if len(self.reports) >= self.wanted:
            self.enough.set()


class Suspended(BaseException):
    """Stands in for the internal signals that end a round (BaseException subclasses)."""


async def test_a_waiting_question_sends_numbered_progress_until_it_ends() -> None:
    session = Session(wanted=3)
    before = task_count()
    with anyio.fail_after(BOUND):
        async with Heartbeat(session, {"progressToken": "t1"}, 0.01) as beat:
            assert task_count() == before + 1
            await session.enough.wait()
    assert task_count() == before
    assert [progress for progress, _, _ in session.reports[:3]] == [1.0, 2.0, 3.0]
    assert {message for _, _, message in session.reports} == {HEARTBEAT_MESSAGE}
    assert {total for _, total, _ in session.reports} == {None}
    assert beat.sent == len(session.reports)


async def test_no_progress_token_means_no_heartbeat_task() -> None:
    session = Session()
    before = task_count()
    async with Heartbeat(session, {"other": 1}, 0.01):
        assert task_count() == before
        await anyio.lowlevel.checkpoint()
    async with Heartbeat(session, None, 0.01), Heartbeat(session, {"progressToken": True}, 0.01):
        assert task_count() == before
    assert session.reports == []


async def test_a_heartbeat_of_none_sends_nothing_even_with_a_token() -> None:
    session = Session()
    before = task_count()
    async with Heartbeat(session, {"progressToken": 7}, None):
        assert task_count() == before
    assert session.reports == []


@pytest.mark.parametrize("error", [Suspended(), ValueError("x"), TimeoutError()])
async def test_what_the_wait_raises_passes_through_unchanged_and_no_task_survives(
    error: BaseException,
) -> None:
    session = Session(wanted=1)
    before = task_count()

    async def wait_then_fail() -> None:
        async with Heartbeat(session, {"progressToken": "t"}, 0.01):
            await session.enough.wait()
            raise error

    with anyio.fail_after(BOUND), pytest.raises(type(error)) as raised:
        await wait_then_fail()
    assert raised.value is error
    assert task_count() == before


async def test_a_cancelled_wait_stops_the_heartbeat_too() -> None:
    session = Session(wanted=1)
    before = task_count()
    with anyio.fail_after(BOUND), anyio.CancelScope() as scope:
        async with Heartbeat(session, {"progressToken": "t"}, 0.01):
            await session.enough.wait()
            scope.cancel()
            await anyio.sleep_forever()
    assert scope.cancelled_caught
    assert task_count() == before


async def test_a_closed_connection_ends_the_heartbeat_quietly() -> None:
    session = Session(broken=True)
    before = task_count()
    with anyio.fail_after(BOUND):
        async with Heartbeat(session, {"progressToken": "t"}, 0.001) as beat:
            await session.tried.wait()
            while task_count() > before:  # the beat task ends by itself, before the block does
                await anyio.lowlevel.checkpoint()
    assert beat.sent == 0
    assert session.reports == []


def test_the_interval_is_checked() -> None:
    assert check_heartbeat(None, "@elicits") is None
    assert check_heartbeat(2, "@elicits") == 2.0
    assert DEFAULT_HEARTBEAT < 60
    for bad in (0, -1, float("inf"), float("nan"), True, "5"):
        with pytest.raises(ValueError, match="heartbeat="):
            check_heartbeat(bad, "@elicits")  # type: ignore[arg-type]
