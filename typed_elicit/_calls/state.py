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

The wire layout (`encode`, version 3) is a positional JSON array, because the client
carries it on every round: no field names, actions as small numbers, question keys as
their index, and each question's model and schema digest written once and referred to
by number after that. It is never compressed: the state is sealed as it is, so its
length depends on the answers' lengths only, never on what they say. `decode` also reads
the previous layout (version 2, a JSON object), so a round written by a replica of the
previous release is resumed during a rolling deploy; anything else starts the call
afresh, logged (the version only, never the state).
"""

from __future__ import annotations

import json
import logging
import math
import secrets
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict

logger = logging.getLogger(__name__)

STATE_VERSION = 3
"""Bumped whenever the layout changes; a state of another version starts the call afresh."""

READABLE_VERSIONS = frozenset({2, STATE_VERSION})
"""The layouts `decode` reads: this one, and the previous release's (rolling deploys)."""


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

    def encode(self) -> str:
        """Serialise for `InputRequiredResult.request_state` (the SDK seals it), in layout 3.

        `[3, started, rounds, awaiting, answers, once, trace, pages]`, trailing empty items
        left out (see `_Writer`). Times are kept to the millisecond, rounded down, so a
        deadline counted from them never moves later.
        """
        return _Writer().state(self)

    @classmethod
    def decode(cls, text: str | None) -> ReplayState:
        """Read the state the client echoed; anything unreadable starts the call afresh.

        The SDK has already verified the seal, so an unreadable state can only come
        from another version of this server (a rolling upgrade): asking again is the
        safe recovery. Layout 3 and the previous release's layout 2 are read.

        Args:
            text: `ctx.request_state` as the SDK hands it over (plaintext), or None.

        Returns:
            The decoded state, or an empty one.
        """
        if not text:
            return cls()
        try:
            data = json.loads(text)
        except ValueError:
            return _afresh(None)
        version = _version_of(data)
        if version not in READABLE_VERSIONS:
            return _afresh(version)
        try:
            return _Reader().state(data) if version == STATE_VERSION else _from_v2(data)
        except (ValueError, TypeError, LookupError):  # ValidationError is a ValueError
            return _afresh(None)


def _version_of(data: object) -> int | None:
    """The layout version a decoded state says it has (an int), else None."""
    if isinstance(data, list) and data:
        version = cast("list[object]", data)[0]
    elif isinstance(data, dict):
        version = cast("dict[str, object]", data).get("v")
    else:
        return None
    return version if type(version) is int else None


def _afresh(version: int | None) -> ReplayState:
    """An empty state, logged: only the version is named, never anything the state holds."""
    what = "an unreadable request_state" if version is None else f"request_state of version {version}"
    logger.info("typed_elicit: ignoring %s; the call starts afresh", what)
    return ReplayState()


def _from_v2(data: Any) -> ReplayState:
    """A state in the previous release's layout 2: `ReplayState`'s fields by name, as JSON."""
    if not isinstance(data, dict):  # pragma: no cover - _version_of found "v" in a dict
        raise TypeError("layout 2 is an object")
    return ReplayState.model_validate({**cast("dict[str, Any]", data), "v": STATE_VERSION})


_ACTIONS: tuple[Literal["accept", "decline", "cancel"], ...] = ("accept", "decline", "cancel")
"""An answer's action as layout 3 writes it: its index here."""
_ACTION_CODES: dict[str, int] = {action: code for code, action in enumerate(_ACTIONS)}


_MANY = 1 << 62
"""No bound on a list's length."""


class _Writer:
    """Layout 3's encoder: one per state, numbering each question (model and digest) it writes.

    A question is `"<digest> <model>"` the first time, then the number of its first
    appearance (0, 1, ...), in writing order: the awaiting questions, then the answers.
    A digest holding a space (never one of `digests`') is written `[model, digest]`.
    A question's key `q<n>` is written `n` (any other key as a string). The call's start
    is whole milliseconds (Unix time); each question's asked time is the milliseconds
    since that start.
    """

    __slots__ = ("_seen", "_start")

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], int] = {}
        self._start = 0

    def state(self, state: ReplayState) -> str:
        started = None if state.started is None else _ms(state.started)
        self._start = started or 0
        items: list[Any] = [
            STATE_VERSION,
            started,
            state.rounds,
            [self._pending(p) for p in state.awaiting()],
            [self._answer(a) for a in state.answers],
            state.once,
            state.trace,
            {key: _page(page) for key, page in state.pages.items()},
        ]
        while items[-1] in ({}, [], None):  # trailing defaults; `rounds` (an int) always stays
            items.pop()
        return json.dumps(items, separators=(",", ":"))

    def _question(self, question: QuestionId) -> str | int | list[str]:
        pin = (question.model, question.digest)
        seen = self._seen.get(pin)
        if seen is not None:
            return seen
        self._seen[pin] = len(self._seen)
        if " " in question.digest:
            return [question.model, question.digest]
        return f"{question.digest} {question.model}"

    def _pending(self, pending: Pending) -> list[Any]:
        asked = _ms(pending.asked_at) - self._start
        out: list[Any] = [
            _index(pending.question.key),
            self._question(pending.question),
            asked,
            pending.round,
        ]
        if pending.attempt:
            out.append(pending.attempt)
        return out

    def _answer(self, answer: Answer) -> list[Any]:
        out: list[Any] = [
            _index(answer.question.key),
            self._question(answer.question),
            _ACTION_CODES[answer.action],
        ]
        if answer.content is not None:
            out.append(answer.content)
        return out


