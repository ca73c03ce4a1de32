"""Waking a Redis store's waiters: across connections, one subscriber connection for all, failing in time."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from redis import asyncio as redis_asyncio

import typed_elicit._core.clock as clock
from tests.conftest import BOUND
from tests.stores.test_redis import a_store, own_redis, redis_url  # noqa: F401 (the fixtures)
from typed_elicit.errors import StoreUnavailable
from typed_elicit.stores import RedisStore

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


async def test_a_put_through_one_connection_wakes_a_wait_on_another(
    redis_url,  # noqa: F811
):
    async with a_store("redis", redis_url) as one, a_store("redis", redis_url) as two:
        got: list[bytes | None] = []
        client: Any = redis_asyncio.Redis.from_url(redis_url)
        channel = two._wake  # pyright: ignore[reportPrivateUsage]

        async def waiter() -> None:
            got.append(await two.wait("page:x", 30))

        try:
            with anyio.fail_after(BOUND):
                async with anyio.create_task_group() as group:
                    group.start_soon(waiter)
                    while not dict(await client.pubsub_numsub(channel))[channel.encode()]:
                        await anyio.sleep(0.01)  # until the subscription reached Redis (another connection)
                    assert await one.put("page:x", b"sealed", clock.now() + 60)
        finally:
            await client.aclose()
        assert got == [b"sealed"]


async def test_many_concurrent_waits_on_one_store_use_one_subscriber_connection(
    redis_url,  # noqa: F811
):
    import uuid

    name = f"te-test-{uuid.uuid4().hex[:12]}"
    keys = [f"page:k{i}" for i in range(5)]
    store = CountingGets(redis_url, name, expected=40)
    client: Any = redis_asyncio.Redis.from_url(redis_url)
    got: list[bytes | None] = []

    async def waiter(key: str) -> None:
        got.append(await store.wait(key, 30))

    try:
        with anyio.fail_after(BOUND):
            async with anyio.create_task_group() as group:
                for n in range(40):  # 8 waits on each of 5 keys
                    group.start_soon(waiter, keys[n % 5])
                await store.all_read.wait()  # every waiter is subscribed and has read its key once
                assert await subscribers(client, name) == 1
                channel = store._wake  # pyright: ignore[reportPrivateUsage]
                assert channel == f"test:wake:{redis_url.rpartition('/')[2]}"  # (this test's database)
                assert dict(await client.pubsub_numsub(channel)) == {channel.encode(): 1}
                for key in keys:
                    assert await store.put(key, b"sealed-" + key.encode(), clock.now() + 60)
        assert sorted(got) == sorted(b"sealed-" + keys[n % 5].encode() for n in range(40))
        channels = store._subscriber._channels  # pyright: ignore[reportPrivateUsage]
        assert list(channels) == [channel]  # subscribed still, for the next wait ...
        assert channels[channel].watches == {}  # ... and no key is held
    finally:
        await store.aclose()
        await client.aclose()


async def test_the_subscription_goes_once_no_one_has_waited_for_a_while(
    redis_url,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
):
    import uuid

    from typed_elicit.stores import _redis_waits

    monkeypatch.setattr(_redis_waits, "LINGER_SECONDS", 0.0)
    name = f"te-test-{uuid.uuid4().hex[:12]}"
    store = CountingGets(redis_url, name, expected=1)
    client: Any = redis_asyncio.Redis.from_url(redis_url)
    try:
        with anyio.fail_after(BOUND):
            assert await store.wait("page:gone", 0.01) is None
            channels = store._subscriber._channels  # pyright: ignore[reportPrivateUsage]
            while channels or await subscribers(client, name):  # (polled: the reader lets it go)
                await anyio.sleep(0.01)
            assert await store.put("page:gone", b"sealed", clock.now() + 60)
            assert await store.wait("page:gone", 30) == b"sealed"  # the next wait subscribes again
    finally:
        await store.aclose()
        await client.aclose()


async def test_closing_the_store_fails_the_waits_in_progress_with_a_typed_error(
    redis_url,  # noqa: F811
):
    store = CountingGets(redis_url, "te-test-closing", expected=3)
    failures: list[StoreUnavailable] = []

    async def waiter() -> None:
        try:
            await store.wait("page:c", 30)
        except StoreUnavailable as error:
            failures.append(error)

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(waiter)
            await store.all_read.wait()
            await store.aclose()
    assert len(failures) == 3
    assert all(f.operation == "wait" and f.namespace == "page" for f in failures)
    assert "the store was closed" in str(failures[0])


async def test_a_wait_in_progress_when_redis_stops_fails_in_time_and_waits_work_after_a_restart(
    own_redis,  # noqa: F811
):
    url = f"redis://127.0.0.1:{own_redis.port}/0"
    store = CountingGets(url, "te-test-restart", expected=1, timeout=0.5)
    failures: list[StoreUnavailable] = []

    async def waiter() -> None:
        try:
            await store.wait("page:w", 30)
        except StoreUnavailable as error:
            failures.append(error)

    try:
        with anyio.fail_after(BOUND):
            async with anyio.create_task_group() as group:
                group.start_soon(waiter)
                await store.all_read.wait()
                own_redis.stop()
        assert len(failures) == 1
        assert failures[0].namespace == "page"
        own_redis.start()
        got: list[bytes | None] = []
        with anyio.fail_after(BOUND):
            while not got:  # the first operations after the restart may still meet the dead connections
                try:
                    async with anyio.create_task_group() as group:

                        async def wait_again() -> None:
                            got.append(await store.wait("page:w2", 30))

                        group.start_soon(wait_again)
                        await anyio.wait_all_tasks_blocked()
                        await store.put("page:w2", b"sealed", clock.now() + 60)
                except StoreUnavailable:
                    continue
                except BaseException as group_error:  # anyio wraps a task's error in a group
                    inner = getattr(group_error, "exceptions", ())
                    if not inner or not all(isinstance(e, StoreUnavailable) for e in inner):
                        raise
        assert got == [b"sealed"]
    finally:
        await store.aclose()


class CountingGets(RedisStore):
    """A RedisStore on its own named connections, noting each `get` (a waiter reads once it is subscribed)."""

    def __init__(self, url: str, name: str, *, expected: int, timeout: float = 2.0) -> None:
        client: Any = redis_asyncio.Redis.from_url(url, client_name=name)
        super().__init__(client, prefix="test:", timeout=timeout)
        self.gets = 0
        self.expected = expected
        self.all_read = anyio.Event()

    async def get(self, key: str, /) -> bytes | None:
        value = await super().get(key)
        self.gets += 1
        if self.gets >= self.expected:
            self.all_read.set()
        return value


async def subscribers(client: Any, name: str) -> int:
    """How many of the connections named `name` hold a subscription (Redis' own CLIENT LIST)."""
    listed = await client.client_list()
    return sum(1 for entry in listed if entry.get("name") == name and int(entry.get("sub", 0)) > 0)


async def test_a_put_on_another_database_of_the_same_server_never_wakes_a_wait_with_its_value(
    own_redis,  # noqa: F811
):
    # Pub/sub channels are the server's, not a database's: each database has a channel of its own.
    base = f"redis://127.0.0.1:{own_redis.port}"
    waiting = RedisStore.from_url(f"{base}/1", prefix="test:")
    elsewhere = RedisStore.from_url(f"{base}/2", prefix="test:")
    admin: Any = redis_asyncio.Redis.from_url(f"{base}/0")
    got: list[bytes | None] = []

    async def waiter() -> None:
        got.append(await waiting.wait("page:same-name", BOUND))

    try:
        with anyio.fail_after(BOUND):
            async with anyio.create_task_group() as group:
                group.start_soon(waiter)
                while not dict(await admin.pubsub_numsub("test:wake:1"))[b"test:wake:1"]:
                    await anyio.sleep(0.01)  # until the wait subscribed
                assert await elsewhere.put("page:same-name", b"database 2's", clock.now() + 60)
                assert await waiting.put("page:same-name", b"database 1's", clock.now() + 60)
        assert got == [b"database 1's"]
    finally:
        await waiting.aclose()
        await elsewhere.aclose()
        await admin.aclose()
