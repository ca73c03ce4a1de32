"""`RedisStore`: the `Store` several replicas share, on Redis (the `redis` extra).

- `claim`: `SET key <random value> NX PXAT <expiry>`: atomic, exactly one of concurrent
  claims wins; the value tells a claim whose reply was lost whether it won, and a claim
  whose outcome stays unknown is marked abandoned (`_redis_claims`).
- `put`: the same `SET NX PXAT` with the sealed value, then `PUBLISH` on the store's wake-up
  channel when it was stored, so a replica waiting for it wakes up; the message names the key
  and carries the value (up to 64 KiB), so the waiter needs no `GET`. A value nothing waits
  for (a page's ticket, an answer a call holds: `UNWAITED`) is put without a `PUBLISH`.
- `get`: `GET`; `get_many`: one `MGET` (on a cluster, the keys of one question share a slot);
  `delete`: `DEL` (best effort: a value it cannot delete expires anyway).
- `wait`: be subscribed to the store's channel (once: the subscription stays while waits
  come and go; the first wait reads before it subscribes), then `GET` (a value stored already
  costs nothing more), then wait for a message for the key (or the timeout): the value it
  carries, else `GET` again.

Waits never take a connection from the pool that claims and puts use: every wait of one
`RedisStore` goes through its one subscriber (`_redis_waits`), which holds ONE pub/sub
connection of its own, subscribes to the store's channel when its first waiter comes and
unsubscribes once no one has waited for a minute. However many waits there are, they cost one
connection and one subscription (on a cluster, `SPUBLISH` and `SSUBSCRIBE` on the master of
the channel's slot).

The URL forms (one Redis, a cluster, Sentinel; TLS, ACL users) are read in `_redis_urls`, and
the cluster and Sentinel clients built in `_redis_clients`.

Every key and channel starts with a prefix (`typed_elicit:` unless given), every key
expires, and every command is bounded by `timeout` seconds: a Redis that is down or
slow fails the call in progress with `StoreUnavailable`, never hangs it. Two steps are
bounded apart, each by its own time, so that they never eat a command's `timeout`:

- on a cluster, learning the slot map (the first operation, and the first after a node
  failed or slots moved): one shared discovery for all operations, `DISCOVERY_TIMEOUTS`
  times `timeout` at most;
- after a claim whose outcome is unknown (its reply lost), marking it abandoned: `timeout`
  at most. The call is refused either way; the mark lets a retry of the same round or
  token claim it (`StoreUnavailable.claimed == "no"`) instead of being refused as
  already used.

A failure is named (`_redis_causes`): a refused password, a certificate from another CA,
a TLS URL on a plain port (asked in plain text once half the timeout has passed without
an answer), sentinels that want a password of their own.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

import anyio

from typed_elicit._core import clock as _clock
from typed_elicit._core.foreign import slot_map_unknown
from typed_elicit.errors import StoreUnavailable, StoreUrlError
from typed_elicit.errors._server_state import ClaimLeft, StoreOperation
from typed_elicit.stores._redis_causes import Cause, Explained, cause_of, named
from typed_elicit.stores._redis_claims import Unmarked, abandoned_name, take
from typed_elicit.stores._redis_clients import cluster_client, sentinel_client
from typed_elicit.stores._redis_urls import parse_store_url
from typed_elicit.stores._redis_waits import (
    REREAD_SECONDS,
    PubSubSubscriber,
    ShardedSubscriber,
    own_pubsub,
    wake_message,
)

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.asyncio.cluster import RedisCluster

logger = logging.getLogger("typed_elicit.stores")

DEFAULT_PREFIX: Final = "typed_elicit:"
DEFAULT_TIMEOUT: Final = 2.0
"""Seconds each store operation may take before the call fails with `StoreUnavailable`."""
DEFAULT_MAX_CONNECTIONS: Final = 50
UNWAITED: Final = frozenset({"page-ticket", "page-kept"})
"""Namespaces whose values nothing waits for (a page's ticket, an answer a call
holds): a `put` of one sends no `PUBLISH`."""
DISCOVERY_TIMEOUTS: Final = 3
"""Learning a cluster's slot map may take this many `timeout`s (a node that does not answer, the
next one's slot map, the command table), apart from the operation that needs it."""


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
            timeout: Seconds each command may take (on a cluster, learning the slot map has
                its own bound, `DISCOVERY_TIMEOUTS` times this; see the module docstring).
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
        from redis.asyncio.cluster import RedisCluster  # (a client was given: redis is installed)

        self._cluster = cluster = isinstance(client, RedisCluster)
        if replicas < 0 or (replicas and cluster):
            raise ValueError(
                "RedisStore replicas must be 0 or more (the replicas that must acknowledge each "
                "claim), and 0 on a Redis Cluster (WAIT per claim is not offered there)"
            )
        self._subscriber: PubSubSubscriber | ShardedSubscriber
        if isinstance(client, RedisCluster):
            from redis.asyncio.client import PubSub

            if not hasattr(PubSub, "ssubscribe"):  # (the asyncio PubSub before redis-py 8.0)
                raise ImportError(
                    "RedisStore on a Redis Cluster needs redis-py 8.0 or later (sharded pub/sub in its "
                    "asyncio client): pip install 'redis>=8.0'"
                )
            database = 0
            self._subscriber = ShardedSubscriber(
                client, where=where, timeout=timeout, discover=self._discovered
            )
        else:
            database = int(client.connection_pool.connection_kwargs.get("db") or 0)
            self._subscriber = PubSubSubscriber(
                own_pubsub(client.connection_pool), where=where, timeout=timeout
            )
        self._client: Any = client  # redis-py is only partly typed
        self._prefix = prefix
        self._timeout = timeout
        self._where = where
        self._wake = f"{prefix}wake" if database == 0 else f"{prefix}wake:{database}"
        """The store's one wake-up channel: every waited value's message goes there (a channel is
        the server's, not a database's: one on another database carries its number)."""
        self._replicas = replicas
        self._also_close: list[Any] = []
        self._tls_hosts: tuple[tuple[str, int], ...] = ()
        """Where to ask in plain text while no operation has succeeded (a `rediss` URL's hosts)."""
        self._proven = False
        """Whether an operation has succeeded (no plain-text check after that)."""
        self._discovery: asyncio.Task[None] | None = None
        self._unmarked = Unmarked(lambda name, value, expiry: self._mark(name, value, expiry, log=False))

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
            timeout: Seconds each command may take (2 s by default; see `__init__`).
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
        client: Any
        also_close: list[Any] = []
        if target.kind == "cluster":
            client = cluster_client(target, timeout=timeout, max_connections=max_connections)
        elif target.kind == "sentinel":
            client, also_close = sentinel_client(target, timeout=timeout, max_connections=max_connections)
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
            client = factory(connection_pool=pool)
        store = cls(client, prefix=prefix, timeout=timeout, where=target.where, replicas=replicas)
        store._also_close = also_close
        if target.tls:
            store._tls_hosts = target.hosts
        logger.info("RedisStore on %s", target.where)
        return store

    async def claim(self, key: str, expires_at: float, /) -> bool:
        """Record `key` as used; False if it was recorded already (see `Store`).

        The claim writes a random value of its own (see `_redis_claims`): a resend of its
        `SET` whose first reply was lost still counts as this claim, and a claim whose
        outcome stays unknown is marked abandoned, so a retry of the same round or token
        can claim it.

        Raises:
            StoreUnavailable: If Redis did not answer within the timeout, refused the store,
                or (with `replicas`) the claim did not reach that many replicas in time; the
                claim then counts as not made for this call. `claimed` says whether a retry
                of the same round or token can claim it (`"no"`: nothing is left claimed).
        """
        name = self._key(key)
        value = secrets.token_hex(16).encode()
        expiry = self._expiry(expires_at)

        async def mark_own(holder: bytes) -> bool:
            """Mark a claim of this store that could not be marked when it failed (see `Unmarked`)."""
            holder_expiry = self._unmarked.expiry(name, holder)
            if holder_expiry is None:
                return False
            await self._client.set(abandoned_name(name, holder), b"1", pxat=holder_expiry)
            self._unmarked.marked(name, holder)
            return True

        async def taken() -> bool:
            outcome = await take(
                self._client, name, value, lambda link: self._set(link, value, expiry), mark_own
            )
            if outcome == "resent" and self._replicas:  # (its WAIT ran on a connection now gone)
                raise _NotReplicated("the claim was resent, so its replicas could not be counted")
            return outcome != "refused"

        try:
            return bool(
                await self._run("claim", key, taken, abandon=lambda: self._abandon(name, value, expiry))
            )
        except anyio.get_cancelled_exc_class():  # the call was cancelled: never use this claim
            await self._abandon(name, value, expiry)
            raise

    async def put(self, key: str, value: bytes, expires_at: float, /) -> bool:
        """Store `value` unless `key` holds one, and wake its waiters (see `Store.put`).

        Raises:
            StoreUnavailable: If Redis did not answer within the timeout (or, with
                `replicas`, the value did not reach that many replicas in time).
        """
        expiry = self._expiry(expires_at)
        stored = bool(await self._run("put", key, lambda: self._set(self._key(key), value, expiry)))
        if stored and key.partition(":")[0] not in UNWAITED:
            channel, message = self._wake, wake_message(key, value)
            # (SPUBLISH by name: the asyncio cluster client has no `spublish` before redis-py 8.)
            await self._run(
                "put",
                key,
                lambda: (
                    self._client.execute_command("SPUBLISH", channel, message)
                    if self._cluster
                    else self._client.publish(channel, message)
                ),
            )
        return stored

    async def get(self, key: str, /) -> bytes | None:
        """The value under `key`, or None (see `Store.get`).

        Raises:
            StoreUnavailable: If Redis did not answer within the timeout.
        """
        return await self._read("get", key)

    async def get_many(self, *keys: str) -> list[bytes | None]:
        """The values under `keys`, in one `MGET` (on a cluster: keys of one question, one slot).

        Raises:
            StoreUnavailable: If Redis did not answer within the timeout.
        """
        names = [self._key(key) for key in keys]
        values = await self._run("get", keys[0], lambda: self._client.mget(names))
        return [None if value is None else bytes(value) for value in values]

    async def delete(self, key: str, /) -> None:
        """Forget the value under `key` (see `Store.delete`).

        Best effort: if Redis fails or does not answer in time, the failure is logged
        (WARNING, no key) and the value stays until it expires.
        """
        try:
            await self._discovered()
            with anyio.fail_after(self._timeout):
                await self._client.delete(self._key(key))
        except Exception as exc:  # TimeoutError, redis' errors, OSError
            logger.warning(
                "could not delete a %s value from %s (%s); it stays until it expires",
                key.partition(":")[0],
                self._where,
                cause_of(exc, timeout=self._timeout).words,
            )

    async def wait(self, key: str, timeout: float, /) -> bytes | None:
        """The value under `key` once stored, or None after `timeout` seconds (see `Store.wait`).

        Subscribed through the store's one subscriber connection, never the pool's.

        Raises:
            StoreUnavailable: If Redis fails or stops answering while waiting.
        """
        deadline = anyio.current_time() + timeout
        if not self._subscriber.subscribed(self._wake):
            # Read first: a value stored already needs no subscription, and a store that cannot
            # be reached is named by the commands' connection (a TLS mismatch, a refused password).
            value = await self._read("wait", key)
            if value is not None:
                return value
        async with self._subscriber.watch(self._wake, key, key.partition(":")[0]) as watch:
            while True:
                try:
                    value = await self.get(key)
                except StoreUnavailable as error:  # (the wait failed, whichever of its steps did)
                    cause = Cause(error.cause, error.fix)
                    raise cause.unavailable(
                        "wait", store=self._where, namespace=error.namespace, timeout=self._timeout
                    ) from None
                if value is not None:
                    return value
                left = deadline - anyio.current_time()
                if left <= 0:
                    return None
                if await watch.wait(min(left, REREAD_SECONDS)) and watch.carried is not None:
                    return watch.carried

    async def aclose(self) -> None:
        """Close the subscriber connection, then the client and its pool's connections."""
        await self._unmarked.aclose()
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

    async def _read(self, operation: StoreOperation, key: str) -> bytes | None:
        value = await self._run(operation, key, lambda: self._client.get(self._key(key)))
        return None if value is None else bytes(value)

    @staticmethod
    def _expiry(expires_at: float) -> int:
        """`PXAT` in milliseconds; a time already past still stores (and expires at once)."""
        return max(math.ceil(expires_at * 1000), math.ceil(_clock.now() * 1000) + 1)

    async def _set(self, name: str, value: bytes, expiry: int) -> bool:
        """`SET name value NX PXAT expiry` (then `WAIT`, with `replicas`); whether it stored."""
        if not self._replicas:
            return bool(await self._client.set(name, value, nx=True, pxat=expiry))
        pipe = self._client.pipeline(transaction=False)  # SET NX then WAIT on the same connection
        pipe.set(name, value, nx=True, pxat=expiry)
        pipe.wait(self._replicas, max(1, int(self._timeout * 1000 / 2)))
        stored, acknowledged = await pipe.execute()
        if stored and int(acknowledged) < self._replicas:
            raise _NotReplicated(f"{acknowledged} of {self._replicas} replicas acknowledged it in time")
        return bool(stored)

    async def _abandon(self, name: str, value: bytes, expiry: int) -> bool:
        """Mark the claim of `name` with `value` as never to be used; whether the mark was written.

        If it could not be, the store keeps trying (see `Unmarked`).
        """
        if await self._mark(name, value, expiry):
            return True
        self._unmarked.add(name, value, expiry)
        return False

    async def _mark(self, name: str, value: bytes, expiry: int, *, log: bool = True) -> bool:
        """Write the mark that a claim is abandoned: shielded from cancellation, bounded by `timeout`."""
        why = f"no answer within {self._timeout:g} s"
        with anyio.CancelScope(shield=True), anyio.move_on_after(self._timeout):
            try:
                await self._discovered()
                await self._client.set(abandoned_name(name, value), b"1", pxat=expiry)
                return True
            except Exception as exc:  # redis' errors, OSError: the store is still unreachable
                why = cause_of(exc, timeout=self._timeout).words
        if not log:  # (tried again in the background: said once already)
            return False
        logger.warning(
            "could not mark a claim abandoned on %s (%s); until it is, a retry of its round or token "
            "may be refused as already used",
            self._where,
            why,
        )
        return False

    async def _discovered(self) -> None:
        """Learn the cluster's slot map if it is not known (see the module docstring); at once otherwise.

        One discovery at a time, shared by every operation that needs it and not cancelled
        when one of them is; bounded by `DISCOVERY_TIMEOUTS` times `timeout`.

        Raises:
            Explained: If the slot map was not learnt in time, or redis-py failed to learn
                it (no node reachable, slots not covered, ...).
        """
        if not self._cluster or not slot_map_unknown(self._client):
            return
        loop = asyncio.get_running_loop()
        task = self._discovery
        if task is None or task.done() or task.get_loop() is not loop:
            task = self._discovery = loop.create_task(self._discover())
            task.add_done_callback(_retrieved)
        try:
            with anyio.fail_after(self._timeout * DISCOVERY_TIMEOUTS):  # (its clean-up is not waited for)
                await asyncio.shield(task)
        except Exception as exc:  # TimeoutError, redis' errors, OSError
            raise Explained(self._discovery_cause(exc)) from None

    async def _discover(self) -> None:
        with anyio.fail_after(self._timeout * DISCOVERY_TIMEOUTS):
            await self._client.initialize()

    async def _run(
        self,
        operation: StoreOperation,
        key: str,
        command: Callable[[], Awaitable[Any]],
        *,
        abandon: Callable[[], Awaitable[bool]] | None = None,
    ) -> Any:
        """Run one operation's command within the timeout (after discovery, on a cluster).

        Any failure becomes `StoreUnavailable`, with its cause named; a claim that may have
        reached Redis is first marked abandoned (`abandon`).
        """
        cause: Cause
        try:
            await self._discovered()
        except Explained as exc:
            cause = exc.cause
        else:
            try:
                with anyio.fail_after(self._timeout):  # its failure named (`_redis_causes.named`)
                    result = await named(
                        self._client, command, () if self._proven else self._tls_hosts, self._timeout
                    )
                    self._proven = True
                    return result
            except Explained as exc:
                cause = exc.cause
            except _NotReplicated as exc:
                cause = Cause(str(exc))
            except Exception as exc:  # TimeoutError, redis' errors, OSError
                cause = cause_of(exc, timeout=self._timeout)
        claimed: ClaimLeft = "no"
        if abandon is not None and cause.reached:
            claimed = "no" if await abandon() else "maybe"
        raise cause.unavailable(
            operation,
            store=self._where,
            namespace=key.partition(":")[0],
            timeout=self._timeout,
            claimed=claimed,
        ) from None

    def _discovery_cause(self, error: BaseException) -> Cause:
        if isinstance(error, TimeoutError):
            bound = self._timeout * DISCOVERY_TIMEOUTS
            return Cause(f"the cluster's slot map was not learnt within {bound:g} s", reached=False)
        cause = cause_of(error, timeout=self._timeout)
        return Cause(f"the cluster's slot map could not be learnt: {cause.words}", cause.fix, reached=False)


def _retrieved(task: asyncio.Task[None]) -> None:
    """Read a finished discovery's exception, so asyncio does not report it unread (callers got it)."""
    if not task.cancelled():
        task.exception()


class _NotReplicated(Exception):
    """A write the master took but fewer replicas than asked acknowledged within the time."""
