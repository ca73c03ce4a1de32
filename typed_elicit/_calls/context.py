"""`ElicitContext`: what a tool decorated with `@elicits` receives; a facade over the call's asker.

Each method checks its arguments, resolves the question's settings, builds one question
(`questions`) and hands it to the asker chosen once, when the context is built (`choose`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, overload

from mcp.server.mcpserver import Context
from pydantic import BaseModel, GetCoreSchemaHandler
from pydantic_core import CoreSchema
from typing_extensions import Unpack

from typed_elicit._calls.arguments import (
    JSON,
    check_elicitation_id,
    check_models,
    check_once,
    check_url_question,
    json_stable,
)
from typed_elicit._calls.askers import Asker, choose
from typed_elicit._calls.build import AskAll, ask_all, form_question, page_question, url_question
from typed_elicit._calls.call import Call
from typed_elicit._calls.plugs import AppPreview, Resume
from typed_elicit._calls.policy import (
    DEFAULT_POLICY,
    OnUnsupported,
    Policy,
    UrlOnUnsupported,
)
from typed_elicit._core.results import ElicitResult, UrlResult
from typed_elicit._core.versions import ProtocolVersion
from typed_elicit._forms.reduce import OptionsArg
from typed_elicit.errors import ElicitUsageError

M = TypeVar("M", bound=BaseModel)
M1 = TypeVar("M1", bound=BaseModel)
M2 = TypeVar("M2", bound=BaseModel)
M3 = TypeVar("M3", bound=BaseModel)
M4 = TypeVar("M4", bound=BaseModel)
M5 = TypeVar("M5", bound=BaseModel)
M6 = TypeVar("M6", bound=BaseModel)
J = TypeVar("J", bound=JSON)


class ElicitContext:
    """The context a function decorated with `@elicits` receives.

    Annotate one parameter with `ElicitContext`; the SDK injects its own `Context` there
    (reachable as `ctx.sdk`), and the parameter never appears in the tool's `inputSchema`.
    """

    __slots__ = ("_asker", "_call")

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Refuse to become a pydantic field: the SDK met `ElicitContext` without `@elicits`.

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
        """Wrap the SDK's context for one call (`@elicits` does it); the call's asker is chosen here.

        Args:
            sdk: The SDK context of the running request.
            policy: The decorator's defaults.
            function: The decorated function's name, for hooks and messages.
            resume: Set when the fallback's companion tool runs the call again.
        """
        self._call = Call(sdk, policy or DEFAULT_POLICY, function, resume)
        self._asker = choose(self._call, sdk, resume)

    def __typed_elicit_parts__(self) -> tuple[Call, Asker]:
        """The call's record and asker, for `@elicits` (which ends the call and words its errors)."""
        return self._call, self._asker

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
        app: bool | AppPreview | None = None,
    ) -> ElicitResult[M]:
        """Ask the user to fill in `model` and return their typed answer, on every protocol era.

        On 2026-07-28 the call ends with an `InputRequiredResult` and runs again from the
        top with the answer, so the code before each question must be deterministic (`once`).
        The answer is validated again on arrival (`typed_elicit._forms.validate`).

        Args:
            model: The pydantic model to fill in.
            message: What to tell the user; None: `@form(message=...)`, the docstring, or the title.
            timeout: Seconds to wait for the answer; None: the decorator's, else the process default.
            retries: How often an invalid answer is asked again, stating the problems.
            on_unsupported: What to do if the client cannot be asked (`OnUnsupported`).
            options: Per `Choices()` field, the options offered: values, or value to title.
            defaults: Per field, the value the form is pre-filled with (and a left-out field gets).
            app: None per `@form`, False off, True or an `apps.Preview` on (`AppViewError` if not served).

        Returns:
            `Accepted(data)`, `Declined()` or `Cancelled()`.

        Raises:
            SchemaError: If `model` cannot be elicited on this revision, or is a page form.
            OptionsError: If `options`/`defaults` do not fit `model`, before anything is sent.
            ElicitationUnsupported: If the client cannot be asked and the policy is `"raise"`.
            ElicitationTimeout: If no answer came in time, or the call outlived its `call_timeout`.
            ClientError: If the client answered with a JSON-RPC error (push eras).
            InvalidResponse: If the answer is still invalid after `retries` re-asks.
            ReplayMismatch: If a 2026-07-28 re-run asks another question at this position.
            FallbackNotInstalled: If the policy is `"fallback"` and `install_fallback` was not called.
            HookError: If an elicitation hook fails.
            ElicitArgumentError: An invalid argument (TypeError, ValueError), or "fallback" outside a tool.
        """
        question, settings = form_question(
            self._call, model, message, timeout, retries, on_unsupported, options, defaults, app
        )
        return await self._asker.ask(question, settings)

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

        For what must not pass through the client: credentials, OAuth consent, payments.
        `Consented()` means consent only; what happens on the page reaches the server out
        of band. The URL must be absolute http(s) with a host and no credentials.

        Args:
            url: The page to send the user to.
            message: Why, in words the user reads next to the URL.
            elicitation_id: The `elicitationId` sent on 2025-11-25 (for `complete_url`); None mints one.
            timeout: Seconds to wait for the consent; None: the decorator's, else the process default.
            on_unsupported: `"raise"` or `"decline"` when the client cannot be sent to a URL.

        Returns:
            `Consented()`, `Declined()` or `Cancelled()`.

        Raises:
            ElicitationUnsupported: If the client cannot be sent to a URL and the policy is not `"decline"`.
            ElicitationTimeout: If no answer came in time.
            ClientError: If the client answered with a JSON-RPC error (2025-11-25).
            InvalidResponse: If the client's result is malformed (2025-11-25).
            ReplayMismatch: If a 2026-07-28 re-run asks another question (or URL) at this position.
            HookError: If an elicitation hook fails.
            ElicitArgumentError: If an argument is invalid.
        """
        check_url_question(url, message, elicitation_id)
        question, settings = url_question(self._call, url, message, elicitation_id, timeout, on_unsupported)
        return await self._asker.ask(question, settings)

    async def elicit_page(
        self,
        model: type[M],
        message: str | None = None,
        *,
        timeout: float | None = None,
        options: Mapping[str, OptionsArg] | None = None,
        defaults: Mapping[str, object] | None = None,
        locale: str | None = None,
    ) -> ElicitResult[M]:
        """Ask the user to fill in `model` on a page of this server's own, and return their typed answer.

        Secret fields (`@form(page=True)`: passwords, keys, codes) never pass through the client or the model:
        the client opens the page's single-use link (URL mode); the page checks each submit.

        Args:
            model: The pydantic model to fill in (secret fields allowed).
            message: The text above the form and in the consent question; None: the model's.
            timeout: Seconds for consent and page together; None: the decorator's, else the default.
            options: Per `Choices()` field, the options the page offers: values, or value to title.
            defaults: Per field, the value the page is pre-filled with (and a left-out field gets).
            locale: The page's language (`"de"`), before the server's and the browser's; None: theirs.

        Returns:
            `Accepted(data)`, `Declined()` or `Cancelled()` (the consent's, or the page's).

        Raises:
            PagesNotServed: If the server does not serve pages.
            SchemaError: If `model` cannot be asked on a page.
            OptionsError: If `options`/`defaults` do not fit `model`, before anything is sent.
            ElicitationUnsupported: If the client cannot be sent to a URL and the policy is not `"decline"`.
            ElicitationTimeout: If the page was not submitted within `timeout`.
            ClientError: If the client answered the consent with a JSON-RPC error (2025-11-25).
            ElicitArgumentError: If an argument is invalid.
        """
        question, settings = page_question(self._call, model, message, timeout, options, defaults, locale)
        return await self._asker.ask(question, settings)

    async def complete_url(self, elicitation_id: str) -> bool:
        """Tell the client that a URL question's out-of-band flow has finished (2025-11-25 only).

        Other eras have no such notification: there it does nothing, so tool code stays the same.

        Args:
            elicitation_id: The id given to `elicit_url(elicitation_id=...)`.

        Returns:
            Whether a notification was sent.

        Raises:
            ElicitArgumentError: If `elicitation_id` is not a non-empty string.
        """
        check_elicitation_id(elicitation_id)
        return await self._asker.complete(elicitation_id)

    @overload
    async def elicit_all(self, m1: type[M1], /, **settings: Unpack[AskAll]) -> tuple[ElicitResult[M1]]: ...
    @overload
    async def elicit_all(
        self, m1: type[M1], m2: type[M2], /, **settings: Unpack[AskAll]
    ) -> tuple[ElicitResult[M1], ElicitResult[M2]]: ...
    @overload
    async def elicit_all(
        self, m1: type[M1], m2: type[M2], m3: type[M3], /, **settings: Unpack[AskAll]
    ) -> tuple[ElicitResult[M1], ElicitResult[M2], ElicitResult[M3]]: ...
    @overload
    async def elicit_all(
        self, m1: type[M1], m2: type[M2], m3: type[M3], m4: type[M4], /, **settings: Unpack[AskAll]
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
        **settings: Unpack[AskAll],
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
        **settings: Unpack[AskAll],
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
        self, *models: type[BaseModel], **settings: Unpack[AskAll]
    ) -> tuple[ElicitResult[Any], ...]: ...
    async def elicit_all(
        self, *models: type[BaseModel], **settings: Unpack[AskAll]
    ) -> tuple[ElicitResult[Any], ...]:
        """Ask several questions together and return their typed answers, one per model, in order.

        Concurrent requests on push eras; one round with one `inputRequests` entry per question
        on 2026-07-28. Each is asked as `elicit(model)` would ask it, with the model's message.

        Args:
            *models: The pydantic models to ask for, at least one.
            **settings: `timeout`, `retries` and `on_unsupported` for each question, as `elicit`
                takes them; `options` and `defaults` keyed by model, each as `elicit` takes them.

        Returns:
            One `ElicitResult` per model, in the order given.

        Raises:
            OptionsError: If any question's options or defaults do not fit, before any is sent.
            SchemaError: If a model is a page form (`elicit_page` asks those).
            ElicitArgumentError: If an argument is invalid, before any question is sent.
            InvalidResponse: If a question's answers stay invalid past `retries`.
            ElicitationTimeout: If a question is not answered in time.
            ElicitUsageError: Through the fallback, which asks one question per round.
        """
        check_models(models, "ctx.elicit_all")
        return await ask_all(self._call, self._asker, models, settings)

    @overload
    async def once(self, key: str, fn: Callable[[], Awaitable[J]]) -> J: ...
    @overload
    async def once(self, key: str, fn: Callable[[], J]) -> J: ...
    async def once(self, key: str, fn: Callable[[], Awaitable[J] | J]) -> J:
        """Run `fn` once per call, however many rounds the call takes, and reuse its result.

        Wrap what must not repeat between 2026-07-28 rounds (sending a code, charging a card)
        or must not change (a timestamp, a random id, a read): the first round runs it and
        records its JSON result in the sealed state; later rounds get the record. Every round
        sees the result after a JSON round trip.

        Args:
            key: Names the side effect; unique within the function.
            fn: A zero-argument function or coroutine function.

        Returns:
            What `fn` returned the first time, as JSON data.

        Raises:
            ElicitArgumentError: If `key` or `fn` is invalid, or the result is not JSON data that
                survives a round trip unchanged.
        """
        check_once(key, fn)
        once = self._call.once
        if key in once:
            recorded: J = once[key]
            return recorded
        produced = fn()
        value = await produced if inspect.isawaitable(produced) else produced
        stored: J = json_stable(key, value)
        once[key] = stored
        return stored
