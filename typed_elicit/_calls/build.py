"""The questions `ElicitContext` asks, built from a method's arguments, and `elicit_all`'s fan-out.

Each builder checks what only the call knows (the era, the policy in force, the page host),
resolves the question's settings once (`policy.resolve`) and returns the question the
call's asker takes; the facade checks the arguments' own shape first (`arguments`).
"""

from __future__ import annotations

import logging
import uuid
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import authenticated_principal
from pydantic import BaseModel

from typed_elicit._calls.arguments import check_locale, check_question, per_model
from typed_elicit._calls.askers import Asker
from typed_elicit._calls.call import Call
from typed_elicit._calls.plugs import AppPreview, apps_for, host_for
from typed_elicit._calls.policy import (
    URL_ON_UNSUPPORTED,
    OnUnsupported,
    Settings,
    UrlOnUnsupported,
    resolve,
)
from typed_elicit._calls.questions import FormQuestion, UrlQuestion
from typed_elicit._calls.reach import shows_apps
from typed_elicit._calls.refusal import check_fallback
from typed_elicit._core.results import ElicitResult
from typed_elicit._core.versions import LATEST_PROTOCOL_VERSION
from typed_elicit._forms.reduce import (
    OptionsArg,
    form_message,
    is_page_form,
    page_reduced,
    reduced,
    shaped,
)
from typed_elicit._forms.registry import app_view
from typed_elicit.errors import AppViewError, PagesNotServed, SchemaError

if TYPE_CHECKING:
    from typed_elicit._calls.page_question import PageQuestion

logger = logging.getLogger("typed_elicit")

M = TypeVar("M", bound=BaseModel)


class AskAll(TypedDict, total=False):
    """The keyword arguments of `ElicitContext.elicit_all` (see there)."""

    timeout: float | None
    retries: int | None
    on_unsupported: OnUnsupported | None
    options: Mapping[type[BaseModel], Mapping[str, OptionsArg]] | None
    defaults: Mapping[type[BaseModel], Mapping[str, object]] | None


def form_question(
    call: Call,
    model: type[M],
    message: str | None,
    timeout: float | None,
    retries: int | None,
    on_unsupported: OnUnsupported | None,
    options: Mapping[str, OptionsArg] | None,
    defaults: Mapping[str, object] | None,
    app: bool | AppPreview | None = None,
    asker: str = "ctx.elicit",
) -> tuple[FormQuestion[M], Settings]:
    """The form question `asker` (`ctx.elicit`, `ctx.elicit_all`) asks, and its settings.

    It carries its app view (`FormQuestion.meta`) when the model has one (or `app` asks for
    one), the server serves it and the client can show it (`reach.shows_apps`); else it is
    the plain form, unchanged.

    Raises:
        SchemaError: If `model` is a page form, or cannot be elicited on the call's era.
        OptionsError: If `options`/`defaults` do not fit `model`.
        ElicitArgumentError: If a setting is invalid, or the policy is `"fallback"` outside a tool.
        AppViewError: If `app` asks for an app view the server does not serve.
    """
    check_question(model, message, asker)
    if is_page_form(model):
        raise SchemaError.page_form(model.__name__, asker)
    settings = resolve(call.policy, asker, timeout=timeout, retries=retries, on_unsupported=on_unsupported)
    if on_unsupported == "fallback":
        check_fallback(call, asker)
    version = call.era or LATEST_PROTOCOL_VERSION
    if options is None and defaults is None:
        form = reduced(model, version)
    else:
        form = shaped(model, version, options=options, defaults=defaults)
    text = form_message(model) if message is None else message
    question = FormQuestion(call.next_key(), text, model, form, asker)
    if app is not False and (app is not None or app_view(model) is not None) and call.request is not None:
        server = call.sdk.mcp_server
        apps = apps_for(server)
        if apps is None or apps.uri(model) is None:
            if app is not None:  # asked for a view the server does not serve: the one decision
                raise AppViewError.not_served(model.__name__, server.name)
            _unserved_once(server, model)  # declared, never served: the plain form, said once
        elif apps.advertised and shows_apps(call):
            preview = None if isinstance(app, bool) else app
            question.meta = apps.meta(model, form.schema, preview, question.key)
    return question, settings


_unserved: weakref.WeakKeyDictionary[MCPServer, set[str]] = weakref.WeakKeyDictionary()
"""Per server, the models whose declared app view it was told it serves none (each told once)."""


