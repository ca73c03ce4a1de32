"""Typed pages: a server's own web page for a model's questions, secrets included.

A page question (`ctx.elicit_page`) is asked in three parts:

1. `open_page` mints a ticket: an unguessable id (256 random bits, URL-safe) bound to the
   call (function name and request) and to the authenticated principal when there is one,
   expiring with the question's timeout. The ticket is kept sealed in the server's `Store`
   under `page-ticket:<id>`, so any replica sharing the store and the seal key serves it.
2. The user opens `<public_url><path>/<id>` (the routes `serve_pages` mounts on the server's
   own Starlette app). The page is rendered from the model's page form (`page_reduced`):
   labels, descriptions, titled choices, multi-selects, defaults, bounds, formats, and
   password inputs for secret fields. On submit the answer is checked with the same
   model; a valid answer (or a Decline / Cancel) is sealed and `put` once under `page:<id>`.
3. The question finds the answer with `store.wait` (push eras) or `store.get` (2026-07-28)
   and validates it with the model again (`page_outcome`).

Sealing. Tickets and answers are sealed (encrypted and authenticated) before they reach
the store, and the seal binds each value to its key, so a value cannot be moved to
another page. The key is the server's 2026-07-28 request-state key when the server has a
`RequestStateBoundary` (every `MCPServer` does: `RequestStateSecurity(keys=[...])` for
replicas, an ephemeral key for one process), so replicas that share request-state keys
share pages too; a server without one gets a key made for it in this process.

Nothing a user types is logged, put in an exception, or echoed back for a secret field.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import math
import os
import re
import secrets
import uuid
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar, cast
from urllib.parse import parse_qsl, urlsplit

from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import (
    AESGCMRequestStateCodec,
    InvalidRequestState,
    RequestStateBoundary,
    RequestStateCodec,
    RequestStateSecurity,
    authenticated_principal,
)
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, InputRequiredResult
from pydantic import BaseModel

from . import _clock
from ._errors import ElicitationTimeout, InvalidResponse, TypedElicitError
from ._form import FieldSpec, FormSpec
from ._policy import Settings, url_unsupported
from ._reducer import page_forms, page_reduced, secret_fields
from ._results import Accepted, Cancelled, Consented, Declined, ElicitResult
from ._signals import InputRequired, RoundRefused
from ._state import ReplayState, model_id
from ._store import store_for
from ._validate import validate_form
from ._versions import has_url_mode

if TYPE_CHECKING:
    from ._call import Call
    from ._context import ElicitContext

logger = logging.getLogger("typed_elicit.pages")

M = TypeVar("M", bound=BaseModel)

PageAction = Literal["accept", "decline", "cancel"]

TICKET_PREFIX: Final = "page-ticket:"
ANSWER_PREFIX: Final = "page:"
ID_BYTES: Final = 32
"""Random bytes in a page id (256 bits; the id is their unpadded base64url, 43 characters)."""
MAX_PAGE_SECONDS: Final = 24 * 3600.0
"""The longest a page lives: a question without a timeout (`math.inf`) still gets a link that expires."""
MAX_BODY_BYTES: Final = 256 * 1024
"""The largest submitted form accepted, in bytes."""
_ID_PATTERN: Final = re.compile(r"^[A-Za-z0-9_-]{43}$")
_CSRF_COOKIE: Final = "te_page_csrf"
_CSS_NAME: Final = re.compile(r"^--[A-Za-z0-9-]{1,64}$")
_CSS_VALUE: Final = re.compile(r"^[#(),.%\w\s-]{1,200}$")
_TEMPLATES: Final = Path(__file__).with_name("page_templates")


class PagesNotServed(TypedElicitError, RuntimeError):
    """A page question was asked on a server that serves no pages.

    Attributes:
        server_name: The server's name.
    """

    def __init__(self, server_name: str) -> None:
        self.server_name = server_name
        super().__init__(
            f"ctx.elicit_page needs the server {server_name!r} to serve its pages, and it does not: "
            'call typed_elicit.pages.serve_pages(server, public_url="https://...") once after creating it'
        )


# --- tickets and answers -------------------------------------------------------------------------


@dataclass(frozen=True)
class Ticket:
    """What a page id is bound to (kept sealed in the store; never sent to the client)."""

    id: str
    model: str
    """`module.QualName` of the model (`_replay.model_id`)."""
    message: str
    function: str
    """The function (tool) that asked."""
    request: str
    """The call the page belongs to: the request id on push eras, the call's first-round id on 2026-07-28."""
    principal: str | None
    """The authenticated principal of the call, or None on an unauthenticated transport."""
    expires_at: float
    csrf_key: str

    def to_bytes(self) -> bytes:
        """The ticket as compact JSON."""
        return json.dumps(self.__dict__, separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, raw: bytes) -> Ticket:
        """A ticket from `to_bytes`; ValueError if it is not one."""
        data: object = json.loads(raw)
        if not isinstance(data, dict):
            raise ValueError("not a ticket")
        return cls(**cast("dict[str, Any]", data))


