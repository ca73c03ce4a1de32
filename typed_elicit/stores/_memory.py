"""What replicas share: the store, and the per-server configuration that holds it.

A `Store` holds what typed_elicit must see once, or see from another replica:
consume-once marks (`claim`), values such as a page's sealed answer (`put`, `get`,
`delete`) and the wake-up of whoever waits for one (`wait`).

Two things in typed_elicit are single-use, and both are enforced by claiming a key
when the thing is used:

- a 2026-07-28 round (`round:<id>`): each sealed `requestState` carries a random
  round id, claimed when the round's answer is taken; a second answer to the same
  round is refused;
- a fallback token (`token:<id>`): claimed when the companion tool accepts it.

By default each server has one store in its process (`InProcessClaimStore`).
Several replicas behind one client need one shared store, given once per server
with `configure(server, store=...)`.
"""

from __future__ import annotations

import heapq
import math
import threading
import weakref
from typing import Protocol

import anyio
from mcp.server.mcpserver import MCPServer

from typed_elicit._core import clock as _clock


class ClaimStore(Protocol):
    """Records keys that may be used once; an atomic "set if absent" with an expiry.

    The default (`InProcessClaimStore`) lives in the process. Several replicas
    behind one client need one shared store (or sticky routing) for a key to stay
    single-use across them; for example, with Redis:
    `return bool(await redis.set(key, 1, nx=True, exat=math.ceil(expires_at)))`.

    Keys are namespaced by what they protect (`round:...`, `token:...`) and carry
    a random id of at least 128 bits, so one store serves everything.
    """

    async def claim(self, key: str, expires_at: float, /) -> bool:
        """Record `key` as used; False if it was recorded already.

        Must be atomic: of two concurrent claims of one key, exactly one returns True.

        Args:
            key: What is being used, namespaced (`round:<id>`, `token:<id>`).
            expires_at: Unix time (seconds) after which the key can no longer be
                used anyway (its state or token is refused as late), so the store
                may forget it then. Allow for clock skew between replicas.
        """
        ...


class Store(ClaimStore, Protocol):
    """Everything typed_elicit shares between the replicas of one server.

    A `ClaimStore` (consume-once marks) that also holds short-lived values and
    wakes up whoever waits for one: a page question's answer is `put` by the
    replica that receives the submitted page and found by the replica whose
    question waits for it (`wait` on push eras, `get` on a 2026-07-28 round).

    Values are bytes the caller has already sealed: a store never sees an answer
    in clear. Keys are namespaced (`round:`, `token:`, `page:`) and carry a random
    id of at least 128 bits; every key expires.
    """

    async def put(self, key: str, value: bytes, expires_at: float, /) -> bool:
        """Store `value` under `key` unless the key holds a value already, and wake its waiters.

        Must be atomic: of two concurrent puts of one key, exactly one returns True.

        Args:
            key: Where to store it, namespaced (`page:<id>`).
            value: Sealed bytes.
            expires_at: Unix time (seconds) after which the value may be forgotten.

        Returns:
            True if stored, False if the key already held a value (which is kept).
        """
        ...

    async def get(self, key: str, /) -> bytes | None:
        """The value stored under `key`, or None if there is none (or it expired)."""
        ...

    async def wait(self, key: str, timeout: float, /) -> bytes | None:
        """The value under `key` as soon as there is one: at once if stored already.

        Args:
            key: The key to wait for.
            timeout: Seconds to wait at most (`math.inf` waits until cancelled).

        Returns:
            The value, or None if none was stored within `timeout`.
        """
        ...

    async def delete(self, key: str, /) -> None:
        """Forget the value under `key` before it expires (nothing happens if there is none).

        typed_elicit deletes a value it no longer needs (a page answer held for a call,
        when the call ends), so that it does not stay stored until its expiry. Claims
        are never deleted.

        Args:
            key: The value's key.
        """
        ...


