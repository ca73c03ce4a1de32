"""`ElicitContext`: what a tool decorated with `@elicits` receives, `ctx.elicit` and `ctx.elicit_url`."""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import uuid
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, Final, Literal, TypeAlias, TypeVar, overload
from urllib.parse import SplitResult, urlsplit

import anyio
import anyio.lowlevel
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import (
    INVALID_PARAMS,
    REQUEST_TIMEOUT,
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitRequestURLParams,
    InputRequest,
    InputRequiredResult,
)
from mcp_types import ElicitResult as WireResult
from pydantic import BaseModel, GetCoreSchemaHandler, ValidationError
from pydantic_core import CoreSchema

from . import _clock
from ._errors import (
    ClientError,
    ElicitationTimeout,
    ElicitationUnsupported,
    ElicitUsageError,
    FallbackNotInstalled,
    InvalidResponse,
    ReplayMismatch,
    TypedElicitError,
)
from ._fallback import Resume, fallback_result, installed, seal_token
from ._hooks import (
    AnswerEvent,
    ElicitHook,
    QuestionEvent,
    active_hooks,
    private,
    run_answer_hooks,
    run_question_hooks,
)
from ._policy import (  # re-exported: @elicits, the package and tests import them from here
    DEFAULT_CALL_TIMEOUT as DEFAULT_CALL_TIMEOUT,
)
from ._policy import (
    DEFAULT_MAX_ANSWER_BYTES as DEFAULT_MAX_ANSWER_BYTES,
)
from ._policy import (
    DEFAULT_POLICY as DEFAULT_POLICY,
)
from ._policy import (
    DEFAULT_TIMEOUT as DEFAULT_TIMEOUT,
)
from ._policy import (
    ON_UNSUPPORTED as ON_UNSUPPORTED,
)
from ._policy import (
    URL_ON_UNSUPPORTED as URL_ON_UNSUPPORTED,
)
from ._policy import (
    OnUnsupported as OnUnsupported,
)
from ._policy import (
    Policy as Policy,
)
from ._policy import (
    UrlOnUnsupported as UrlOnUnsupported,
)
from ._policy import (
    check_call_timeout as check_call_timeout,
)
from ._policy import (
    check_max_answer_bytes as check_max_answer_bytes,
)
from ._policy import (
    check_on_unsupported as check_on_unsupported,
)
from ._policy import (
    check_retries as check_retries,
)
from ._policy import (
    check_timeout as check_timeout,
)
from ._policy import (
    get_default_timeout as get_default_timeout,
)
from ._policy import (
    set_default_timeout as set_default_timeout,
)
from ._policy import (
    state_ttl as state_ttl,
)
from ._policy import (
    warn_if_over_state_ttl as warn_if_over_state_ttl,
)
from ._reducer import Reduced, form_message, reduced
from ._replay import (
    URL_QUESTION,
    Answer,
    Pending,
    QuestionId,
    ReplayState,
    model_id,
    new_round,
    question_key,
    url_digest,
)
from ._results import Accepted, Cancelled, Consented, Declined, ElicitResult, UrlResult
from ._store import store_for
from ._validate import validate_content
from ._versions import (
    LATEST_PROTOCOL_VERSION,
    PROTOCOL_VERSIONS,
    ProtocolVersion,
    has_elicit_complete,
    has_url_mode,
    uses_input_required,
)

Via: TypeAlias = Literal["client", "fallback"]

M = TypeVar("M", bound=BaseModel)
M1 = TypeVar("M1", bound=BaseModel)
M2 = TypeVar("M2", bound=BaseModel)
M3 = TypeVar("M3", bound=BaseModel)
M4 = TypeVar("M4", bound=BaseModel)
M5 = TypeVar("M5", bound=BaseModel)
M6 = TypeVar("M6", bound=BaseModel)

Mode: TypeAlias = Literal["form", "url"]

JSON: TypeAlias = str | int | float | bool | list[Any] | dict[str, Any] | None
"""A value that survives a JSON round trip unchanged (what `ctx.once` may return)."""

J = TypeVar("J", bound=JSON)

_CLAIM_MARGIN: Final = 60.0
"""Seconds a claimed round id is kept past the round's last possible answer (clock skew)."""


_EMPTY_STATE = ReplayState()


class InputRequired(BaseException):
    """Internal: ends a 2026-07-28 round because a question has no answer yet.

    Derives from `BaseException` so that a tool's `except Exception:` cannot
    swallow it; `@elicits` turns it into the round's `InputRequiredResult`.
    """

    def __init__(self, result: InputRequiredResult) -> None:
        super().__init__("a question awaits the client's answer")
        self.result = result
        _record_suspension(self)


class RoundRefused(BaseException):
    """Internal: ends a call whose round was already answered (single-use rounds).

    Derives from `BaseException` so that no tool code runs on after it;
    `@elicits` raises its `error`, a JSON-RPC error -32602, to the client.
    """

    def __init__(self, error: MCPError) -> None:
        super().__init__("this round was already answered")
        self.error = error


class FallbackRequired(BaseException):
    """Internal: ends a tool call because a question goes to the model (`on_unsupported="fallback"`).

    `@elicits` turns it into the call's result.
    """

    def __init__(self, result: CallToolResult) -> None:
        super().__init__("a question awaits the model's relayed answer")
        self.result = result
        _record_suspension(self)


suspensions: ContextVar[list[BaseException] | None] = ContextVar("typed_elicit_suspensions", default=None)
"""Every `InputRequired`/`FallbackRequired` created during the running `@elicits` call.

`@elicits` sets a fresh list per call; task groups inside the call share it (a child
task's context copy holds the same list). The wrapper compares it with what the
function raised: a suspension that never reached it was swallowed, two in one round
were asked concurrently.
"""


