"""Stand-ins for issue 23's server side and client half, until `typed_elicit.apps` lands.

The browser proof (`test_apps_browser.py`) needs (a) a server whose form question carries
`_meta.ui.resourceUri` when both sides negotiated app-rendered elicitation, and (b) the client
half that fetches the app resource and hands an `AppRequest` to a renderer. Both are built by
helper `apps23` (`typed_elicit.apps`, `typed_elicit.client.AppRequest`/`elicitation_handler(app=)`).
This module stands in for them, to the contract in /work/notes/app_pin.md section 7, so the
harness could be built first. At merge, `test_apps_browser.py`'s SWAP block points at the real ones.

Everything here follows SEP-3118 @ modelcontextprotocol/modelcontextprotocol 2f3669e5 (the draft
of ext-apps PR 733): the server advertises `elicitation: {}` in its ui extension entry, and
attaches the hint only when the request's client capabilities have core form elicitation, the
ui MIME type and the ui `elicitation` member.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import mcp_types as types
from mcp.client import ClientRequestContext
from mcp.client.extension import ClientExtension, advertise
from mcp.client.session import ElicitationFnT
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID, Apps
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.message import ServerMessageMetadata
from pydantic import BaseModel, Field, ValidationError

from typed_elicit.client import FormHandler, UrlHandler, parse_requested_schema
from typed_elicit.client import elicitation_handler as form_only_handler
from typed_elicit.errors import InvalidResponse

RESOURCE_URI = "ui://offsite/booking"


class Offsite(BaseModel):
    """The question of the proof: every field kind the host checks (text, choice, bounded integer, flag)."""

    organiser: str = Field(min_length=2, max_length=40, title="Organiser", description="Who runs the day")
    city: Literal["lisbon", "porto", "faro"] = Field(title="City")
    seats: int = Field(default=4, ge=1, le=12, title="Seats", description="Between 1 and 12")
    vegetarian: bool = Field(default=False, title="Vegetarian menu")


MESSAGE = "Book the team offsite"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "organiser": {
            "type": "string",
            "title": "Organiser",
            "description": "Who runs the day",
            "minLength": 2,
            "maxLength": 40,
        },
        "city": {
            "type": "string",
            "title": "City",
            "oneOf": [
                {"const": "lisbon", "title": "Lisbon"},
                {"const": "porto", "title": "Porto"},
                {"const": "faro", "title": "Faro"},
            ],
        },
        "seats": {
            "type": "integer",
            "title": "Seats",
            "description": "Between 1 and 12",
            "minimum": 1,
            "maximum": 12,
            "default": 4,
        },
        "vegetarian": {"type": "boolean", "title": "Vegetarian menu", "default": False},
    },
    "required": ["organiser", "city"],
}


# --- the app view: hand-written to the draft (pin section 6), standing in for apps23's ---------

VIEW_FILE = Path(__file__).with_name("standin_view.html")


def _view_html() -> str:
    """The view with its CSP: only its own inline script (by hash) and inline style."""
    html = VIEW_FILE.read_text()
    script = html[html.index("<script>") + len("<script>") : html.index("</script>")]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    return html.replace(
        "{{CSP}}", f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'"
    )


VIEW_HTML = _view_html()


# --- the stand-in server ------------------------------------------------------------------------


class _AppsWithElicitation(Apps):
    """The SDK's Apps extension advertising the draft's server capability."""

    def settings(self) -> dict[str, Any]:
        # SEP-3118 / ext-apps PR 733: `{"extensions": {"io.modelcontextprotocol/ui": {"elicitation": {}}}}`
        return {"elicitation": {}}


def app_negotiated(ctx: Context[Any]) -> bool:
    """Whether the request's client capabilities allow the app hint (SEP-3118's three conditions)."""
    caps = ctx.client_capabilities
    if caps is None or caps.elicitation is None:
        return False
    form_ok = caps.elicitation.form is not None or caps.elicitation.url is None
    ui = (caps.extensions or {}).get(EXTENSION_ID) or {}
    mimes = ui.get("mimeTypes")
    return (
        form_ok
        and isinstance(mimes, list)
        and APP_MIME_TYPE in mimes
        and isinstance(ui.get("elicitation"), dict)
    )


_KEPT_META: ContextVar[dict[str, dict[str, Any]] | None] = ContextVar("_KEPT_META", default=None)


async def keep_input_request_meta(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
    """Put back the `_meta` of embedded elicitation params that mcp 2.3's 2026-07-28 sieve drops.

    `ServerRunner._serialize` re-validates a `tools/call` result with the per-version surface,
    whose embedded `elicitation/create` params have no `_meta`; it runs inside the middleware
    chain, so the wire dict `call_next` returns can be mended here.
    """
    if ctx.method != "tools/call":
        return await call_next(ctx)
    kept: dict[str, dict[str, Any]] = {}
    token = _KEPT_META.set(kept)
    try:
        result = await call_next(ctx)
    finally:
        _KEPT_META.reset(token)
    requests = result.get("inputRequests") if isinstance(result, dict) else None
    if isinstance(requests, dict):
        for key, meta in kept.items():
            params = requests.get(key, {}).get("params")
            if isinstance(params, dict):
                params["_meta"] = meta
    return result


def _params(ctx: Context[Any], message: str, key: str | None = None) -> types.ElicitRequestFormParams:
    meta = {"ui": {"resourceUri": RESOURCE_URI}} if app_negotiated(ctx) else None
    kept = _KEPT_META.get()
    if key is not None and meta is not None and kept is not None:
        kept[key] = meta
    return types.ElicitRequestFormParams(message=message, requested_schema=SCHEMA, _meta=meta)  # type: ignore[call-arg]


def _reask(problem: ValidationError) -> str:
    fields = ", ".join(sorted({str(error["loc"][0]) for error in problem.errors() if error["loc"]}))
    problems = f"Your previous answer could not be used ({fields}: out of its rules)."
    return f"{MESSAGE}\n\n{problems} Please answer again."


def _outcome(result: types.ElicitResult) -> str | ValidationError:
    if result.action != "accept":
        return result.action + "d" if result.action == "decline" else "cancelled"
    try:
        booking = Offsite.model_validate(result.content or {})
    except ValidationError as problem:
        return problem
    veg = ", vegetarian" if booking.vegetarian else ""
    return f"Booked {booking.seats} seats in {booking.city} for {booking.organiser}{veg}"


def build_standin_server(origin: str) -> MCPServer:
    """The stand-in server: a tool asking `Offsite`, once more after an invalid answer (`retries=1`)."""
    apps = _AppsWithElicitation()
    apps.add_html_resource(RESOURCE_URI, VIEW_HTML, title="Offsite booking")
    server = MCPServer("offsite-desk", extensions=[apps], middleware=[keep_input_request_meta])

    @server.tool()
    async def book_offsite(ctx: Context[Any]) -> str | types.InputRequiredResult:
        """Book the team offsite after asking the organiser."""
        if ctx.protocol_version == "2026-07-28":
            responses = ctx.input_responses or {}
            state = ctx.request_state or "0"
            if "q" in responses:
                answer = responses["q"]
                assert isinstance(answer, types.ElicitResult)
                outcome = _outcome(answer)
                if isinstance(outcome, str):
                    return outcome
                if state == "1":
                    raise ValueError("the answer stayed invalid after one re-ask")
                again = _params(ctx, _reask(outcome), "q")
                return types.InputRequiredResult(
                    input_requests={"q": types.ElicitRequest(params=again)}, request_state="1"
                )
            first = _params(ctx, MESSAGE, "q")
            return types.InputRequiredResult(
                input_requests={"q": types.ElicitRequest(params=first)}, request_state="0"
            )
        message = MESSAGE
        for _attempt in range(2):
            result = await ctx.session.send_request(
                types.ElicitRequest(params=_params(ctx, message)),
                types.ElicitResult,
                metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
            )
            outcome = _outcome(result)
            if isinstance(outcome, str):
                return outcome
            message = _reask(outcome)
        raise ValueError("the answer stayed invalid after one re-ask")

    return server


# --- the stand-in client half (pin section 7) ----------------------------------------------------


@dataclass(frozen=True)
class AppRequest:
    """An app-rendered question, as a renderer sees it (stand-in for `typed_elicit.client.AppRequest`)."""

    resource_uri: str
    html: str
    resource_meta: dict[str, Any]
    params: types.ElicitRequestFormParams
    protocol_version: str


AppRenderer = Callable[[AppRequest], Awaitable[types.ElicitResult]]


class AppCannotRender(Exception):
    """A renderer's signal to fall back to the form (stand-in for `typed_elicit.errors.AppCannotRender`)."""

    def __init__(self, resource_uri: str, reason: str) -> None:
        super().__init__(f"the app {resource_uri} cannot be shown: {reason}")
        self.resource_uri = resource_uri
        self.reason = reason


