"""`RedisStore`: the `Store` several replicas share, on Redis (the `redis` extra).

- `claim`: `SET key 1 NX PXAT <expiry>`: atomic, exactly one of concurrent claims wins.
- `put`: the same `SET NX PXAT` with the sealed value, then `PUBLISH` on the key's
  channel when it was stored, so a replica waiting for it wakes up.
- `get`: `GET`; `delete`: `DEL` (best effort: a value it cannot delete expires anyway).
- `wait`: subscribe to the key's channel first, then `GET`, then wait for a message
  (or the timeout) and `GET` again: a put between the `GET` and the wait still wakes it.

Waits never take a connection from the pool that claims and puts use: every wait of one
`RedisStore` goes through its one `Subscriber`, which holds ONE pub/sub connection of its
own, subscribes to a channel when its first waiter comes and unsubscribes when its last
leaves. However many waits there are, they cost one connection.

Every key and channel starts with a prefix (`typed_elicit:` unless given), every key
expires, and every operation is bounded by `timeout` seconds: a Redis that is down or
slow fails the call in progress with `StoreUnavailable`, never hangs it. A claim whose
reply is lost counts as not made for this call (the call is refused): an answer is then
lost for this call, never applied twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import AsyncGenerator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any, Final, Protocol

import anyio

from typed_elicit._core import clock as _clock
from typed_elicit.errors import StoreUnavailable, StoreUrlError
from typed_elicit.errors._server_state import StoreOperation
from typed_elicit.stores._redis_urls import Target, parse_store_url

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.asyncio.cluster import RedisCluster

logger = logging.getLogger("typed_elicit.stores")

DEFAULT_PREFIX: Final = "typed_elicit:"
DEFAULT_TIMEOUT: Final = 2.0
"""Seconds each store operation may take before the call fails with `StoreUnavailable`."""
DEFAULT_MAX_CONNECTIONS: Final = 50
REREAD_SECONDS: Final = 1.0
"""A wait reads its key at least this often, so a wake-up lost in a reconnect costs at most this."""


# --- waking waiters: one subscription per channel, one connection for all -----------------------


class Watch:
    """One waiter's subscription to a channel: woken by each message on it, or failed with it."""

    __slots__ = ("_event", "_failure")

    def __init__(self) -> None:
        self._event = anyio.Event()
        self._failure: StoreUnavailable | None = None

    def wake(self) -> None:
        """A message came on the channel."""
        self._event.set()

    def fail(self, error: StoreUnavailable) -> None:
        """The subscription is gone (its connection failed, or the store closed)."""
        self._failure = error
        self._event.set()

    def check(self) -> None:
        """Raise the failure, if the subscription failed.

        Raises:
            StoreUnavailable: If it did.
        """
        if self._failure is not None:
            raise self._failure

    async def wait(self, timeout: float) -> bool:
        """Wait for the next message on the channel, at most `timeout` seconds.

        Returns:
            Whether a message came (False: the timeout passed).

        Raises:
            StoreUnavailable: If the subscription failed.
        """
        with anyio.move_on_after(timeout):
            await self._event.wait()
        self.check()
        woken = self._event.is_set()
        if woken:
            self._event = anyio.Event()
        return woken


class Subscriber(Protocol):
    """Subscribes the waits of one store to their channels: one subscription per channel, shared.

    `RedisStore` uses `PubSubSubscriber` (one pub/sub connection for every channel). A Redis
    Cluster's sharded pub/sub (SSUBSCRIBE, a connection per shard) can take its place.
    """

    def watch(self, channel: str, namespace: str) -> AbstractAsyncContextManager[Watch]:
        """Be woken by the messages on `channel` inside the block (subscribed once it is entered).

        Args:
            channel: The channel.
            namespace: What the key behind the channel protects (for error messages).

        Raises:
            StoreUnavailable: If the subscription could not be made in time (on entering).
        """
        ...

    async def aclose(self) -> None:
        """Fail every watch still open and close the connection."""
        ...


class _Channel:
    """One subscribed channel: its watches, and whether Redis has confirmed the subscription."""

    __slots__ = ("namespace", "ready", "watches")

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.watches: set[Watch] = set()
        self.ready = anyio.Event()