@dataclass(frozen=True)
class PageAnswer:
    """What the user did on a page: the action and, for `accept`, the checked wire content."""

    action: PageAction
    content: dict[str, Any] = field(default_factory=dict[str, Any])

    def to_bytes(self) -> bytes:
        """The answer as compact JSON."""
        return json.dumps({"action": self.action, "content": self.content}, separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, raw: bytes) -> PageAnswer:
        """An answer from `to_bytes`; ValueError if it is not one."""
        loaded: object = json.loads(raw)
        if not isinstance(loaded, dict):
            raise ValueError("not a page answer")
        data = cast("dict[str, Any]", loaded)
        action = data.get("action")
        content = data.get("content")
        if action not in ("accept", "decline", "cancel") or not isinstance(content, dict):
            raise ValueError("not a page answer")
        return cls(action=action, content=cast("dict[str, Any]", content))


# --- sealing -----------------------------------------------------------------------------------

_process_codecs: weakref.WeakKeyDictionary[MCPServer, RequestStateCodec] = weakref.WeakKeyDictionary()


def _codec(server: MCPServer) -> RequestStateCodec:
    """The server's request-state codec, else one under a key made for it in this process."""
    for middleware in server.middleware:
        if isinstance(middleware, RequestStateBoundary):
            security = getattr(middleware, "_security", None)
            if isinstance(security, RequestStateSecurity):
                return security.codec
    codec = _process_codecs.get(server)
    if codec is None:
        codec = _process_codecs[server] = AESGCMRequestStateCodec([os.urandom(32)])
    return codec


def seal(server: MCPServer, key: str, payload: bytes) -> bytes:
    """`payload` sealed for the store under `key` (the key is bound into the sealed bytes)."""
    return _codec(server).seal(key.encode() + b"\n" + payload).encode()


def unseal(server: MCPServer, key: str, sealed: bytes) -> bytes | None:
    """What `seal(server, key, ...)` sealed, or None if `sealed` is not that (tampered, moved, foreign)."""
    try:
        raw = _codec(server).unseal(sealed.decode("ascii"))
    except (InvalidRequestState, UnicodeDecodeError, ValueError):
        return None
    head, sep, payload = raw.partition(b"\n")
    if not sep or not hmac.compare_digest(head, key.encode()):
        return None
    return payload


# --- the registry ---------------------------------------------------------------------------

_models: dict[str, weakref.ref[type[BaseModel]]] = {}


def register_model(model: type[BaseModel]) -> str:
    """Make `model` known to this process's page routes; returns its id.

    Raises:
        SchemaError: If the model cannot be asked on a page.
    """
    page_reduced(model)
    name = model_id(model)
    _models[name] = weakref.ref(model)
    return name


def _model(name: str) -> type[BaseModel] | None:
    """The page form named `name`: asked in this process, or declared `@form(page=True)` here.

    A replica that never asked the question still serves its page, as long as it imported
    the model (the same server code).
    """
    ref = _models.get(name)
    model = None if ref is None else ref()
    if model is None:
        model = next((m for m in page_forms() if model_id(m) == name), None)
    return model


def new_page_id() -> str:
    """A fresh page id: 256 random bits as unpadded base64url."""
    return base64.urlsafe_b64encode(secrets.token_bytes(ID_BYTES)).decode().rstrip("=")


def page_expiry(timeout: float) -> float:
    """When a page for a question with `timeout` seconds expires (at most `MAX_PAGE_SECONDS` away)."""
    return _clock.now() + min(timeout, MAX_PAGE_SECONDS)


