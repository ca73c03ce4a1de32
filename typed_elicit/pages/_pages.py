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
3. The question finds the answer with `store.wait` and validates it with the model again
   (`page_outcome`). On push eras the wait runs while the consent is pending, so the
   completion goes out as soon as the page is submitted. On 2026-07-28 each round waits up
   to `poll_seconds` (replays of a round join the wait in progress); the round that finds
   the answer claims it once and holds a sealed copy under `page-kept:<id>` for the call's
   later rounds, until the call ends (at most its deadline).

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
import binascii
import dataclasses
import difflib
import hashlib
import hmac
import ipaddress
import json
import logging
import math
import os
import re
import secrets
import string
import threading
import uuid
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar, cast, get_args
from urllib.parse import parse_qsl, urlsplit

import anyio
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
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails
from pydantic_core.core_schema import ErrorType

from typed_elicit._calls.policy import Settings, url_unsupported
from typed_elicit._calls.signals import InputRequired, RoundRefused
from typed_elicit._calls.state import ReplayState, model_id
from typed_elicit._core import clock as _clock
from typed_elicit._core.results import Accepted, Cancelled, Consented, Declined, ElicitResult, UrlResult
from typed_elicit._core.text import escaped, quoted, strip_bidi
from typed_elicit._core.versions import has_url_mode
from typed_elicit._forms.reduce import page_forms, page_reduced, secret_fields
from typed_elicit._forms.spec import FieldSpec, FormSpec, check_content
from typed_elicit._forms.validate import validate_form
from typed_elicit._forms.wire import check_date, check_datetime, check_email, check_uri
from typed_elicit.errors import ElicitationTimeout, InvalidResponse, TypedElicitError
from typed_elicit.stores._memory import Store, store_for

if TYPE_CHECKING:
    from typed_elicit._calls.call import Call
    from typed_elicit._calls.context import ElicitContext

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
_TEMPLATES: Final = Path(__file__).with_name("templates")


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
        page_id: From `new_page_id` (recorded with `ctx.once` on 2026-07-28: the call's first
            round opens the page, later rounds find it open).
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

    Waits for one page in this process are shared (`_wait_shared`): a replayed round that
    waits for a page another round already waits for joins that wait.

    Returns:
        The answer, or None if there is none yet (or none within `wait`).
    """
    return await _answer(server, ticket.id, wait)


async def _answer(server: MCPServer, page_id: str, wait: float | None) -> PageAnswer | None:
    key = ANSWER_PREFIX + page_id
    store = store_for(server)
    sealed = await (store.get(key) if wait is None else _wait_shared(store, key, wait))
    return _opened(server, key, sealed)


def _opened(server: MCPServer, key: str, sealed: bytes | None) -> PageAnswer | None:
    """The answer sealed under `key`, or None if there is none (or it is not ours)."""
    raw = None if sealed is None else unseal(server, key, sealed)
    if raw is None:
        return None
    try:
        return PageAnswer.from_bytes(raw)
    except (ValueError, TypeError):  # pragma: no cover - sealed by us, so well-formed
        return None


class _SharedWait:
    """One store wait for a page's answer, joined by every round of this process waiting for it."""

    __slots__ = ("done", "sealed")

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.sealed: bytes | None = None


_local = threading.local()


def _waits() -> dict[tuple[int, str], _SharedWait]:
    """This thread's waits in progress, per (store, page key); an entry lives only while its wait runs."""
    waits: dict[tuple[int, str], _SharedWait] | None = getattr(_local, "waits", None)
    if waits is None:
        waits = _local.waits = {}
    return waits


async def _wait_shared(store: Store, key: str, timeout: float) -> bytes | None:
    """`store.wait(key, timeout)`, sharing one wait among every caller waiting for `key` at once.

    A 2026-07-28 round that carries no answer (a page poll) can be replayed many times at
    once. The first caller waits in the store; each later one joins that wait and returns
    what it found, the answer or None when it ended without one (its round then ends with
    `requestState` only, as at the end of its own poll), making no store operation at all.
    The map is keyed by page keys the server minted (from sealed state) and an entry goes
    when its wait ends, so nothing a client sends makes it grow beyond the pages waited on.
    """
    waits = _waits()
    slot = (id(store), key)
    shared = waits.get(slot)
    if shared is not None:
        with anyio.move_on_after(timeout):
            await shared.done.wait()
        return shared.sealed
    shared = waits[slot] = _SharedWait()
    try:
        shared.sealed = await store.wait(key, timeout)
    finally:
        del waits[slot]
        shared.done.set()
    return shared.sealed


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

    opened = key in call.once  # a later 2026-07-28 round: the first one opened the page
    minted = await ctx.once(key, mint)
    page = _Page(minted["id"], minted["expires_at"])
    if not opened:
        await open_page(
            server,
            model,
            page_id=page.id,
            message=message,
            function=call.function,
            request=minted["request"],
            principal=principal,
            expires_at=page.expires_at,
        )

    def consent() -> Awaitable[UrlResult]:
        return ctx._ask_url(  # pyright: ignore[reportPrivateUsage]
            page_url(server, page.id),
            message,
            elicitation_id=minted["elicitation_id"],
            timeout=settings.timeout,
            on_unsupported=None,  # the decorator's, which advice names as such (ctx.elicit_page takes none)
            asker="ctx.elicit_page",
        )

    if not call.uses_input_required:
        elicitation_id = minted["elicitation_id"]
        return await _consent_and_submit(ctx, server, model, page, consent, elicitation_id, settings)
    agreed = await consent()
    if not isinstance(agreed, Consented):
        return agreed
    return await _page_round(call, model, page, settings, taken=f"{key}:taken")


