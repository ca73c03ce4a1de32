"""Progress heartbeats: keep a client's `tools/call` timer from firing while a person answers.

Many clients give up on a request after a fixed time (60 s is common) unless the
server reports progress, which restarts their timer (the TypeScript SDK's
`resetTimeoutOnProgress`, for one). On 2025-06-18 and 2025-11-25 a question is an
`elicitation/create` request sent *during* the tool call, so while the person
thinks the call looks idle to the client. `Heartbeat` sends
`notifications/progress` every `interval` seconds while a question waits, if and
only if the client asked for progress (its request carried a `progressToken`).

On 2026-07-28 no heartbeat is needed: a question ends the request at once with an
`InputRequiredResult`, and the client's answer comes in a new request, so no
request stays open while a person thinks.

A heartbeat carries no answer and no question text: only a count and a fixed message.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Final

import anyio
from anyio.abc import TaskGroup

logger = logging.getLogger(__name__)

DEFAULT_HEARTBEAT: Final = 15.0
"""Seconds between progress notifications while a push-era question waits (well under 60 s)."""

TASK_NAME: Final = "typed_elicit heartbeat"
"""The name of a heartbeat's task (what a task listing shows)."""

HEARTBEAT_MESSAGE: Final = "waiting for the user's answer"
"""The `message` of every heartbeat (fixed: never the question or an answer)."""


def check_heartbeat(seconds: float | None, where: str) -> float | None:
    """Validate a heartbeat interval.

    Args:
        seconds: Seconds between heartbeats, or None for no heartbeats.
        where: Who received it, for the message (`"@elicits"`).

    Returns:
        `seconds` as a float, or None.

    Raises:
        ValueError: If `seconds` is not a positive finite number of seconds.
    """
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ValueError(
            f"{where} got heartbeat={seconds!r}; pass seconds between progress notifications as a "
            "number, or None for none"
        )
    if not (seconds > 0 and math.isfinite(seconds)):
        raise ValueError(
            f"{where} got heartbeat={seconds!r}; pass a positive, finite number of seconds (the default "
            f"is {DEFAULT_HEARTBEAT:g}), or None for no progress notifications"
        )
    return float(seconds)


def progress_token(meta: Mapping[str, Any] | None) -> str | int | None:
    """The `progressToken` of a request's `_meta`, if the client sent one (a bool is none)."""
    if not meta:
        return None
    token: object = meta.get("progressToken", meta.get("progress_token"))
    if isinstance(token, bool) or not isinstance(token, (str, int)):
        return None
    return token


class Heartbeat:
    """An async context manager: progress notifications every `interval` seconds while open.

    `async with Heartbeat(session, meta, interval):` around the wait for an answer.
    It starts nothing when `interval` is None or the request carried no
    `progressToken`; otherwise one task, cancelled and awaited when the block ends
    (however it ends), so no task outlives the question. Whatever the block raises
    leaves it unchanged (never wrapped in an exception group). A notification that
    cannot be sent (the client went away) stops the heartbeat quietly; the
    question's own wait decides what happens next.

    Attributes:
        sent: How many notifications this heartbeat has sent.
    """

    __slots__ = ("_group", "_interval", "_session", "sent")

    def __init__(self, session: Any, meta: Mapping[str, Any] | None, interval: float | None) -> None:
        """Prepare a heartbeat for one wait.

        Args:
            session: The request's SDK session (`ctx.sdk.request_context.session`):
                its `report_progress` sends to the client's `progressToken`.
            meta: The request's `_meta` (`request_context.meta`), to see whether the
                client asked for progress.
            interval: Seconds between notifications; None for none.
        """
        self._session = session
        self._interval = interval if interval is not None and progress_token(meta) is not None else None
        self._group: TaskGroup | None = None
        self.sent = 0

    async def __aenter__(self) -> Heartbeat:
        if self._interval is not None:
            group = anyio.create_task_group()
            await group.__aenter__()
            self._group = group
            group.start_soon(self._beat, self._interval, name=TASK_NAME)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        group = self._group
        if group is None:
            return
        self._group = None
        group.cancel_scope.cancel()
        # Close the group as if its body ended cleanly: the beat task is cancelled and
        # awaited here, and the block's own exception (if any) goes on unchanged.
        await group.__aexit__(None, None, None)

    async def _beat(self, interval: float) -> None:
        while True:
            await anyio.sleep(interval)
            try:
                await self._session.report_progress(float(self.sent + 1), None, HEARTBEAT_MESSAGE)
            except Exception as exc:  # the transport closed: nothing left to keep alive
                logger.debug("typed_elicit: heartbeat stopped: %s", type(exc).__name__)
                return
            self.sent += 1