async def open_page(
    server: MCPServer,
    model: type[BaseModel],
    *,
    page_id: str,
    message: str,
    function: str,
    request: str,
    principal: str | None,
    expires_at: float,
) -> Ticket:
    """Store the sealed ticket of a page (idempotent for one id: a re-run finds it stored).

    Args:
        server: The server whose store and routes serve the page.
        model: The page form.
        page_id: From `new_page_id` (recorded with `ctx.once` on 2026-07-28, so every round
            of a call opens the same page).
        message: The text above the form.
        function: The asking function's name.
        request: The call the page belongs to.
        principal: The authenticated principal, if any.
        expires_at: Unix time the page expires.

    Returns:
        The ticket (the stored one, if the id was opened already).

    Raises:
        PagesNotServed: If `serve_pages` was not called for `server`.
    """
    if server not in _served:
        raise PagesNotServed(server.name)
    ticket = Ticket(
        id=page_id,
        model=register_model(model),
        message=message,
        function=function,
        request=request,
        principal=principal,
        expires_at=expires_at,
        csrf_key=secrets.token_hex(32),
    )
    key = TICKET_PREFIX + page_id
    store = store_for(server)
    if not await store.put(key, seal(server, key, ticket.to_bytes()), expires_at):
        stored = await load_ticket(server, page_id)
        if stored is None:  # pragma: no cover - a 256-bit id taken by another ticket
            raise RuntimeError("a page id was minted twice")
        return stored
    return ticket


async def load_ticket(server: MCPServer, page_id: str) -> Ticket | None:
    """The ticket of `page_id`, or None if there is none (unknown, expired, or not sealed by us)."""
    if not _ID_PATTERN.match(page_id):
        return None
    key = TICKET_PREFIX + page_id
    sealed = await store_for(server).get(key)
    raw = None if sealed is None else unseal(server, key, sealed)
    if raw is None:
        return None
    try:
        ticket = Ticket.from_bytes(raw)
    except (ValueError, TypeError):  # pragma: no cover - sealed by us, so well-formed
        return None
    return ticket if ticket.id == page_id else None


def page_url(server: MCPServer, page_id: str) -> str:
    """The page's public URL.

    Raises:
        PagesNotServed: If `serve_pages` was not called for `server`.
    """
    config = _served.get(server)
    if config is None:
        raise PagesNotServed(server.name)
    return f"{config.public_url}{config.path}/{page_id}"


async def read_answer(server: MCPServer, ticket: Ticket, *, wait: float | None = None) -> PageAnswer | None:
    """The page's answer: at once (`wait=None`), or as soon as it is submitted within `wait` seconds.

    Returns:
        The answer, or None if there is none yet (or none within `wait`).
    """
    key = ANSWER_PREFIX + ticket.id
    store = store_for(server)
    sealed = await (store.get(key) if wait is None else store.wait(key, wait))
    raw = None if sealed is None else unseal(server, key, sealed)
    if raw is None:
        return None
    try:
        return PageAnswer.from_bytes(raw)
    except (ValueError, TypeError):  # pragma: no cover - sealed by us, so well-formed
        return None


def page_outcome(model: type[M], answer: PageAnswer) -> Accepted[M] | Declined | Cancelled:
    """The typed outcome of a page's answer: the model validated again (SecretStr intact).

    Raises:
        InvalidResponse: Never for an answer the page accepted; if the model changed
            between the page and the call, naming fields only.
    """
    if answer.action == "decline":
        return Declined()
    if answer.action == "cancel":
        return Cancelled()
    form = page_reduced(model).form
    return Accepted(validate_form(model, form, answer.content))


# --- asking: what `ctx.elicit_page` does on each era -----------------------------------------

PAGE_POLL_SECONDS: Final = 20.0
"""On 2026-07-28, how long one round waits for the page's answer before ending with `requestState` only."""


