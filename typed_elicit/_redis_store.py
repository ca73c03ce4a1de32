"""`RedisStore`: the `Store` several replicas share, on Redis (the `redis` extra).

- `claim`: `SET key 1 NX PXAT <expiry>`: atomic, exactly one of concurrent claims wins.
- `put`: the same `SET NX PXAT` with the sealed value, then `PUBLISH` on the key's
  channel when it was stored, so a replica waiting for it wakes up.
- `get`: `GET`.
- `wait`: `SUBSCRIBE` to the key's channel first, then `GET`, then wait for a message
  (or the timeout) and `GET` again: a put between the `GET` and the wait still wakes it.

Every key and channel starts with a prefix (`typed_elicit:` unless given), every key
expires, and every operation is bounded by `timeout` seconds: a Redis that is down or
slow fails the call in progress with `StoreUnavailable`, never hangs it. A claim whose
reply is lost counts as not made for this call (the call is refused): an answer is then
lost for this call, never applied twice.
"""

from __future__ import annotations

import contextlib
import math
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

import anyio

from . import _clock
from ._errors import StoreOperation, StoreUnavailable

if TYPE_CHECKING:
    from redis.asyncio import Redis

DEFAULT_PREFIX: Final = "typed_elicit:"
DEFAULT_TIMEOUT: Final = 2.0
"""Seconds each store operation may take before the call fails with `StoreUnavailable`."""
DEFAULT_MAX_CONNECTIONS: Final = 50