class PubSubSubscriber:
    """A `Subscriber` on one plain pub/sub connection of its own (not from the commands' pool).

    The first watch of a channel sends `SUBSCRIBE` and waits for Redis to confirm it; the last
    one to leave sends `UNSUBSCRIBE`. A reader task runs while any channel is subscribed and
    wakes the watches of each message's channel. If the connection fails, every watch open
    fails with `StoreUnavailable` and the next watch connects afresh. Its channel map holds
    the channels waited on right now, nothing else.
    """

    def __init__(
        self, connect: Callable[[], Any], *, where: str, timeout: float, sharded: bool = False
    ) -> None:
        """Build it; nothing connects until the first watch.

        Args:
            connect: Makes a fresh `redis.asyncio` `PubSub` on a connection of its own.
            where: How messages name the store (no credentials).
            timeout: Seconds a subscription may take to be confirmed.
            sharded: Use a cluster's sharded pub/sub (`SSUBSCRIBE`, `SUNSUBSCRIBE`) on a
                connection to the master that owns the channels' slots.
        """
        self._connect = connect
        self._sharded = sharded
        self._where = where
        self._timeout = timeout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._channels: dict[str, _Channel] = {}
        self._dropped: set[str] = set()
        self._lock = asyncio.Lock()

    @asynccontextmanager
    async def watch(self, channel: str, namespace: str) -> AsyncGenerator[Watch, None]:
        """Be woken by the messages on `channel` inside the block (see `Subscriber.watch`).

        Raises:
            StoreUnavailable: If the subscription failed or was not confirmed in time.
        """
        self._adopt_loop()
        watch = Watch()
        entry = self._channels.get(channel)
        first = entry is None
        if entry is None:
            entry = self._channels[channel] = _Channel(namespace)
        entry.watches.add(watch)
        try:
            if first:  # shielded (and bounded): the watches that join it rely on it
                with anyio.CancelScope(shield=True):
                    await self._subscribe(channel)
            with anyio.move_on_after(self._timeout):
                await entry.ready.wait()
            if not entry.ready.is_set():
                await self._fail(f"no answer within {self._timeout:g} s")
            watch.check()
            yield watch
        finally:
            entry.watches.discard(watch)
            if not entry.watches and self._channels.get(channel) is entry:
                del self._channels[channel]
                await self._unsubscribe(channel)

    async def aclose(self) -> None:
        """Fail every watch still open and close the connection (see `Subscriber.aclose`)."""
        if self._loop is not None and self._loop is asyncio.get_running_loop():
            await self._fail("the store was closed")

    def _adopt_loop(self) -> None:
        """Start afresh in a new event loop: what the old one held died with it."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop = loop
            self._pubsub = None
            self._reader = None
            self._channels = {}
            self._dropped = set()
            self._lock = asyncio.Lock()

    async def _subscribe(self, channel: str) -> None:
        """Send `SUBSCRIBE` (connecting first if needed) and make sure a reader runs; fail all if it fails."""
        try:
            with anyio.fail_after(self._timeout):
                async with self._lock:
                    if self._pubsub is None:
                        self._pubsub = self._connect()
                    pubsub = self._pubsub
                    await (pubsub.ssubscribe if self._sharded else pubsub.subscribe)(channel)
        except TimeoutError:
            await self._fail(f"no answer within {self._timeout:g} s")
            return
        except Exception as exc:  # redis' errors, OSError: the server is gone or refused
            await self._fail(type(exc).__name__)
            return
        if self._reader is None and self._pubsub is pubsub:  # (not failed meanwhile)
            self._reader = asyncio.get_running_loop().create_task(self._read(pubsub))

    async def _unsubscribe(self, channel: str) -> None:
        pubsub = self._pubsub
        if pubsub is None or channel in self._dropped:
            self._dropped.discard(channel)  # (moved away: its node unsubscribed it already)
            return
        # Shielded and bounded; if it fails, the reader meets the broken connection.
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(self._timeout),
            contextlib.suppress(Exception),
        ):
            async with self._lock:
                await (pubsub.sunsubscribe if self._sharded else pubsub.unsubscribe)(channel)

    async def _read(self, pubsub: Any) -> None:
        """Wake the watches of each message's channel while any channel is subscribed."""
        try:
            while self._pubsub is pubsub:
                if not self._channels:  # idle: the next watch starts a new reader
                    self._reader = None
                    return
                message = await pubsub.get_message(timeout=REREAD_SECONDS)
                if message is not None:
                    self._deliver(message)
        except Exception as exc:  # the connection failed for good (redis-py retried already)
            if self._pubsub is pubsub:
                self._reader = None
                await self._fail(type(exc).__name__)

    def _deliver(self, message: dict[str, Any]) -> None:
        raw = message.get("channel")
        channel = raw.decode() if isinstance(raw, bytes) else str(raw)
        entry = self._channels.get(channel)
        if entry is None:
            return
        kind = message.get("type")
        if kind in ("subscribe", "ssubscribe"):
            entry.ready.set()
        elif kind in ("message", "smessage"):
            for watch in entry.watches:
                watch.wake()
        elif kind == "sunsubscribe" and entry.ready.is_set():
            # Not asked for: the channel's slot moved to another node, which unsubscribed it.
            # Its waits still end: each re-reads its key at least every REREAD_SECONDS.
            self._dropped.add(channel)

    async def _fail(self, cause: str) -> None:
        """Fail every open watch with `StoreUnavailable` and drop the connection."""
        channels, self._channels = self._channels, {}
        self._dropped = set()
        for entry in channels.values():
            for watch in entry.watches:
                error = StoreUnavailable.during(
                    "wait", store=self._where, namespace=entry.namespace, cause=cause, timeout=self._timeout
                )
                watch.fail(error)
            entry.ready.set()
        pubsub, self._pubsub = self._pubsub, None
        reader, self._reader = self._reader, None
        with anyio.CancelScope(shield=True):
            if reader is not None and reader is not asyncio.current_task():
                reader.cancel()
                await asyncio.wait({reader}, timeout=self._timeout)
            if pubsub is not None:
                with anyio.move_on_after(self._timeout), contextlib.suppress(Exception):
                    await pubsub.aclose()
                    await pubsub.connection_pool.disconnect()