@dataclass(frozen=True)
class _Page:
    """What asking needs of a page: its id and when it expires (recorded by `ctx.once`)."""

    id: str
    expires_at: float


async def _consent_and_submit(
    ctx: ElicitContext,
    server: MCPServer,
    model: type[M],
    page: _Page,
    consent: Callable[[], Awaitable[UrlResult]],
    elicitation_id: str,
    settings: Settings,
) -> ElicitResult[M]:
    """On push eras: the consent's reply and the page's submit, awaited together, in either order.

    Some clients (the MCP Inspector) hold their reply to a URL request until the user says
    the flow is done or `notifications/elicitation/complete` arrives; so the page is watched
    while the consent is pending, and the completion is sent as soon as it is submitted.
    A Decline or Cancel replied before the submit wins; a submit that comes first is the
    outcome, whatever the reply (even none within the timeout).

    Raises:
        ElicitationTimeout: If neither the reply nor the page came in time.
        StoreUnavailable: If the store failed while the page was watched.
    """
    submitted: list[PageAnswer] = []
    failures: list[Exception] = []
    refused: Declined | Cancelled | None = None

    async with anyio.create_task_group() as group:

        async def watch_the_page() -> None:
            try:
                remaining = page.expires_at - _clock.now()
                answer = None if remaining <= 0 else await _answer(server, page.id, remaining)
                if answer is not None:
                    submitted.append(answer)
                    await ctx.complete_url(elicitation_id)
            except Exception as exc:  # the store failed: the call fails with it
                failures.append(exc)
                group.cancel_scope.cancel()

        group.start_soon(watch_the_page)
        try:
            reply = await consent()
        except ElicitationTimeout as exc:
            if not submitted:  # no reply and no page: the consent's timeout
                failures.append(exc)
                group.cancel_scope.cancel()
        except Exception as exc:
            failures.append(exc)
            group.cancel_scope.cancel()
        else:
            if not submitted and not isinstance(reply, Consented):
                refused = reply  # a Decline or Cancel before any submit
                group.cancel_scope.cancel()
    if failures:
        raise failures[0]
    if refused is not None:
        return refused
    if not submitted:
        raise ElicitationTimeout.page_not_submitted(model.__name__, settings.timeout)
    return page_outcome(model, submitted[0])


async def _page_round(
    call: Call, model: type[M], page: _Page, settings: Settings, *, taken: str
) -> ElicitResult[M]:
    """On 2026-07-28, after consent: take the page's answer once, and hold it while the call goes on.

    The round that finds the answer claims it (a replayed round is refused) and keeps a copy,
    sealed, in the store under `page-kept:<id>`, expiring at the call's deadline and deleted
    when the call ends; later rounds of the call read that copy. The answer never goes into
    the `requestState` the client carries.

    Raises:
        ElicitationTimeout: If the page was not submitted in time, or the call is past its deadline.
        InputRequired: To end a round while the page is not submitted yet (`requestState` only).
        RoundRefused: If the answer was taken by another round, or its call has ended already.
    """
    server = call.sdk.mcp_server
    store = store_for(server)
    subject = model.__name__
    kept = KEPT_PREFIX + page.id

    async def release() -> None:
        await store.delete(kept)

    if call.once.get(taken) is True:  # an earlier round took it; this one re-runs past it
        answer = _opened(server, kept, await store.get(kept))
        if answer is None:
            raise _no_longer_held(call, subject)
        call.on_end(release)
        return page_outcome(model, answer)
    remaining = page.expires_at - _clock.now()
    answer = None if remaining <= 0 else await _answer(server, page.id, min(remaining, _poll(server)))
    if answer is None:
        if _clock.now() >= page.expires_at:
            raise ElicitationTimeout.page_not_submitted(subject, settings.timeout, poll_seconds=_poll(server))
        state = ReplayState(started=call.started, answers=call.answers(), once=dict(call.once))
        raise InputRequired(InputRequiredResult(request_state=state.encode()))
    if not await store.claim(TAKEN_PREFIX + page.id, page.expires_at):
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
    deadline = call.started + call.policy.call_timeout
    await store.put(kept, seal(server, kept, answer.to_bytes()), deadline)
    call.once[taken] = True
    call.on_end(release)
    return page_outcome(model, answer)