class RedisStore:
    """A `Store` on Redis, shared by every replica given the same server and prefix.

    Build it with `RedisStore.from_url("redis://host:6379/0")`, or pass that URL
    to `typed_elicit.configure(server, store=...)`. Values reaching it are already
    sealed (a page's answer): Redis never holds an answer in clear.
    """

    def __init__(
        self,
        client: Redis,
        *,
        prefix: str = DEFAULT_PREFIX,
        timeout: float = DEFAULT_TIMEOUT,
        where: str = "redis",
    ) -> None:
        """Use an existing `redis.asyncio.Redis` client (its pool and settings are yours).

        Args:
            client: The asyncio client.
            prefix: Prepended to every key and channel (several apps may share one Redis).
            timeout: Seconds each operation may take.
            where: How messages name the store (no credentials).

        Raises:
            ValueError: If `timeout` is not positive and finite.
        """
        if not 0 < timeout < math.inf:
            raise ValueError(
                f"RedisStore timeout must be a positive, finite number of seconds, got {timeout!r}"
            )
        self._client: Any = client  # redis-py is only partly typed
        self._prefix = prefix
        self._timeout = timeout
        self._where = where

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        timeout: float = DEFAULT_TIMEOUT,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
    ) -> RedisStore:
        """A store on the Redis at `url` (`redis://[:password@]host:port/db`, or `rediss://` for TLS).

        The client keeps a pool of at most `max_connections` connections; connecting
        and every socket read are bounded by `timeout` too.

        Args:
            url: Where Redis is.
            prefix: Prepended to every key and channel.
            timeout: Seconds each operation may take (2 s by default).
            max_connections: The pool's size (50 by default; each waiting page question
                holds one for its subscription).

        Returns:
            The store.

        Raises:
            ImportError: If the `redis` package is missing (`pip install 'typed-elicit[redis]'`).
            ValueError: If `url` is not a redis URL.
        """
        try:
            from redis import asyncio as redis_asyncio
        except ImportError as exc:  # pragma: no cover - the dev extra installs redis
            raise ImportError(
                "RedisStore needs the redis package: pip install 'typed-elicit[redis]'"
            ) from exc
        parts = urlsplit(url)
        if parts.scheme not in ("redis", "rediss", "unix"):
            raise ValueError("a Redis store URL starts with redis://, rediss:// or unix://")
        # A blocking pool: with all connections busy a command waits (up to `timeout`) for
        # one to come back, instead of failing at once as the default pool does.
        blocking: Any = redis_asyncio.BlockingConnectionPool
        pool = blocking.from_url(
            url,
            max_connections=max_connections,
            timeout=timeout,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            health_check_interval=30,
        )
        factory: Any = redis_asyncio.Redis
        client = factory(connection_pool=pool)
        db = (parts.path or "/0").lstrip("/") or "0"
        where = f"redis {parts.hostname or 'localhost'}:{parts.port or 6379} db {db}"
        return cls(client, prefix=prefix, timeout=timeout, where=where)

    async def claim(self, key: str, expires_at: float, /) -> bool:
        """Record `key` as used; False if it was recorded already (see `ClaimStore`).

        Raises:
            StoreUnavailable: If Redis did not answer within the timeout; the claim
                then counts as not made for this call.
        """
        stored = await self._run("claim", key, self._set(key, b"1", expires_at))
        return bool(stored)

    async def put(self, key: str, value: bytes, expires_at: float, /) -> bool:
        """Store `value` unless `key` holds one, and wake its waiters (see `Store.put`).

        Raises:
            StoreUnavailable: If Redis did not answer within the timeout.
        """
        stored = bool(await self._run("put", key, self._set(key, value, expires_at)))
        if stored:
            await self._run("put", key, self._client.publish(self._channel(key), b"1"))
        return stored

    async def get(self, key: str, /) -> bytes | None:
        """The value under `key`, or None (see `Store.get`).

        Raises:
            StoreUnavailable: If Redis did not answer within the timeout.
        """
        value = await self._run("get", key, self._client.get(self._prefix + key))
        return None if value is None else bytes(value)

    async def wait(self, key: str, timeout: float, /) -> bytes | None:
        """The value under `key` once stored, or None after `timeout` seconds (see `Store.wait`).

        Raises:
            StoreUnavailable: If Redis fails or stops answering while waiting.
        """
        deadline = anyio.current_time() + timeout
        pubsub: Any = self._client.pubsub()
        try:
            await self._run("wait", key, pubsub.subscribe(self._channel(key)))
            while True:
                value = await self.get(key)
                if value is not None:
                    return value
                left = deadline - anyio.current_time()
                if left <= 0:
                    return None
                # get_message waits at most `timeout=` for a message (None when none came).
                await self._run(
                    "wait",
                    key,
                    pubsub.get_message(ignore_subscribe_messages=True, timeout=min(left, 1.0)),
                    bound=min(left, 1.0) + self._timeout,
                )
        finally:
            # Shielded and bounded; a broken connection leaves the pool anyway.
            with (
                anyio.CancelScope(shield=True),
                anyio.move_on_after(self._timeout),
                contextlib.suppress(Exception),
            ):
                await pubsub.aclose()

    async def aclose(self) -> None:
        """Close the client and its pool's connections."""
        await self._client.aclose()
        await self._client.connection_pool.disconnect()

    def _channel(self, key: str) -> str:
        return f"{self._prefix}wake:{key}"

    def _set(self, key: str, value: bytes, expires_at: float) -> Any:
        # PXAT in milliseconds; a time already past still stores (and expires at once).
        expiry = max(math.ceil(expires_at * 1000), math.ceil(_clock.now() * 1000) + 1)
        return self._client.set(self._prefix + key, value, nx=True, pxat=expiry)

    async def _run(
        self, operation: StoreOperation, key: str, pending: Any, *, bound: float | None = None
    ) -> Any:
        """Await one Redis command within the timeout; any failure becomes `StoreUnavailable`."""
        namespace = key.partition(":")[0]
        try:
            with anyio.fail_after(self._timeout if bound is None else bound):
                return await pending
        except TimeoutError:
            cause = f"no answer within {self._timeout:g} s"
        except Exception as exc:  # redis' errors, OSError: the server is gone or refused
            cause = type(exc).__name__
        raise StoreUnavailable.during(
            operation, store=self._where, namespace=namespace, cause=cause, timeout=self._timeout
        ) from None
