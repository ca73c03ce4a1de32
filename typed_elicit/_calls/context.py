"""`ElicitContext`: what a tool decorated with `@elicits` receives; a facade over the era's asker.

Every public method checks its arguments, resolves the question's settings
(`_policy.resolve`), builds one `Question` and hands it to the asker chosen
when the context was built: `PushAsker` (`_push`), `ReplayAsker` (`_replay`) or
`UnreachableAsker`. The per-call record they share is `_call.Call`.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeVar, overload

import anyio
from mcp.server.mcpserver import Context
from pydantic import BaseModel, GetCoreSchemaHandler
from pydantic_core import CoreSchema

from typed_elicit._calls.call import JSON, Call, json_stable
from typed_elicit._calls.policy import (
    DEFAULT_POLICY,
    URL_ON_UNSUPPORTED,
    OnUnsupported,
    Policy,
    Settings,
    UrlOnUnsupported,
    resolve,
    url_unsupported,
)
from typed_elicit._calls.push import PushAsker, UnreachableAsker
from typed_elicit._calls.questions import Question, check_question, check_url_question
from typed_elicit._calls.replay import ReplayAsker
from typed_elicit._calls.state import ReplayState
from typed_elicit._core.results import ElicitResult, UrlResult
from typed_elicit._core.versions import (
    LATEST_PROTOCOL_VERSION,
    ProtocolVersion,
    has_elicit_complete,
    has_url_mode,
)
from typed_elicit._forms.reduce import OptionsArg, form_message, is_page_form, page_reduced, reduced, shaped
from typed_elicit._observe import telemetry as _telemetry
from typed_elicit.errors import ElicitArgumentError, ElicitUsageError, SchemaError
from typed_elicit.fallback._companion import Resume
from typed_elicit.pages._pages import ask_page

M = TypeVar("M", bound=BaseModel)
M1 = TypeVar("M1", bound=BaseModel)
M2 = TypeVar("M2", bound=BaseModel)
M3 = TypeVar("M3", bound=BaseModel)
M4 = TypeVar("M4", bound=BaseModel)
M5 = TypeVar("M5", bound=BaseModel)
M6 = TypeVar("M6", bound=BaseModel)
R = TypeVar("R", bound=ElicitResult[Any] | UrlResult)
J = TypeVar("J", bound=JSON)


class Asker(Protocol):
    """How one era asks: `PushAsker`, `ReplayAsker` or `UnreachableAsker`."""

    async def ask(self, question: Question[R], settings: Settings, /) -> R:
        """Ask `question` and return its typed result (or end the round)."""
        ...


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
        raise ElicitUsageError.unwrapped(handler.field_name)

    def __init__(
        self,
        sdk: Context[Any, Any],
        policy: Policy | None = None,
        *,
        function: str = "<function>",
        resume: Resume | None = None,
    ) -> None:
        """Wrap the SDK's context for one call (done for you by `@elicits`).

        The era's asker is chosen here, once: a resumed fallback call and a
        2026-07-28 call replay (`ReplayAsker`), a push era sends requests
        (`PushAsker`), and a call without an era cannot ask (`UnreachableAsker`).

        Args:
            sdk: The SDK context of the running request.
            policy: The decorator's defaults.
            function: The decorated function's name, for hooks and messages.
            resume: Set when the fallback's companion tool runs the call again.
        """
        self._call = call = Call(sdk, policy or DEFAULT_POLICY, function, resume)
        self._pages = 0  # page questions asked so far (`elicit_page`)
        self._asker: Asker
        if resume is not None:
            assert resume.state.pending is not None
            responses = {resume.state.pending.question.key: resume.response}
            self._asker = ReplayAsker(call, resume.state, responses)
        elif call.era is None:
            self._asker = UnreachableAsker(call)
        elif call.uses_input_required:
            state = ReplayState.decode(sdk.request_state)
            self._asker = ReplayAsker(call, state, dict(sdk.input_responses or {}))
        else:
            self._asker = PushAsker(call)

    @property
    def sdk(self) -> Context[Any, Any]:
        """The SDK's own `Context` for this request (logging, progress, session, ...)."""
        return self._call.sdk

    @property
    def protocol_version(self) -> ProtocolVersion | None:
        """The elicitation era of this request, or None when the client has none."""
        return self._call.era

    async def elicit(
        self,
        model: type[M],
        message: str | None = None,
        *,
        timeout: float | None = None,
        retries: int | None = None,
        on_unsupported: OnUnsupported | None = None,
        options: Mapping[str, OptionsArg] | None = None,
        defaults: Mapping[str, object] | None = None,
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

        Accepted content is validated again on arrival: see `typed_elicit._forms.validate`
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
            options: The options this question offers, per `Choices()` field name: a
                list of values, or a mapping of value to title (required for every
                `Choices()` field; the answer must be one of them). On 2026-07-28 they
                are part of the question's pinned digest: compute them inside `once`
                when they come from a side effect.
            defaults: Per field name, the value this question's form is pre-filled
                with (also what a left-out field gets); checked against the field and
                the offered options. 2025-06-18 carries defaults for bool fields only.

        Returns:
            `Accepted(data)`, `Declined()` or `Cancelled()`.

        Raises:
            SchemaError: If `model` cannot be elicited on the negotiated revision, or is a
                page form (`@form(page=True)`: ask it with `elicit_page`).
            OptionsError: If `options`/`defaults` do not fit `model` (or a `Choices()`
                field has no options), before anything is sent.
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
            ElicitArgumentError: Before anything is asked (both a `TypeError` and a
                `ValueError`), if `model` is not a pydantic model class (the arguments
                in the SDK's order, message first, get a hint), `message` is not a
                string or is blank, `timeout` or `retries` is out of range,
                `on_unsupported` is not one of the policies, or it is `"fallback"`
                outside a tool.
        """
        question, settings = self._form_question(
            model,
            message,
            timeout=timeout,
            retries=retries,
            on_unsupported=on_unsupported,
            options=options,
            defaults=defaults,
            asker="ctx.elicit",
        )
        if not _telemetry.enabled():
            return await self._asker.ask(question, settings)
        return await self._ask(question, settings)

    def _form_question(
        self,
        model: type[M],
        message: str | None,
        *,
        timeout: float | None,
        retries: int | None,
        on_unsupported: OnUnsupported | None,
        options: Mapping[str, OptionsArg] | None,
        defaults: Mapping[str, object] | None,
        asker: str,
    ) -> tuple[Question[ElicitResult[M]], Settings]:
        """The question `elicit` asks and its settings, for the call the tool made (`asker`).

        Raises:
            ElicitArgumentError: See `elicit`; the message names `asker` (`"ctx.elicit"`
                or `"ctx.elicit_all"`).
            SchemaError: If `model` is a page form or cannot be elicited.
            OptionsError: If `options`/`defaults` do not fit `model`.
        """
        check_question(model, message, asker)
        if is_page_form(model):
            raise SchemaError.page_form(model.__name__, asker)
        call = self._call
        settings = resolve(
            call.policy, asker, timeout=timeout, retries=retries, on_unsupported=on_unsupported
        )
        if on_unsupported == "fallback" and call.resume is None and not call.in_tool:
            raise ElicitArgumentError(
                asker,
                "on_unsupported",
                f"got on_unsupported='fallback' in {call.function}, which is not a tool: the fallback "
                "re-runs a tool call, so it works for tools only",
                "Pass on_unsupported='raise', 'defaults' or 'decline' here.",
            )
        text = form_message(model) if message is None else message
        version = call.era or LATEST_PROTOCOL_VERSION
        if options is None and defaults is None:
            form = reduced(model, version)
        else:
            form = shaped(model, version, options=options, defaults=defaults)
        return Question(call.next_key(), text, model, form, asker=asker), settings

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
            ElicitArgumentError: If `url`, `message`, `elicitation_id`, `timeout` or
                `on_unsupported` is invalid (a `ValueError`).
        """
        return await self._ask_url(
            url, message, elicitation_id=elicitation_id, timeout=timeout, on_unsupported=on_unsupported
        )

    async def _ask_url(
        self,
        url: str,
        message: str,
        *,
        elicitation_id: str | None,
        timeout: float | None,
        on_unsupported: UrlOnUnsupported | None,
        asker: str = "ctx.elicit_url",
    ) -> UrlResult:
        """`elicit_url`, for the call the tool made (`"ctx.elicit_url"`, or `"ctx.elicit_page"`).

        A page's consent passes `on_unsupported=None`: it takes the decorator's policy.
        """
        check_url_question(url, message, elicitation_id)
        call = self._call
        settings = resolve(
            call.policy,
            asker,
            timeout=timeout,
            on_unsupported=on_unsupported,
            allowed=URL_ON_UNSUPPORTED,
            why=": a URL-mode question has no defaults, and never passes through the model",
        )
        era = call.era
        if era is not None and not has_url_mode(era):
            reason = f"the negotiated protocol {era} has no URL mode (URL mode needs 2025-11-25 or later)"
            return url_unsupported(settings.on_unsupported, reason, asker)
        minted = elicitation_id or str(uuid.uuid4())
        question: Question[UrlResult] = Question(
            call.next_key(), message, url=url, elicitation_id=minted, asker=asker
        )
        if not _telemetry.enabled():
            return await self._asker.ask(question, settings)
        return await self._ask(question, settings)

    async def _ask(self, question: Question[R], settings: Settings) -> R:
        """Hand `question` to the era's asker; with OpenTelemetry on, as one span (`_telemetry`).

        A 2026-07-28 question answered from the record gets no span: nothing new
        happens to it in this round.
        """
        asker = self._asker
        replay = asker if isinstance(asker, ReplayAsker) else None
        if replay is not None and replay.state.answer_to(question.key) is not None:
            return await asker.ask(question, settings)
        call = self._call
        trace = _telemetry.question(
            "url" if question.model is None else question.model.__name__,
            question.mode,
            call.era,
            call.function,
            round_=None if replay is None else replay.number,
        )
        if trace is _telemetry.OFF:
            return await asker.ask(question, settings)
        with trace:
            result = await asker.ask(question, settings)
            trace.settle(result)
        return result

    def _traced_round(self) -> _telemetry.Resumed | None:
        """Around the body: on a later 2026-07-28 round, join the call's first trace (`@elicits`).

        Returns:
            The context manager to run the body in, or None when there is nothing to join.
        """
        asker = self._asker
        if isinstance(asker, ReplayAsker) and asker.trace is not None and asker.number > 1:
            call = self._call
            params = call.request.params if call.request is not None else None
            target = params.get("name") if params else None
            return _telemetry.resume_round(
                asker.trace, call.function, asker.number, target if isinstance(target, str) else None
            )
        return None

    async def elicit_page(
        self, model: type[M], message: str | None = None, *, timeout: float | None = None
    ) -> ElicitResult[M]:
        """Ask the user to fill in `model` on a page of this server's own, and return their typed answer.

        For what must not pass through the client or the model: passwords, API keys,
        one-time codes, card numbers. The model may hold secret fields (declare it
        `@form(page=True)`); they become password inputs and reach the tool as the
        model's own types (`SecretStr` intact). The server must serve its pages
        (`typed_elicit.pages.serve_pages(server, public_url=...)`).

        The client gets a URL-mode question (consent) for the page's URL, an unguessable
        single-use link bound to this call (and to the authenticated principal, if any),
        expiring with `timeout`. The page is rendered from the model and checks each submit
        with it; the user may also Decline or Cancel there.

        - 2025-11-25: after consent the call waits for the page's submit, then sends
          `notifications/elicitation/complete` and returns.
        - 2026-07-28: the consent ends a round like `elicit_url`; later rounds wait a
          while for the submit (`serve_pages(poll_seconds=...)`) and end with a round that
          carries only `requestState` until it comes. The body re-runs as usual (`once`).
        - 2025-06-18 has no URL mode: the decorator's `on_unsupported` policy applies
          (`"decline"` returns `Declined()`, anything else raises).

        Args:
            model: The pydantic model to fill in (secret fields allowed).
            message: The text above the form and in the client's consent question; None
                uses the model's `@form(message=...)`, docstring or title.
            timeout: Seconds for consent and page together; None uses the decorator's setting,
                else the process-wide default.

        Returns:
            `Accepted(data)`, `Declined()` or `Cancelled()` (the consent's, or the page's).

        Raises:
            PagesNotServed: If the server does not serve pages.
            SchemaError: If `model` cannot be asked on a page.
            ElicitationUnsupported: If the client cannot be sent to a URL and the policy is not `"decline"`.
            ElicitationTimeout: If the page was not submitted within `timeout`.
            ClientError: On 2025-11-25, if the client answered the consent with a JSON-RPC error.
            ElicitArgumentError: If `model` is not a pydantic model class, `message` is not a
                string or is blank, or `timeout` is out of range (a `TypeError` and a `ValueError`).
        """
        check_question(model, message, "ctx.elicit_page")
        call = self._call
        settings = resolve(call.policy, "ctx.elicit_page", timeout=timeout)
        text = form_message(model) if message is None else message
        page_reduced(model)  # a model no page can ask fails here, on every era
        index = self._pages
        self._pages += 1
        return await ask_page(self, call, model, text, settings, index)

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
            ElicitArgumentError: If `elicitation_id` is not a non-empty string (a `ValueError`;
                checked on every era).
        """
        if not isinstance(elicitation_id, str) or not elicitation_id:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ElicitArgumentError(
                "ctx.complete_url",
                "elicitation_id",
                f"needs the elicitation_id given to ctx.elicit_url, got {elicitation_id!r}",
                "Pass the id you gave ctx.elicit_url(elicitation_id=...).",
            )
        era = self._call.era
        if era is None or not has_elicit_complete(era):
            return False
        sdk = self._call.sdk
        await sdk.session.send_elicit_complete(elicitation_id, related_request_id=sdk.request_id)
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
        options: Mapping[type[BaseModel], Mapping[str, OptionsArg]] | None = None,
        defaults: Mapping[type[BaseModel], Mapping[str, object]] | None = None,
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
        options: Mapping[type[BaseModel], Mapping[str, OptionsArg]] | None = None,
        defaults: Mapping[type[BaseModel], Mapping[str, object]] | None = None,
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
        options: Mapping[type[BaseModel], Mapping[str, OptionsArg]] | None = None,
        defaults: Mapping[type[BaseModel], Mapping[str, object]] | None = None,
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
        options: Mapping[type[BaseModel], Mapping[str, OptionsArg]] | None = None,
        defaults: Mapping[type[BaseModel], Mapping[str, object]] | None = None,
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
        options: Mapping[type[BaseModel], Mapping[str, OptionsArg]] | None = None,
        defaults: Mapping[type[BaseModel], Mapping[str, object]] | None = None,
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
        options: Mapping[type[BaseModel], Mapping[str, OptionsArg]] | None = None,
        defaults: Mapping[type[BaseModel], Mapping[str, object]] | None = None,
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
        options: Mapping[type[BaseModel], Mapping[str, OptionsArg]] | None = None,
        defaults: Mapping[type[BaseModel], Mapping[str, object]] | None = None,
    ) -> tuple[ElicitResult[Any], ...]: ...
    async def elicit_all(
        self,
        *models: type[BaseModel],
        timeout: float | None = None,
        retries: int | None = None,
        on_unsupported: OnUnsupported | None = None,
        options: Mapping[type[BaseModel], Mapping[str, OptionsArg]] | None = None,
        defaults: Mapping[type[BaseModel], Mapping[str, object]] | None = None,
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
            options: Per model, its `options=` as `ctx.elicit` takes them (every
                question about that model offers the same).
            defaults: Per model, its `defaults=` as `ctx.elicit` takes them.

        Returns:
            One `ElicitResult` per model, in the order given.

        Raises:
            OptionsError: If the options or defaults of any question do not fit its model
                (or a `Choices()` field has none), before any question is sent.
            SchemaError: If a model is a page form (`ctx.elicit_page` asks those).
            ElicitArgumentError: Before any question is sent (a `ValueError` and a
                `TypeError`), if no model is given, one is not a pydantic model class,
                `options`/`defaults` is keyed by field name instead of by model or names
                a model not asked, or `timeout`, `retries` or `on_unsupported` is invalid.
            InvalidResponse: If a question's answers stay invalid past `retries`.
            ElicitationTimeout: If a question is not answered in time.
            ElicitUsageError: Through the fallback, which asks one question per round.
        """
        call = "ctx.elicit_all"
        if not models:
            raise ElicitArgumentError(
                call,
                "models",
                "needs at least one model to ask for, e.g. ctx.elicit_all(A, B)",
                "Pass the model classes to ask for, in the order you want the answers.",
            )
        for model in models:  # every question's shape is checked before any is sent
            check_question(model, None, call)
            if is_page_form(model):
                raise SchemaError.page_form(model.__name__, call)
        resolve(self._call.policy, call, timeout=timeout, retries=retries, on_unsupported=on_unsupported)
        offers = _per_model("options", options, models, "[...]")
        filled = _per_model("defaults", defaults, models, "...")
        version = self._call.era or LATEST_PROTOCOL_VERSION
        for model in models:
            if model in offers or model in filled:
                shaped(model, version, options=offers.get(model), defaults=filled.get(model))
        results: list[ElicitResult[Any] | None] = [None] * len(models)

        async def ask(index: int, model: type[BaseModel]) -> None:
            question, settings = self._form_question(
                model,
                None,
                timeout=timeout,
                retries=retries,
                on_unsupported=on_unsupported,
                options=offers.get(model),
                defaults=filled.get(model),
                asker=call,
            )
            results[index] = await self._ask(question, settings)

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
            ElicitArgumentError: If `key` is not a non-empty string, `fn` is not callable, or
                the result is not JSON data that survives a round trip unchanged (e.g. a tuple,
                a datetime, a model: return `.model_dump(mode="json")`); a `TypeError`.
        """
        if not isinstance(key, str) or not key:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ElicitArgumentError(
                "ctx.once",
                "key",
                f"needs its key as a non-empty string, got {type(key).__name__ if key else repr(key)}",
                'Name the side effect, unique within the function: ctx.once("send_code", send).',
            )
        if not callable(fn):
            raise ElicitArgumentError(
                f"ctx.once({key!r})",
                "fn",
                f"needs a function to run once, got {type(fn).__name__}",
                "Pass a zero-argument function or coroutine function (a lambda for a value).",
            )
        if key in self._call.once:
            recorded: J = self._call.once[key]
            return recorded
        produced = fn()
        value = await produced if inspect.isawaitable(produced) else produced
        stored: J = json_stable(key, value)
        self._call.once[key] = stored
        return stored


def _per_model(
    argument: str, given: Mapping[Any, Any] | None, models: tuple[type[BaseModel], ...], shape: str
) -> Mapping[type[BaseModel], Any]:
    """`ctx.elicit_all`'s `options=` or `defaults=`, checked to be keyed by the models it asks.

    Raises:
        ElicitArgumentError: If it is no mapping, is keyed by field name, or names a model not asked.
    """
    call = "ctx.elicit_all"
    if given is None:
        return {}
    example = f"{argument}={{{models[0].__name__}: {{'field': {shape}}}}}"
    if not isinstance(given, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ElicitArgumentError(
            call, argument, f"takes {argument}= as a mapping of model to its {argument}", f"Pass {example}."
        )
    names = [key for key in given if isinstance(key, str)]
    if names:
        owner = next((model for model in models if names[0] in model.model_fields), None)
        what = f"a field of {owner.__name__}" if owner is not None else "no model"
        right = f"{argument}={{{(owner or models[0]).__name__}: {{{names[0]!r}: {shape}}}}}"
        raise ElicitArgumentError(
            call,
            argument,
            f"takes {argument}= per model, not per field ({names[0]!r} is {what})",
            f"Pass {right}, one entry per model asked.",
        )
    stray = [key for key in given if key not in models]
    if stray:
        shown = ", ".join(getattr(key, "__name__", type(key).__name__) for key in stray)
        raise ElicitArgumentError(
            call,
            argument,
            f"got {argument}= for {shown}, which it does not ask for",
            f"Key {argument}= by the models passed to ctx.elicit_all, e.g. {example}.",
        )
    return given
