"""The stores typed_elicit shares between replicas, and which one a server uses.

- `Store`: what every store does (consume-once claims, sealed values, waits); implement it
  for a store of your own.
- `InProcessStore`: the default; one process (or replicas with sticky routing).
- `RedisStore`: several replicas on one Redis (`pip install 'typed-elicit[redis]'`); its
  module loads when first named, so a server without Redis never loads it.
- `configure(server, store=...)`: a server's store, once, before serving: a `Store` or a
  Redis URL (`configure(server, store="redis://127.0.0.1:6379/0")`).

A URL that names no Redis is refused with `typed_elicit.errors.StoreUrlError` (also here).
"""

from typing import TYPE_CHECKING, Any

from typed_elicit._core.deprecation import moved
from typed_elicit._core.faces import publish
from typed_elicit.errors import StoreUrlError
from typed_elicit.stores._config import configure
from typed_elicit.stores._memory import InProcessStore
from typed_elicit.stores._protocol import Store

if TYPE_CHECKING:
    from typed_elicit.stores._redis import RedisStore

__all__ = ["InProcessStore", "RedisStore", "Store", "StoreUrlError", "configure"]

publish(__name__, globals(), __all__)

_RENAMED = {
    "ClaimStore": "typed_elicit.stores:Store",
    "InProcessClaimStore": "typed_elicit.stores:InProcessStore",
}


def __getattr__(name: str) -> Any:
    """`RedisStore`, loaded when first named; the names of 0.2 (`ClaimStore`), with a warning."""
    if name == "RedisStore":
        from typed_elicit.stores._redis import RedisStore

        publish(__name__, {name: RedisStore}, [name])
        return RedisStore
    return moved(__name__, name, _RENAMED)