def _no_longer_held(call: Call, subject: str) -> BaseException:
    """Why a later round finds no held page answer: its call is past its deadline, or has ended."""
    age = _clock.now() - call.started
    if age > call.policy.call_timeout:
        return ElicitationTimeout.call_expired(call.function, subject, call.policy.call_timeout, age)
    return RoundRefused(
        MCPError(
            code=INVALID_PARAMS,
            message=(
                f"the page answer of {call.function} is no longer held: the call it belongs to has "
                "ended (a page answer is deleted when its call returns or fails), so this round was "
                "answered already. Call the tool again without requestState to start afresh."
            ),
            data={"reason": "round_already_answered"},
        )
    )


TAKEN_PREFIX: Final = "page-taken:"
KEPT_PREFIX: Final = "page-kept:"
"""Where a 2026-07-28 call holds a page answer it took, until the call ends (at most its deadline)."""


def _poll(server: MCPServer) -> float:
    config = _served.get(server)
    return PAGE_POLL_SECONDS if config is None else config.poll_seconds


# --- serving -----------------------------------------------------------------------------------


class PageSetupError(TypedElicitError, ValueError):
    """A page setting (of `serve_pages` or `PageBrand`) cannot be used as given.

    Raised when the setting is made, never while a page is served. The message says what is
    wrong and the fix; a refused logo URL or words override is not quoted back.

    Attributes:
        setting: The setting refused: `logo_url`, `css`, `words`, `public_url`, `path`,
            `poll_seconds`, or `server` (pages served twice on one server).
    """

    def __init__(self, setting: str, message: str) -> None:
        """Build the error.

        Args:
            setting: The setting refused.
            message: What is wrong with it, and the fix.
        """
        self.setting = setting
        super().__init__(message)

    @classmethod
    def logo_url(cls, why: str) -> PageSetupError:
        """A `PageBrand(logo_url=...)` that is neither a plain https URL nor a base64 image data URL."""
        return cls(
            "logo_url",
            f"PageBrand logo_url cannot be used: {why}. Its host goes into the page's "
            "Content-Security-Policy, so it must be an https URL with a plain host name or IP address "
            'and an optional port, e.g. "https://cdn.example.com/logo.svg" (percent-encode any other '
            'character of its path), or a base64 image data URL, e.g. "data:image/png;base64,iVBORw0KGgo="',
        )

    @classmethod
    def words(cls, why: str) -> PageSetupError:
        """A `serve_pages(words=...)` override that is not a table of the page's words."""
        return cls(
            "words",
            f"serve_pages words cannot be used: {why}. Give a mapping from keys of the default "
            "table (docs/pages.md, 'What a page says about an invalid answer') to texts",
        )


_LOGO_URL_CHARS: Final = re.compile(r"[A-Za-z0-9._~%:/?#\[\]@!$&()*+=-]+")
"""What an https logo URL may hold: RFC 3986 characters, less those that end or quote a CSP source."""
_LOGO_NETLOC: Final = re.compile(r"(?P<host>\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(?P<port>[0-9]{1,5}))?")
_HOST_LABEL: Final = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")
_DATA_IMAGE: Final = re.compile(r"data:image/[a-z0-9][a-z0-9.+-]{0,63};base64,(?P<data>[A-Za-z0-9+/]+={0,2})")


def _valid_host(host: str) -> bool:
    """Whether `host` (lower-cased) is a DNS name, an IPv4 address or a bracketed IPv6 address."""
    try:
        if host.startswith("["):
            ipaddress.IPv6Address(host[1:-1])
        elif host.replace(".", "").isdigit():
            ipaddress.IPv4Address(host)
        else:
            return len(host) <= 253 and all(_HOST_LABEL.fullmatch(label) for label in host.split("."))
    except ValueError:
        return False
    return True


def _logo_source(url: str) -> str | None:
    """The CSP source that lets a page show the logo at `url`: `https://host[:port]`; None for a data URL.

    The source is rebuilt from the checked host and port, never copied from `url`.

    Raises:
        PageSetupError: If `url` is neither an https URL with a valid host (and port), made only
            of characters that cannot end or quote a CSP source, nor a base64 image data URL.
    """
    if url.startswith("data:"):
        data = _DATA_IMAGE.fullmatch(url)
        if data is None:
            raise PageSetupError.logo_url(
                'a data URL must be "data:image/<type>;base64,<data>" and nothing more'
            )
        try:
            base64.b64decode(data["data"], validate=True)
        except binascii.Error:
            raise PageSetupError.logo_url("its data is not valid base64") from None
        return None
    if _LOGO_URL_CHARS.fullmatch(url) is None:
        raise PageSetupError.logo_url(
            "it holds whitespace, a quote, ';', ',', a backslash, a control or a non-ASCII character "
            "(write an international host name in its xn-- form)"
        )
    try:
        parts = urlsplit(url)
    except ValueError:  # an invalid bracketed IPv6 host
        raise PageSetupError.logo_url("its host is no valid host name or IP address") from None
    if parts.scheme != "https":
        raise PageSetupError.logo_url("it is not an https URL")
    netloc = _LOGO_NETLOC.fullmatch(parts.netloc.lower())
    if netloc is None:
        raise PageSetupError.logo_url(
            "its host is missing, carries credentials (user@) or a wildcard, or its port is empty"
        )
    host, port = netloc["host"], netloc["port"]
    if not _valid_host(host):
        raise PageSetupError.logo_url("its host is no valid host name or IP address")
    if port is not None and not 0 < int(port) < 65536:
        raise PageSetupError.logo_url("its port is not a number from 1 to 65535")
    return f"https://{host}" + ("" if port is None or int(port) == 443 else f":{int(port)}")


