"""`ElicitContext`: what a tool decorated with `@elicits` receives, and `ctx.elicit` itself."""

from __future__ import annotations

import inspect
import json
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias, TypeVar, overload

from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import REQUEST_TIMEOUT, ElicitRequest, ElicitRequestFormParams, InputRequiredResult
from mcp_types import ElicitResult as WireResult
from pydantic import BaseModel, ValidationError

from ._errors import ElicitationTimeout, ElicitationUnsupported, InvalidResponse, ReplayMismatch
from ._reducer import form_message, reduce_schema
from ._replay import Answer, Pending, QuestionId, ReplayState, model_id, question_key, schema_digest
from ._results import Accepted, Cancelled, Declined, ElicitResult
from ._validate import validate_content
from ._versions import LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, ProtocolVersion, is_mrtr

M = TypeVar("M", bound=BaseModel)

OnUnsupported: TypeAlias = Literal["raise", "defaults", "decline"]
"""What `ctx.elicit` does when the client cannot be asked.

- `"raise"`: raise `ElicitationUnsupported` (the default).
- `"defaults"`: return `Accepted(Model())` built from the model's defaults; raises
  `ElicitationUnsupported` if any field has no default.
- `"decline"`: return `Declined()`, as if the user had said no.
"""

JSON: TypeAlias = str | int | float | bool | list[Any] | dict[str, Any] | None
"""A value that survives a JSON round trip unchanged (what `ctx.once` may return)."""

J = TypeVar("J", bound=JSON)

DEFAULT_TIMEOUT: Final = 300.0
"""Seconds a question waits for its answer unless configured otherwise (5 minutes)."""

_default_timeout: float = DEFAULT_TIMEOUT


def set_default_timeout(seconds: float) -> None:
    """Set the process-wide default per-question timeout.

    A timeout given to `@elicits(timeout=...)` or `ctx.elicit(timeout=...)` wins
    over this one. `math.inf` waits forever.

    Args:
        seconds: The new default, in seconds.

    Raises:
        ValueError: If `seconds` is not positive.
    """
    global _default_timeout
    _default_timeout = _positive(seconds)


def get_default_timeout() -> float:
    """The process-wide default per-question timeout, in seconds."""
    return _default_timeout


def _positive(seconds: float) -> float:
    if not seconds > 0:
        raise ValueError(f"a timeout must be a positive number of seconds (or math.inf), got {seconds!r}")
    return seconds


def _now() -> float:
    """Wall-clock seconds; a module function so tests can move time without sleeping."""
    return time.time()


@dataclass(frozen=True)
class Policy:
    """Defaults for every question one decorated function asks (set by `@elicits`).

    Attributes:
        timeout: Seconds per question; None means the process-wide default.
        retries: How often an invalid answer is asked again before `InvalidResponse`.
        on_unsupported: What to do when the client cannot be asked.
    """

    timeout: float | None = None
    retries: int = 0
    on_unsupported: OnUnsupported = "raise"


class InputRequired(BaseException):
    """Internal: ends a 2026-07-28 round because a question has no answer yet.

    Derives from `BaseException` so that a tool's `except Exception:` cannot
    swallow it; `@elicits` turns it into the round's `InputRequiredResult`.
    """

    def __init__(self, result: InputRequiredResult) -> None:
        super().__init__("a question awaits the client's answer")
        self.result = result


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