class _Reader:
    """Layout 3's decoder: the inverse of `_Writer`.

    It rebuilds `ReplayState`'s fields by name and has pydantic validate them in one pass.
    """

    __slots__ = ("_seen", "_start")

    def __init__(self) -> None:
        self._seen: list[tuple[str, str]] = []
        self._start = 0

    def state(self, data: list[Any]) -> ReplayState:
        if not 3 <= len(data) <= 8:  # version, start and round count are always written
            raise ValueError("layout 3 has 3 to 8 items")
        _, started, rounds, *rest = data
        # the items `_Writer` left out at the end (they were empty)
        awaiting, answers, once, trace, pages = rest + [[], [], {}, None, {}][len(rest) :]
        if started is not None:
            self._start = _whole(started)
        waiting = [self._pending(item) for item in _record(awaiting, 0, _MANY)]
        fields = {
            "started": None if started is None else started / 1000,
            "rounds": rounds,
            "pending": waiting[0] if waiting else None,
            "others": waiting[1:],
            "answers": [self._answer(item) for item in _record(answers, 0, _MANY)],
            "once": once,
            "trace": trace,
            "pages": {key: _read_page(value) for key, value in _items(pages)},
        }
        return ReplayState.model_validate(fields)

    def _question(self, index: object, pin: object) -> dict[str, Any]:
        if type(pin) is int and 0 <= pin < len(self._seen):
            model, digest = self._seen[pin]
        elif isinstance(pin, str) and " " in pin:
            digest, _, model = pin.partition(" ")
            self._seen.append((model, digest))
        elif isinstance(pin, list) and len(cast("list[object]", pin)) == 2:
            model, digest = cast("list[str]", pin)
            self._seen.append((model, digest))
        else:
            raise TypeError("a question is a string, a number or a pair")
        if isinstance(index, str):
            key = index
        elif type(index) is int and index >= 0:
            key = question_key(index)
        else:
            raise TypeError("a question's index is an int, or its key a string")
        return {"key": key, "model": model, "digest": digest}

    def _pending(self, item: Any) -> dict[str, Any]:
        index, pin, asked_at, round_id, *rest = _record(item, 4, 5)
        return {
            "question": self._question(index, pin),
            "asked_at": (self._start + _whole(asked_at)) / 1000,
            "attempt": rest[0] if rest else 0,
            "round": round_id,
        }

    def _answer(self, item: Any) -> dict[str, Any]:
        index, pin, code, *rest = _record(item, 3, 4)
        if type(code) is not int or not 0 <= code < len(_ACTIONS):
            raise ValueError("an action is 0, 1 or 2")
        return {
            "question": self._question(index, pin),
            "action": _ACTIONS[code],
            "content": rest[0] if rest else None,
        }


def _ms(seconds: float) -> int:
    """The whole milliseconds in `seconds`, rounded down; stable when read back (`ms / 1000`)."""
    ms = math.floor(seconds * 1000)  # off by at most one: the product is rounded
    if ms / 1000 > seconds:
        return ms - 1
    return ms + 1 if (ms + 1) / 1000 <= seconds else ms


def _whole(value: object) -> int:
    if type(value) is not int:
        raise TypeError("a time is whole milliseconds")
    return value


def _page(page: PageRecord) -> list[Any]:
    out: list[Any] = [page.id, page.expires_at, page.elicitation_id, page.request]
    if page.taken:
        out.append(1)
    return out


def _read_page(value: Any) -> dict[str, Any]:
    page_id, expires_at, elicitation_id, request, *rest = _record(value, 4, 5)
    if rest and rest[0] != 1:
        raise ValueError("a taken page is marked 1")
    return {
        "id": page_id,
        "expires_at": expires_at,
        "elicitation_id": elicitation_id,
        "request": request,
        "taken": bool(rest),
    }


def _record(value: object, least: int, most: int) -> list[Any]:
    """`value` if it is a list of `least` to `most` items (a record of layout 3)."""
    if not isinstance(value, list):
        raise TypeError("a record is a list")
    items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
    if not least <= len(items) <= most:
        raise TypeError("a record has the layout's length")
    return items


def _items(pages: object) -> list[tuple[str, Any]]:
    if not isinstance(pages, dict):
        raise TypeError("pages are an object")
    return list(cast("dict[str, Any]", pages).items())


def _index(key: str) -> int | str:
    """The index of a question key `q<n>` (every key `question_key` makes); any other key as it is."""
    number = key[1:]
    if key[:1] == "q" and number.isascii() and number.isdigit() and question_key(int(number)) == key:
        return int(number)
    return key


def model_id(model: type[BaseModel]) -> str:
    """The stable name a recorded answer is pinned to: `module.QualName`."""
    return f"{model.__module__}.{model.__qualname__}"


def new_round() -> str:
    """A fresh random round id (128 bits, URL-safe)."""
    return secrets.token_urlsafe(16)


_KEYS = tuple(f"q{index}" for index in range(64))
"""The first keys, made once: a call holds its pending question's key while it waits."""


def question_key(index: int) -> str:
    """The `inputRequests` key of the `index`-th question a call asks (0-based)."""
    return _KEYS[index] if 0 <= index < 64 else f"q{index}"
