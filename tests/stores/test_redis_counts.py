"""What a `RedisStore` sends, counted by Redis itself (`INFO commandstats` of the test's own `redis-server`).

Puts of values nothing waits for publish nothing, a wake-up carries the value put, a wait for
a value stored already subscribes to nothing, the keys of one question are read in one `MGET`,
and a whole page question (with a file, on 2025-11-25 and on 2026-07-28) stays within its count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

import typed_elicit._core.clock as clock
from tests.conftest import BOUND
from tests.stores import redis_procs
from typed_elicit.stores import RedisStore
from typed_elicit.stores._redis_waits import CARRY_LIMIT, wake_message

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[redis_procs.Proc]:
    redis_procs.require_redis_server()
    with redis_procs.processes() as started:
        proc = redis_procs.plain(tmp_path_factory.mktemp("counts"))
        started.append(proc)
        proc.start()
        yield proc


@pytest.fixture(scope="module")
def admin(server: redis_procs.Proc) -> Any:
    """The test's own connection, made once (its HELLO is not counted in the tests)."""
    return server.client(decode_responses=True)


def url(server: redis_procs.Proc) -> str:
    return f"redis://127.0.0.1:{server.port}/0"


def calls(admin: Any) -> Counter[str]:
    """Calls per command so far (the test's own INFO left out)."""
    stats: dict[str, Any] = admin.info("commandstats")
    return Counter(
        {
            name.removeprefix("cmdstat_"): int(entry["calls"])
            for name, entry in stats.items()
            if not name.startswith(("cmdstat_info", "cmdstat_config"))
        }
    )


async def test_values_nothing_waits_for_are_put_without_a_publish(server, admin):
    store = RedisStore.from_url(url(server), prefix="counts:")
    expires = clock.now() + 60
    with anyio.fail_after(BOUND):
        await store.get("page:warm")  # (connected)
        before = calls(admin)
        for key in ("page-ticket:a", "page-kept:a"):
            assert await store.put(key, b"sealed", expires)
        assert calls(admin) - before == Counter({"set": 2})
        assert await store.put("page:a", b"sealed", expires)
        assert calls(admin) - before == Counter({"set": 3, "publish": 1})
    await store.aclose()


async def test_a_wait_reads_once_and_only_a_replicas_first_wait_subscribes(server, admin):
    store = RedisStore.from_url(url(server), prefix="counts:")
    with anyio.fail_after(BOUND):
        assert await store.put("page:b", b"sealed", clock.now() + 60)
        await store.get("page:warm")  # (connected)
        before = calls(admin)
        assert await store.wait("page:a-missing", 0.01) is None  # the first: read, subscribe, read
        first = calls(admin) - before
        # (A wait that times out may read once more as it ends, on a busy machine.)
        assert first["subscribe"] == 1
        assert first["get"] >= 2
        assert set(first) <= {"get", "subscribe", "hello", "ping", "client|setinfo"}  # (its connection made)
        before = calls(admin)
        assert await store.wait("page:b", 30) == b"sealed"  # the subscription stays: one GET
        assert calls(admin) - before == Counter({"get": 1})
    await store.aclose()


async def test_a_woken_wait_takes_the_value_its_message_carries_without_reading_again(server, admin):
    waiting = RedisStore.from_url(url(server), prefix="counts:")
    putting = RedisStore.from_url(url(server), prefix="counts:")
    got: list[bytes | None] = []

    async def waiter() -> None:
        got.append(await waiting.wait("page:c", 30))

    with anyio.fail_after(BOUND):
        await putting.get("page:warm")
        assert await waiting.wait("page:warm", 0.01) is None  # (subscribed: its first wait)
        before = calls(admin)
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            while not admin.execute_command("PUBSUB", "NUMSUB", "counts:wake")[1]:
                await anyio.sleep(0.01)  # (a condition polled: the subscription reaches Redis)
            assert await putting.put("page:c", b"sealed", clock.now() + 60)
    assert got == [b"sealed"]
    # The waiter read once, subscribed; the message carried the value: no second GET.
    assert (calls(admin) - before)["get"] == 1
    await waiting.aclose()
    await putting.aclose()


async def test_a_wake_up_without_a_value_still_ends_the_wait_with_the_value_read(server, admin):
    store = RedisStore.from_url(url(server), prefix="counts:")
    got: list[bytes | None] = []

    async def waiter() -> None:
        got.append(await store.wait("page:d", 30))

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            while not admin.execute_command("PUBSUB", "NUMSUB", "counts:wake")[1]:
                await anyio.sleep(0.01)
            admin.publish("counts:wake", b"page:other\n=not this one")  # another key's: no wake-up
            admin.set("counts:page:d", b"x" * (CARRY_LIMIT + 1), px=60_000)
            admin.publish("counts:wake", b"page:d\n")  # what a put of a value too large to carry sends
    assert got == [b"x" * (CARRY_LIMIT + 1)]
    await store.aclose()


async def test_a_value_too_large_to_carry_wakes_its_waiter_who_reads_it(server, admin):
    waiting = RedisStore.from_url(url(server), prefix="counts:")
    putting = RedisStore.from_url(url(server), prefix="counts:")
    large = b"s" * (CARRY_LIMIT + 1)
    got: list[bytes | None] = []

    async def waiter() -> None:
        got.append(await waiting.wait("page:f", 30))

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            while not admin.execute_command("PUBSUB", "NUMSUB", "counts:wake")[1]:
                await anyio.sleep(0.01)
            assert await putting.put("page:f", large, clock.now() + 60)
    assert got == [large]  # woken by a message without it, then read
    assert wake_message("page:f", large) == b"page:f\n"
    assert wake_message("page:f", b"small") == b"page:f\n=small"
    await waiting.aclose()
    await putting.aclose()


async def test_the_keys_of_one_question_are_read_in_one_mget(server, admin):
    store = RedisStore.from_url(url(server), prefix="counts:")
    with anyio.fail_after(BOUND):
        assert await store.put("page-ticket:e", b"ticket", clock.now() + 60)
        before = calls(admin)
        assert await store.get_many("page-ticket:e", "page:e") == [b"ticket", None]
        assert calls(admin) - before == Counter({"mget": 1})
    await store.aclose()


@pytest.mark.parametrize(
    ("era", "with_file", "most"),
    [("2025-11-25", True, 12), ("2026-07-28", True, 12), ("2025-11-25", False, 9), ("2026-07-28", False, 9)],
)
def test_a_page_question_answered_end_to_end_stays_within_its_commands(
    server: redis_procs.Proc,
    admin: Any,
    era: str,
    with_file: bool,
    most: int,
    monkeypatch: pytest.MonkeyPatch,
):
    # A wait re-reads its key every second: not within a question answered at once, however slow
    # the machine.
    monkeypatch.setattr("typed_elicit.stores._redis.REREAD_SECONDS", 60.0)
    # Before: 17 and 22 with a file, 13 and 18 without (8 GETs, 3 PUBLISHes, ... on 2025-11-25).
    from tests.bench.redis_counts import count

    (counted,) = count("single", url(server), [admin], 3, eras=(era,), files=(with_file,), warmup=2)
    assert 0 < counted.per_question <= most, counted.commands
    assert counted.connections == 0  # no reconnects
