"""What a page is in the store: its sealed ticket and answer, the page forms it can show, and shared waits.

A page id is 256 random bits (URL-safe), bound to the call and to the authenticated principal
when there is one, expiring with the question's timeout. The ticket is kept sealed in the
server's `Store` under `page-ticket:<id>`, the answer under `page:<id>`, so any replica sharing
the store and the seal key serves the page. The seal binds each value to its key, so a value
cannot be moved to another page; it is the server's one sealer (`typed_elicit._calls.sealer`):
its request-state keys, which replicas share.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import threading
import weakref
from dataclasses import dataclass
from typing import Any, Final, cast

import anyio
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from typed_elicit._calls.plugs import PageAnswer
from typed_elicit._calls.sealer import Sealer
from typed_elicit._calls.state import model_id
from typed_elicit._core.versions import LATEST_PROTOCOL_VERSION
from typed_elicit._forms.page.shape import carried_tree
from typed_elicit._forms.reduce import Reduced, check_page, page_forms, page_reduced
from typed_elicit._forms.registry import tree_of
from typed_elicit.pages._places import from_json, inline, put_back, split_files
from typed_elicit.stores._config import store_for
from typed_elicit.stores._protocol import Store, get_many

logger = logging.getLogger("typed_elicit.pages")


TICKET_PREFIX: Final = "page-ticket:"


ANSWER_PREFIX: Final = "page:"


CLOSED: Final = b"closed"
"""What stands under a page's answer key once its call has ended without an answer (never sealed JSON)."""


ID_BYTES: Final = 32
"""Random bytes in a page id (256 bits; the id is their unpadded base64url, 43 characters)."""


MAX_PAGE_SECONDS: Final = 24 * 3600.0
"""The longest a page lives: a question without a timeout (`math.inf`) still gets a link that expires."""


_ID_PATTERN: Final = re.compile(r"^[A-Za-z0-9_-]{43}$")


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
    shape: dict[str, Any] | None = None
    """A page shaped at call time: its tree's own leaves as shaped (`PageTree.carried`); None if not."""
    locale: str | None = None
    """The language the call asked the page to speak (`elicit_page(locale=...)`); None if none."""

    def record(self, model: type[BaseModel]) -> Reduced | None:
        """The form this page shows and checks answers against: the model's, as the call shaped it.

        None if the model no longer has the leaves the call shaped (another version of it).
        """
        if self.shape is None:
            return page_reduced(model)
        try:
            tree = carried_tree(tree_of(model), self.shape)
        except (KeyError, ValueError, TypeError):
            return None
        return Reduced(LATEST_PROTOCOL_VERSION, tree.root.schema, tree.digest, tree=tree)

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


def seal(sealer: Sealer, key: str, payload: bytes) -> bytes:
    """`payload` sealed for the store under `key` (the key is bound into the sealed bytes)."""
    return sealer.seal(key, payload).encode()


_models: dict[str, weakref.ref[type[BaseModel]]] = {}


def register_model(model: type[BaseModel]) -> str:
    """Make `model` known to this process's page routes; returns its id.

    Raises:
        SchemaError: If the model cannot be asked on a page.
    """
    check_page(model)
    name = model_id(model)
    _models[name] = weakref.ref(model)
    return name


def model_named(name: str) -> type[BaseModel] | None:
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
    return secrets.token_urlsafe(ID_BYTES)


async def load_page(
    server: MCPServer, sealer: Sealer, page_id: str, *, submit: bool = False
) -> tuple[Ticket | None, bytes | None]:
    """The ticket of `page_id`, and what stands under its answer key, read in one store operation.

    The ticket is None if there is none (unknown, expired, or not sealed by us); the answer
    key's value None if it holds nothing. A `submit` whose ticket this process knows (it
    sealed or opened it) reads nothing: the answer's `put` is refused if the key holds a
    value, and only then is it read (`_store_answer`).

    Raises:
        StoreUnavailable: If the store failed.
    """
    if not _ID_PATTERN.match(page_id):
        return None, None
    if submit:
        known = _OPENED.get((sealer, page_id))
        if known is not None:
            return known, None
    key = TICKET_PREFIX + page_id
    sealed, answered = await get_many(store_for(server), key, ANSWER_PREFIX + page_id)
    if sealed is None:
        return None, None
    ticket = opened_ticket(sealer, key, page_id, sealed)
    return (None, None) if ticket is None else (ticket, answered)