@dataclass(frozen=True)
class PageBrand:
    """How the default page looks: a title, a logo, CSS variables.

    Attributes:
        title: Shown in the page header and the browser tab.
        logo_url: An `https:` image URL (or a base64 `data:image/...` URL) shown next to the title.
        css: CSS custom properties of the default template, e.g. `{"--accent": "#0b5fff"}`
            (`--accent`, `--text`, `--muted`, `--bg`, `--card`, `--error`, `--radius`, `--font`).
        logo_source: Set from `logo_url`: what the page's CSP allows images from besides its own
            origin (`https://host[:port]`, rebuilt from the checked URL), or None.
    """

    title: str = "Secure form"
    logo_url: str | None = None
    css: Mapping[str, str] = field(default_factory=dict[str, str])
    logo_source: str | None = field(init=False, default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Check the CSS variables and the logo URL (they go into a page under a strict CSP).

        Raises:
            PageSetupError: If a CSS variable is not `--name` with a plain value, or the logo
                URL is neither an https URL with a plain host (and port) nor a base64 image data URL.
        """
        for name, value in self.css.items():
            if not _CSS_NAME.match(name) or not _CSS_VALUE.match(value):
                raise PageSetupError(
                    "css",
                    f"PageBrand css {name!r} is not a CSS variable with a plain value; write "
                    '`{"--accent": "#0b5fff"}` (letters, digits, #, %, parentheses, commas, dots)',
                )
        if self.logo_url is not None:
            object.__setattr__(self, "logo_source", _logo_source(self.logo_url))


Identify = Callable[[Any], Awaitable[str | None]]
"""`async (starlette Request) -> principal | None`: who the browser's user is (see `serve_pages`)."""


PAGE_WORDS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "required": "Fill this in",
        "min_length": "Enter at least {limit} characters",
        "max_length": "Enter at most {limit} characters",
        "pattern": "Enter it in the expected format",
        "integer": "Enter a whole number",
        "number": "Enter a number",
        "ge": "Enter {limit} or more",
        "gt": "Enter a number more than {limit}",
        "le": "Enter {limit} or less",
        "lt": "Enter a number less than {limit}",
        "multiple_of": "Enter a multiple of {limit}",
        "email": "Enter an email address, like name@example.com",
        "uri": "Enter a full web address, like https://example.com",
        "date": "Enter a date as YYYY-MM-DD, like 2026-07-28",
        "date_time": "Enter a date and time with its offset, like 2026-07-28T09:30:00Z",
        "date_ge": "Enter {limit} or a later date",
        "date_gt": "Enter a date after {limit}",
        "date_le": "Enter {limit} or an earlier date",
        "date_lt": "Enter a date before {limit}",
        "choice": "Choose one of the options",
        "choices": "Choose only from the options shown",
        "min_items": "Choose at least {limit}",
        "max_items": "Choose at most {limit}",
        "boolean": "Tick the box or leave it empty",
        "invalid": "Check this value",
        "secret_again": "Enter it again: what you typed is never sent back to your browser",
    }
)
"""Every text a page says about a field's constraints, by kind: its problems and its hints.

`{limit}` is the constraint's number (or date) as a person writes it; no text ever holds the
user's value. A model's own validator message (`ValueError("...")` in a validator) is shown as
the model wrote it instead, cut to `MAX_OWN_MESSAGE` characters. `serve_pages(words=...)`
overrides any of them (docs/pages.md lists the table).
"""
MAX_OWN_MESSAGE: Final = 200
"""The longest a model validator's own message is shown on a page, in characters."""
_LIMITED: Final = frozenset(key for key, text in PAGE_WORDS.items() if "{limit}" in text)


def _page_words(override: Mapping[str, str] | None) -> Mapping[str, str]:
    """`PAGE_WORDS` with `override` applied, each override checked.

    Raises:
        PageSetupError: If a key is not one of `PAGE_WORDS`, or a text is empty, no text, or
            holds a placeholder other than `{limit}` (where the default has one).
    """
    if not override:
        return PAGE_WORDS
    words = dict(PAGE_WORDS)
    for key, text in override.items():
        if key not in PAGE_WORDS:
            near = difflib.get_close_matches(str(key), list(PAGE_WORDS), n=1)
            advice = f"did you mean {near[0]!r}? " if near else ""
            raise PageSetupError.words(
                f"it has no key {quoted(str(key))}: {advice}the keys are {', '.join(PAGE_WORDS)} "
                "(see the default table in docs/pages.md)"
            )
        if not isinstance(text, str):  # pyright: ignore[reportUnnecessaryIsInstance] - callers may pass anything
            raise PageSetupError.words(f"{key!r} must be a text, got {type(text).__name__}")
        if not text.strip():
            raise PageSetupError.words(f"{key!r} is empty: give the words a person should read")
        _check_words(key, text)
        words[key] = text
    return MappingProxyType(words)


