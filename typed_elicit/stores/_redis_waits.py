"""Waking the waiters of a `RedisStore`: one channel, one subscription, one connection for all.

Every waited value of a store wakes its waiters on one channel (`<prefix>wake`): a message is
the key, a newline, and the value put when it is small enough to carry (`=<value>`). A
replica subscribes when its first waiter comes and stays subscribed while waits come and go,
so a wait costs one `GET` and no `SUBSCRIBE`; the subscription goes once no one has waited
for `LINGER_SECONDS`.

- `PubSubSubscriber`: one plain pub/sub connection of its own (never one from the pool that
  claims and puts use) for every channel waited on; `SSUBSCRIBE` instead on a cluster.
- `ShardedSubscriber`: on a Redis Cluster, one `PubSubSubscriber` per master whose slots are
  waited on.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio

from typed_elicit.errors import StoreUnavailable
from typed_elicit.stores._redis_causes import Cause, cause_of

REREAD_SECONDS: Final = 1.0
"""A wait reads its key at least this often, so a wake-up lost in a reconnect costs at most this."""
CARRIED: Final = b"="
"""After the key and its newline, the start of a value carried (`=<value>`); nothing else there only wakes."""
CARRY_LIMIT: Final = 64 * 1024
"""The largest value a wake-up message carries (every replica subscribed gets it); a larger one is read."""
LINGER_SECONDS: Final = 60.0
"""How long a replica stays subscribed with no one waiting, so the next wait need not subscribe again."""


def wake_message(key: str, value: bytes) -> bytes:
    """The message that wakes the waiters of `key`: with `value` when it is at most `CARRY_LIMIT`."""
    return key.encode() + b"\n" + (CARRIED + value if len(value) <= CARRY_LIMIT else b"")


# --- waking waiters: one subscription, one connection for all ------------------------------------


class Watch:
    """One waiter's watch of a key: woken by each message for it, or failed with the subscription."""

    __slots__ = ("_event", "_failure", "carried")

    def __init__(self) -> None:
        self._event = anyio.Event()
        self._failure: StoreUnavailable | None = None
        self.carried: bytes | None = None
        """The value the last message carried (`=<value>`), or None if it carried none."""

    def wake(self, data: bytes = b"") -> None:
        """A message came for its key, with `data` after the key (`=<value>`, or nothing)."""
        self.carried = data[len(CARRIED) :] if data.startswith(CARRIED) else None
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
        """Wait for the next message for its key, at most `timeout` seconds.

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


class _Channel:
    """One subscribed channel: its watches by key, and whether Redis has confirmed the subscription."""

    __slots__ = ("idle_since", "namespace", "ready", "watches")

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.watches: dict[str, set[Watch]] = {}
        self.ready = anyio.Event()
        self.idle_since: float | None = None
        """When its last watch left (event-loop time); None while any watch is open."""


class PubSubSubscriber:
    """Subscribes the waits of one store to their channel on one plain pub/sub connection of its own.

    One subscription, shared and kept a while, on a connection that is not from the commands' pool.

    The first watch of a channel sends `SUBSCRIBE` and waits for Redis to confirm it; later
    watches join it. A reader task runs while any channel is subscribed and wakes the
    watches of each message's key; it sends `UNSUBSCRIBE` once a channel has had no watch for
    `LINGER_SECONDS`. If the connection fails, every watch open fails with `StoreUnavailable`
    and the next watch connects afresh. Its channel map holds the channels waited on lately
    (one per store), and each the keys waited on right now, nothing else.
    """

    def __init__(
        self,
        connect: Callable[[], Any],
        *,
        where: str,
        timeout: float,
        moved: Callable[[Exception], Awaitable[None]] | None = None,
    ) -> None:
        """Build it; nothing connects until the first watch.

        Args:
            connect: Makes a fresh `redis.asyncio` `PubSub` on a connection of its own.
            where: How messages name the store (no credentials).
            timeout: Seconds a subscription may take to be confirmed.
            moved: On a cluster: use sharded pub/sub (`SSUBSCRIBE`, `SUNSUBSCRIBE`) on a
                connection to the master that owns the channels' slots, and learn from each
                `MOVED` or `ASK` reply to a subscription (the slot left that master) with this.
        """
        self._connect = connect
        self._moved = moved
        self._sharded = moved is not None
        self._where = where
        self._timeout = timeout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._channels: dict[str, _Channel] = {}
        self._lock = asyncio.Lock()

    @asynccontextmanager
    async def watch(self, channel: str, key: str, namespace: str) -> AsyncGenerator[Watch, None]:
        """Be woken by the messages for `key` on `channel` inside the block (subscribed once it is entered).

        Args:
            channel: The channel.
            key: The key waited for (a message names it first).
            namespace: What the key protects (for error messages).

        Raises:
            StoreUnavailable: If the subscription failed or was not confirmed in time.
        """
        self._adopt_loop()
        watch = Watch()
        entry = self._channels.get(channel)
        first = entry is None
        if entry is None:
            entry = self._channels[channel] = _Channel(namespace)
        entry.watches.setdefault(key, set()).add(watch)
        entry.idle_since = None
        try:
            if first:  # shielded (and bounded): the watches that join it rely on it
                with anyio.CancelScope(shield=True):
                    await self._subscribe(channel)
            with anyio.move_on_after(self._timeout):
                await entry.ready.wait()
            if not entry.ready.is_set():
                await self._fail(Cause(f"no answer within {self._timeout:g} s"))
            watch.check()
            yield watch
        finally:
            watches = entry.watches.get(key, set())
            watches.discard(watch)
            if not watches:
                entry.watches.pop(key, None)
            if not entry.watches:  # subscribed still: the reader lets it go once idle long enough
                entry.idle_since = anyio.current_time()

    def subscribed(self, channel: str) -> bool:
        """Whether `channel` is subscribed now, in this event loop (a watch of it needs no `SUBSCRIBE`)."""
        entry = self._channels.get(channel)
        return entry is not None and entry.ready.is_set() and self._loop is asyncio.get_running_loop()

    async def aclose(self) -> None:
        """Fail every watch still open and close the connection."""
        if self._loop is not None and self._loop is asyncio.get_running_loop():
            await self._fail(Cause("the store was closed"))

    def _adopt_loop(self) -> None:
        """Start afresh in a new event loop: what the old one held died with it."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop = loop
            self._pubsub = None
            self._reader = None
            self._channels = {}
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
        except Exception as exc:  # TimeoutError, redis' errors, OSError: the server is gone or refused
            if not await self._slot_moved(exc):
                await self._fail(cause_of(exc, timeout=self._timeout))
            return
        if self._reader is None and self._pubsub is pubsub:  # (not failed meanwhile)
            self._reader = asyncio.get_running_loop().create_task(self._read(pubsub))

    async def _unsubscribe(self, channel: str) -> None:
        pubsub = self._pubsub
        if pubsub is None:
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
        """Wake the watches of each message's key while any channel is subscribed; let idle ones go."""
        try:
            while self._pubsub is pubsub:
                await self._let_idle_go()
                if not self._channels:  # idle: the next watch starts a new reader
                    self._reader = None
                    return
                try:
                    message = await pubsub.get_message(timeout=REREAD_SECONDS)
                except Exception as exc:
                    if await self._slot_moved(exc):
                        continue
                    raise
                if message is not None:
                    self._deliver(message)
        except Exception as exc:  # the connection failed for good (redis-py retried already)
            if self._pubsub is pubsub:
                self._reader = None
                await self._fail(cause_of(exc, timeout=self._timeout))

    async def _slot_moved(self, error: Exception) -> bool:
        """Whether `error` is a cluster's `MOVED` or `ASK` reply to a subscription; if so, let it go.

        The channel's slot left this master (resharding), as when a master unsubscribes a moved
        slot itself: the channels not yet confirmed are let go without failing their watches
        (each wait re-reads its key at least every `REREAD_SECONDS`), and the cluster's slot map
        learns the new owner, where the next wait subscribes.
        """
        from redis.exceptions import AskError  # (MovedError is one)

        if self._moved is None or not isinstance(error, AskError):
            return False
        for channel, entry in list(self._channels.items()):
            if not entry.ready.is_set():
                del self._channels[channel]
                entry.ready.set()
        with contextlib.suppress(Exception):  # (a slot map that cannot learn it is read afresh later)
            await self._moved(error)
        return True

    async def _let_idle_go(self) -> None:
        """Unsubscribe the channels no one has waited on for `LINGER_SECONDS`."""
        now = anyio.current_time()
        for channel, entry in list(self._channels.items()):
            if entry.idle_since is not None and now - entry.idle_since >= LINGER_SECONDS:
                del self._channels[channel]
                await self._unsubscribe(channel)

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
            data = message.get("data")
            key, _, rest = data.partition(b"\n") if isinstance(data, bytes) else (b"", b"", b"")
            for watch in entry.watches.get(key.decode(errors="replace"), ()):
                watch.wake(rest)
        elif kind == "sunsubscribe" and entry.ready.is_set():
            # Not asked for: the channel's slot moved to another node, which unsubscribed it.
            # Its waits still end (each re-reads its key at least every REREAD_SECONDS); the
            # next wait subscribes again, on the slot's new owner.
            del self._channels[channel]

    async def _fail(self, cause: Cause) -> None:
        """Fail every open watch with `StoreUnavailable` and drop the connection."""
        channels, self._channels = self._channels, {}
        for entry in channels.values():
            for watch in (watch for watches in entry.watches.values() for watch in watches):
                watch.fail(
                    cause.unavailable(
                        "wait", store=self._where, namespace=entry.namespace, timeout=self._timeout
                    )
                )
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
    """A `PubSubSubscriber` per master of a Redis Cluster: sharded pub/sub, one connection per master in use.

    The store's channel lives in one slot, so the message `put` sends with `SPUBLISH` goes to
    one master only, and a wait subscribes with `SSUBSCRIBE` on a connection to that master:
    one `PubSubSubscriber` per master whose channel is waited on, each holding ONE connection
    of its own (never one from the cluster's pools). If a master fails, the waits on its
    channel fail with `StoreUnavailable`; if the channel's slot moves to another master, that
    master unsubscribes it (or answers a subscription with `MOVED`) and the waits in progress
    find their value by re-reading it (at least every `REREAD_SECONDS`); the next wait
    subscribes on the new owner.
    """

    def __init__(
        self, cluster: Any, *, where: str, timeout: float, discover: Callable[[], Awaitable[None]]
    ) -> None:
        """Build it; nothing connects until the first watch.

        Args:
            cluster: The `redis.asyncio.RedisCluster` whose slot map routes the channels.
            where: How messages name the store (no credentials).
            timeout: Seconds a subscription may take to be confirmed.
            discover: Learns the cluster's slot map if it is not known (the store's shared
                discovery, bounded apart from the subscription's `timeout`).
        """
        self._cluster = cluster
        self._discover = discover
        self._where = where
        self._timeout = timeout
        self._nodes: dict[str, PubSubSubscriber] = {}

    @asynccontextmanager
    async def watch(self, channel: str, key: str, namespace: str) -> AsyncGenerator[Watch, None]:
        """Be woken by the messages for `key` on `channel` inside the block (see `PubSubSubscriber.watch`).

        Raises:
            StoreUnavailable: If the cluster's slot map could not be read, or the
                subscription failed or was not confirmed in time.
        """
        try:
            await self._discover()  # (at once when the slot map is known)
            node = self._cluster.get_node_from_key(channel)
        except Exception as exc:  # TimeoutError, redis' errors, OSError: no node reachable, slot not covered
            raise cause_of(exc, timeout=self._timeout).unavailable(
                "wait", store=self._where, namespace=namespace, timeout=self._timeout
            ) from None
        subscriber = self._nodes.get(node.name)
        if subscriber is None:
            subscriber = self._nodes[node.name] = PubSubSubscriber(
                own_pubsub(node), where=self._where, timeout=self._timeout, moved=self._slot_moved
            )
        async with subscriber.watch(channel, key, namespace) as watch:
            yield watch

    async def _slot_moved(self, error: Exception) -> None:
        """Tell the cluster's slot map where a subscription's `MOVED` or `ASK` reply says the slot is."""
        await self._cluster.nodes_manager.move_slot(error)

    def subscribed(self, channel: str) -> bool:
        """Whether `channel` is subscribed now on any master (a watch of it needs no `SUBSCRIBE`)."""
        return any(subscriber.subscribed(channel) for subscriber in self._nodes.values())

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


def own_pubsub(source: Any) -> Callable[[], Any]:
    """Makes `PubSub`s on a one-connection pool of their own, with `source`'s connection settings.

    `source` is a client's connection pool, or one cluster node. With a Sentinel-managed
    client's pool, the connection asks Sentinel for the master when it connects, as the
    client's do: after a failover, the next wait subscribes on the new master. What belongs
    to the old pool is left out of the settings.
    """

    def connect() -> Any:
        from redis import asyncio as redis_asyncio

        settings = {
            name: value
            for name, value in source.connection_kwargs.items()
            if name not in _POOL_OWN and not name.startswith("orig_")
        }
        pool: Any = redis_asyncio.ConnectionPool
        redis: Any = redis_asyncio.Redis
        own = pool(connection_class=source.connection_class, max_connections=1, **settings)
        return redis(connection_pool=own).pubsub()

    return connect