class ElicitContext:
    """The context a function decorated with `@elicits` receives.

    Annotate one parameter with `ElicitContext`; the SDK injects its own
    `Context` there, which stays reachable as `ctx.sdk`, and the parameter never
    appears in the tool's `inputSchema`.
    """

    def __init__(self, sdk: Context[Any, Any], policy: Policy | None = None) -> None:
        """Wrap the SDK's context for one call (done for you by `@elicits`).

        Args:
            sdk: The SDK context of the running request.
            policy: The decorator's defaults.
        """
        self._sdk = sdk
        self._policy = policy or Policy()
        self._era: ProtocolVersion | None = negotiated_era(sdk.protocol_version)
        self._state = ReplayState.decode(sdk.request_state) if self._mrtr else ReplayState()
        self._responses = (sdk.input_responses or {}) if self._mrtr else {}
        self._answers: list[Answer] = []
        self._once: dict[str, Any] = dict(self._state.once)
        self._index = 0

    @property
    def sdk(self) -> Context[Any, Any]:
        """The SDK's own `Context` for this request (logging, progress, session, ...)."""
        return self._sdk

    @property
    def protocol_version(self) -> ProtocolVersion | None:
        """The elicitation era of this request, or None when the client has none."""
        return self._era

    @property
    def _mrtr(self) -> bool:
        return self._era is not None and is_mrtr(self._era)

    async def elicit(
        self,
        model: type[M],
        message: str | None = None,
        *,
        timeout: float | None = None,
        retries: int | None = None,
        on_unsupported: OnUnsupported | None = None,
    ) -> ElicitResult[M]:
        """Ask the user to fill in `model` and return their typed answer.

        Works unchanged on every protocol era. On 2025-06-18 and 2025-11-25 the
        question travels as an `elicitation/create` request during the call. On
        2026-07-28 the call ends with an `InputRequiredResult`, and when the
        client retries with the answer the function runs again from the top:
        questions already answered are answered from the recorded state, in
        order, so the code before each `elicit` must be deterministic (see
        `once`).

        The message is `message` if given, else the model's
        `@form(message=...)`, else the first paragraph of its docstring, else
        "Please provide <title>.".

        Accepted content is validated again on arrival: see `typed_elicit._validate`
        for the rules (booleans stay booleans, numeric strings count as numbers,
        unknown keys and missing required fields are errors, empty content means
        "all defaults").

        Args:
            model: The pydantic model to fill in.
            message: What to tell the user.
            timeout: Seconds to wait for the answer; None uses the decorator's
                setting, else the process-wide default (`set_default_timeout`).
            retries: How often to ask again, stating the problems, when the
                answer is invalid; None uses the decorator's setting (0).
            on_unsupported: What to do if the client cannot be asked; None uses
                the decorator's setting (`"raise"`).

        Returns:
            `Accepted(data)`, `Declined()` or `Cancelled()`.

        Raises:
            SchemaError: If `model` cannot be elicited on the negotiated revision.
            ElicitationUnsupported: If the client cannot be asked and the policy is `"raise"`.
            ElicitationTimeout: If no answer arrived in time (on push eras the
                pending request is cancelled first).
            InvalidResponse: If the answer is still invalid after `retries` re-asks.
            ReplayMismatch: On 2026-07-28, if a re-run asks a different question
                than the one recorded at this position.
            ValueError: If `timeout` or `retries` is out of range.
        """
        fallback = self._policy.timeout if self._policy.timeout is not None else _default_timeout
        wait = _positive(timeout if timeout is not None else fallback)
        attempts = self._policy.retries if retries is None else retries
        if attempts < 0:
            raise ValueError(f"retries must be 0 or more, got {attempts}")
        policy = on_unsupported or self._policy.on_unsupported
        era = self._era
        if era is None:
            version = self._sdk.protocol_version
            reason = (
                "it is not running inside a request"
                if version is None
                else f"the negotiated protocol {version} has no elicitation (it starts with 2025-06-18)"
            )
            return _unsupported(model, policy, reason)
        schema = reduce_schema(model, protocol_version=era)
        text = form_message(model) if message is None else message
        if is_mrtr(era):
            return self._answer_or_suspend(model, schema, text, wait, attempts, policy)
        refusal = self._cannot_ask()
        if refusal is not None:
            return _unsupported(model, policy, refusal)
        return await self._ask_now(model, schema, text, wait, attempts)

    @overload
    async def once(self, key: str, fn: Callable[[], Awaitable[J]]) -> J: ...
    @overload
    async def once(self, key: str, fn: Callable[[], J]) -> J: ...
    async def once(self, key: str, fn: Callable[[], Awaitable[J] | J]) -> J:
        """Run `fn` once per call, however many rounds the call takes, and reuse its result.

        On 2026-07-28 a tool body runs again on every round. Wrap anything that
        must not repeat (sending a code, charging a card) or that must not change
        between rounds (a timestamp, a random id, a database read) in `once`:
        the first round runs it and records its JSON result in the sealed
        request state; later rounds get the recorded result without running it.
        On push eras it simply runs `fn` the first time `key` is seen.

        The result is returned after a JSON round trip in every round, so the
        first round sees exactly what later rounds see.

        Args:
            key: Names the side effect; unique within the function.
            fn: A zero-argument function or coroutine function.

        Returns:
            What `fn` returned the first time, as JSON data.

        Raises:
            TypeError: If the result is not JSON data that survives a round trip
                unchanged (e.g. a tuple, a datetime, a model: return `.model_dump(mode="json")`).
        """
        if key in self._once:
            recorded: J = self._once[key]
            return recorded
        produced = fn()
        value = await produced if inspect.isawaitable(produced) else produced
        stored: J = _json_stable(key, value)
        self._once[key] = stored
        return stored

    def _cannot_ask(self) -> str | None:
        """Why the client cannot be sent a form question right now, or None if it can."""
        if not self._mrtr and not self._sdk.session.can_send_request:
            return (
                "this connection cannot carry server-to-client requests (stateless or JSON-response "
                "HTTP); serve stateful streamable HTTP, or let the client use protocol 2026-07-28"
            )
        capabilities = self._sdk.client_capabilities
        elicitation = capabilities.elicitation if capabilities is not None else None
        if elicitation is None:
            return "the client did not declare the elicitation capability"
        if elicitation.form is None and elicitation.url is not None:
            return "the client declared URL-mode elicitation only, and this question is a form"
        return None

    async def _ask_now(
        self, model: type[M], schema: dict[str, Any], message: str, timeout: float, retries: int
    ) -> ElicitResult[M]:
        """Push eras: send `elicitation/create` and wait, re-asking invalid answers."""
        text = message
        attempt = 0
        while True:
            wire = await self._send(model, schema, text, timeout)
            try:
                return _outcome(model, schema, wire)
            except InvalidResponse as problem:
                if attempt >= retries:
                    raise
                attempt += 1
                text = _reask(message, problem)

    async def _send(
        self, model: type[BaseModel], schema: dict[str, Any], message: str, timeout: float
    ) -> WireResult:
        request = ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))
        request_context = self._sdk.request_context
        try:
            return await request_context.session.send_request(
                request,
                WireResult,
                request_read_timeout_seconds=None if math.isinf(timeout) else timeout,
                metadata=ServerMessageMetadata(related_request_id=request_context.request_id),
            )
        except MCPError as exc:
            if exc.code != REQUEST_TIMEOUT:
                raise
            raise ElicitationTimeout(
                f"no answer to {model.__name__} within {timeout:g} s; the pending question was "
                "cancelled (notifications/cancelled sent). Pass timeout= to ctx.elicit or @elicits "
                "to wait longer."
            ) from None
        except ValidationError:
            raise InvalidResponse(
                model.__name__, [("(result)", "the client's elicitation result is malformed")], None
            ) from None

    def _answer_or_suspend(
        self,
        model: type[M],
        schema: dict[str, Any],
        message: str,
        timeout: float,
        retries: int,
        policy: OnUnsupported,
    ) -> ElicitResult[M]:
        """2026-07-28: answer from the record or this round's responses, else end the round."""
        index = self._index
        self._index += 1
        question = QuestionId(key=question_key(index), model=model_id(model), digest=schema_digest(schema))
        if index < len(self._state.answers):
            answer = self._state.answers[index]
            if answer.question != question:
                raise _mismatch(index, answer.question, question)
            self._answers.append(answer)
            return _outcome(model, schema, WireResult(action=answer.action, content=answer.content))
        pending = self._state.pending
        response = self._responses.get(question.key)
        if pending is not None and pending.question.key == question.key:
            if pending.question != question:
                raise _mismatch(index, pending.question, question)
            if isinstance(response, WireResult):
                return self._take(model, schema, message, timeout, retries, pending, response)
        reason = self._cannot_ask()
        if reason is not None:
            return _unsupported(model, policy, reason)
        raise self._suspend(question, schema, message, attempt=0)

    def _take(
        self,
        model: type[M],
        schema: dict[str, Any],
        message: str,
        timeout: float,
        retries: int,
        pending: Pending,
        response: WireResult,
    ) -> ElicitResult[M]:
        waited = _now() - pending.asked_at
        if waited > timeout:
            raise ElicitationTimeout(
                f"the answer to {model.__name__} arrived {waited:.0f} s after it was asked, later than "
                f"the {timeout:g} s timeout. Pass timeout= to ctx.elicit or @elicits to wait longer "
                "(and keep the server's RequestStateSecurity ttl above it)."
            )
        try:
            outcome = _outcome(model, schema, response)
        except InvalidResponse as problem:
            if pending.attempt >= retries:
                raise
            raise self._suspend(
                pending.question, schema, _reask(message, problem), pending.attempt + 1
            ) from None
        content = response.content if response.action == "accept" else None
        self._answers.append(Answer(question=pending.question, action=response.action, content=content))
        return outcome

    def _suspend(
        self, question: QuestionId, schema: dict[str, Any], message: str, attempt: int
    ) -> InputRequired:
        request = ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))
        state = ReplayState(
            answers=tuple(self._answers),
            pending=Pending(question=question, asked_at=_now(), attempt=attempt),
            once=dict(self._once),
        )
        return InputRequired(
            InputRequiredResult(input_requests={question.key: request}, request_state=state.encode())
        )