class ShardedSubscriber:
    """A `Subscriber` on a Redis Cluster: sharded pub/sub, one connection per master in use.

    A channel lives in the slot of its key (the same hash tag), so the message `put` sends
    with `SPUBLISH` goes to one master only, and the wait for it subscribes with `SSUBSCRIBE`
    on a connection to that master: one `PubSubSubscriber` per master whose slots are waited
    on, each holding ONE connection of its own (never one from the cluster's pools). If a
    master fails, the waits on its channels fail with `StoreUnavailable`; if a slot moves to
    another master, that master unsubscribes the channel and its waits in progress find
    their value by re-reading it (at least every `REREAD_SECONDS`); the next wait on it
    subscribes on the new owner.
    """

    def __init__(self, cluster: Any, *, where: str, timeout: float) -> None:
        """Build it; nothing connects until the first watch.

        Args:
            cluster: The `redis.asyncio.RedisCluster` whose slot map routes the channels.
            where: How messages name the store (no credentials).
            timeout: Seconds a subscription may take to be confirmed.
        """
        self._cluster = cluster
        self._where = where
        self._timeout = timeout
        self._nodes: dict[str, PubSubSubscriber] = {}

    @asynccontextmanager
    async def watch(self, channel: str, namespace: str) -> AsyncGenerator[Watch, None]:
        """Be woken by the messages on `channel` inside the block (see `Subscriber.watch`).

        Raises:
            StoreUnavailable: If the cluster's slot map could not be read, or the
                subscription failed or was not confirmed in time.
        """
        try:
            with anyio.fail_after(self._timeout):
                await self._cluster.initialize()  # (at once when the slot map is known)
            node = self._cluster.get_node_from_key(channel)
        except TimeoutError:
            cause = f"no answer within {self._timeout:g} s"
        except Exception as exc:  # redis' errors, OSError: no node reachable, slot not covered
            cause = type(exc).__name__
        else:
            subscriber = self._nodes.get(node.name)
            if subscriber is None:
                subscriber = self._nodes[node.name] = PubSubSubscriber(
                    _node_pubsub(node), where=self._where, timeout=self._timeout, sharded=True
                )
            async with subscriber.watch(channel, namespace) as watch:
                yield watch
            return
        raise StoreUnavailable.during(
            "wait", store=self._where, namespace=namespace, cause=cause, timeout=self._timeout
        )

    async def aclose(self) -> None:
        """Fail every watch still open and close each master's connection."""
        for subscriber in self._nodes.values():
            await subscriber.aclose()