class InProcessStore:
    """The default `Store`: claims and values kept in this process, forgotten when they expire.

    Its size is bounded by what the server itself claims and stores within one
    expiry period (rounds answered, tokens redeemed, pages submitted), never by
    what a client merely sends. Waiters are woken in the event loop they wait in.
    """

    def __init__(self) -> None:
        self._claimed: dict[str, float] = {}  # key -> expires_at
        self._values: dict[str, tuple[bytes, float]] = {}  # key -> (value, expires_at)
        self._expiry: list[tuple[float, str, bool]] = []  # a heap: (expires_at, key, is_value)
        self._waiters: dict[str, list[anyio.Event]] = {}
        self._lock = threading.Lock()

    def _expire(self) -> None:
        now = _clock.now()
        while self._expiry and self._expiry[0][0] <= now:
            expires_at, key, is_value = heapq.heappop(self._expiry)
            # A key deleted and stored again since has a later expiry of its own: keep it.
            if is_value:
                held = self._values.get(key)
                if held is not None and held[1] <= expires_at:
                    del self._values[key]
            elif self._claimed.get(key, math.inf) <= expires_at:
                del self._claimed[key]

    async def claim(self, key: str, expires_at: float, /) -> bool:
        """Record `key` as used; False if it was recorded already (see `ClaimStore`)."""
        with self._lock:
            self._expire()
            if key in self._claimed:
                return False
            self._claimed[key] = expires_at
            heapq.heappush(self._expiry, (expires_at, key, False))
            return True

    async def put(self, key: str, value: bytes, expires_at: float, /) -> bool:
        """Store `value` unless `key` holds one; wakes its waiters (see `Store.put`)."""
        with self._lock:
            self._expire()
            if key in self._values:
                return False
            self._values[key] = (value, expires_at)
            heapq.heappush(self._expiry, (expires_at, key, True))
            waiters = self._waiters.pop(key, [])
        for event in waiters:
            event.set()
        return True

    async def get(self, key: str, /) -> bytes | None:
        """The value under `key`, or None (see `Store.get`)."""
        with self._lock:
            self._expire()
            held = self._values.get(key)
            return None if held is None else held[0]

    async def delete(self, key: str, /) -> None:
        """Forget the value under `key` (see `Store.delete`); its expiry entry goes when it is due."""
        with self._lock:
            self._values.pop(key, None)
            self._expire()

    async def wait(self, key: str, timeout: float, /) -> bytes | None:
        """The value under `key` once stored, or None after `timeout` seconds (see `Store.wait`)."""
        event = anyio.Event()
        with self._lock:
            self._expire()
            held = self._values.get(key)
            if held is not None:
                return held[0]
            self._waiters.setdefault(key, []).append(event)
        try:
            with anyio.move_on_after(None if math.isinf(timeout) else timeout):
                await event.wait()
        finally:
            with self._lock:
                waiting = self._waiters.get(key)
                if waiting is not None and event in waiting:
                    waiting.remove(event)
                    if not waiting:
                        del self._waiters[key]
        return await self.get(key)

    def __len__(self) -> int:
        return len(self._claimed) + len(self._values)


InProcessClaimStore = InProcessStore
"""The in-process store under its name from before values and waits (`InProcessStore`)."""


class _Configured:
    """One server's settings: its store, and whether `configure` set it."""

    __slots__ = ("explicit", "store")

    def __init__(self, store: Store, *, explicit: bool) -> None:
        self.store = store
        self.explicit = explicit


_configured: weakref.WeakKeyDictionary[MCPServer, _Configured] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def configure(server: MCPServer, *, store: Store | str | None = None) -> None:
    """Configure typed_elicit for one server; call it once, after creating the server.

    Every `@elicits` function of `server` claims its single-use 2026-07-28 rounds
    in `store`, and so does the fallback's companion tool (`install_fallback`)
    with its tokens, unless given its own `redeemed=` store.

    Args:
        server: The server the `@elicits` functions are registered on.
        store: Where single-use keys are claimed and page answers kept: a `Store`, or
            a Redis URL (`"redis://127.0.0.1:6379/0"`, for `RedisStore.from_url`, which
            needs the `redis` extra). None keeps them in this process,
            which holds across replicas only with sticky routing; several replicas
            need one shared store (see `ClaimStore`).

    Raises:
        ValueError: If `configure` was already called on `server`, or `server` has
            already claimed a key (a store swapped while serving would forget the
            rounds answered so far).
        StoreUrlError: If `store` is a string but no well-formed Redis URL (a `ValueError`
            that says how to write it, never quoting the URL).
        ImportError: If `store` is a Redis URL and the `redis` extra is missing.
    """
    with _lock:
        current = _configured.get(server)
        if current is not None:
            why = (
                "was already called on this server"
                if current.explicit
                else "came after this server had started using its default store (it has answered rounds)"
            )
            raise ValueError(
                f"typed_elicit.configure {why}; call it once per server, after creating the "
                "MCPServer and before serving"
            )
        if isinstance(store, str):
            from typed_elicit.stores._redis import RedisStore

            store = RedisStore.from_url(store)
        _configured[server] = _Configured(store if store is not None else InProcessStore(), explicit=True)


def store_for(server: MCPServer) -> Store:
    """The store `server` claims its single-use keys in (made on first use unless configured)."""
    with _lock:
        current = _configured.get(server)
        if current is None:
            current = _configured[server] = _Configured(InProcessStore(), explicit=False)
        return current.store