async def ask_page(
    ctx: ElicitContext, call: Call, model: type[M], message: str, settings: Settings, index: int
) -> ElicitResult[M]:
    """Ask `model` on a page: consent to the URL (URL mode), then the page's answer (see `elicit_page`).

    Raises:
        PagesNotServed: If the server serves no pages.
        ElicitationTimeout: If the page was not submitted within the question's timeout.
        ElicitationUnsupported: If the client cannot be sent to a URL and the policy says so.
        InputRequired: On 2026-07-28, to end a round while the page is not submitted yet
            (`requestState` only) or to ask the consent (internal signals).
        RoundRefused: On 2026-07-28, if the page's answer was taken by another round already.
    """
    server = call.sdk.mcp_server
    if server not in _served:
        raise PagesNotServed(server.name)
    era = call.era
    if era is None or not has_url_mode(era):
        reason = (
            "it is not running inside a request"
            if era is None
            else f"the negotiated protocol {era} has no URL mode (a page needs 2025-11-25 or later)"
        )
        outcome: Any = url_unsupported(settings.on_unsupported, reason, "ctx.elicit_page")
        return cast("ElicitResult[M]", outcome)
    principal = None if call.request is None else authenticated_principal(call.request)
    key = f"typed_elicit:page:{index}"

    def mint() -> dict[str, Any]:
        request = "" if call.request is None else str(call.request.request_id)
        return {
            "id": new_page_id(),
            "expires_at": page_expiry(settings.timeout),
            "request": f"{call.function}:{request}",
            "elicitation_id": str(uuid.uuid4()),
        }

    minted = await ctx.once(key, mint)
    ticket = await open_page(
        server,
        model,
        page_id=minted["id"],
        message=message,
        function=call.function,
        request=minted["request"],
        principal=principal,
        expires_at=minted["expires_at"],
    )
    consent = await ctx._ask_url(  # pyright: ignore[reportPrivateUsage]
        page_url(server, ticket.id),
        message,
        elicitation_id=minted["elicitation_id"],
        timeout=settings.timeout,
        on_unsupported=None,  # the decorator's, which advice names as such (ctx.elicit_page takes none)
        asker="ctx.elicit_page",
    )
    if not isinstance(consent, Consented):
        return consent
    subject = model.__name__
    remaining = ticket.expires_at - _clock.now()
    taken = f"{key}:taken"
    if not call.uses_input_required:
        answer = None if remaining <= 0 else await read_answer(server, ticket, wait=remaining)
        if answer is None:
            raise ElicitationTimeout.page_not_submitted(subject, settings.timeout)
        await ctx.complete_url(minted["elicitation_id"])
        return page_outcome(model, answer)
    if call.once.get(taken) is True:  # an earlier round took it; this one re-runs past it
        answer = await read_answer(server, ticket)
        if answer is None:
            raise ElicitationTimeout.page_not_submitted(subject, settings.timeout)
        return page_outcome(model, answer)
    answer = None if remaining <= 0 else await read_answer(server, ticket, wait=min(remaining, _poll(server)))
    if answer is None:
        if _clock.now() >= ticket.expires_at:
            raise ElicitationTimeout.page_not_submitted(subject, settings.timeout)
        state = ReplayState(started=call.started, answers=call.answers(), once=dict(call.once))
        raise InputRequired(InputRequiredResult(request_state=state.encode()))
    if not await store_for(server).claim(TAKEN_PREFIX + ticket.id, ticket.expires_at):
        raise RoundRefused(
            MCPError(
                code=INVALID_PARAMS,
                message=(
                    f"the page answer of {call.function} was already taken by another round: each "
                    "page is answered once. Call the tool again without requestState to start afresh."
                ),
                data={"reason": "round_already_answered"},
            )
        )
    call.once[taken] = True
    return page_outcome(model, answer)


TAKEN_PREFIX: Final = "page-taken:"


def _poll(server: MCPServer) -> float:
    config = _served.get(server)
    return PAGE_POLL_SECONDS if config is None else config.poll_seconds


# --- serving -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PageBrand:
    """How the default page looks: a title, a logo, CSS variables.

    Attributes:
        title: Shown in the page header and the browser tab.
        logo_url: An `https:` image URL (or a `data:image/...` URL) shown next to the title.
        css: CSS custom properties of the default template, e.g. `{"--accent": "#0b5fff"}`
            (`--accent`, `--text`, `--muted`, `--bg`, `--card`, `--error`, `--radius`, `--font`).
    """

    title: str = "Secure form"
    logo_url: str | None = None
    css: Mapping[str, str] = field(default_factory=dict[str, str])

    def __post_init__(self) -> None:
        """Check the CSS variables and the logo URL (they go into a page under a strict CSP).

        Raises:
            ValueError: If a CSS variable is not `--name` with a plain value, or the logo
                URL is neither `https:` nor `data:image/`.
        """
        for name, value in self.css.items():
            if not _CSS_NAME.match(name) or not _CSS_VALUE.match(value):
                raise ValueError(
                    f"PageBrand css {name!r} is not a CSS variable with a plain value; write "
                    '`{"--accent": "#0b5fff"}` (letters, digits, #, %, parentheses, commas, dots)'
                )
        if self.logo_url is not None and not (
            self.logo_url.startswith("https://") or self.logo_url.startswith("data:image/")
        ):
            raise ValueError("PageBrand logo_url must be an https: URL or a data:image/ URL")


Identify = Callable[[Any], Awaitable[str | None]]
"""`async (starlette Request) -> principal | None`: who the browser's user is (see `serve_pages`)."""


@dataclass(frozen=True)
class _Config:
    public_url: str
    path: str
    origin: str
    secure: bool
    brand: PageBrand
    identify: Identify | None
    env: Any  # jinja2.Environment
    template: str
    poll_seconds: float


_served: weakref.WeakKeyDictionary[MCPServer, _Config] = weakref.WeakKeyDictionary()