_POOL_OWN: Final = frozenset(
    {
        "himport_registry",
        "maint_notifications_pool_handler",
        "oss_cluster_maint_notifications_handler",
        "event_dispatcher",
    }
)


def _own_pool(connection_class: Any, connection_kwargs: dict[str, Any]) -> Any:
    """A one-connection pool with these connection settings (less what belongs to their old pool)."""
    from redis import asyncio as redis_asyncio

    settings = {
        name: value
        for name, value in connection_kwargs.items()
        if name not in _POOL_OWN and not name.startswith("orig_")
    }
    factory: Any = redis_asyncio.ConnectionPool
    return factory(connection_class=connection_class, max_connections=1, **settings)


def _own_pubsub(client: Any) -> Callable[[], Any]:
    """Makes `PubSub`s on a one-connection pool of their own, with `client`'s connection settings.

    With a Sentinel-managed client, the connection asks Sentinel for the master when it
    connects, as the client's do: after a failover, the next wait subscribes on the new master.
    """

    def connect() -> Any:
        from redis import asyncio as redis_asyncio

        pool = client.connection_pool
        redis: Any = redis_asyncio.Redis
        return redis(connection_pool=_own_pool(pool.connection_class, pool.connection_kwargs)).pubsub()

    return connect


def _node_pubsub(node: Any) -> Callable[[], Any]:
    """Makes `PubSub`s on a one-connection pool of their own to one cluster `node`."""

    def connect() -> Any:
        from redis import asyncio as redis_asyncio

        redis: Any = redis_asyncio.Redis
        return redis(connection_pool=_own_pool(node.connection_class, node.connection_kwargs)).pubsub()

    return connect


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
            else PubSubSubscriber(_own_pubsub(client), where=where, timeout=timeout)
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
            client = _cluster_client(target, timeout=timeout, max_connections=max_connections)
            store = cls(client, prefix=prefix, timeout=timeout, where=target.where, replicas=replicas)
        elif target.kind == "sentinel":
            client, sentinels = _sentinel_client(target, timeout=timeout, max_connections=max_connections)
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


def _tls_settings(target: Target) -> dict[str, Any]:
    if not target.tls:
        return {}
    return {"ssl": True, **target.tls_options}


def _cluster_client(target: Target, *, timeout: float, max_connections: int) -> Any:
    """A `RedisCluster` on the nodes of a `redis+cluster://` URL (nothing connects yet)."""
    from redis.asyncio.cluster import ClusterNode, RedisCluster

    factory: Any = RedisCluster
    node: Any = ClusterNode
    return factory(
        startup_nodes=[node(host, port) for host, port in target.hosts],
        username=target.username,
        password=target.password,
        max_connections=max_connections,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        health_check_interval=30,
        **_tls_settings(target),
    )


def _sentinel_client(target: Target, *, timeout: float, max_connections: int) -> tuple[Any, list[Any]]:
    """The master's client for a `redis+sentinel://` URL, and the sentinels' clients (to close)."""
    from redis.asyncio.sentinel import Sentinel

    factory: Any = Sentinel
    timeouts = {"socket_timeout": timeout, "socket_connect_timeout": timeout}
    sentinel = factory(list(target.hosts), sentinel_kwargs={**timeouts, **_tls_settings(target)})
    client = sentinel.master_for(
        target.service,
        connection_pool_class=_blocking_sentinel_pool(),
        db=target.db,
        username=target.username,
        password=target.password,
        max_connections=max_connections,
        timeout=timeout,
        health_check_interval=30,
        **timeouts,
        **_tls_settings(target),
    )
    return client, list(sentinel.sentinels)


def _blocking_sentinel_pool() -> Any:
    """A Sentinel pool that, like the plain one, waits (within `timeout`) for a free connection."""
    from redis.asyncio import BlockingConnectionPool
    from redis.asyncio.sentinel import SentinelConnectionPool

    class BlockingSentinelConnectionPool(SentinelConnectionPool, BlockingConnectionPool):
        pass

    return BlockingSentinelConnectionPool
