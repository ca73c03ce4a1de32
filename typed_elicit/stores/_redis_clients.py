"""The redis-py clients a cluster or Sentinel store URL names (nothing connects when they are built)."""

from __future__ import annotations

from typing import Any

from typed_elicit.stores._redis_urls import Target


def _tls_settings(target: Target) -> dict[str, Any]:
    if not target.tls:
        return {}
    return {"ssl": True, **target.tls_options}


def cluster_client(target: Target, *, timeout: float, max_connections: int) -> Any:
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


def sentinel_client(target: Target, *, timeout: float, max_connections: int) -> tuple[Any, list[Any]]:
    """The master's client for a `redis+sentinel://` URL, and the sentinels' clients (to close)."""
    from redis.asyncio.retry import Retry
    from redis.asyncio.sentinel import Sentinel
    from redis.backoff import NoBackoff

    factory: Any = Sentinel
    timeouts = {"socket_timeout": timeout, "socket_connect_timeout": timeout}
    # No retries on a sentinel: redis-py would ask again and again (with a backoff) one that refuses
    # us, until the operation's timeout, and the cause would be lost; the next sentinel is asked
    # instead, and an operation with no sentinel to answer fails at once, its cause named.
    once: Any = Retry(NoBackoff(), 0)
    sentinel = factory(
        list(target.hosts), sentinel_kwargs={**timeouts, **_tls_settings(target), "retry": once}
    )
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
