"""The stores typed_elicit shares between replicas: pick one with `typed_elicit.configure`.

- `InProcessStore`: the default; one process (or replicas with sticky routing).
- `RedisStore`: several replicas on one Redis (`pip install 'typed-elicit[redis]'`);
  `configure(server, store="redis://127.0.0.1:6379/0")` builds one from a URL.
"""

from typed_elicit.stores._memory import InProcessStore
from typed_elicit.stores._redis import RedisStore, StoreUrlError

__all__ = ["InProcessStore", "RedisStore", "StoreUrlError"]