def _outcome(model: type[M], schema: dict[str, Any], wire: WireResult) -> ElicitResult[M]:
    if wire.action == "accept":
        return Accepted(validate_content(model, schema, wire.content))
    if wire.action == "decline":
        return Declined()
    return Cancelled()


def _unsupported(model: type[M], policy: OnUnsupported, reason: str) -> ElicitResult[M]:
    if policy == "decline":
        return Declined()
    if policy == "defaults":
        try:
            return Accepted(model.model_validate({}))
        except ValidationError as exc:
            missing = sorted({".".join(map(str, error["loc"])) for error in exc.errors()})
            reason += (
                f"; on_unsupported='defaults' needs a default for every field, but {model.__name__} "
                f"has none for {', '.join(missing)}"
            )
    raise ElicitationUnsupported(
        f"cannot ask for {model.__name__}: {reason}. Pass on_unsupported='defaults' or 'decline' "
        "to ctx.elicit or @elicits to carry on without asking."
    )


def _reask(message: str, problem: InvalidResponse) -> str:
    details = "; ".join(f"{path}: {text}" for path, text in problem.errors)
    return f"{message}\n\nYour previous answer could not be used ({details}). Please answer again."


def _mismatch(index: int, recorded: QuestionId, asked: QuestionId) -> ReplayMismatch:
    return ReplayMismatch(
        f"question #{index + 1} of this call was {recorded.describe()} when the client answered it, "
        f"but this round asked {asked.describe()} there. On protocol 2026-07-28 the function runs "
        "again from the top on every round and earlier answers are replayed in order, so the code "
        "before each ctx.elicit must be deterministic: the same arguments and answers must lead to "
        "the same questions in the same order. Wrap side effects and changing reads (time, random, "
        "databases) in `await ctx.once(key, fn)`."
    )


def _json_stable(key: str, value: J) -> J:
    try:
        copied = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"ctx.once({key!r}) must return JSON data (str, int, float, bool, None, list, dict), "
            f"got {type(value).__name__}: {exc}"
        ) from None
    if copied != value or type(copied) is not type(value):
        raise TypeError(
            f"ctx.once({key!r}) returned {type(value).__name__} data that changes in a JSON round trip "
            "(tuples, non-string keys); return lists and string-keyed dicts"
        )
    stable: J = copied
    return stable