def _check_words(key: str, text: str) -> None:
    """Refuse a text whose placeholders `str.format` could not fill with `limit` alone.

    Raises:
        PageSetupError: Naming the key and the placeholder it may hold.
    """
    takes = "{limit} (the limit, as a person writes it)" if key in _LIMITED else "no placeholder"
    escape = "write a brace as {{ or }}"
    try:
        names = [
            (name, spec, conv) for _, name, spec, conv in string.Formatter().parse(text) if name is not None
        ]
    except ValueError:
        raise PageSetupError.words(f"{key!r} is no valid text: it takes {takes}; {escape}") from None
    for name, spec, conv in names:
        if key not in _LIMITED or name != "limit" or spec or conv:
            raise PageSetupError.words(f"{key!r} takes {takes}; {escape}")


def _said(words: Mapping[str, str], key: str, limit: object = None) -> str:
    """The words for `key`, with `limit` in them as a person writes it."""
    return words[key].format(limit="" if limit is None else _shown(limit))


@dataclass(frozen=True)
class _Config:
    public_url: str
    """The normalised origin and the path prefix, e.g. `https://example.com/app` (what links start with)."""
    path: str
    prefix: str
    """The path of `public_url` (`""` for none): the browser's paths start with it."""
    origin: str
    """`scheme://host[:port]`, lower-cased, without a default port (as `_origin` writes one)."""
    secure: bool
    brand: PageBrand
    identify: Identify | None
    env: Any  # jinja2.Environment
    template: str
    poll_seconds: float
    words: Mapping[str, str]


_served: weakref.WeakKeyDictionary[MCPServer, _Config] = weakref.WeakKeyDictionary()

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
_PREFIX_SEGMENT: Final = re.compile(r"[A-Za-z0-9._~!$&()*+=:@-]+")