def _unserved_once(server: MCPServer, model: type[BaseModel]) -> None:
    """Log once per server and model that a declared app view is not served (its questions: plain forms)."""
    told = _unserved.setdefault(server, set())
    name = f"{model.__module__}.{model.__qualname__}"
    if name not in told:
        told.add(name)
        logger.warning(
            "%s declares an app view (@form(app=...)) but server %r serves none: its questions are plain "
            "forms; call typed_elicit.apps.serve_apps(server) after the models are declared",
            model.__qualname__,
            server.name,
        )


def url_question(
    call: Call,
    url: str,
    message: str,
    elicitation_id: str | None,
    timeout: float | None,
    on_unsupported: UrlOnUnsupported | None,
) -> tuple[UrlQuestion, Settings]:
    """The URL question `ctx.elicit_url` asks, and its settings (`elicitation_id` minted if None).

    Raises:
        ElicitArgumentError: If a setting is invalid.
    """
    why = ": a URL-mode question has no defaults, and never passes through the model"
    settings = resolve(
        call.policy,
        "ctx.elicit_url",
        timeout=timeout,
        on_unsupported=on_unsupported,
        allowed=URL_ON_UNSUPPORTED,
        why=why,
    )
    return UrlQuestion(call.next_key(), message, url, elicitation_id or str(uuid.uuid4())), settings


def page_question(
    call: Call,
    model: type[M],
    message: str | None,
    timeout: float | None,
    options: Mapping[str, OptionsArg] | None = None,
    defaults: Mapping[str, object] | None = None,
    locale: str | None = None,
) -> tuple[PageQuestion[M], Settings]:
    """The page question `ctx.elicit_page` asks, its page minted once per call, and its settings.

    With `options`/`defaults` the page is shaped for this question (`shaped(..., page=True)`):
    its ticket carries them, so every replica shows the same form, and its pin on 2026-07-28
    covers them (a re-run that offers other options is a `ReplayMismatch`).

    Raises:
        SchemaError: If no page can ask `model` (on every era).
        OptionsError: If `options`/`defaults` do not fit `model`.
        PagesNotServed: If the server does not serve pages.
        ElicitArgumentError: If a setting is invalid.
    """
    check_question(model, message, "ctx.elicit_page")
    check_locale(locale)
    settings = resolve(call.policy, "ctx.elicit_page", timeout=timeout)
    if options is None and defaults is None:
        form = page_reduced(model)
    else:
        form = shaped(model, LATEST_PROTOCOL_VERSION, options=options, defaults=defaults, page=True)
    host = host_for(call.sdk.mcp_server)
    if host is None:
        raise PagesNotServed(call.sdk.mcp_server.name)
    key = call.next_key()
    if key not in call.pages:
        request = "" if call.request is None else str(call.request.request_id)
        call.pages[key] = host.mint(call.function, f"{call.function}:{request}", settings.timeout)
    text = form_message(model) if message is None else message
    principal = None if call.request is None else authenticated_principal(call.request)
    from typed_elicit._calls.page_question import PageQuestion  # loaded with the first page question

    return PageQuestion(key, text, model, form, call.pages[key], host, principal, locale=locale), settings


async def ask_all(
    call: Call, asker: Asker, models: tuple[type[BaseModel], ...], settings: AskAll
) -> tuple[ElicitResult[Any], ...]:
    """Ask `models` (at least one) together through `asker`: every shape checked before any is sent.

    Raises:
        SchemaError: If a model is a page form.
        OptionsError: If any question's options or defaults do not fit.
        ElicitArgumentError: If an argument is invalid.
        Exception: The first question's own error, as if it had been asked alone.
    """
    name = "ctx.elicit_all"
    timeout, retries, policy = (
        settings.get("timeout"),
        settings.get("retries"),
        settings.get("on_unsupported"),
    )
    offers = per_model("options", settings.get("options"), models, "[...]")
    filled = per_model("defaults", settings.get("defaults"), models, "...")
    # Every question is built (and so checked) before any is sent, in the order given.
    asked = [
        form_question(
            call, model, None, timeout, retries, policy, offers.get(model), filled.get(model), asker=name
        )
        for model in models
    ]
    results: list[ElicitResult[Any] | None] = [None] * len(models)

    async def ask(index: int, question: FormQuestion[Any], resolved: Settings) -> None:
        results[index] = await asker.ask(question, resolved)

    try:
        async with anyio.create_task_group() as group:
            for index, (question, resolved) in enumerate(asked):
                group.start_soon(ask, index, question, resolved)
    except BaseException as exc:
        inner: tuple[BaseException, ...] = getattr(exc, "exceptions", ())
        # A question's own error reaches the caller as itself, as if asked alone; internal
        # signals (the round's end) stay in the group for @elicits to merge.
        if inner and all(isinstance(leaf, Exception) for leaf in inner):
            raise inner[0] from None
        raise
    return tuple(result for result in results if result is not None)