def serve_pages(
    server: MCPServer,
    public_url: str,
    *,
    path: str = "/elicit-pages",
    brand: PageBrand | None = None,
    template: str | None = None,
    templates_dir: str | Path | None = None,
    identify: Identify | None = None,
    poll_seconds: float = PAGE_POLL_SECONDS,
) -> None:
    """Serve the pages of `ctx.elicit_page` questions on the server's own HTTP app.

    Mounts `GET` and `POST <path>/{page_id}` with the SDK's `custom_route`, so the
    routes exist on the Starlette app of `server.streamable_http_app()` (and
    `server.run("streamable-http")`). Call it once, before serving.

    Security: every page id is 256 random bits, bound to its call and principal, single-use
    (a second submit, an expired or an unknown link get a plain 410/404 page); a submit needs
    the CSRF token of the page the same browser loaded (a double-submit cookie, HMAC-bound
    to the page id) and an `Origin` (or `Referer`) of `public_url`'s origin. Responses carry
    `Cache-Control: no-store`, a strict `Content-Security-Policy` (no script at all; a style
    nonce; `form-action 'self'`; `frame-ancestors 'none'`), `X-Content-Type-Options: nosniff`,
    and a `Referrer-Policy` (`same-origin` on the form, whose own POST must carry its `Origin`;
    `no-referrer` on every other page).

    Args:
        server: The MCP server.
        public_url: The server's origin as the user's browser reaches it, e.g.
            `https://mcp.example.com` (behind a proxy: the proxy's); a path prefix is kept.
        path: Where the pages live under `public_url`.
        brand: Title, logo and CSS variables of the default template.
        template: The name of a template to render forms with instead of the default
            `page.html` (looked up in `templates_dir` first, then the defaults).
        templates_dir: A directory of Jinja2 templates that override the defaults
            (`page.html` for the form, `message.html` for the plain pages).
        identify: `async (request) -> principal | None`: the principal of the browser's user
            (from your own login cookie), compared with the principal of the call that asked.
            Without it, a page of an authenticated call is still bound to its principal on the
            MCP side (only that principal's call takes the answer), but the browser is not checked.
        poll_seconds: On 2026-07-28, how long one round waits for the page's answer before it
            ends with a round that carries only `requestState` (the client then retries).

    Raises:
        ValueError: If `public_url` is not an absolute http(s) URL without query or
            credentials, `path` does not start with `/`, or pages are served already.
        ImportError: If Jinja2 is missing (install `typed-elicit[pages]`).
    """
    try:
        import jinja2  # an optional extra
    except ImportError as exc:  # pragma: no cover - jinja2 is in the dev extra
        raise ImportError("typed_elicit.pages needs Jinja2: pip install 'typed-elicit[pages]'") from exc
    parts = urlsplit(public_url)
    if parts.scheme not in ("https", "http") or not parts.hostname or parts.query or parts.fragment:
        raise ValueError(
            f"serve_pages public_url must be an absolute https (or http) URL, got {public_url!r}: "
            'write it as the browser reaches the server, e.g. "https://mcp.example.com"'
        )
    if parts.username or parts.password:
        raise ValueError("serve_pages public_url must not carry credentials (user:password@)")
    if not path.startswith("/") or path.endswith("/") or "{" in path:
        raise ValueError(f"serve_pages path must start with '/' and not end with one, got {path!r}")
    if server in _served:
        raise ValueError("serve_pages was already called on this server; call it once")
    if not 0 < poll_seconds < math.inf:
        raise ValueError(
            f"serve_pages poll_seconds must be a positive number of seconds, got {poll_seconds!r}"
        )
    loaders: list[jinja2.BaseLoader] = []
    if templates_dir is not None:
        loaders.append(jinja2.FileSystemLoader(str(templates_dir)))
    loaders.append(jinja2.FileSystemLoader(str(_TEMPLATES)))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    origin = f"{parts.scheme}://{parts.netloc}"
    config = _Config(
        public_url=public_url.rstrip("/"),
        path=path,
        origin=origin.lower(),
        secure=parts.scheme == "https",
        brand=brand or PageBrand(),
        identify=identify,
        env=env,
        template=template or "page.html",
        poll_seconds=poll_seconds,
    )
    _served[server] = config
    route = f"{urlsplit(config.public_url).path}{path}/{{page_id}}"

    async def endpoint(request: Any) -> Any:
        return await _handle(server, config, request)

    server.custom_route(route, methods=["GET", "POST"], name="typed_elicit_page", include_in_schema=False)(
        endpoint
    )


# --- one request ---------------------------------------------------------------------------------