def _origin(url: str) -> str | None:
    """The origin of an http(s) URL as `scheme://host[:port]`, or None if it has none.

    Lower-cased, the default port (80 for http, 443 for https) left out, so the forms a browser
    and a configuration may write compare equal. A URL with credentials, an invalid port or
    another scheme (`null`, `file:`) has no origin here.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if parts.scheme not in _DEFAULT_PORTS or not host or "@" in parts.netloc:
        return None
    shown = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{shown}" + ("" if port in (None, _DEFAULT_PORTS[parts.scheme]) else f":{port}")


def _prefix(public_url: str) -> str:
    """The path of `public_url` without its trailing slash: a prefix a proxy publishes the app under.

    Raises:
        PageSetupError: If the path could not be matched as a route (braces, spaces,
            percent-escapes, empty, `.` or `..` segments).
    """
    prefix = urlsplit(public_url).path.rstrip("/")
    segments = prefix.split("/")[1:]
    if all(_PREFIX_SEGMENT.fullmatch(s) and s not in (".", "..") for s in segments):
        return prefix
    raise PageSetupError(
        "public_url",
        f"serve_pages public_url {public_url!r} has a path that cannot be a route: each segment may "
        "hold letters, digits and -._~!$&()*+=:@ only (no braces, spaces or percent-escapes, no '.' "
        "or '..'); give the prefix your proxy publishes the app under, e.g. 'https://example.com/app', "
        "or no path at all",
    )


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
    words: Mapping[str, str] | None = None,
) -> None:
    """Serve the pages of `ctx.elicit_page` questions on the server's own HTTP app.

    Mounts `GET` and `POST <path>/{page_id}` with the SDK's `custom_route`, so the
    routes exist on the Starlette app of `server.streamable_http_app()` (and
    `server.run("streamable-http")`). Call it once, before serving.

    Links and paths. A page's link is `<public_url><path>/<page_id>`: the browser's address,
    so a path in `public_url` (`https://example.com/app`, a prefix a reverse proxy publishes
    the app under) is kept in links, in the form's `action` and in the CSRF cookie's `Path`.
    The app answers the page both at `<path>/<page_id>` (what it receives from a proxy that
    strips the prefix, or with ASGI `root_path` set to it) and at `<prefix><path>/<page_id>`
    (what it receives from a proxy that forwards the path unchanged, or directly, e.g. when
    `public_url` is the MCP endpoint's URL `http://127.0.0.1:8000/mcp`).

    Security: every page id is 256 random bits, bound to its call and principal, single-use
    (a second submit, an expired or an unknown link get a plain 410/404 page); a submit needs
    the CSRF token of the page the same browser loaded (a double-submit cookie, HMAC-bound
    to the page id) and an `Origin` (or `Referer`) of `public_url`'s origin (compared
    lower-cased, a default port, 443 or 80, left out on both sides). Responses carry
    `Cache-Control: no-store`, a strict `Content-Security-Policy` (no script at all; a style
    nonce; `form-action 'self'`; `frame-ancestors 'none'`), `X-Content-Type-Options: nosniff`,
    and a `Referrer-Policy` (`same-origin` on the form, whose own POST must carry its `Origin`;
    `no-referrer` on every other page).

    Args:
        server: The MCP server.
        public_url: Where the user's browser reaches the server's app, e.g.
            `https://mcp.example.com` (behind a proxy: the proxy's, with the path prefix the
            proxy publishes the app under, if any).
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
        words: Texts that replace some of `PAGE_WORDS`, what a page says about a field's
            constraints (`{"min_length": "Mindestens {limit} Zeichen"}`); the rest stay.

    Raises:
        PageSetupError: If `public_url` is not an absolute http(s) URL without query or
            credentials whose path can be a route, `path` does not start with `/`, `words`
            has an unknown key or a bad text, or pages are served already (a `ValueError`).
        ImportError: If Jinja2 is missing (install `typed-elicit[pages]`).
    """
    try:
        import jinja2  # an optional extra
    except ImportError as exc:  # pragma: no cover - jinja2 is in the dev extra
        raise ImportError("typed_elicit.pages needs Jinja2: pip install 'typed-elicit[pages]'") from exc
    origin = _origin(public_url)
    if origin is None or urlsplit(public_url).query or urlsplit(public_url).fragment:
        if "@" in public_url.partition("://")[2].partition("/")[0]:
            raise PageSetupError(
                "public_url", "serve_pages public_url must not carry credentials (user:password@)"
            )
        raise PageSetupError(
            "public_url",
            f"serve_pages public_url must be an absolute https (or http) URL, got {public_url!r}: "
            'write it as the browser reaches the server, e.g. "https://mcp.example.com"',
        )
    prefix = _prefix(public_url)
    if not path.startswith("/") or path.endswith("/") or "{" in path:
        raise PageSetupError(
            "path", f"serve_pages path must start with '/' and not end with one, got {path!r}"
        )
    if server in _served:
        raise PageSetupError("server", "serve_pages was already called on this server; call it once")
    if not 0 < poll_seconds < math.inf:
        raise PageSetupError(
            "poll_seconds",
            f"serve_pages poll_seconds must be a positive number of seconds, got {poll_seconds!r}",
        )
    page_words = _page_words(words)
    loaders: list[jinja2.BaseLoader] = []
    if templates_dir is not None:
        loaders.append(jinja2.FileSystemLoader(str(templates_dir)))
    loaders.append(jinja2.FileSystemLoader(str(_TEMPLATES)))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    brand = brand or PageBrand()
    config = _Config(
        public_url=origin + prefix,
        path=path,
        prefix=prefix,
        origin=origin,
        secure=origin.startswith("https:"),
        brand=dataclasses.replace(brand, title=strip_bidi(brand.title)),
        identify=identify,
        env=env,
        template=template or "page.html",
        poll_seconds=poll_seconds,
        words=page_words,
    )
    _served[server] = config

    async def endpoint(request: Any) -> Any:
        return await _handle(server, config, request)

    # What the app receives: without the prefix (a stripping proxy, or none), and with it.
    for name, route in (("typed_elicit_page", path), ("typed_elicit_page_prefixed", prefix + path)):
        if name == "typed_elicit_page" or prefix:
            server.custom_route(
                f"{route}/{{page_id}}", methods=["GET", "POST"], name=name, include_in_schema=False
            )(endpoint)


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


def _csp(nonce: str, logo_source: str | None) -> str:
    """The page's Content-Security-Policy; `logo_source` is `PageBrand.logo_source` (checked, rebuilt)."""
    img = "'self' data:" if logo_source is None else f"'self' data: {logo_source}"
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
        "Content-Security-Policy": _csp(nonce, config.brand.logo_source),
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
            path=f"{config.prefix}{config.path}/{page_id}",
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


def _same_origin(config: _Config, request: Any) -> Literal["same", "other", "unsaid"]:
    """Whether a POST comes from the page's own origin, by its `Origin` (else its `Referer`).

    Returns:
        `same`, `other` (another origin, `null`, or no origin at all), or `unsaid` (the
        browser sent neither header, e.g. under strict privacy settings).
    """
    origin = request.headers.get("origin")
    if origin is None:
        origin = request.headers.get("referer")
        if origin is None:
            return "unsaid"
    return "same" if _origin(str(origin)) == config.origin else "other"