_OPENED: dict[tuple[Sealer, str], Ticket] = {}
"""Tickets this process sealed or opened lately, by sealer and page id (bounded: `MAX_OPENED`)."""

MAX_OPENED: Final = 512
"""How many tickets a process keeps, so a page's GET and POST unseal it once and a submit reads none."""


def remember(sealer: Sealer, ticket: Ticket) -> None:
    """Keep `ticket`, sealed or opened by `sealer`: this process need not open it again."""
    if len(_OPENED) >= MAX_OPENED:
        del _OPENED[next(iter(_OPENED))]
    _OPENED[(sealer, ticket.id)] = ticket


def opened_ticket(sealer: Sealer, key: str, page_id: str, sealed: bytes) -> Ticket | None:
    """The ticket `sealer` sealed under `key` for `page_id`, or None (tampered, moved, foreign).

    Opened once: only a ticket that opened is kept, by its page id and the sealer that
    opened it, at most `MAX_OPENED` (the oldest goes first), so nothing a client sends
    grows the table. A ticket is written once and never changes, so the one kept is the
    one in the store.
    """
    ticket = _OPENED.get((sealer, page_id))
    if ticket is None:
        raw = sealer.unseal(key, sealed)
        if raw is None:
            return None
        try:
            ticket = Ticket.from_bytes(raw)
        except (ValueError, TypeError):  # pragma: no cover - sealed by us, so well-formed
            return None
        if ticket.id != page_id:  # pragma: no cover - the seal binds the key, and so the id
            return None
        remember(sealer, ticket)
    return ticket


def opened(sealer: Sealer, key: str, sealed: bytes | None) -> PageAnswer | None:
    """The answer sealed under `key`, or None (none, or not ours)."""
    raw = None if sealed is None else sealer.unseal(key, sealed)
    if raw is None:
        return None
    try:
        return answer_from_bytes(raw)
    except (ValueError, TypeError, KeyError):  # pragma: no cover - sealed by us, so well-formed
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


async def wait_shared(store: Store, key: str, timeout: float) -> bytes | None:
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


TAKEN_PREFIX: Final = "page-taken:"


KEPT_PREFIX: Final = "page-kept:"
"""Where a 2026-07-28 call holds a page answer it took, until the call ends (at most its deadline)."""


def answer_bytes(answer: PageAnswer) -> bytes:
    """A page's answer as compact JSON, its files inline by their place (sealed before it is stored)."""
    content, found = split_files(answer.content)
    data: dict[str, Any] = {"action": answer.action, "content": content}
    if found:
        data["files"] = inline(found)
    return _compact(data).encode()


_compact: Final = json.JSONEncoder(separators=(",", ":")).encode
"""`json.dumps(value, separators=(",", ":"))` without making an encoder each time."""


def answer_from_bytes(raw: bytes) -> PageAnswer:
    """An answer from `answer_bytes`, its files put back in their places.

    Raises:
        ValueError: If `raw` is not one.
    """
    loaded: object = json.loads(raw)
    if not isinstance(loaded, dict):
        raise ValueError("not a page answer")
    data = cast("dict[str, Any]", loaded)
    action = data.get("action")
    content = data.get("content")
    if action not in ("accept", "decline", "cancel") or not isinstance(content, dict):
        raise ValueError("not a page answer")
    content = put_back(cast("dict[str, Any]", content), from_json(data.get("files")))
    return PageAnswer(action=action, content=content)
