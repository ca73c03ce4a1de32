"""Claims whose reply is lost (issue 27, item 15): never applied twice, and not lost when Redis can say so.

A claim is `SET key <random value> NX`. When its reply is lost (the store's timeout ends the
operation after Redis applied it), the call fails with `StoreUnavailable` and the store marks
that claim abandoned, so a retry of the same round or token can claim it: nothing was applied,
and nothing is lost. Only if the store cannot be reached to mark it does the error say a retry
may be refused. The lost reply is made deterministic: the store's client applies the `SET` and
then never returns, so the store's own deadline ends the claim, however fast the machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from redis import asyncio as redis_asyncio
from redis.exceptions import ConnectionError as RedisConnectionError

import typed_elicit._core.clock as clock
from tests.conftest import BOUND
from tests.stores.test_redis import redis_url  # noqa: F401 (the fixture)
from typed_elicit.errors import StoreUnavailable
from typed_elicit.stores import RedisStore

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


@dataclass
class Lost:
    """What `replies_lost` did: the keys whose claim was applied and its reply lost."""

    keys: list[str] = field(default_factory=list)
    unreachable: bool = False
    """While True, every plain `SET` (the mark that a claim is abandoned) fails as if Redis were gone."""


def replies_lost(store: RedisStore, *, unreachable: bool = False) -> Lost:
    """Make the store's first `SET ... NX` apply and never reply (the store's deadline ends the claim)."""
    client: Any = store._client  # (reached into: the loss must happen after Redis applied the claim)
    original = client.set
    lost = Lost(unreachable=unreachable)

    async def set_then_hang(name: str, value: bytes, **options: Any) -> Any:
        if lost.unreachable and not options.get("nx") and lost.keys:
            raise RedisConnectionError("the store went away")
        result = await original(name, value, **options)
        if options.get("nx") and not lost.keys:
            lost.keys.append(name)
            await anyio.Event().wait()  # the reply never comes: the store's own deadline ends the claim
        return result

    client.set = set_then_hang
    return lost


async def test_a_claim_whose_reply_is_lost_is_marked_abandoned_and_the_same_round_can_be_claimed_once(
    redis_url,  # noqa: F811
):
    store = RedisStore.from_url(redis_url, prefix="test:", timeout=0.3)
    other = RedisStore.from_url(redis_url, prefix="test:")
    raw: Any = redis_asyncio.Redis.from_url(redis_url)
    lost = replies_lost(store)
    with anyio.fail_after(BOUND):
        with pytest.raises(StoreUnavailable) as raised:
            await store.claim("round:r1", clock.now() + 60)
        assert lost.keys == ["test:round:r1"]
        assert await raw.get("test:round:r1") is not None  # Redis applied the claim; its reply was lost
        error = raised.value
        assert (error.operation, error.claimed) == ("claim", "no")
        assert "Nothing was claimed" in str(error)
        assert "may be refused" not in str(error)
        # The retry (the client sends the same round again) claims it, once.
        assert await other.claim("round:r1", clock.now() + 60) is True
        assert await other.claim("round:r1", clock.now() + 60) is False
        assert await store.claim("round:r1", clock.now() + 60) is False
    await store.aclose()
    await other.aclose()
    await raw.aclose()


async def test_after_an_abandoned_claim_fifty_concurrent_retries_give_exactly_one_winner(
    redis_url,  # noqa: F811
):
    store = RedisStore.from_url(redis_url, prefix="test:", timeout=0.3)
    replies_lost(store)
    # Generous: under test is one winner among 50 retries, not how fast a busy machine serves 25
    # claims a store at once from its pool (the default 2 s ran out under load on Python 3.10).
    stores = [RedisStore.from_url(redis_url, prefix="test:", timeout=BOUND / 2) for _ in range(2)]
    results: list[bool] = []

    async def claim(index: int) -> None:
        results.append(await stores[index % 2].claim("round:hot", clock.now() + 60))

    with anyio.fail_after(BOUND):
        with pytest.raises(StoreUnavailable):
            await store.claim("round:hot", clock.now() + 60)
        async with anyio.create_task_group() as group:
            for index in range(50):
                group.start_soon(claim, index)
    assert sorted(results) == [False] * 49 + [True]
    for each in (store, *stores):
        await each.aclose()


async def test_a_claim_that_could_not_be_marked_abandoned_says_a_retry_may_be_refused_and_is_marked_later(
    redis_url,  # noqa: F811
):
    store = RedisStore.from_url(redis_url, prefix="test:", timeout=0.3)
    other = RedisStore.from_url(redis_url, prefix="test:")
    raw: Any = redis_asyncio.Redis.from_url(redis_url)
    lost = replies_lost(store, unreachable=True)
    with anyio.fail_after(BOUND):
        with pytest.raises(StoreUnavailable) as raised:
            await store.claim("round:r2", clock.now() + 60)
        error = raised.value
        assert error.claimed == "maybe"
        assert "may be refused as already used" in str(error)
        assert "r2" not in str(error)
        assert await other.claim("round:r2", clock.now() + 60) is False  # not marked: refused, as it said
        lost.unreachable = False  # the store answers again: the mark is written within about a second
        while not await raw.keys("test:round:r2!*"):
            await anyio.sleep(0.02)
        assert await other.claim("round:r2", clock.now() + 60) is True
        assert await store.claim("round:r2", clock.now() + 60) is False
    for each in (store, other):
        await each.aclose()
    await raw.aclose()


async def test_a_claim_that_could_not_be_marked_is_marked_when_the_same_store_claims_its_round_again(
    redis_url,  # noqa: F811
):
    store = RedisStore.from_url(redis_url, prefix="test:", timeout=0.3)
    other = RedisStore.from_url(redis_url, prefix="test:")
    lost = replies_lost(store, unreachable=True)
    with anyio.fail_after(BOUND):
        with pytest.raises(StoreUnavailable) as raised:
            await store.claim("round:r3", clock.now() + 60)
        assert raised.value.claimed == "maybe"
        lost.unreachable = False
        # The retry reaches the same replica before its store tried again: it marks its own claim then.
        assert await store.claim("round:r3", clock.now() + 60) is True
        assert await other.claim("round:r3", clock.now() + 60) is False
    for each in (store, other):
        await each.aclose()
