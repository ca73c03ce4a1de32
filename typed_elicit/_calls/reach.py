"""Whether the client can be sent a question at all: the one place that decides, and why not.

Every asker asks `reach` before it sends a question; a reason hands the question to the
refusal path (`refusal.refuse`). `watched` runs a question inside its span when the call
is traced; `capability_error` is how a 2026-07-28 client learns it lacks a capability.
`shows_apps` decides whether a form question may carry its app view (SEP-3118).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Final, Literal, TypeAlias, cast

from mcp.shared.exceptions import MCPError
from mcp_types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    ClientCapabilities,
    ElicitationCapability,
    FormElicitationCapability,
    MissingRequiredClientCapabilityErrorData,
    UrlElicitationCapability,
)

from typed_elicit._calls.call import Call
from typed_elicit._calls.questions import Question, R
from typed_elicit._core.eras import has_url_mode, uses_input_required
from typed_elicit._observe import telemetry
from typed_elicit._wire.draft import APP_MIME_TYPE, CLIENT_CAPABILITIES_KEY, ELICITATION_SETTING, UI_EXTENSION
from typed_elicit.errors import ElicitationUnsupported

Travel: TypeAlias = Literal["push", "rounds", "model", "none"]
"""How an asker's questions travel: server-to-client requests, 2026-07-28 rounds, through the
model (the fallback's resumed call), or not at all (no elicitation era)."""

_NOT_THROUGH_THE_MODEL: Final = (
    "URL-mode questions never fall back to the model, and the fallback cannot reach the client"
)


def reach(call: Call, question: Question[Any], travel: Travel) -> str | None:
    """Why the client cannot be sent `question` in this call, or None if it can.

    Args:
        call: The call asking.
        question: The question (a page question needs URL mode).
        travel: How the asker's questions travel: server-to-client requests (`push`), which a
            stateless or JSON-response HTTP connection cannot carry; `rounds`; through the
            model (`model`: a form question only); or `none`.

    Returns:
        The reason, worded for messages, or None.
    """
    if travel == "model":  # a resumed call reaches the user through the model, forms only
        return None if question.mode == "form" else _NOT_THROUGH_THE_MODEL
    era, request = call.era, call.request
    if request is None:
        return "it is not running inside a request"
    if era is None:
        since = "" if question.mode == "url" else " (it starts with 2025-06-18)"
        return f"the negotiated protocol {request.protocol_version} has no elicitation{since}"
    mode = question.mode
    if mode == "url" and not has_url_mode(era):
        needs = "a page" if question.beside is not None else "URL mode"
        return f"the negotiated protocol {era} has no URL mode ({needs} needs 2025-11-25 or later)"
    session = request.session
    if travel == "push" and not session.can_send_request:
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


async def watched(call: Call, question: Question[Any], asking: Awaitable[R], round_: int | None) -> R:
    """Await `asking`, inside the question's span when the call is traced, settled with its result."""
    if not call.channel.traced:
        return await asking
    subject = "url" if question.model is None else question.subject
    with telemetry.question(subject, question.mode, call.era, call.function, round_=round_) as trace:
        result = await asking
        trace.settle(result)
    return result


def capability_error(call: Call, error: ElicitationUnsupported) -> Exception | None:
    """On 2026-07-28, the spec's `-32021` (missing client capability) for `error`; else None.

    The error's message stays its text; its data names the capability the question needed.
    """
    if call.era is None or not uses_input_required(call.era):
        return None
    needed = (
        ElicitationCapability(url=UrlElicitationCapability())
        if error.mode == "url"
        else ElicitationCapability(form=FormElicitationCapability())
    )
    data = MissingRequiredClientCapabilityErrorData(
        required_capabilities=ClientCapabilities(elicitation=needed)
    )
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"{type(error).__name__}: {error}",
        data=data.model_dump(by_alias=True, mode="json", exclude_none=True),
    )


def shows_apps(call: Call) -> bool:
    """Whether this call's client can be shown a form question as an app (`_meta.ui.resourceUri`).

    SEP-3118 (pinned in `typed_elicit._wire.draft`): the effective client capabilities hold
    core form elicitation, the MCP Apps extension with `text/html;profile=mcp-app` in its
    `mimeTypes`, and an `elicitation` member in it. On 2026-07-28 they are the request's own
    (`_meta["io.modelcontextprotocol/clientCapabilities"]`); before, the session's
    (`initialize`). The server's side (it advertises `elicitation` too) is `AppHost.advertised`.
    """
    request = call.request
    if request is None or call.era is None:
        return False
    if uses_input_required(call.era):
        raw = _mapping((request.meta or {}).get(CLIENT_CAPABILITIES_KEY))
        if raw is None:
            return False
        elicitation = _mapping(raw.get("elicitation"))
        extensions = _mapping(raw.get("extensions"))
        form = elicitation is not None and ("form" in elicitation or "url" not in elicitation)
    else:
        capabilities = request.session.client_capabilities
        if capabilities is None or capabilities.elicitation is None:
            return False
        extensions = _mapping(capabilities.extensions)
        declared = capabilities.elicitation
        form = declared.form is not None or declared.url is None
    ui = _mapping(extensions.get(UI_EXTENSION)) if extensions is not None else None
    if not form or ui is None or _mapping(ui.get(ELICITATION_SETTING)) is None:
        return False
    mime_types = ui.get("mimeTypes")
    return isinstance(mime_types, list) and APP_MIME_TYPE in mime_types


def _mapping(value: object) -> dict[str, Any] | None:
    """`value` if it is a JSON object, else None."""
    return cast("dict[str, Any]", value) if isinstance(value, dict) else None
