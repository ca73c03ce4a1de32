"""The client half of app views (draft, SEP-3118): advertise them, read the app, hand it to the host.

A host written in Python that can render MCP Apps passes an `AppRenderer` to
`elicitation_handler(app=...)` and advertises the capability with `app_capability()`. A form
request that names an app (`_meta.ui.resourceUri`) is then shown by the app: the handler
reads the resource over the same session, hands it to the renderer with the whole request,
checks the app's `ElicitResult` against the requested schema (the app is untrusted) and
returns it. Whenever the app cannot be used, the form handler answers the same request.

Follows SEP-3118 @ modelcontextprotocol/modelcontextprotocol 2f3669e5 and ext-apps PR 733
(see `docs/howto/app_views.md`): the names below may change when the draft settles.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

import mcp_types as types
from mcp.client import ClientRequestContext
from mcp.client.extension import ClientExtension, advertise

from typed_elicit._wire.draft import APP_MIME_TYPE, CLIENT_UI_SETTINGS, ELICITATION_SETTING, UI_EXTENSION
from typed_elicit._wire.spec import FormSpec
from typed_elicit.errors import AppCannotRender, InvalidResponse

logger = logging.getLogger("typed_elicit.client")


@dataclass(frozen=True)
class AppRequest:
    """A form question the server asks to be shown by its app, as a host's renderer gets it."""

    resource_uri: str
    """The absolute `ui://` URI the request named (`_meta.ui.resourceUri`)."""
    html: str
    """The app's HTML, read from that resource over the same session."""
    resource_meta: dict[str, Any]
    """The read content's `_meta` (`ui.csp`, `ui.prefersBorder`, ...); empty when it has none."""
    params: types.ElicitRequestFormParams
    """The whole form request, `_meta` included: forward it to the app unchanged."""
    protocol_version: str
    """The revision the connection negotiated."""


AppRenderer: TypeAlias = Callable[[AppRequest], Awaitable[types.ElicitResult]]
"""A host's app renderer: shows `AppRequest.html` in a sandbox, forwards the request, returns the
app's `ElicitResult`; raises `AppCannotRender` when it cannot (the form handler answers then)."""


def app_capability() -> ClientExtension:
    """The client capability that app views need: pass it to `mcp.Client(extensions=[...])`.

    It advertises `{"mimeTypes": ["text/html;profile=mcp-app"], "elicitation": {}}` in the
    MCP Apps extension: in `initialize` before 2026-07-28, on every request on it (the SDK
    stamps its capabilities in each request's `_meta`). Core form elicitation comes with the
    `elicitation_callback`.

    Returns:
        The extension to add to the client.
    """
    return advertise(UI_EXTENSION, CLIENT_UI_SETTINGS)


def app_uri(params: types.ElicitRequestFormParams) -> str | None:
    """The request's `_meta.ui.resourceUri` if it is an absolute `ui://` URI, else None."""
    ui = (params.meta or {}).get("ui")
    uri = cast("dict[str, Any]", ui).get("resourceUri") if isinstance(ui, dict) else None
    return uri if isinstance(uri, str) and uri.startswith("ui://") and len(uri) > len("ui://") else None


def _server_offers(context: ClientRequestContext) -> bool:
    capabilities = context.session.server_capabilities
    extensions = capabilities.extensions if capabilities is not None else None
    settings = extensions.get(UI_EXTENSION) if extensions else None
    return isinstance(settings, dict) and isinstance(settings.get(ELICITATION_SETTING), dict)


async def read_app(context: ClientRequestContext, uri: str) -> tuple[str, dict[str, Any]]:
    """The app's HTML and its content `_meta`, read over the request's session.

    Raises:
        AppCannotRender: If it cannot be read, or is no `text/html;profile=mcp-app` text.
    """
    try:
        result = await context.session.read_resource(uri)
    except Exception as exc:
        raise AppCannotRender(uri, f"reading it failed ({type(exc).__name__})") from None
    for content in result.contents:
        if str(content.uri) == uri and isinstance(content, types.TextResourceContents):
            if content.mime_type != APP_MIME_TYPE:
                raise AppCannotRender(uri, f"its MIME type is not {APP_MIME_TYPE}")
            return content.text, dict(content.meta or {})
    raise AppCannotRender(uri, "the server sent no text content for it")


async def app_answer(
    context: ClientRequestContext, params: types.ElicitRequestFormParams, form: FormSpec, app: AppRenderer
) -> types.ElicitResult | None:
    """The app's checked answer to a form request that names one; None: the form handler answers.

    None when the request names no usable app, the server did not advertise app views, the
    app cannot be read or rendered (`AppCannotRender`), or its accepted content does not fit
    the requested schema (logged, without values).
    """
    uri = app_uri(params)
    if uri is None or not _server_offers(context):
        return None
    try:
        html, meta = await read_app(context, uri)
        version = context.session.protocol_version or ""
        result = await app(AppRequest(uri, html, meta, params, version))
    except AppCannotRender as exc:
        logger.warning("%s", exc)
        return None
    if result.action != "accept":
        return types.ElicitResult(action=result.action)
    try:
        content = form.content(form.instance(result.content or {}))
    except InvalidResponse as exc:
        fields = ", ".join(sorted({name or "(form)" for name, _ in exc.errors}))
        logger.warning("the app %s answered content that does not fit the form (fields: %s)", uri, fields)
        return None
    return types.ElicitResult(action="accept", content=cast("dict[str, Any]", content))