async def _submit(
    server: MCPServer,
    config: _Config,
    request: Any,
    ticket: Ticket,
    model: type[BaseModel],
    form: FormSpec,
    secret: frozenset[str],
) -> Any:
    verdict = _same_origin(config, request)
    if verdict == "unsaid":
        logger.warning("page %s: a submit without Origin or Referer was refused", ticket.id[:8])
        return _plain(
            config,
            403,
            "Form not accepted",
            "Your browser sent this form without saying which site it came from (it sent neither an "
            "Origin nor a Referer header), so it cannot be accepted. Browser privacy settings or an "
            "extension can hold these headers back: allow them for this site, or open the link in "
            "another browser, then reload the page and submit again.",
        )
    if verdict == "other":
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
    content, errors = _read_fields(form, data, config.words)
    if not errors:
        try:
            validate_form(model, form, content)
        except InvalidResponse:
            errors = _model_problems(model, form, content, config.words)
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


_CHECKED: Final = frozenset({"true", "on", "yes", "1"})
_UNCHECKED: Final = frozenset({"", "false", "off", "no", "0"})
_FORMATS: Final[Mapping[str, tuple[Callable[[str], str], str]]] = {
    "email": (check_email, "email"),
    "uri": (check_uri, "uri"),
    "date": (check_date, "date"),
    "date-time": (check_datetime, "date_time"),
}


