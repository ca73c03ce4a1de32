"""One tool call's record, shared by every asker: who asks, on which era, and what was answered.

`@elicits` builds one `Call` per call (per round on 2026-07-28). It holds what
every era needs: the SDK context and request, the negotiated era, the function's
policy and hooks, the question counter, the answers given so far, the results of
`ctx.once`, and when the call started (restored from the sealed state on a replay).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp_types import ElicitRequestParams, ElicitRequestURLParams
from mcp_types import ElicitResult as WireResult

from typed_elicit._calls.policy import Policy
from typed_elicit._calls.questions import Action, Mode, Question, Via
from typed_elicit._calls.state import Answer, question_key
from typed_elicit._core import clock as _clock
from typed_elicit._core.versions import (
    LATEST_PROTOCOL_VERSION,
    PROTOCOL_VERSIONS,
    ProtocolVersion,
    uses_input_required,
)
from typed_elicit._observe.hooks import (
    AnswerEvent,
    ElicitHook,
    QuestionEvent,
    active_hooks,
    private,
    run_answer_hooks,
)
from typed_elicit.errors import ElicitArgumentError

if TYPE_CHECKING:
    from typed_elicit.fallback._companion import Resume

JSON: TypeAlias = str | int | float | bool | list[Any] | dict[str, Any] | None
"""A value that survives a JSON round trip unchanged (what `ctx.once` may return)."""

J = TypeVar("J", bound=JSON)

logger = logging.getLogger("typed_elicit")


def negotiated_era(version: str | None) -> ProtocolVersion | None:
    """The elicitation era of a negotiated protocol version, or None if it has none.

    Args:
        version: `Context.protocol_version` (None outside a request).

    Returns:
        The matching supported revision; revisions newer than the newest known
        one behave like it; revisions before 2025-06-18 have no elicitation.
    """
    if version is None:
        return None
    for era in PROTOCOL_VERSIONS:
        if version == era:
            return era
    return LATEST_PROTOCOL_VERSION if version > LATEST_PROTOCOL_VERSION else None


class Call:
    """What every asker of one call shares (see the module docstring)."""

    __slots__ = (
        "_answers",
        "_index",
        "_on_end",
        "era",
        "function",
        "once",
        "policy",
        "request",
        "resume",
        "sdk",
        "started",
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
        self.started = _clock.now()
        self._answers: list[Answer | tuple[Question[Any], Action, dict[str, Any] | None]] = []
        self.once: dict[str, Any] = {}
        self._index = 0
        self._on_end: list[Callable[[], Awaitable[None]]] = []

    @property
    def uses_input_required(self) -> bool:
        """Whether questions travel as 2026-07-28 `InputRequiredResult` rounds."""
        return self.era is not None and uses_input_required(self.era)

    @property
    def in_tool(self) -> bool:
        """Whether this is a `tools/call` (outside a request: not known, so yes)."""
        return self.request is None or self.request.method == "tools/call"

    @property
    def hooks(self) -> tuple[ElicitHook, ...]:
        """The hooks that run for this call's questions: process-wide, then the function's."""
        return active_hooks(self.policy.hooks)

    def on_end(self, cleanup: Callable[[], Awaitable[None]]) -> None:
        """Run `cleanup` when the call ends: in the round that returns its final result, or fails.

        Not when a 2026-07-28 round ends with an `InputRequiredResult` (the call goes on), nor
        when a round is refused as already answered. Each round registers what it holds.
        """
        self._on_end.append(cleanup)

    async def end(self) -> None:
        """Run the `on_end` cleanups (`@elicits` calls it): shielded, each failure logged, never raised.

        A cleanup bounds its own work (a store operation is bounded by the store's timeout).
        """
        cleanups, self._on_end = self._on_end, []
        for cleanup in cleanups:
            with anyio.CancelScope(shield=True):
                try:
                    await cleanup()
                except Exception as exc:
                    failure = type(exc).__name__
                    logger.warning("a cleanup at the end of %s failed with %s", self.function, failure)

    def record(self, answer: Answer) -> None:
        """Record an answer replayed or taken from a round (already an `Answer`)."""
        self._answers.append(answer)

    def answered_now(self, question: Question[Any], action: Action, content: dict[str, Any] | None) -> None:
        """Record the answer to `question` given in this run (its `Answer` is built only if needed)."""
        self._answers.append((question, action, content))

    def answers(self) -> tuple[Answer, ...]:
        """Every answer so far, in the order given, as the sealed state records them."""
        return tuple(
            entry
            if isinstance(entry, Answer)
            else Answer(question=entry[0].id, action=entry[1], content=entry[2])
            for entry in self._answers
        )

    def next_key(self) -> str:
        """The wire key of the call's next question (`q0`, `q1`, ...)."""
        index = self._index
        self._index += 1
        return question_key(index)

    def cannot_ask(self, mode: Mode) -> str | None:
        """Why the client cannot be sent a `mode` question right now, or None if it can."""
        assert self.request is not None, "only asked inside a request (a negotiated era)"
        session = self.request.session
        if not self.uses_input_required and not session.can_send_request:
            return (
                "this connection cannot carry server-to-client requests (stateless or JSON-response "
                "HTTP); serve stateful streamable HTTP, or let the client use protocol 2026-07-28"
            )
        capabilities = session.client_capabilities
        elicitation = capabilities.elicitation if capabilities is not None else None
        if elicitation is None:
            return "the client did not declare the elicitation capability"
        if mode == "url":
            if elicitation.url is None:
                return "the client declared form-mode elicitation only (no `elicitation.url` capability)"
            return None
        if elicitation.form is None and elicitation.url is not None:
            return "the client declared URL-mode elicitation only, and this question is a form"
        return None

    def event(
        self, question: Question[Any], params: ElicitRequestParams, attempt: int, via: Via
    ) -> QuestionEvent:
        """The hook event of asking `question` with `params` (no answer value in it)."""
        if isinstance(params, ElicitRequestURLParams):
            return QuestionEvent(
                function=self.function,
                mode="url",
                model=None,
                message=params.message,
                schema=None,
                url=params.url,
                protocol_version=self.era,
                attempt=attempt,
                via=via,
            )
        # The question's own schema: a re-ask's pre-filled one carries the last answer's values.
        schema = question.form.schema if question.form is not None else params.requested_schema
        return QuestionEvent(
            function=self.function,
            mode="form",
            model=question.model,
            message=params.message,
            schema=private(schema) if self.hooks else schema,
            url=None,
            protocol_version=self.era,
            attempt=attempt,
            via=via,
        )

    async def answered(
        self, hooks: tuple[ElicitHook, ...], question: QuestionEvent, wire: WireResult
    ) -> WireResult:
        """Run the answer `hooks` on a freshly arrived answer; returns it with their content."""
        event = AnswerEvent(question=question, action=wire.action, content=private(wire.content))
        content = await run_answer_hooks(hooks, event)
        if content == wire.content:
            return wire
        return WireResult(action=wire.action, content=content)


def json_stable(key: str, value: J) -> J:
    """`value` after a JSON round trip, refused unless the trip leaves it unchanged (`ctx.once`).

    Raises:
        ElicitArgumentError: If `value` is not JSON data, or changes in the round trip (a `TypeError`).
    """
    try:
        copied = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ElicitArgumentError(
            f"ctx.once({key!r})",
            "fn",
            "must return JSON data (str, int, float, bool, None, list, dict), "
            f"got {type(value).__name__}: {exc}",
            'Return JSON data (for a model, .model_dump(mode="json")).',
        ) from None
    if copied != value or type(copied) is not type(value):
        raise ElicitArgumentError(
            f"ctx.once({key!r})",
            "fn",
            f"returned {type(value).__name__} data that changes in a JSON round trip "
            "(tuples, non-string keys)",
            "Return lists and string-keyed dicts.",
        )
    stable: J = copied
    return stable