def _record_suspension(suspension: BaseException) -> None:
    created = suspensions.get()
    if created is not None:
        created.append(suspension)


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

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Refuse to become a pydantic field: the SDK met `ElicitContext` without `@elicits`.

        The SDK builds a model of a function's parameters when it registers a tool or
        prompt; an `ElicitContext` parameter reaches it only when `@elicits` is
        missing or sits above `@server.tool()`/`@server.prompt()`.

        Raises:
            ElicitUsageError: Always, saying where `@elicits` goes.
        """
        field = handler.field_name
        raise ElicitUsageError(
            f"the SDK is registering a function whose parameter {field or '(unnamed)'!r} is annotated "
            "ElicitContext without @elicits in between: put @elicits directly under the SDK's "
            "decorator (and not above it), e.g.\n"
            "    @server.tool()\n"
            "    @elicits\n"
            "    async def book(city: str, ctx: ElicitContext) -> str: ..."
        )

    def __init__(
        self,
        sdk: Context[Any, Any],
        policy: Policy | None = None,
        *,
        function: str = "<function>",
        resume: Resume | None = None,
    ) -> None:
        """Wrap the SDK's context for one call (done for you by `@elicits`).

        Args:
            sdk: The SDK context of the running request.
            policy: The decorator's defaults.
            function: The decorated function's name, for hooks.
            resume: Set when the fallback's companion tool runs the call again.
        """
        self._sdk = sdk
        self._policy = policy or DEFAULT_POLICY
        self._function = function
        self._resume = resume
        # Read once: each SDK Context property goes through pydantic's __getattr__.
        try:
            self._request: ServerRequestContext[Any, Any] | None = sdk.request_context
        except ValueError:  # outside a request
            self._request = None
        self._era: ProtocolVersion | None = negotiated_era(
            None if self._request is None else self._request.protocol_version
        )
        if resume is not None:
            assert resume.state.pending is not None
            self._state = resume.state
            self._responses: dict[str, Any] = {resume.state.pending.question.key: resume.response}
        elif self._mrtr:
            self._state = ReplayState.decode(sdk.request_state)
            self._responses = dict(sdk.input_responses or {})
        else:
            self._state = _EMPTY_STATE  # frozen: one empty state serves every push-era call
            self._responses = {}
        self._started = self._state.started if self._state.started is not None else _clock.now()
        self._answers: list[Answer] = []
        self._once: dict[str, Any] = dict(self._state.once) if self._state.once else {}
        self._index = 0
        self._round: list[tuple[Pending, ElicitRequest]] = []

    @property
    def sdk(self) -> Context[Any, Any]:
        """The SDK's own `Context` for this request (logging, progress, session, ...)."""
        return self._sdk

    @property
    def protocol_version(self) -> ProtocolVersion | None:
        """The elicitation era of this request, or None when the client has none."""
        return self._era

    @property
    def _in_tool(self) -> bool:
        """Whether this is a `tools/call` (outside a request: not known, so yes)."""
        return self._request is None or self._request.method == "tools/call"

    @property
    def _mrtr(self) -> bool:
        return self._era is not None and uses_input_required(self._era)

    @property
    def _replaying(self) -> bool:
        """Whether questions are answered by re-running the call (2026-07-28, or a resumed fallback)."""
        return self._resume is not None or self._mrtr

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
        for the rules (booleans stay booleans, numbers must be finite, a string in
        the JSON number grammar counts as a number, unknown keys and missing
        required fields are errors, empty content means "all defaults").

        Args:
            model: The pydantic model to fill in.
            message: What to tell the user.
            timeout: Seconds to wait for the answer; None uses the decorator's
                setting, else the process-wide default (`setget_default_timeout()`).
            retries: How often to ask again, stating the problems, when the
                answer is invalid; None uses the decorator's setting (0).
            on_unsupported: What to do if the client cannot be asked; None uses
                the decorator's setting (`"raise"`). `"fallback"` asks through the
                model (tools only; needs `install_fallback`).

        Returns:
            `Accepted(data)`, `Declined()` or `Cancelled()`.

        Raises:
            SchemaError: If `model` cannot be elicited on the negotiated revision.
            ElicitationUnsupported: If the client cannot be asked and the policy is `"raise"`.
            ElicitationTimeout: If no answer arrived in time (on push eras the
                pending request is cancelled first); on 2026-07-28 and fallback
                resumes also when the call is older than `@elicits(call_timeout=...)`.
                Refreshing a question never restarts either clock.
            ClientError: On push eras, if the client answered the question with a
                JSON-RPC error instead of a result.
            InvalidResponse: If the answer is still invalid after `retries` re-asks
                (an answer over `@elicits(max_answer_bytes=...)` counts as invalid),
                or the client's result is malformed (never asked again).
            ReplayMismatch: On 2026-07-28, if a re-run asks a different question
                than the one recorded at this position.
            FallbackNotInstalled: If the policy is `"fallback"`, the client cannot be
                asked, and the server has no `install_fallback` companion tool.
            HookError: If an elicitation hook fails (see `ElicitHook`).
            TypeError: If `model` is not a pydantic model class (the arguments in
                the SDK's order, message first, get a hint) or `message` is not a string.
            ValueError: If `message` is blank, `timeout` or `retries` is out of
                range, `on_unsupported` is not one of the policies, or it is
                `"fallback"` outside a tool.
        """
        _check_question(model, message)
        fallback = self._policy.timeout if self._policy.timeout is not None else get_default_timeout()
        wait = check_timeout(timeout if timeout is not None else fallback, "ctx.elicit")
        attempts = self._policy.retries if retries is None else check_retries(retries, "ctx.elicit")
        if on_unsupported is not None:
            check_on_unsupported(on_unsupported, "ctx.elicit", ON_UNSUPPORTED)
            if on_unsupported == "fallback" and self._resume is None and not self._in_tool:
                raise ValueError(
                    f"ctx.elicit got on_unsupported='fallback' in {self._function}, which is not a tool: "
                    "the fallback re-runs a tool call, so it works for tools only. Pass "
                    "on_unsupported='raise', 'defaults' or 'decline' here."
                )
        policy = on_unsupported or self._policy.on_unsupported
        era = self._era
        if era is None and self._resume is None:
            version = self._sdk.protocol_version
            reason = (
                "it is not running inside a request"
                if version is None
                else f"the negotiated protocol {version} has no elicitation (it starts with 2025-06-18)"
            )
            if policy != "fallback" or version is None:
                return _unsupported(model, policy, reason, tool=version is not None and self._in_tool)
        else:
            reason = None
        form = reduced(model, era or LATEST_PROTOCOL_VERSION)
        text = form_message(model) if message is None else message
        if self._replaying:
            return await self._answer_or_suspend(model, form, text, wait, attempts, policy)
        refusal = reason or self._cannot_ask()
        if refusal is not None:
            if policy != "fallback":
                return _unsupported(model, policy, refusal, tool=self._in_tool)
            index = self._next_index()
            question = QuestionId(key=question_key(index), model=model_id(model), digest=form.digest)
            params = form.params(text)
            raise await self._suspend(question, params, 0, model, via="fallback", reason=refusal)
        return await self._ask_now(model, form, text, wait, attempts)

    async def elicit_url(
        self,
        url: str,
        message: str,
        *,
        elicitation_id: str | None = None,
        timeout: float | None = None,
        on_unsupported: UrlOnUnsupported | None = None,
    ) -> UrlResult:
        """Ask the user to open `url` (URL mode) and return whether they agreed.

        For what must not pass through the client: credentials, API keys, OAuth
        consent, payments. The client shows `message` and the full URL and asks
        the user's consent before opening it. `Consented()` means only that: what
        happens on the page reaches the server out of band (its own callback),
        never through this result.

        Works unchanged on every era that has URL mode. On 2025-11-25 the question
        is an `elicitation/create` request with `mode: "url"` and an
        `elicitationId`. On 2026-07-28 it ends the round with an
        `InputRequiredResult` like a form question and is answered on the retry;
        its recorded answer is pinned to its position and to the exact URL, so
        mint any per-call token in the URL with `once`. 2025-06-18 has no URL
        mode: the `on_unsupported` policy applies.

        The URL is checked before anything is sent, on every era: it must be an
        absolute `https` or `http` URL with a host, and must not carry
        credentials (`user:password@`), because clients display it in full.

        Args:
            url: The page to send the user to.
            message: Why, in words the user reads next to the URL.
            elicitation_id: The `elicitationId` sent on 2025-11-25; None mints a
                fresh uuid4. Give your own (and keep it with the flow's state) to
                announce the flow's end later with `complete_url`.
            timeout: Seconds to wait for the user's consent (not for the page's
                flow); None uses the decorator's setting, else the process-wide default.
            on_unsupported: What to do if the client cannot be sent to a URL
                (protocol 2025-06-18, no `elicitation.url` capability, no channel
                for server requests); None uses the decorator's setting.

        Returns:
            `Consented()`, `Declined()` or `Cancelled()`.

        Raises:
            ElicitationUnsupported: If the client cannot be asked and the policy is
                `"raise"` (or the decorator's `"defaults"`).
            ElicitationTimeout: If no answer arrived in time (on 2025-11-25 the
                pending request is cancelled first).
            ClientError: On 2025-11-25, if the client answered with a JSON-RPC error
                instead of a result.
            InvalidResponse: On 2025-11-25, if the client's result is malformed.
            HookError: If an elicitation hook fails (see `ElicitHook`).
            ReplayMismatch: On 2026-07-28, if a re-run asks a different question
                (another kind, or another URL) than the one recorded at this position.
            ValueError: If `url`, `message`, `elicitation_id`, `timeout` or
                `on_unsupported` is invalid.
        """
        _check_url(url)
        if not isinstance(message, str) or not message.strip():  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError("ctx.elicit_url needs a message telling the user why they should open the URL")
        if elicitation_id is not None and not elicitation_id:
            raise ValueError("an elicitation_id must be a non-empty string (or None to mint one)")
        fallback = self._policy.timeout if self._policy.timeout is not None else get_default_timeout()
        wait = check_timeout(timeout if timeout is not None else fallback, "ctx.elicit_url")
        if on_unsupported is not None:
            check_on_unsupported(
                on_unsupported,
                "ctx.elicit_url",
                URL_ON_UNSUPPORTED,
                ": a URL-mode question has no defaults, and never passes through the model",
            )
        policy: OnUnsupported = on_unsupported or self._policy.on_unsupported
        era = self._era
        if era is None:
            version = self._sdk.protocol_version
            reason = (
                "it is not running inside a request"
                if version is None
                else f"the negotiated protocol {version} has no elicitation"
            )
            return _url_unsupported(policy, reason)
        if not has_url_mode(era):
            reason = f"the negotiated protocol {era} has no URL mode (URL mode needs 2025-11-25 or later)"
            return _url_unsupported(policy, reason)
        if self._replaying:
            return await self._url_answer_or_suspend(url, message, wait, policy)
        refusal = self._cannot_ask("url")
        if refusal is not None:
            return _url_unsupported(policy, refusal)
        params = ElicitRequestURLParams(
            message=message, url=url, elicitation_id=elicitation_id or str(uuid.uuid4())
        )
        question = QuestionId(
            key=question_key(self._next_index()), model=URL_QUESTION, digest=url_digest(url)
        )
        event = self._event(params, None, 0, "client")
        await run_question_hooks(self._hooks, event)
        wire = await self._send(params, "the URL-mode question", wait)
        await self._answered(event, wire)
        self._answers.append(Answer(question=question, action=wire.action))
        return _url_outcome(wire.action)

    async def complete_url(self, elicitation_id: str) -> bool:
        """Tell the client that the out-of-band flow of a URL-mode question has finished.

        Sends `notifications/elicitation/complete` with `elicitation_id` on
        2025-11-25, related to this request. Other eras have no such notification
        (2026-07-28 dropped it): there it does nothing, so tool code stays the same
        on every era. Use the id you passed to `elicit_url(elicitation_id=...)`.

        Args:
            elicitation_id: The id of the URL-mode question whose flow finished.

        Returns:
            Whether a notification was sent.

        Raises:
            ValueError: If `elicitation_id` is not a non-empty string (checked on every era).
        """
        if not isinstance(elicitation_id, str) or not elicitation_id:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError(
                f"ctx.complete_url needs the elicitation_id given to ctx.elicit_url, got {elicitation_id!r}"
            )
        if self._era is None or not has_elicit_complete(self._era):
            return False
        await self._sdk.session.send_elicit_complete(elicitation_id, related_request_id=self._sdk.request_id)
        return True

    @overload
    async def elicit_all(
        self,
        m1: type[M1],
        /,
        *,
        timeout: float | None = None,
        retries: int | None = None,
        on_unsupported: OnUnsupported | None = None,
    ) -> tuple[ElicitResult[M1],]: ...
    @overload
    async def elicit_all(
        self,
        m1: type[M1],
        m2: type[M2],
        /,
        *,
        timeout: float | None = None,
        retries: int | None = None,
        on_unsupported: OnUnsupported | None = None,
    ) -> tuple[ElicitResult[M1], ElicitResult[M2]]: ...
    @overload
    async def elicit_all(
        self,
        m1: type[M1],
        m2: type[M2],
        m3: type[M3],
        /,
        *,
        timeout: float | None = None,
        retries: int | None = None,
        on_unsupported: OnUnsupported | None = None,
    ) -> tuple[ElicitResult[M1], ElicitResult[M2], ElicitResult[M3]]: ...
    @overload
    async def elicit_all(
        self,
        m1: type[M1],
        m2: type[M2],
        m3: type[M3],
        m4: type[M4],
        /,
        *,
        timeout: float | None = None,
        retries: int | None = None,
        on_unsupported: OnUnsupported | None = None,
    ) -> tuple[ElicitResult[M1], ElicitResult[M2], ElicitResult[M3], ElicitResult[M4]]: ...
    @overload
    async def elicit_all(
        self,
        m1: type[M1],
        m2: type[M2],
        m3: type[M3],
        m4: type[M4],
        m5: type[M5],
        /,
        *,
        timeout: float | None = None,
        retries: int | None = None,
        on_unsupported: OnUnsupported | None = None,
    ) -> tuple[ElicitResult[M1], ElicitResult[M2], ElicitResult[M3], ElicitResult[M4], ElicitResult[M5]]: ...
    @overload
    async def elicit_all(
        self,
        m1: type[M1],
        m2: type[M2],
        m3: type[M3],
        m4: type[M4],
        m5: type[M5],
        m6: type[M6],
        /,
        *,
        timeout: float | None = None,
        retries: int | None = None,
        on_unsupported: OnUnsupported | None = None,
    ) -> tuple[
        ElicitResult[M1],
        ElicitResult[M2],
        ElicitResult[M3],
        ElicitResult[M4],
        ElicitResult[M5],
        ElicitResult[M6],
    ]: ...
    @overload
    async def elicit_all(
        self,
        *models: type[BaseModel],
        timeout: float | None = None,
        retries: int | None = None,
        on_unsupported: OnUnsupported | None = None,
    ) -> tuple[ElicitResult[Any], ...]: ...
    async def elicit_all(
        self,
        *models: type[BaseModel],
        timeout: float | None = None,
        retries: int | None = None,
        on_unsupported: OnUnsupported | None = None,
    ) -> tuple[ElicitResult[Any], ...]:
        """Ask several questions together and return their typed answers, one per model, in order.

        On 2025-06-18 and 2025-11-25 the questions are concurrent requests; on
        2026-07-28 they travel in one round (one `InputRequiredResult` with one
        `inputRequests` entry per question), and each answer reaches its own question.
        Each question is asked as `ctx.elicit(model)` would ask it, with the model's
        own message; `timeout`, `retries` and `on_unsupported` apply to each.

        Args:
            *models: The pydantic models to ask for, at least one.
            timeout: Seconds to wait for each answer; None for the decorator's default.
            retries: Re-asks allowed per question after an invalid answer.
            on_unsupported: What each question does where it cannot be asked.

        Returns:
            One `ElicitResult` per model, in the order given.

        Raises:
            ValueError: If no model is given.
            InvalidResponse: If a question's answers stay invalid past `retries`.
            ElicitationTimeout: If a question is not answered in time.
            ElicitUsageError: Through the fallback, which asks one question per round.
        """
        if not models:
            raise ValueError("ctx.elicit_all needs at least one model to ask for, e.g. ctx.elicit_all(A, B)")
        results: list[ElicitResult[Any] | None] = [None] * len(models)

        async def ask(index: int, model: type[BaseModel]) -> None:
            results[index] = await self.elicit(
                model, timeout=timeout, retries=retries, on_unsupported=on_unsupported
            )

        try:
            async with anyio.create_task_group() as group:
                for index, model in enumerate(models):
                    group.start_soon(ask, index, model)
        except BaseException as exc:
            inner: tuple[BaseException, ...] = getattr(exc, "exceptions", ())
            # A question's own error reaches the caller as itself, as if asked alone; internal
            # signals (the round's end) stay in the group for @elicits to merge.
            if inner and all(isinstance(leaf, Exception) for leaf in inner):
                raise inner[0] from None
            raise
        return tuple(result for result in results if result is not None)

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

    def _cannot_ask(self, mode: Mode = "form") -> str | None:
        """Why the client cannot be sent a `mode` question right now, or None if it can."""
        assert self._request is not None, "only asked inside a request (a negotiated era)"
        session = self._request.session
        if not self._mrtr and not session.can_send_request:
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

    async def _ask_now(
        self, model: type[M], form: Reduced, message: str, timeout: float, retries: int
    ) -> ElicitResult[M]:
        """Push eras: send `elicitation/create` and wait, re-asking invalid answers."""
        question = QuestionId(key=question_key(self._next_index()), model=model_id(model), digest=form.digest)
        text = message
        attempt = 0
        while True:
            params = form.params(text)
            event = self._event(params, model, attempt, "client")
            await run_question_hooks(self._hooks, event)
            wire = await self._send(params, model.__name__, timeout)
            try:
                _check_size(model, wire, self._policy.max_answer_bytes)
                # Answer events name a re-asked question by its base message, as on 2026-07-28.
                wire = await self._answered(dataclasses.replace(event, message=message), wire)
                outcome = _outcome(model, form, wire)
            except InvalidResponse as problem:
                if attempt >= retries:
                    raise _out_of_retries(problem, retries) from None
                attempt += 1
                text = _reask(message, problem)
                continue
            self._answers.append(Answer(question=question, action=wire.action, content=_kept(wire)))
            return outcome

    @property
    def _hooks(self) -> tuple[ElicitHook, ...]:
        return active_hooks(self._policy.hooks)

    def _next_index(self) -> int:
        index = self._index
        self._index += 1
        return index

    def _event(
        self, params: ElicitRequestParams, model: type[BaseModel] | None, attempt: int, via: Via
    ) -> QuestionEvent:
        if isinstance(params, ElicitRequestURLParams):
            return QuestionEvent(
                function=self._function,
                mode="url",
                model=None,
                message=params.message,
                schema=None,
                url=params.url,
                protocol_version=self._era,
                attempt=attempt,
                via=via,
            )
        return QuestionEvent(
            function=self._function,
            mode="form",
            model=model,
            message=params.message,
            schema=private(params.requested_schema) if self._hooks else params.requested_schema,
            url=None,
            protocol_version=self._era,
            attempt=attempt,
            via=via,
        )

    async def _answered(self, question: QuestionEvent, wire: WireResult) -> WireResult:
        """Run the answer hooks on a freshly arrived answer; returns it with their content."""
        hooks = self._hooks
        if not hooks:
            return wire
        event = AnswerEvent(question=question, action=wire.action, content=private(wire.content))
        content = await run_answer_hooks(hooks, event)
        if content == wire.content:
            return wire
        return WireResult(action=wire.action, content=content)

    async def _send(self, params: ElicitRequestParams, subject: str, timeout: float) -> WireResult:
        """Push eras: send one `elicitation/create` request and wait for its result.

        Raises:
            ElicitationTimeout: If no result arrived within `timeout`.
            ClientError: If the client answered with any other JSON-RPC error.
            InvalidResponse: If the client's result is malformed.
        """
        request = ElicitRequest(params=params)
        request_context = self._request
        assert request_context is not None, "only sent inside a request (a negotiated era)"
        try:
            return await request_context.session.send_request(
                request,
                WireResult,
                request_read_timeout_seconds=None if math.isinf(timeout) else timeout,
                metadata=ServerMessageMetadata(related_request_id=request_context.request_id),
            )
        except MCPError as exc:
            if exc.code != REQUEST_TIMEOUT:
                url = isinstance(params, ElicitRequestURLParams)
                raise ClientError(
                    subject if url else f"the question for {subject}", exc.code, exc.message
                ) from exc
            raise ElicitationTimeout(
                f"no answer to {subject} within {timeout:g} s; the pending question was "
                f"cancelled (notifications/cancelled sent). Pass timeout= to {_asker(params)} or "
                "@elicits to wait longer."
            ) from None
        except ValidationError:
            raise InvalidResponse(
                subject,
                [("(result)", "the client's elicitation result is malformed")],
                None,
                advice=(
                    "This is the client's failure, not the user's answer, and is never asked again: "
                    "fix the client, or catch InvalidResponse to carry on without the answer."
                ),
            ) from None

    async def _answer_or_suspend(
        self,
        model: type[M],
        form: Reduced,
        message: str,
        timeout: float,
        retries: int,
        policy: OnUnsupported,
    ) -> ElicitResult[M]:
        """2026-07-28 or a resumed fallback: answer from the record or this round, else end the round.

        A round without an answer to the pending question ends with the same pending
        record (same asked time, attempt and round id), once it is checked in time.
        """
        index = self._next_index()
        question = QuestionId(key=question_key(index), model=model_id(model), digest=form.digest)
        answer = self._state.answer_to(question.key)
        if answer is not None:
            if answer.question != question:
                raise _mismatch(index, answer.question, question)
            self._answers.append(answer)
            return _outcome(model, form, WireResult(action=answer.action, content=answer.content))
        pending = self._pending(index, question)
        if pending is not None:
            response = self._responses.get(question.key)
            if isinstance(response, WireResult):
                return await self._take(model, form, message, timeout, retries, pending, response)
            self._check_in_time(pending, timeout, model.__name__, "ctx.elicit", answered=False)
        params = form.params(message)
        attempt = 0 if pending is None else pending.attempt
        if self._resume is not None:
            raise await self._suspend(question, params, attempt, model, via="fallback", pending=pending)
        reason = self._cannot_ask()
        if reason is not None:
            if policy != "fallback":
                outcome = _unsupported(model, policy, reason)
                if pending is not None:  # the tool goes on with an outcome for this round
                    await self._claim(pending, timeout)
                return outcome
            raise await self._suspend(
                question, params, attempt, model, via="fallback", reason=reason, pending=pending
            )
        if pending is None:
            self._check_state_ttl(timeout, "ctx.elicit")
        raise await self._suspend(question, params, attempt, model, via="client", pending=pending)

    async def _take(
        self,
        model: type[M],
        form: Reduced,
        message: str,
        timeout: float,
        retries: int,
        pending: Pending,
        response: WireResult,
    ) -> ElicitResult[M]:
        """Take this round's answer to the pending question: in time, once, within the size limit."""
        self._check_in_time(pending, timeout, model.__name__, "ctx.elicit", answered=True)
        await self._claim(pending, timeout)
        via: Via = "fallback" if self._resume is not None else "client"
        # The answer event names the question by its base message (a re-ask's text is not recorded).
        asked = form.params(message)
        try:
            _check_size(model, response, self._policy.max_answer_bytes)
            response = await self._answered(self._event(asked, model, pending.attempt, via), response)
            outcome = _outcome(model, form, response)
        except InvalidResponse as problem:
            if pending.attempt >= retries:
                raise _out_of_retries(problem, retries) from None
            params = form.params(_reask(message, problem))
            raise await self._suspend(pending.question, params, pending.attempt + 1, model, via=via) from None
        self._answers.append(
            Answer(question=pending.question, action=response.action, content=_kept(response))
        )
        return outcome

    async def _url_answer_or_suspend(
        self, url: str, message: str, timeout: float, policy: OnUnsupported
    ) -> UrlResult:
        """2026-07-28: a URL-mode question, answered from the record or this round, else ending it."""
        index = self._next_index()
        question = QuestionId(key=question_key(index), model=URL_QUESTION, digest=url_digest(url))
        answer = self._state.answer_to(question.key)
        if answer is not None:
            if answer.question != question:
                raise _mismatch(index, answer.question, question)
            self._answers.append(answer)
            return _url_outcome(answer.action)
        subject = "the URL-mode question"
        pending = self._pending(index, question)
        if pending is not None:
            response = self._responses.get(question.key)
            if isinstance(response, WireResult):
                self._check_in_time(pending, timeout, subject, "ctx.elicit_url", answered=True)
                await self._claim(pending, timeout)
                params = ElicitRequestURLParams(message=message, url=url)
                await self._answered(self._event(params, None, 0, "client"), response)
                self._answers.append(Answer(question=question, action=response.action))
                return _url_outcome(response.action)
            self._check_in_time(pending, timeout, subject, "ctx.elicit_url", answered=False)
        reason = (
            "URL-mode questions never fall back to the model, and the fallback cannot reach the client"
            if self._resume is not None
            else self._cannot_ask("url")
        )
        if reason is not None:
            outcome = _url_unsupported(policy, reason)
            if pending is not None:  # the tool goes on with an outcome for this round
                await self._claim(pending, timeout)
            return outcome
        if pending is None:
            self._check_state_ttl(timeout, "ctx.elicit_url")
        # 2026-07-28 URL requests carry no elicitationId (and there is no completion notification).
        params = ElicitRequestURLParams(message=message, url=url)
        raise await self._suspend(question, params, 0, None, via="client", pending=pending)

    def _pending(self, index: int, question: QuestionId) -> Pending | None:
        """The pending record if this round's `index`-th question is the one it awaits, else None.

        Raises:
            ReplayMismatch: If the record awaits another question at this position.
        """
        for pending in self._state.awaiting():
            if pending.question.key == question.key:
                if pending.question != question:
                    raise _mismatch(index, pending.question, question)
                return pending
        return None

    def _check_in_time(
        self, pending: Pending, timeout: float, subject: str, asker: str, *, answered: bool
    ) -> None:
        """Raise `ElicitationTimeout` if the pending question, or the call, has run out of time.

        Checked when a round answers the question and when it only refreshes it, so a
        question past its timeout, or a call past its `call_timeout`, can never be
        answered, however often it is refreshed.
        """
        now = _clock.now()
        waited = now - pending.asked_at
        if waited > timeout:
            fix = (
                f"Pass timeout= to {asker} or @elicits to wait longer (and keep the server's "
                "RequestStateSecurity ttl above it)."
            )
            if answered:
                raise ElicitationTimeout(
                    f"the answer to {subject} arrived {waited:.0f} s after it was asked, later than "
                    f"the {timeout:g} s timeout. {fix}"
                )
            raise ElicitationTimeout(
                f"no answer to {subject} within {timeout:g} s: it was asked {waited:.0f} s ago, and "
                f"asking again does not restart its timeout. Call the tool again to start afresh. {fix}"
            )
        limit = self._policy.call_timeout
        age = now - self._started
        if age > limit:
            raise ElicitationTimeout(
                f"this call of {self._function} started {age:.0f} s ago, longer than its {limit:g} s "
                f"limit, so {subject} can no longer be answered. Call the tool again to start afresh, "
                "or pass a longer call_timeout= to @elicits."
            )

    async def _claim(self, pending: Pending, timeout: float) -> None:
        """Claim the pending round's id, so that the round takes one answer (single-use rounds).

        Raises:
            RoundRefused: If the round was answered already; the client gets -32602.
        """
        if not self._policy.single_use_rounds:
            return
        # The round cannot be answered after this (`_check_in_time`), so its id need not be kept longer.
        last = min(pending.asked_at + timeout, self._started + self._policy.call_timeout)
        if await store_for(self._sdk.mcp_server).claim(f"round:{pending.round}", last + _CLAIM_MARGIN):
            return
        raise RoundRefused(
            MCPError(
                code=INVALID_PARAMS,
                message=(
                    f"this round of {self._function} was already answered: each requestState takes "
                    "one answer, and a resent or replayed round is refused (single-use rounds). Answer "
                    "the latest question with the requestState that came with it, or call the tool "
                    "again without requestState to start afresh."
                ),
                data={"reason": "round_already_answered"},
            )
        )

    def _check_state_ttl(self, timeout: float, asker: str) -> None:
        """On 2026-07-28, refuse to ask a question whose timeout outlives the server's request state.

        Raises:
            ValueError: If the finite `timeout` exceeds the state's TTL, naming the fix.
        """
        if not self._mrtr or math.isinf(timeout):
            return
        if self._policy.timeout is None and timeout == get_default_timeout():
            # The process-wide default was checked by `setget_default_timeout()` (a warning); a
            # server with a deliberately short ttl still asks, and an answer within it works.
            return
        ttl = state_ttl(self._sdk.mcp_server)
        if ttl is not None and timeout > ttl:
            raise ValueError(
                f"{asker} in {self._function} has a {timeout:g} s timeout, longer than the {ttl:g} s this "
                "server's 2026-07-28 request state lives (its RequestStateSecurity ttl): the SDK would "
                "refuse a later answer as 'Invalid or expired requestState'. Pass a timeout of at most "
                f"{ttl:g} s, or give the server a longer ttl: MCPServer(..., request_state_security="
                "RequestStateSecurity.ephemeral(ttl=...)) for one process, or "
                "RequestStateSecurity(keys=[secret], ttl=...) for several replicas."
            )

    async def _suspend(
        self,
        question: QuestionId,
        params: ElicitRequestParams,
        attempt: int,
        model: type[BaseModel] | None,
        *,
        via: Via,
        reason: str = "",
        pending: Pending | None = None,
    ) -> BaseException:
        """End this round: an `InputRequiredResult` (via the client) or a fallback result (via the model).

        `pending` is the record of a question asked before and not yet answered: it is
        kept as is (asked time, attempt, round id). Otherwise the question is asked now,
        as attempt `attempt`, in a fresh round.
        """
        if pending is None:
            pending = Pending(question=question, asked_at=_clock.now(), attempt=attempt, round=new_round())
        if via == "fallback":
            state = ReplayState(
                started=self._started, answers=tuple(self._answers), pending=pending, once=dict(self._once)
            )
            assert isinstance(params, ElicitRequestFormParams)
            ending = self._fallback(state, params, reason)
            if isinstance(ending, FallbackRequired):
                await run_question_hooks(self._hooks, self._event(params, model, attempt, via))
            return ending
        await run_question_hooks(self._hooks, self._event(params, model, attempt, via))
        self._round.append((pending, ElicitRequest(params=params)))
        # Let concurrent questions of this call (a task group, `elicit_all`) register too:
        # the round ends with every question pending now, each under its own stable key.
        await anyio.lowlevel.checkpoint()
        first, *others = (asked for asked, _ in self._round)
        state = ReplayState(
            started=self._started,
            answers=tuple(self._answers),
            pending=first,
            others=tuple(others),
            once=dict(self._once),
        )
        requests: dict[str, InputRequest] = {asked.question.key: request for asked, request in self._round}
        return InputRequired(InputRequiredResult(input_requests=requests, request_state=state.encode()))

    def _fallback(
        self, state: ReplayState, params: ElicitRequestFormParams, reason: str
    ) -> FallbackRequired | TypedElicitError:
        """The fallback result for `params`, or the error saying why there can be none."""
        resume = self._resume
        if resume is not None:
            tool, arguments = resume.tool, resume.arguments
        else:
            request = self._sdk.request_context
            if request.method != "tools/call":
                return ElicitationUnsupported(
                    f"cannot ask: {reason}; on_unsupported='fallback' works for tools only, and this is "
                    f"{request.method}. Pass on_unsupported='raise', 'defaults' or 'decline' here."
                )
            call = request.params or {}
            tool, arguments = str(call.get("name", "")), dict(call.get("arguments") or {})
        config = installed(self._sdk.mcp_server)
        if config is None:
            return FallbackNotInstalled.for_function(self._function, reason)
        token = seal_token(config, self._sdk, tool, arguments, state)
        return FallbackRequired(
            fallback_result(
                companion=config.name, token=token, message=params.message, schema=params.requested_schema
            )
        )


def _check_size(model: type[BaseModel], wire: WireResult, limit: int) -> None:
    """Refuse an answer whose content exceeds `limit` bytes of compact ASCII JSON.

    Raises:
        InvalidResponse: Naming the limit and the fix; it keeps no content (nor any value).
    """
    if wire.content is not None and _json_size(wire.content, limit) > limit:
        raise InvalidResponse(
            model.__name__,
            [("(answer)", f"the answer is larger than the limit of {limit} bytes")],
            None,
            advice=(
                f"An answer may carry at most {limit} bytes of JSON content (@elicits(max_answer_bytes=...), "
                f"{DEFAULT_MAX_ANSWER_BYTES} by default), so that it fits in the request state a "
                "2026-07-28 round carries. Ask for less per question (set max_length on long text "
                "fields, or split the form), or pass a larger max_answer_bytes to @elicits."
            ),
        )


def _json_size(value: object, limit: int) -> int:
    """Bytes of `value` as compact ASCII JSON (as the request state carries it), counted up to `limit`.

    Past `limit` it returns any number above `limit`. Strings longer than the limit
    and integers are sized without being serialised.
    """
    if isinstance(value, str):
        return len(value) + 2 if len(value) > limit else len(json.dumps(value))
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    if isinstance(value, int):
        return value.bit_length() * 30103 // 100000 + 2  # at least its digits and sign
    if isinstance(value, float):
        return len(repr(value))
    items: list[object]
    if isinstance(value, dict):
        items = [part for pair in value.items() for part in pair]  # pyright: ignore[reportUnknownVariableType]
    else:
        assert isinstance(value, list), "an elicitation result's content holds JSON values only"
        items = value  # pyright: ignore[reportUnknownVariableType]
    total = 2 + max(len(items) - 1, 0)  # brackets, separators
    for item in items:
        total += _json_size(item, limit - total)
        if total > limit:
            break
    return total


def _kept(wire: WireResult) -> dict[str, Any] | None:
    """The content recorded for replay: only an accepted answer keeps any."""
    return wire.content if wire.action == "accept" else None


def _outcome(model: type[M], form: Reduced, wire: WireResult) -> ElicitResult[M]:
    if wire.action == "accept":
        return Accepted(validate_content(model, form.schema, wire.content))
    if wire.action == "decline":
        return Declined()
    return Cancelled()


def _unsupported(
    model: type[M], policy: OnUnsupported, reason: str, *, tool: bool | None = None
) -> ElicitResult[M]:
    """The outcome of a question the client cannot be asked, under `policy` (never `"fallback"`).

    Args:
        model: The model asked for.
        policy: `"decline"`, `"defaults"` or `"raise"`.
        reason: Why the client cannot be asked.
        tool: Whether the caller is a tool inside a request (so `"fallback"` could
            apply), False if not, None if unknown (the advice then says "in a tool").

    Raises:
        ElicitationUnsupported: Unless the policy produces an outcome; the message
            advises only the policies that would work here.
    """
    if policy == "decline":
        return Declined()
    fallback = {
        True: "'fallback' (the model relays the question; needs install_fallback(server))",
        None: "'fallback' in a tool (the model relays the question; needs install_fallback(server))",
        False: None,
    }[tool]
    if policy == "defaults":
        try:
            return Accepted(model.model_validate({}))
        except ValidationError as exc:
            missing = sorted({".".join(map(str, error["loc"])) for error in exc.errors()})
            options = _either(["'decline'", *([fallback] if fallback else [])])
            raise ElicitationUnsupported(
                f"cannot ask for {model.__name__}: {reason}; on_unsupported='defaults' needs a default "
                f"for every field, but {model.__name__} has none for {', '.join(missing)}. Give "
                f"those fields defaults, or pass on_unsupported={options} to ctx.elicit or @elicits."
            ) from None
    options = _either(["'defaults'", "'decline'", *([fallback] if fallback else [])])
    raise ElicitationUnsupported(
        f"cannot ask for {model.__name__}: {reason}. Pass on_unsupported={options} to ctx.elicit "
        "or @elicits to carry on without asking the client."
    )


def _either(options: list[str]) -> str:
    """`a`, `a or b`, `a, b or c`."""
    return options[0] if len(options) == 1 else f"{', '.join(options[:-1])} or {options[-1]}"


def _check_question(model: object, message: object) -> None:
    """Refuse a `ctx.elicit` call whose model or message cannot make a question.

    Raises:
        TypeError: If `model` is not a pydantic model class (with a hint when the
            arguments are in the SDK's order, message first), or `message` is not a string.
        ValueError: If `message` is empty or only whitespace.
    """
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        if isinstance(message, type) and issubclass(message, BaseModel):
            raise TypeError(
                f"ctx.elicit takes the model first and the message second: "
                f'ctx.elicit({message.__name__}, "...") (the SDK\'s ctx.elicit(message, schema) has the '
                "other order)"
            )
        got = model.__name__ if isinstance(model, type) else type(model).__name__
        raise TypeError(f"ctx.elicit needs a pydantic.BaseModel subclass to ask for, got {got}")
    if message is None:
        return
    if not isinstance(message, str):
        raise TypeError(
            f"ctx.elicit needs the message for {model.__name__} as a string, got {type(message).__name__}"
        )
    if not message.strip():
        raise ValueError(
            f"ctx.elicit got a blank message for {model.__name__}: the user would see an empty question. "
            "Say what you are asking for, or pass no message to use the model's "
            "@form(message=...) or docstring."
        )


def _url_outcome(action: Literal["accept", "decline", "cancel"]) -> UrlResult:
    """A URL-mode answer; any `content` a client sends with `accept` is ignored (there is none)."""
    if action == "accept":
        return Consented()
    if action == "decline":
        return Declined()
    return Cancelled()


def _url_unsupported(policy: OnUnsupported, reason: str) -> UrlResult:
    if policy == "decline":
        return Declined()
    if policy == "defaults":
        reason += (
            "; a URL-mode question has no defaults, so on_unsupported='defaults' (from @elicits) "
            "counts as 'raise' here"
        )
    if policy == "fallback":
        reason += (
            "; a URL must not pass through the model, so on_unsupported='fallback' (from @elicits) "
            "counts as 'raise' here"
        )
    raise ElicitationUnsupported(
        f"cannot send the user to a URL: {reason}. Pass on_unsupported='decline' to ctx.elicit_url "
        "to carry on without asking.",
        mode="url",
    )


def _asker(params: ElicitRequestParams) -> str:
    return "ctx.elicit_url" if isinstance(params, ElicitRequestURLParams) else "ctx.elicit"


_URL_SCHEMES: Final = ("https", "http")


def _check_url(url: str) -> None:
    """Refuse a URL that is not absolute http(s), has no host, or carries credentials.

    Raises:
        ValueError: Naming the problem; credentials, query and fragment are never
            repeated in the message (the query carries the flow's token).
    """
    if not isinstance(url, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ValueError(f"ctx.elicit_url needs the URL as a string, got {type(url).__name__}")
    if any(c.isspace() or not c.isprintable() for c in url):
        raise ValueError(
            "ctx.elicit_url refuses a URL containing whitespace or control characters (clients show "
            "the URL in full; percent-encode them)"
        )
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for an invalid port
    except ValueError:  # its text may repeat the host part, credentials included
        raise ValueError(
            "ctx.elicit_url got a malformed URL: its host or port cannot be read (check the brackets "
            "of an IPv6 address, the port number and the host's characters)"
        ) from None
    if "@" in parts.netloc:
        raise ValueError(
            f"ctx.elicit_url refuses a URL with credentials in it ({_shown(parts)}): clients show the "
            "full URL to the user. Put a short-lived, single-use token in the query instead (mint it "
            "with ctx.once)."
        )
    if parts.scheme.lower() not in _URL_SCHEMES or not parts.hostname:
        raise ValueError(
            f"ctx.elicit_url needs an absolute https:// (or http://) URL with a host, got {_shown(parts)!r}"
        )


def _shown(parts: SplitResult) -> str:
    """A URL fit for an error message: user info, query and fragment become `***`.

    A URL-mode URL carries its single-use token in the query; no message, log or
    traceback may repeat it.
    """
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"***@{netloc.rpartition('@')[2]}"
    return parts._replace(
        netloc=netloc, query="***" if parts.query else "", fragment="***" if parts.fragment else ""
    ).geturl()


def _out_of_retries(problem: InvalidResponse, retries: int) -> InvalidResponse:
    """`problem` as raised once the re-asks are used up: with `retries` > 0 its advice says so."""
    if retries == 0:
        return problem
    asked = retries + 1
    return InvalidResponse(
        problem.model_name,
        problem.errors,
        problem.content,
        advice=(
            f"The user was asked {asked} times (retries={retries}) and no answer was valid; "
            "catch InvalidResponse to carry on without it, or make the form easier to fill in "
            "(clearer message, titles, descriptions)."
        ),
    )


def _reask(message: str, problem: InvalidResponse) -> str:
    details = "; ".join(f"{path}: {text}" for path, text in problem.errors)
    return f"{message}\n\nYour previous answer could not be used ({details}). Please answer again."


def _mismatch(index: int, recorded: QuestionId, asked: QuestionId) -> ReplayMismatch:
    return ReplayMismatch.between_rounds(index, recorded, asked)


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