def _read_fields(
    form: FormSpec, data: Mapping[str, list[str]], words: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The wire content of a submitted form, and what to tell of each field that holds no value of its kind.

    A number must read as one, a check box as ticked or not, a formatted text (email, web
    address, date, date and time) in its format; the rest is left to the model.
    """
    content: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for spec in form.fields:
        values = data.get(spec.name, [])
        last = values[-1] if values else ""
        if spec.kind == "boolean":
            ticked = last.lower()
            if ticked in _CHECKED or ticked in _UNCHECKED:
                content[spec.name] = ticked in _CHECKED
            else:
                errors[spec.name] = _said(words, "boolean")
        elif spec.kind == "multi_choice":
            picked = [v for v in values if v]
            if picked or spec.required or spec.has_default:
                content[spec.name] = picked
        elif last == "":
            continue  # left out: the default applies, or "required"
        elif spec.kind in ("integer", "number"):
            number = _number(last, integer=spec.kind == "integer")
            if number is None:
                errors[spec.name] = _said(words, spec.kind)
            else:
                content[spec.name] = number
        elif spec.format is not None:
            check, key = _FORMATS[spec.format]
            try:
                content[spec.name] = check(last)
            except ValueError:
                errors[spec.name] = _said(words, key)
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


# --- what a page says about a refused answer -----------------------------------------------------

_PYDANTIC_WORDS: Final[Mapping[str, str]] = {
    "missing": "required",
    "string_too_short": "min_length",
    "string_too_long": "max_length",
    "too_short": "min_length",
    "too_long": "max_length",
    "string_pattern_mismatch": "pattern",
    "greater_than_equal": "ge",
    "greater_than": "gt",
    "less_than_equal": "le",
    "less_than": "lt",
    "multiple_of": "multiple_of",
    "int_parsing": "integer",
    "int_from_float": "integer",
    "int_type": "integer",
    "float_parsing": "number",
    "float_type": "number",
    "finite_number": "number",
    "literal_error": "choice",
    "enum": "choice",
    "bool_parsing": "boolean",
    "bool_type": "boolean",
    "date_type": "date",
    "date_parsing": "date",
    "date_from_datetime_parsing": "date",
    "date_from_datetime_inexact": "date",
    "datetime_type": "date_time",
    "datetime_parsing": "date_time",
    "datetime_from_date_parsing": "date_time",
    "datetime_object_invalid": "date_time",
    "timezone_naive": "date_time",
    "timezone_aware": "date_time",
}
"""Pydantic's error types, by the `PAGE_WORDS` key that says the same in plain words."""
_PYDANTIC_TYPES: Final = frozenset(get_args(ErrorType))
"""Every error type pydantic itself raises: its messages are never shown (a model's own are)."""
_LIMIT_CONTEXT: Final = ("min_length", "max_length", "ge", "gt", "le", "lt", "multiple_of")
_OWN_PREFIXES: Final = {"value_error": "Value error, ", "assertion_error": "Assertion failed, "}


def _model_problems(
    model: type[BaseModel], form: FormSpec, content: Mapping[str, Any], words: Mapping[str, str]
) -> dict[str, str]:
    """What to tell the user of each field `model` refuses in `content`, by wire name (`""`: the whole form).

    `content` is what `_read_fields` made of the submit, which `validate_form` refused; the
    model is asked again here for its errors' types and limits, never their wording. Never
    empty, so a refused answer is never taken.
    """
    cleaned, problems = check_content(form, content)
    try:
        if not problems:
            model.model_validate(cleaned)
    except ValidationError as exc:
        told: dict[str, str] = {}
        for error in exc.errors(include_url=False, include_input=False):
            name = str(error["loc"][0]) if error["loc"] else ""
            told.setdefault(name, _problem_words(error, form.by_name.get(name), words))
        return told
    # `_read_fields` makes only wire values and the model refused them (told above): a safe net only.
    return {name: _said(words, "invalid") for name, _ in problems} or {"": _said(words, "invalid")}


def _problem_words(error: ErrorDetails, spec: FieldSpec | None, words: Mapping[str, str]) -> str:
    """One pydantic error in plain words: a `PAGE_WORDS` text, or the model's own message, bounded."""
    kind = error["type"]
    if kind in _OWN_PREFIXES:
        text = error["msg"].removeprefix(_OWN_PREFIXES[kind])
        return _own(text.splitlines()[0] if kind == "assertion_error" and text else text, words)
    key = _PYDANTIC_WORDS.get(kind)
    if key is None:
        if kind.startswith("url_"):
            key = "uri"
        elif kind in _PYDANTIC_TYPES:
            key = "invalid"
        else:  # a PydanticCustomError the model raised: its own words
            return _own(error["msg"], words)
    if spec is not None and spec.kind == "multi_choice":
        key = {"min_length": "min_items", "max_length": "max_items", "choice": "choices"}.get(key, key)
    elif spec is not None and spec.kind == "choice" and key == "required":
        key = "choice"
    elif spec is not None and spec.format in ("date", "date-time") and key in ("ge", "gt", "le", "lt"):
        key = f"date_{key}"
    context = error.get("ctx") or {}
    return _said(words, key, next((context[k] for k in _LIMIT_CONTEXT if k in context), None))


def _own(text: str, words: Mapping[str, str]) -> str:
    """A model's own message as a page shows it: one line, no bidi controls, `MAX_OWN_MESSAGE` at most."""
    return escaped(" ".join(strip_bidi(text).split()), MAX_OWN_MESSAGE) or _said(words, "invalid")


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
    spec: FieldSpec,
    index: int,
    is_secret: bool,
    values: Mapping[str, list[str]],
    error: str | None,
    words: Mapping[str, str],
) -> _Field:
    """What the template shows of one field (the server's texts without bidi controls)."""
    given = values.get(spec.name)
    attrs: dict[str, str] = {}
    hint_parts: list[str] = []
    value = ""
    checked = False
    options: list[dict[str, Any]] = []
    if spec.kind == "boolean":
        kind = "checkbox"
        checked = bool(given and given[-1].lower() in _CHECKED) if given is not None else spec.default is True
    elif spec.kind in ("choice", "multi_choice"):
        kind = "select" if spec.kind == "choice" else "checkboxes"
        if given is not None:
            chosen = set(given)
        elif isinstance(spec.default, list):
            chosen = set(spec.default)
        else:
            chosen = {str(spec.default)} if spec.has_default else set[str]()
        options = [
            {
                "value": o.value,
                "title": strip_bidi(o.title),
                "selected": o.value in chosen,
                "id": f"f{index}-{n}",
            }
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
            hint_parts.append(_said(words, "gt", spec.exclusive_minimum))
        if spec.exclusive_maximum is not None:
            hint_parts.append(_said(words, "lt", spec.exclusive_maximum))
    elif is_secret:
        kind = "password"
        if given is not None and given[-1]:  # re-shown after an error: never sent back, so typed again
            hint_parts.append(_said(words, "secret_again"))
    else:
        kind = {"email": "email", "uri": "url", "date": "date"}.get(spec.format or "", "text")
        if spec.format == "date-time":
            hint_parts.append(_said(words, "date_time"))
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
            hint_parts.append(_said(words, "min_items", spec.min_items))
        if spec.max_items is not None:
            hint_parts.append(_said(words, "max_items", spec.max_items))
    autocomplete = _autocomplete(spec, is_secret)
    if autocomplete is not None and kind not in ("checkbox", "checkboxes"):
        attrs["autocomplete"] = autocomplete
    return _Field(
        id=f"f{index}",
        name=spec.name,
        label=strip_bidi(spec.label),
        kind=spec.kind,
        input=kind,
        required=spec.required and not spec.has_default,
        description=None if spec.description is None else strip_bidi(spec.description),
        hint=_sentences(hint_parts),
        value=value,
        checked=checked,
        options=options,
        attrs=attrs,
        error=error,
    )


def _sentences(parts: list[str]) -> str | None:
    """`parts` as sentences (`A. B.`), or None for none; the texts' own words, without bidi controls."""
    if not parts:
        return None
    return " ".join(p if p.endswith((".", "!", "?")) else f"{p}." for p in (strip_bidi(p) for p in parts))


def _shown(value: object) -> str:
    """A number (or date) as a person writes it: `5` for 5.0."""
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
        _field(spec, i, spec.name in secret, values, errors.get(spec.name), config.words)
        for i, spec in enumerate(form.fields)
    ]
    first_error = next((f.id for f in fields if f.error), None)
    stray = [message for name, message in errors.items() if name not in form.by_name]
    context = {
        "message": strip_bidi(ticket.message),
        "fields": fields,
        "errors": [(f.id, f.label, f.error) for f in fields if f.error],
        "form_errors": stray,
        "first_error": first_error,
        "csrf": csrf,
        "action": f"{config.prefix}{config.path}/{ticket.id}",
    }
    return _response(config, config.template, status, context, form=True)
