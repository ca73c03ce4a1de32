"""The pages of one server as a call reaches them: the `PageHost` that `serve_pages` plugs in.

A call mints a page once (its record travels with the call), opens it when it first asks,
and then reads its answer, files and all, in one value: at once, or waiting (waits for one
page are shared in a process). The round that takes the answer claims it (`page-taken:<id>`,
single use; a run that has just claimed the consent's own round needs no second claim). If
that round ends while the call goes on, the answer is held, sealed, under `page-kept:<id>`
for the call's later rounds until the call ends, at most until the call's deadline.
"""

from __future__ import annotations

import secrets
import uuid

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from typed_elicit._calls.plugs import PageAnswer
from typed_elicit._calls.state import PageRecord
from typed_elicit._core import clock as _clock
from typed_elicit._forms.record import Reduced
from typed_elicit.pages._config import PageConfig
from typed_elicit.pages._tickets import (
    ANSWER_PREFIX,
    CLOSED,
    KEPT_PREFIX,
    MAX_PAGE_SECONDS,
    TAKEN_PREFIX,
    TICKET_PREFIX,
    Ticket,
    answer_bytes,
    new_page_id,
    opened,
    register_model,
    remember,
    seal,
    wait_shared,
)
from typed_elicit.stores._config import store_for


class Pages:
    """The pages of one server (`typed_elicit._calls.plugs.PageHost`)."""

    __slots__ = ("config", "server")

    def __init__(self, server: MCPServer, config: PageConfig) -> None:
        self.server = server
        self.config = config

    @property
    def poll_seconds(self) -> float:
        """On 2026-07-28, how long one round waits for a page's answer."""
        return self.config.poll_seconds

    def mint(self, function: str, request: str, timeout: float) -> PageRecord:
        """A new page for a question of `function` in `request`, expiring with `timeout` (at most a day)."""
        return PageRecord(
            id=new_page_id(),
            expires_at=_clock.now() + min(timeout, MAX_PAGE_SECONDS),
            elicitation_id=str(uuid.uuid4()),
            request=request,
        )

    def url(self, page: PageRecord) -> str:
        """The page's public URL."""
        return f"{self.config.public_url}{self.config.path}/{page.id}"

    async def open(
        self,
        page: PageRecord,
        model: type[BaseModel],
        message: str,
        function: str,
        principal: str | None,
        form: Reduced,
        *,
        locale: str | None = None,
    ) -> None:
        """Store the page's sealed ticket, bound to the call and its authenticated `principal` (once a page).

        Raises:
            SchemaError: If the model cannot be asked on a page.
            StoreUnavailable: If the store failed.
        """
        ticket = Ticket(
            id=page.id,
            model=register_model(model),
            message=message,
            function=function,
            request=page.request,
            principal=principal,
            expires_at=page.expires_at,
            csrf_key=secrets.token_hex(32),
            shape=form.tree.carried() if form.tree is not None and form.tree.shaped else None,
            locale=locale,
        )
        key = TICKET_PREFIX + page.id
        sealed = seal(self.config.sealer, key, ticket.to_bytes())
        await store_for(self.server).put(key, sealed, page.expires_at)
        remember(self.config.sealer, ticket)

    async def answer(self, page: PageRecord, wait: float | None) -> PageAnswer | None:
        """The page's answer: at once (`wait=None`), or as soon as it is submitted within `wait` seconds.

        Raises:
            StoreUnavailable: If the store failed.
        """
        key = ANSWER_PREFIX + page.id
        store = store_for(self.server)
        sealed = await (store.get(key) if wait is None else wait_shared(store, key, wait))
        return opened(self.config.sealer, key, sealed)

    async def take(self, page: PageRecord) -> bool:
        """Claim the page's answer for this round; False if a round took it already."""
        return await store_for(self.server).claim(TAKEN_PREFIX + page.id, page.expires_at)

    async def keep(self, page: PageRecord, answer: PageAnswer, until: float) -> None:
        """Hold a taken answer, sealed, for its call's later rounds (at most until `until`)."""
        key = KEPT_PREFIX + page.id
        await store_for(self.server).put(key, seal(self.config.sealer, key, answer_bytes(answer)), until)

    async def kept(self, page: PageRecord) -> PageAnswer | None:
        """The answer `keep` holds, or None once it is released or expired."""
        key = KEPT_PREFIX + page.id
        return opened(self.config.sealer, key, await store_for(self.server).get(key))

    async def close(self, page: PageRecord, *, answered: bool, held: bool = False) -> None:
        """Its call has ended: forget the `held` answer, and close a page never answered.

        A closed page says so and stores nothing more: the `CLOSED` mark takes the answer's place,
        which a later submit cannot take (`put` stores once). A page whose answer the call got
        (`answered`) holds that answer under its key already, until the page expires: no mark
        is needed, and a second submit is refused all the same.
        """
        store = store_for(self.server)
        if held:
            await store.delete(KEPT_PREFIX + page.id)
        if not answered and page.expires_at > _clock.now():  # an expired page is gone already
            await store.put(ANSWER_PREFIX + page.id, CLOSED, page.expires_at)