APP_CLIENT_EXTENSIONS: list[ClientExtension] = [
    advertise(EXTENSION_ID, {"mimeTypes": [APP_MIME_TYPE], "elicitation": {}})
]
"""`mcp.Client(extensions=...)` of a client that can render app questions (SEP-3118's client capability)."""


async def _read_app(
    context: ClientRequestContext, params: types.ElicitRequestFormParams
) -> AppRequest | None:
    """The `AppRequest` for `params` when it names a `ui://` app, its resource read from the same server."""
    ui = (params.meta or {}).get("ui")
    uri = ui.get("resourceUri") if isinstance(ui, dict) else None
    if not isinstance(uri, str) or not uri.startswith("ui://"):
        return None
    read = await context.session.read_resource(uri)
    content = read.contents[0]
    if not isinstance(content, types.TextResourceContents) or content.mime_type != APP_MIME_TYPE:
        raise AppCannotRender(uri, f"it is not an {APP_MIME_TYPE} resource")
    version = context.session.protocol_version or ""
    return AppRequest(uri, content.text, dict(content.meta or {}), params, str(version))


def elicitation_handler(
    form: FormHandler, *, url: UrlHandler | None = None, app: AppRenderer | None = None
) -> ElicitationFnT:
    """Stand-in for `typed_elicit.client.elicitation_handler(form, url=, app=)`: the app, else the form."""
    plain = form_only_handler(form, url=url)

    async def callback(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        if app is not None and isinstance(params, types.ElicitRequestFormParams):
            try:
                request = await _read_app(context, params)
                if request is not None:
                    result = await app(request)
                    if result.action == "accept":
                        parse_requested_schema(params.requested_schema).instance(result.content or {})
                    return result
            except AppCannotRender:
                pass
            except InvalidResponse:
                return types.ErrorData(
                    code=types.INTERNAL_ERROR, message="the app's answer does not fit the form"
                )
        return await plain(context, params)

    return callback
