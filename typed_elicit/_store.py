"""What must happen once: the claim store, and the per-server configuration that holds it.

Two things in typed_elicit are single-use, and both are enforced by claiming a key
in a `ClaimStore` when the thing is used:

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
import threading
import weakref
from typing import Protocol

from mcp.server.mcpserver import MCPServer

from . import _clock


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


class InProcessClaimStore:
    """The default `ClaimStore`: the keys claimed in this process.

    It holds one entry per key claimed and not yet expired, and forgets each key
    at its `expires_at`, so its size is bounded by what is claimed within one
    expiry period (the rounds answered and tokens redeemed in that time), never
    by what a client merely sends.
    """

    def __init__(self) -> None:
        self._keys: set[str] = set()
        self._expiry: list[tuple[float, str]] = []  # a heap, soonest expiry first
        self._lock = threading.Lock()

    async def claim(self, key: str, expires_at: float, /) -> bool:
        """Record `key` as used; False if it was recorded already (see `ClaimStore`)."""
        with self._lock:
            now = _clock.now()
            while self._expiry and self._expiry[0][0] <= now:
                self._keys.discard(heapq.heappop(self._expiry)[1])
            if key in self._keys:
                return False
            self._keys.add(key)
            heapq.heappush(self._expiry, (expires_at, key))
            return True

    def __len__(self) -> int:
        return len(self._keys)


class _Configured:
    """One server's settings: its store, and whether `configure` set it."""

    __slots__ = ("explicit", "store")

    def __init__(self, store: ClaimStore, *, explicit: bool) -> None:
        self.store = store
        self.explicit = explicit


_configured: weakref.WeakKeyDictionary[MCPServer, _Configured] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def configure(server: MCPServer, *, store: ClaimStore | None = None) -> None:
    """Configure typed_elicit for one server; call it once, after creating the server.

    Every `@elicits` function of `server` claims its single-use 2026-07-28 rounds
    in `store`, and so does the fallback's companion tool (`install_fallback`)
    with its tokens, unless given its own `redeemed=` store.

    Args:
        server: The server the `@elicits` functions are registered on.
        store: Where single-use keys are claimed. None keeps them in this process,
            which holds across replicas only with sticky routing; several replicas
            need one shared store (see `ClaimStore`).

    Raises:
        ValueError: If `configure` was already called on `server`, or `server` has
            already claimed a key (a store swapped while serving would forget the
            rounds answered so far).
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
        _configured[server] = _Configured(
            store if store is not None else InProcessClaimStore(), explicit=True
        )


def store_for(server: MCPServer) -> ClaimStore:
    """The store `server` claims its single-use keys in (made on first use unless configured)."""
    with _lock:
        current = _configured.get(server)
        if current is None:
            current = _configured[server] = _Configured(InProcessClaimStore(), explicit=False)
        return current.store