@dataclass
class _Field:
    """What a template needs to show one field."""

    id: str
    name: str
    label: str
    kind: str
    input: str
    """`text`, `email`, `url`, `date`, `password`, `number`, `checkbox`, `select`, `checkboxes`."""
    required: bool
    description: str | None
    hint: str | None
    value: str
    checked: bool
    options: list[dict[str, Any]]
    attrs: dict[str, str]
    error: str | None = None

    @property
    def describedby(self) -> str:
        """The ids of the field's description, hint and error, for `aria-describedby`."""
        ids = [f"{self.id}-desc"] if self.description else []
        if self.hint:
            ids.append(f"{self.id}-hint")
        if self.error:
            ids.append(f"{self.id}-error")
        return " ".join(ids)


_SECURITY_HEADERS: Final = {
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}


def _csp(nonce: str, logo_url: str | None) -> str:
    img = "'self' data:"
    if logo_url is not None and logo_url.startswith("https://"):
        parts = urlsplit(logo_url)
        img += f" https://{parts.netloc}"
    return (
        f"default-src 'none'; style-src 'nonce-{nonce}'; img-src {img}; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    )


def _response(config: _Config, template: str, status: int, context: dict[str, Any], *, form: bool) -> Any:
    from starlette.responses import HTMLResponse  # the SDK's own dependency

    nonce = secrets.token_urlsafe(18)
    html = config.env.get_template(template).render(brand=config.brand, nonce=nonce, **context)
    headers = {
        **_SECURITY_HEADERS,
        "Content-Security-Policy": _csp(nonce, config.brand.logo_url),
        "Referrer-Policy": "same-origin" if form else "no-referrer",
    }
    return HTMLResponse(html, status_code=status, headers=headers)


def _plain(config: _Config, status: int, heading: str, text: str) -> Any:
    return _response(config, "message.html", status, {"heading": heading, "text": text}, form=False)


def _gone(config: _Config) -> Any:
    return _plain(
        config,
        410,
        "This link can no longer be used",
        "The form was already submitted, or it expired. Go back to your app and start again if needed.",
    )


def _not_found(config: _Config) -> Any:
    return _plain(
        config, 404, "Page not found", "This link is not valid. Check that you opened the whole link."
    )


async def _handle(server: MCPServer, config: _Config, request: Any) -> Any:
    try:
        return await _handle_page(server, config, request)
    except Exception as exc:  # a plain page, never a traceback (and never the request's values)
        logger.error("page request failed with %s", type(exc).__name__)
        return _plain(config, 500, "Something went wrong", "The form could not be handled. Try again later.")


async def _handle_page(server: MCPServer, config: _Config, request: Any) -> Any:
    page_id = str(request.path_params.get("page_id", ""))
    ticket = await load_ticket(server, page_id)
    if ticket is None:
        return _not_found(config)
    if ticket.expires_at <= _clock.now():
        return _gone(config)
    model = _model(ticket.model)
    if model is None:  # another replica asked with a model this process never registered
        return _not_found(config)
    if ticket.principal is not None and config.identify is not None:
        browser = await config.identify(request)
        if browser is None or not hmac.compare_digest(browser.encode(), ticket.principal.encode()):
            logger.warning("page %s opened by another principal", page_id[:8])
            return _not_found(config)
    if await read_answer(server, ticket) is not None:
        return _gone(config)
    form = page_reduced(model).form
    secret = secret_fields(model)
    if request.method == "GET":
        nonce = secrets.token_urlsafe(24)
        response = _form_page(config, ticket, form, secret, values={}, errors={}, csrf=_csrf(ticket, nonce))
        response.set_cookie(
            _CSRF_COOKIE,
            nonce,
            path=f"{urlsplit(config.public_url).path}{config.path}/{page_id}",
            httponly=True,
            secure=config.secure,
            samesite="strict",
            max_age=max(1, math.ceil(ticket.expires_at - _clock.now())),
        )
        return response
    return await _submit(server, config, request, ticket, model, form, secret)


def _csrf(ticket: Ticket, nonce: str) -> str:
    mac = hmac.new(bytes.fromhex(ticket.csrf_key), f"{ticket.id}\n{nonce}".encode(), hashlib.sha256)
    return mac.hexdigest()


def _same_origin(config: _Config, request: Any) -> bool:
    origin = request.headers.get("origin")
    if origin is not None:
        return str(origin).lower() == config.origin
    referer = request.headers.get("referer")
    if referer is None:
        return False
    parts = urlsplit(str(referer))
    return f"{parts.scheme}://{parts.netloc}".lower() == config.origin


async def _submit(
    server: MCPServer,
    config: _Config,
    request: Any,
    ticket: Ticket,
    model: type[BaseModel],
    form: FormSpec,
    secret: frozenset[str],
) -> Any:
    if not _same_origin(config, request):
        logger.warning("page %s: a submit from another origin was refused", ticket.id[:8])
        return _plain(config, 403, "Form not accepted", "The form was sent from another site.")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            return _plain(config, 413, "Form too large", "The form holds more than this page accepts.")
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        return _plain(config, 400, "Form not accepted", "The form could not be read.")
    data: dict[str, list[str]] = {}
    for name, value in pairs:
        data.setdefault(name, []).append(value)
    cookie = request.cookies.get(_CSRF_COOKIE)
    token = (data.get("_csrf") or [""])[-1]
    if not cookie or not hmac.compare_digest(token.encode(), _csrf(ticket, cookie).encode()):
        logger.warning("page %s: a submit without this page's CSRF token was refused", ticket.id[:8])
        return _plain(
            config, 403, "Form not accepted", "This form has expired in your browser. Reload the page."
        )
    action = (data.get("_action") or ["accept"])[-1]
    if action in ("decline", "cancel"):
        return await _store_answer(server, config, ticket, PageAnswer(action))  # type: ignore[arg-type]
    if action != "accept":
        return _plain(config, 400, "Form not accepted", "The form could not be read.")
    content, errors = _read_fields(form, data)
    if not errors:
        try:
            validate_form(model, form, content)
            problems: list[tuple[str, str]] = []
        except InvalidResponse as invalid:
            problems = list(invalid.errors)
        for where, message in problems:
            errors.setdefault(where.split(".", 1)[0].split("[", 1)[0], message)
    if errors:
        logger.info("page %s: an answer with %d invalid field(s) was shown again", ticket.id[:8], len(errors))
        kept = {name: values for name, values in data.items() if name in form.by_name and name not in secret}
        # A secret is never sent back: only whether one was typed (for the "enter it again" hint).
        kept.update({name: ["*"] for name in secret if any(data.get(name, []))})
        return _form_page(config, ticket, form, secret, values=kept, errors=errors, csrf=token, status=422)
    return await _store_answer(server, config, ticket, PageAnswer("accept", content))


async def _store_answer(server: MCPServer, config: _Config, ticket: Ticket, answer: PageAnswer) -> Any:
    key = ANSWER_PREFIX + ticket.id
    sealed = seal(server, key, answer.to_bytes())
    if not await store_for(server).put(key, sealed, ticket.expires_at):
        return _gone(config)
    logger.info("page %s answered (%s)", ticket.id[:8], answer.action)
    if answer.action == "accept":
        return _plain(
            config, 200, "Thank you", "Your answer was sent. You can close this tab and go back to your app."
        )
    return _plain(config, 200, "Nothing was sent", "You can close this tab and go back to your app.")


def _read_fields(form: FormSpec, data: Mapping[str, list[str]]) -> tuple[dict[str, Any], dict[str, str]]:
    """The wire content of a submitted form, and a message per field whose text is no value of its kind."""
    content: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for spec in form.fields:
        values = data.get(spec.name, [])
        last = values[-1] if values else ""
        if spec.kind == "boolean":
            content[spec.name] = bool(values) and last not in ("", "false")
        elif spec.kind == "multi_choice":
            picked = [v for v in values if v]
            if picked or spec.required or spec.has_default:
                content[spec.name] = picked
        elif last == "":
            continue  # left out: the default applies, or "Field required"
        elif spec.kind in ("integer", "number"):
            number = _number(last, integer=spec.kind == "integer")
            if number is None:
                errors[spec.name] = "Enter a whole number" if spec.kind == "integer" else "Enter a number"
            else:
                content[spec.name] = number
        else:
            content[spec.name] = last
    return content, errors


def _number(text: str, *, integer: bool) -> int | float | None:
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    if integer:
        if not value.is_integer():
            return None
        return int(text) if re.fullmatch(r"-?\d+", text) else int(value)
    return value


# --- rendering -----------------------------------------------------------------------------------

_AUTOCOMPLETE: Final = (
    (("username", "user", "login"), "username"),
    (("email", "mail"), "email"),
    (("otp", "totp", "code", "mfa"), "one-time-code"),
    (("password", "passwd", "pwd", "passphrase"), "current-password"),
    (("name", "fullname"), "name"),
    (("phone", "tel", "mobile"), "tel"),
)


def _autocomplete(spec: FieldSpec, is_secret: bool) -> str | None:
    words = set(re.findall(r"[a-z0-9]+", spec.name.lower().replace("_", " ")))
    for names, token in _AUTOCOMPLETE:
        if words.intersection(names):
            return token
    return "off" if is_secret else None


def _field(
    spec: FieldSpec, index: int, is_secret: bool, values: Mapping[str, list[str]], error: str | None
) -> _Field:
    given = values.get(spec.name)
    attrs: dict[str, str] = {}
    hint_parts: list[str] = []
    value = ""
    checked = False
    options: list[dict[str, Any]] = []
    if spec.kind == "boolean":
        kind = "checkbox"
        checked = (
            bool(given and given[-1] not in ("", "false")) if given is not None else spec.default is True
        )
    elif spec.kind in ("choice", "multi_choice"):
        kind = "select" if spec.kind == "choice" else "checkboxes"
        if given is not None:
            chosen = set(given)
        elif isinstance(spec.default, list):
            chosen = set(spec.default)
        else:
            chosen = {str(spec.default)} if spec.has_default else set[str]()
        options = [
            {"value": o.value, "title": o.title, "selected": o.value in chosen, "id": f"f{index}-{n}"}
            for n, o in enumerate(spec.options)
        ]
    elif spec.kind in ("integer", "number"):
        kind = "number"
        attrs["inputmode"] = "numeric" if spec.kind == "integer" else "decimal"
        attrs["step"] = "1" if spec.kind == "integer" else "any"
        low = spec.minimum
        high = spec.maximum
        if low is not None:
            attrs["min"] = _shown(low)
        if high is not None:
            attrs["max"] = _shown(high)
        if spec.exclusive_minimum is not None:
            hint_parts.append(f"more than {_shown(spec.exclusive_minimum)}")
        if spec.exclusive_maximum is not None:
            hint_parts.append(f"less than {_shown(spec.exclusive_maximum)}")
    elif is_secret:
        kind = "password"
        if given is not None and given[-1]:  # re-shown after an error: never sent back, so typed again
            hint_parts.append("enter it again: what you typed is never sent back to your browser")
    else:
        kind = {"email": "email", "uri": "url", "date": "date"}.get(spec.format or "", "text")
        if spec.format == "date-time":
            hint_parts.append("a date and time with its offset, e.g. 2026-07-28T09:30:00Z")
    if spec.kind in ("string",):
        if spec.min_length is not None:
            attrs["minlength"] = str(spec.min_length)
        if spec.max_length is not None:
            attrs["maxlength"] = str(spec.max_length)
    if kind not in ("checkbox", "select", "checkboxes", "password"):
        if given is not None:
            value = given[-1]
        elif spec.has_default and spec.default is not None:
            value = _shown(spec.default) if isinstance(spec.default, float) else str(spec.default)
    if spec.kind == "multi_choice":
        if spec.min_items:
            hint_parts.append(f"choose at least {spec.min_items}")
        if spec.max_items is not None:
            hint_parts.append(f"choose at most {spec.max_items}")
    autocomplete = _autocomplete(spec, is_secret)
    if autocomplete is not None and kind not in ("checkbox", "checkboxes"):
        attrs["autocomplete"] = autocomplete
    return _Field(
        id=f"f{index}",
        name=spec.name,
        label=spec.label,
        kind=spec.kind,
        input=kind,
        required=spec.required and not spec.has_default,
        description=spec.description,
        hint=_sentence("; ".join(hint_parts)) or None,
        value=value,
        checked=checked,
        options=options,
        attrs=attrs,
        error=error,
    )


def _sentence(text: str) -> str:
    """`text` with its first letter upper-cased (and the rest as it was)."""
    return text[:1].upper() + text[1:]


def _shown(value: float | int | bool | str | list[str]) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _form_page(
    config: _Config,
    ticket: Ticket,
    form: FormSpec,
    secret: frozenset[str],
    *,
    values: Mapping[str, list[str]],
    errors: Mapping[str, str],
    csrf: str,
    status: int = 200,
) -> Any:
    fields = [
        _field(spec, i, spec.name in secret, values, errors.get(spec.name))
        for i, spec in enumerate(form.fields)
    ]
    first_error = next((f.id for f in fields if f.error), None)
    stray = [message for name, message in errors.items() if name not in form.by_name]
    context = {
        "message": ticket.message,
        "fields": fields,
        "errors": [(f.id, f.label, f.error) for f in fields if f.error],
        "form_errors": stray,
        "first_error": first_error,
        "csrf": csrf,
        "action": f"{urlsplit(config.public_url).path}{config.path}/{ticket.id}",
    }
    return _response(config, config.template, status, context, form=True)
