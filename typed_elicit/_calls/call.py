"""One tool call's record, shared by every asker: who asks, on which era, and what was answered.

`@elicits` builds one `Call` per call (per round on 2026-07-28). It holds what every era
needs: the SDK context and request, the negotiated era, the function's policy, the call's
observer channel, the question counter, the answers given so far, the results of
`ctx.once`, the call's pages, and when the call started. A replayed round restores what
the last one left (`restore`); `state` is the one place that builds what a call carries
to its next round, sealed by the SDK.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context

from typed_elicit._calls.policy import Policy
from typed_elicit._calls.state import Answer, PageRecord, Pending, ReplayState, question_key
from typed_elicit._core import clock
from typed_elicit._core.eras import negotiated_era
from typed_elicit._core.versions import ProtocolVersion
from typed_elicit._observe import telemetry
from typed_elicit._observe.channel import Channel

if TYPE_CHECKING:
    from typed_elicit._calls.plugs import Resume
    from typed_elicit._calls.questions import Action, Question

logger = logging.getLogger("typed_elicit")


class Call:
    """What every asker of one call shares (see the module docstring)."""

    __slots__ = (
        "_answers",
        "_cleanups",
        "_holds",
        "_index",
        "_once",
        "_pages",
        "channel",
        "era",
        "function",
        "policy",
        "request",
        "resume",
        "rounds",
        "sdk",
        "started",
        "trace",
    )

    def __init__(
        self, sdk: Context[Any, Any], policy: Policy, function: str, resume: Resume | None = None
    ) -> None:
        self.sdk = sdk
        self.policy = policy
        self.function = function
        self.resume = resume
        # Read once: each SDK Context property goes through pydantic's __getattr__.
        try:
            self.request: ServerRequestContext[Any, Any] | None = sdk.request_context
        except ValueError:  # outside a request
            self.request = None
        self.era: ProtocolVersion | None = negotiated_era(
            None if self.request is None else self.request.protocol_version
        )
        self.channel = Channel.of(policy.hooks)
        self.started = clock.now()
        self.rounds = 1
        """This round's number (1 for the call's first request)."""
        self.trace: str | None = telemetry.traceparent_now() if self.channel.traced else None
        """The first round's `traceparent`, which later 2026-07-28 rounds join."""
        # Created when first needed: a call holds these for as long as its question is pending,
        # and most calls never use them.
        self._answers: list[Answer | tuple[Question[Any], Action, dict[str, Any] | None]] | None = None
        self._once: dict[str, Any] | None = None
        self._pages: dict[str, PageRecord] | None = None
        self._index = 0
        self._cleanups: list[Callable[[], Awaitable[None]]] | None = None
        self._holds: list[Callable[[], Awaitable[None]]] | None = None

    @property
    def once(self) -> dict[str, Any]:
        """The results of `ctx.once` so far, by key (the record itself: a caller may add to it)."""
        once = self._once
        if once is None:
            once = self._once = {}
        return once

    @property
    def pages(self) -> dict[str, PageRecord]:
        """The call's pages by the key of their question (the record itself: a caller may add to it)."""
        pages = self._pages
        if pages is None:
            pages = self._pages = {}
        return pages

    @property
    def cleanups(self) -> Sequence[Callable[[], Awaitable[None]]]:
        """What `end` runs (`on_end`), in the order registered."""
        return self._cleanups or ()

    @property
    def in_tool(self) -> bool:
        """Whether this is a `tools/call` (outside a request: not known, so yes)."""
        return self.request is None or self.request.method == "tools/call"

    def restore(self, state: ReplayState) -> None:
        """Take over what the last round of this call left: start, `once`, pages, round and trace."""
        if state.started is not None:
            self.started = state.started
        if state.once:
            self.once.update(state.once)
        if state.pages:
            self.pages.update(state.pages)
        self.rounds = state.rounds + 1
        if state.rounds:
            self.trace = state.trace

    def state(self, pending: Pending | None = None, others: tuple[Pending, ...] = ()) -> ReplayState:
        """What this call carries to its next round, with `pending` (and `others`) awaiting an answer."""
        return ReplayState(
            started=self.started,
            answers=self.answers(),
            pending=pending,
            others=others,
            once=dict(self._once or {}),
            rounds=self.rounds,
            trace=self.trace,
            pages=dict(self._pages or {}),
        )

    def on_end(self, cleanup: Callable[[], Awaitable[None]]) -> None:
        """Run `cleanup` when the call ends: in the round that returns its final result, or fails.

        Not when a 2026-07-28 round ends with an `InputRequiredResult` (the call goes on), nor
        when a round is refused as already answered. Each round registers what it holds.
        """
        if self._cleanups is None:
            self._cleanups = []
        self._cleanups.append(cleanup)

    def on_suspend(self, hold: Callable[[], Awaitable[None]]) -> None:
        """Run `hold` when a 2026-07-28 round ends with an `InputRequiredResult` (the call goes on).

        What a round took and later rounds need (a page's answer) is held then, and only then:
        a call that ends in the round that took it holds nothing.
        """
        if self._holds is None:
            self._holds = []
        self._holds.append(hold)

    async def suspend(self) -> None:
        """Run the `on_suspend` holds (`@elicits` calls it before a round's result goes out).

        Raises:
            StoreUnavailable: If a hold failed (the round fails: its next round could not go on).
        """
        holds, self._holds = self._holds or (), None
        for hold in holds:
            await hold()

    async def end(self) -> None:
        """Run the `on_end` cleanups (`@elicits` calls it): shielded, each failure logged, never raised.

        A cleanup bounds its own work (a store operation is bounded by the store's timeout).
        """
        cleanups, self._cleanups = self._cleanups or (), None
        for cleanup in cleanups:
            with anyio.CancelScope(shield=True):
                try:
                    await cleanup()
                except Exception as exc:
                    failure = type(exc).__name__
                    logger.warning("a cleanup at the end of %s failed with %s", self.function, failure)

    def record(self, answer: Answer) -> None:
        """Record an answer replayed from the state (already an `Answer`)."""
        if self._answers is None:
            self._answers = []
        self._answers.append(answer)

    def answered_now(self, question: Question[Any], action: Action, content: dict[str, Any] | None) -> None:
        """Record the answer to `question` given in this run (its `Answer` is built only if needed)."""
        if self._answers is None:
            self._answers = []
        self._answers.append((question, action, content))

    def answers(self) -> tuple[Answer, ...]:
        """Every answer so far, in the order given, as the sealed state records them."""
        return tuple(
            entry
            if isinstance(entry, Answer)
            else Answer(question=entry[0].id, action=entry[1], content=entry[2])
            for entry in self._answers or ()
        )

    def next_key(self) -> str:
        """The wire key of the call's next question (`q0`, `q1`, ...)."""
        index = self._index
        self._index += 1
        return question_key(index)
