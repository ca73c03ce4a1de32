"""What a 2026-07-28 tool remembers between rounds, carried in the SDK-sealed `request_state`.

On 2026-07-28 a server cannot ask mid-call: the call ends with an
`InputRequiredResult`, and the client retries it with the answer. The tool body
then runs again from the top, and every question it already asked is answered
from this record instead of going back to the user.

Each recorded answer is pinned to its question by position, model and schema
digest (a URL-mode question: position, the kind `url` and the URL's digest); a
re-run that asks something else at that position gets `ReplayMismatch`.
The SDK seals the state (AES-256-GCM, bound to the tool, its arguments and the
principal), so what arrives here is plaintext this server minted.

The state also carries when the call started and, for the pending question, when it
was asked, its attempt count and a random round id. A round that only refreshes the
question keeps all three, so timeouts and `retries` hold however often a client
refreshes, and the round id (claimed when the answer is taken, see `_store`) makes
each round single-use.
"""

from __future__ import annotations

import json
import logging
import secrets
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

logger = logging.getLogger(__name__)

STATE_VERSION = 2
"""Bumped whenever the layout changes; a state of another version starts the call afresh."""


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


URL_QUESTION = "url"
"""`QuestionId.model` of a URL-mode question (a model id always contains a dot)."""


class QuestionId(_Record):
    """Identifies one question: its wire key, what it asks, and a digest of what was shown.

    A form question: the model's id (`model_id`) and the requested schema's digest.
    A URL-mode question: `URL_QUESTION` and the URL's digest (`url_digest`).
    """

    key: str
    model: str
    digest: str

    def describe(self) -> str:
        """A short human-readable form for error messages."""
        if self.model == URL_QUESTION:
            return f"a URL-mode question (key {self.key!r}, url {self.digest})"
        return f"{self.model} (key {self.key!r}, schema {self.digest})"


class Answer(_Record):
    """One answered question, as the client sent it (re-validated on every round)."""

    question: QuestionId
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


class Pending(_Record):
    """The question the last round ended on, awaiting the client's response.

    A round that brings no answer to it ends with this same record (same time,
    attempt and round id), so refreshing a question neither restarts its timeout
    nor gives the client another try.

    Attributes:
        question: The question asked.
        asked_at: When this attempt of the question was first asked (Unix time).
        attempt: 0, then 1, 2, ... for re-asks after invalid answers.
        round: A random id, claimed when the answer is taken (single-use rounds).
    """

    question: QuestionId
    asked_at: float
    attempt: int = 0
    round: str


class PageRecord(_Record):
    """A page a call asked (`ctx.elicit_page`), carried from round to round.

    Attributes:
        id: The page's id.
        expires_at: When its link stops working (Unix time).
        elicitation_id: The `elicitationId` of its consent question (2025-11-25).
        request: The call the page belongs to (function and first request id).
        taken: Whether a round of the call took the page's answer (the server holds it
            until the call ends; the answer itself never travels in the state).
    """

    id: str
    expires_at: float
    elicitation_id: str
    request: str
    taken: bool = False


class ReplayState(_Record):
    """Everything a call carries from one round to the next.

    Attributes:
        v: The layout version (`STATE_VERSION`).
        started: When the call's first round ran (Unix time), for its `call_timeout`;
            None before the call has suspended.
        answers: The answers so far, in the order asked.
        pending: The question awaiting an answer, if any.
        others: The other questions asked in the same round (concurrent `ctx.elicit`
            calls or `ctx.elicit_all`), each with its own round id.
        once: The results of `ctx.once`, by key.
        rounds: How many rounds of the call have ended (0 before the first).
        trace: The W3C `traceparent` of the first round's span, so that later rounds
            in another trace join it (`_telemetry.resume_round`); None when tracing is off.
        pages: The call's pages by the key of their question (`ctx.elicit_page`).
    """

    v: int = STATE_VERSION
    started: float | None = None
    answers: tuple[Answer, ...] = ()
    pending: Pending | None = None
    others: tuple[Pending, ...] = ()
    once: dict[str, Any] = {}
    rounds: int = 0
    trace: str | None = None
    pages: dict[str, PageRecord] = {}

    def awaiting(self) -> tuple[Pending, ...]:
        """Every question the last round ended on, in the order they were asked."""
        return () if self.pending is None else (self.pending, *self.others)

    def answer_to(self, key: str) -> Answer | None:
        """The recorded answer to the question with wire key `key`, if any."""
        for answer in self.answers:
            if answer.question.key == key:
                return answer
        return None

    def encode(self) -> str:
        """Serialise for `InputRequiredResult.request_state` (the SDK seals it)."""
        return json.dumps(self.model_dump(mode="json"), separators=(",", ":"))

    @classmethod
    def decode(cls, text: str | None) -> ReplayState:
        """Read the state the client echoed; anything unreadable starts the call afresh.

        The SDK has already verified the seal, so an unreadable state can only come
        from another version of this server (a rolling upgrade): asking again is the
        safe recovery.

        Args:
            text: `ctx.request_state` as the SDK hands it over (plaintext), or None.

        Returns:
            The decoded state, or an empty one.
        """
        if not text:
            return cls()
        try:
            state = cls.model_validate(json.loads(text))
        except (ValueError, ValidationError):
            logger.info("typed_elicit: ignoring an unreadable request_state; the call starts afresh")
            return cls()
        if state.v != STATE_VERSION:
            logger.info("typed_elicit: ignoring request_state of version %s; the call starts afresh", state.v)
            return cls()
        return state


def model_id(model: type[BaseModel]) -> str:
    """The stable name a recorded answer is pinned to: `module.QualName`."""
    return f"{model.__module__}.{model.__qualname__}"


def new_round() -> str:
    """A fresh random round id (128 bits, URL-safe)."""
    return secrets.token_urlsafe(16)


def question_key(index: int) -> str:
    """The `inputRequests` key of the `index`-th question a call asks (0-based)."""
    return f"q{index}"
