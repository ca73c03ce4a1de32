"""`RedisStore`: the `Store` several replicas share, on Redis (the `redis` extra).

- `claim`: `SET key 1 NX PXAT <expiry>`: atomic, exactly one of concurrent claims wins.
- `put`: the same `SET NX PXAT` with the sealed value, then `PUBLISH` on the key's
  channel when it was stored, so a replica waiting for it wakes up.
- `get`: `GET`; `delete`: `DEL` (best effort: a value it cannot delete expires anyway).
- `wait`: subscribe to the key's channel first, then `GET`, then wait for a message
  (or the timeout) and `GET` again: a put between the `GET` and the wait still wakes it.

Waits never take a connection from the pool that claims and puts use: every wait of one
`RedisStore` goes through its one `Subscriber` (`_redis_waits`), which holds ONE pub/sub
connection of its own, subscribes to a channel when its first waiter comes and unsubscribes
when its last leaves. However many waits there are, they cost one connection (on a cluster,
one per master waited on: `SPUBLISH` and `SSUBSCRIBE`, the keys of one question in one slot).

The URL forms (one Redis, a cluster, Sentinel; TLS, ACL users) are read in `_redis_urls`, and
the cluster and Sentinel clients built in `_redis_clients`.

Every key and channel starts with a prefix (`typed_elicit:` unless given), every key
expires, and every operation is bounded by `timeout` seconds: a Redis that is down or
slow fails the call in progress with `StoreUnavailable`, never hangs it. A claim whose
reply is lost counts as not made for this call (the call is refused): an answer is then
lost for this call, never applied twice.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any, Final

import anyio

from typed_elicit._core import clock as _clock
from typed_elicit.errors import StoreUnavailable, StoreUrlError
from typed_elicit.errors._server_state import StoreOperation
from typed_elicit.stores._redis_clients import cluster_client, sentinel_client
from typed_elicit.stores._redis_urls import parse_store_url
from typed_elicit.stores._redis_waits import (
    REREAD_SECONDS,
    PubSubSubscriber,
    ShardedSubscriber,
    Subscriber,
    own_pubsub,
)

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.asyncio.cluster import RedisCluster

logger = logging.getLogger("typed_elicit.stores")

DEFAULT_PREFIX: Final = "typed_elicit:"
DEFAULT_TIMEOUT: Final = 2.0
"""Seconds each store operation may take before the call fails with `StoreUnavailable`."""
DEFAULT_MAX_CONNECTIONS: Final = 50


def _require_sharded_pubsub() -> None:
    """Refuse a cluster with a redis-py whose asyncio `PubSub` has no `ssubscribe` (before 8.0).

    Raises:
        ImportError: If it has none.
    """
    from redis.asyncio.client import PubSub

    if not hasattr(PubSub, "ssubscribe"):
        raise ImportError(
            "RedisStore on a Redis Cluster needs redis-py 8.0 or later (sharded pub/sub in its "
            "asyncio client): pip install 'redis>=8.0'"
        )


def _is_cluster(client: Any) -> bool:
    try:
        from redis.asyncio.cluster import RedisCluster
    except ImportError:  # pragma: no cover - a client was given, so redis is installed
        return False
    return isinstance(client, RedisCluster)


class RedisStore:
    """A `Store` on Redis, shared by every replica given the same server and prefix.

    Build it with `RedisStore.from_url("redis://host:6379/0")`, or pass that URL
    to `typed_elicit.stores.configure(server, store=...)`. A Redis Cluster
    (`redis+cluster://host:port,host:port`) and a master watched by Sentinel
    (`redis+sentinel://host:port,host:port/service/0`) work too, with TLS (`rediss...`)
    and ACL users (`user:password@`). Values reaching it are already sealed (a page's
    answer): Redis never holds an answer in clear.

    Claims, puts and reads use the client's pool; waits use one pub/sub connection of
    the store's own, whatever their number (on a cluster: one per master waited on; see
    the module docstring).
    """

    def __init__(
        self,
        client: Redis | RedisCluster,
        *,
        prefix: str = DEFAULT_PREFIX,
        timeout: float = DEFAULT_TIMEOUT,
        where: str = "redis",
        replicas: int = 0,
    ) -> None:
        """Use an existing `redis.asyncio.Redis` or `RedisCluster` client (its pool and settings are yours).

        Waits subscribe on one more connection, made with the client's connection settings.
        On a `RedisCluster`, the keys of one question share a hash tag (one slot), and waits
        use sharded pub/sub (`SPUBLISH`, `SSUBSCRIBE`): one more connection per master.

        Args:
            client: The asyncio client.
            prefix: Prepended to every key and channel (several apps may share one Redis).
            timeout: Seconds each operation may take.
            where: How messages name the store (no credentials).
            replicas: How many replicas must have each claim and put before it counts
                (`WAIT`, within `timeout`); 0 (the default) trusts the master's reply.
                A claim not replicated in time counts as NOT made: the call fails with
                `StoreUnavailable`. Not on a cluster.

        Raises:
            ValueError: If `timeout` is not positive and finite, `replicas` is negative,
                or `replicas` is given for a cluster.
            ImportError: If `client` is a `RedisCluster` of a redis-py older than 8.0.
        """
        if not 0 < timeout < math.inf:
            raise ValueError(
                f"RedisStore timeout must be a positive, finite number of seconds, got {timeout!r}"
            )
        cluster = _is_cluster(client)
        if replicas < 0 or (replicas and cluster):
            raise ValueError(
                "RedisStore replicas must be 0 or more (the replicas that must acknowledge each "
                "claim), and 0 on a Redis Cluster (WAIT per claim is not offered there)"
            )
        if cluster:
            _require_sharded_pubsub()
        self._client: Any = client  # redis-py is only partly typed
        self._prefix = prefix
        self._timeout = timeout
        self._where = where
        self._replicas = replicas
        self._cluster = cluster
        self._also_close: list[Any] = []
        self._subscriber: Subscriber = (
            ShardedSubscriber(client, where=where, timeout=timeout)
            if cluster
            else PubSubSubscriber(own_pubsub(client), where=where, timeout=timeout)
        )

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        timeout: float = DEFAULT_TIMEOUT,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        replicas: int = 0,
    ) -> RedisStore:
        """A store on the Redis at `url`.

        The forms (see docs/redis_deployments.md):

        - `redis://[user:password@]host:port/db`, or `rediss://` for TLS (with
          `?ssl_ca_certs=/path/ca.pem` for a private CA), or `unix:///path?db=0`;
        - `redis+cluster://[user:password@]host:port,host:port` (`rediss+cluster://` for TLS):
          a Redis Cluster, found through any node listed;
        - `redis+sentinel://[user:password@]host:port,host:port/service/db`
          (`rediss+sentinel://` for TLS): the master Sentinel names for `service`.

        The URL is checked first (a URL redis-py would quietly read as database 0, such as
        `redis:/host:6379/3` or `redis://host:6379/name`, is refused), and where it points
        is logged at INFO on `typed_elicit.stores` (hosts, ports, database; no password).
        The client keeps a pool of at most `max_connections` connections for claims, puts
        and reads (per node on a cluster); connecting and every socket read are bounded by
        `timeout` too. Nothing connects before the first operation.

        Args:
            url: Where Redis is.
            prefix: Prepended to every key and channel.
            timeout: Seconds each operation may take (2 s by default).
            max_connections: The pool's size (50 by default). Waits do not use it: they
                share one subscriber connection of the store's own.
            replicas: Replicas that must acknowledge each claim and put (see `__init__`).

        Returns:
            The store.

        Raises:
            ImportError: If the `redis` package is missing (`pip install 'typed-elicit[redis]'`),
                or older than 8.0 for a cluster.
            StoreUrlError: If `url` is not a well-formed store URL (a `ValueError`).
            ValueError: If `replicas` is negative, or given for a cluster.
        """
        target = parse_store_url(url)
        try:
            from redis import asyncio as redis_asyncio
        except ImportError as exc:  # pragma: no cover - the dev extra installs redis
            raise ImportError(
                "RedisStore needs the redis package: pip install 'typed-elicit[redis]'"
            ) from exc
        if target.kind == "cluster":
            client = cluster_client(target, timeout=timeout, max_connections=max_connections)
            store = cls(client, prefix=prefix, timeout=timeout, where=target.where, replicas=replicas)
        elif target.kind == "sentinel":
            client, sentinels = sentinel_client(target, timeout=timeout, max_connections=max_connections)
            store = cls(client, prefix=prefix, timeout=timeout, where=target.where, replicas=replicas)
            store._also_close.extend(sentinels)
        else:
            # A blocking pool: with all connections busy a command waits (up to `timeout`) for
            # one to come back, instead of failing at once as the default pool does.
            blocking: Any = redis_asyncio.BlockingConnectionPool
            try:
                pool = blocking.from_url(
                    url,
                    max_connections=max_connections,
                    timeout=timeout,
                    socket_timeout=timeout,
                    socket_connect_timeout=timeout,
                    health_check_interval=30,
                )
            except ValueError:  # a query argument redis-py cannot read; its message may quote the URL
                raise StoreUrlError("has a query argument redis-py cannot read") from None
            factory: Any = redis_asyncio.Redis
            store = cls(
                factory(connection_pool=pool),
                prefix=prefix,
                timeout=timeout,
                where=target.where,
                replicas=replicas,
            )
        logger.info("RedisStore on %s", target.where)
        return store

    async def claim(self, key: str, expires_at: float, /) -> bool:
        """Record `key` as used; False if it was recorded already (see `Store`).

        Raises:
            StoreUnavailable: If Redis did not answer within the timeout, or (with
                `replicas`) the claim did not reach that many replicas in time; the
                claim then counts as not made for this call.
        """
        stored = await self._run("claim", key, self._set(key, b"1", expires_at))
        return bool(stored)

    async def put(self, key: str, value: bytes, expires_at: float, /) -> bool:
        """Store `value` unless `key` holds one, and wake its waiters (see `Store.put`).

        Raises:
            StoreUnavailable: If Redis did not answer within the timeout (or, with
                `replicas`, the value did not reach that many replicas in time).
        """
        stored = bool(await self._run("put", key, self._set(key, value, expires_at)))
        if stored:
            channel = self._channel(key)
            # (SPUBLISH by name: the asyncio cluster client has no `spublish` before redis-py 8.)
            publish = (
                self._client.execute_command("SPUBLISH", channel, b"1")
                if self._cluster
                else self._client.publish(channel, b"1")
            )
            await self._run("put", key, publish)
        return stored

    async def get(self, key: str, /) -> bytes | None:
        """The value under `key`, or None (see `Store.get`).

        Raises:
            StoreUnavailable: If Redis did not answer within the timeout.
        """
        value = await self._run("get", key, self._client.get(self._key(key)))
        return None if value is None else bytes(value)

    async def delete(self, key: str, /) -> None:
        """Forget the value under `key` (see `Store.delete`).

        Best effort: if Redis fails or does not answer in time, the failure is logged
        (WARNING, no key) and the value stays until it expires.
        """
        try:
            with anyio.fail_after(self._timeout):
                pending = self._client.delete(self._key(key))
                if self._cluster:
                    await self._initialized(pending)
                await pending
        except Exception as exc:  # TimeoutError, redis' errors, OSError
            logger.warning(
                "could not delete a %s value from %s (%s); it stays until it expires",
                key.partition(":")[0],
                self._where,
                type(exc).__name__,
            )

    async def wait(self, key: str, timeout: float, /) -> bytes | None:
        """The value under `key` once stored, or None after `timeout` seconds (see `Store.wait`).

        Subscribed through the store's one subscriber connection, never the pool's.

        Raises:
            StoreUnavailable: If Redis fails or stops answering while waiting.
        """
        deadline = anyio.current_time() + timeout
        if self._cluster:  # read first: a moved slot is learnt (MOVED) before subscribing
            value = await self.get(key)
            if value is not None:
                return value
        async with self._subscriber.watch(self._channel(key), key.partition(":")[0]) as watch:
            while True:
                value = await self.get(key)
                if value is not None:
                    return value
                left = deadline - anyio.current_time()
                if left <= 0:
                    return None
                await watch.wait(min(left, REREAD_SECONDS))

    async def aclose(self) -> None:
        """Close the subscriber connection, then the client and its pool's connections."""
        await self._subscriber.aclose()
        await self._client.aclose()
        if not self._cluster:
            await self._client.connection_pool.disconnect()
        for other in self._also_close:
            await other.aclose()

    def _key(self, key: str) -> str:
        """The Redis key: on a cluster, the id is a hash tag, so one question's keys share a slot."""
        if not self._cluster:
            return self._prefix + key
        namespace, _, rest = key.partition(":")
        return f"{self._prefix}{namespace}:{{{rest}}}"

    def _channel(self, key: str) -> str:
        # On a cluster, `<prefix>wake:page:{<id>}`: the slot of the key it wakes the waiters of.
        return (
            f"{self._prefix}wake:{key}"
            if not self._cluster
            else self._key(key).replace(self._prefix, f"{self._prefix}wake:", 1)
        )

    def _set(self, key: str, value: bytes, expires_at: float) -> Any:
        # PXAT in milliseconds; a time already past still stores (and expires at once).
        expiry = max(math.ceil(expires_at * 1000), math.ceil(_clock.now() * 1000) + 1)
        if not self._replicas:
            return self._client.set(self._key(key), value, nx=True, pxat=expiry)
        return self._set_replicated(self._key(key), value, expiry)

    async def _set_replicated(self, name: str, value: bytes, expiry: int) -> Any:
        """`SET NX` then `WAIT` on the same connection; fails unless `replicas` replicas acknowledged it."""
        pipe = self._client.pipeline(transaction=False)
        pipe.set(name, value, nx=True, pxat=expiry)
        pipe.wait(self._replicas, max(1, int(self._timeout * 1000 / 2)))
        stored, acknowledged = await pipe.execute()
        if stored and int(acknowledged) < self._replicas:
            raise _NotReplicated(f"{acknowledged} of {self._replicas} replicas acknowledged it in time")
        return stored

    async def _initialized(self, pending: Any) -> None:
        """Learn the cluster's slot map before `pending` runs (at once when known); close it if that fails.

        redis-py 8.1 can break a connection when commands race its cluster client's own
        first initialize; initializing first, once, avoids it.
        """
        try:
            await self._client.initialize()
        except BaseException:
            pending.close()  # never awaited: no "coroutine was never awaited" warning
            raise

    async def _run(self, operation: StoreOperation, key: str, pending: Any) -> Any:
        """Await one Redis command within the timeout; any failure becomes `StoreUnavailable`."""
        namespace = key.partition(":")[0]
        try:
            with anyio.fail_after(self._timeout):
                if self._cluster:
                    await self._initialized(pending)
                return await pending
        except TimeoutError:
            cause = f"no answer within {self._timeout:g} s"
        except _NotReplicated as exc:
            cause = str(exc)
        except Exception as exc:  # redis' errors, OSError: the server is gone or refused
            cause = type(exc).__name__
        raise StoreUnavailable.during(
            operation, store=self._where, namespace=namespace, cause=cause, timeout=self._timeout
        ) from None


class _NotReplicated(Exception):
    """A write the master took but fewer replicas than asked acknowledged within the time."""
