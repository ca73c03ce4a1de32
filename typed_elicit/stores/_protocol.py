"""What a store must do: the `Store` protocol every store (in-process, Redis, your own) implements.

Two things in typed_elicit are single-use, and both are enforced by claiming a key when the
thing is used: a 2026-07-28 round (`round:<id>`: each sealed `requestState` carries a random
round id, claimed when the round's answer is taken) and a fallback token (`token:<id>`,
claimed when the companion tool accepts it).
"""

from __future__ import annotations

from typing import Protocol, cast


class Store(Protocol):
    """Everything typed_elicit shares between the replicas of one server.

    Consume-once marks (`claim`: a 2026-07-28 round, a fallback token), short-lived values
    (`put`, `get`, `delete`: a page's ticket and answer) and the wake-up of whoever waits
    for one (`wait`): a page's answer is `put` by the replica that receives the submitted
    page and found by the replica whose question waits for it.

    The default (`InProcessStore`) lives in the process; several replicas behind one
    client need one shared store (`RedisStore`), or sticky routing. Values are bytes the
    caller has already sealed: a store never sees an answer in clear. Keys are namespaced
    by what they protect (`round:`, `token:`, `page:`) and carry a random id of at least
    128 bits; every key expires.

    Optional: `async get_many(*keys) -> list[bytes | None]`, the values of several keys of
    one question in one operation (`RedisStore`: one `MGET`); without it they are read one by
    one with `get` (`get_many` below).
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


async def get_many(store: Store, *keys: str) -> list[bytes | None]:
    """The values under `keys`: in one operation if the store has `get_many` (Redis: one `MGET`).

    `get_many(*keys)` is optional for a store: without it, each key is read with `get`. Keys
    read together are those of one question (one slot on a Redis Cluster).

    Raises:
        StoreUnavailable: If the store failed.
    """
    many = getattr(store, "get_many", None)
    if many is not None:
        return cast("list[bytes | None]", await many(*keys))
    return [await store.get(key) for key in keys]
