"""Which store a server uses: `configure(server, store=...)`, else one in this process, made on first use."""

from __future__ import annotations

import threading
import weakref

from mcp.server.mcpserver import MCPServer

from typed_elicit.stores._memory import InProcessStore
from typed_elicit.stores._protocol import Store

_configured: weakref.WeakKeyDictionary[MCPServer, tuple[Store, bool]] = weakref.WeakKeyDictionary()
"""Each server's store, and whether `configure` set it."""
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
            need one shared store (see `Store`).

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
                if current[1]
                else "came after this server had started using its default store (it has answered rounds)"
            )
            raise ValueError(
                f"typed_elicit.stores.configure {why}; call it once per server, after creating the "
                "MCPServer and before serving"
            )
        if isinstance(store, str):
            from typed_elicit.stores._redis import RedisStore

            store = RedisStore.from_url(store)
        _configured[server] = (store if store is not None else InProcessStore(), True)


def store_for(server: MCPServer) -> Store:
    """The store `server` claims its single-use keys in (made on first use unless configured)."""
    with _lock:
        current = _configured.get(server)
        if current is None:
            current = _configured[server] = (InProcessStore(), False)
        return current[0]
