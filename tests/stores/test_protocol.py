"""The `Store` contract on every store: single-use claims, the first put wins, waits woken or timed out."""

from __future__ import annotations

import anyio
import pytest

import typed_elicit._core.clock as clock
from tests.conftest import BOUND
from tests.stores.test_redis import a_store, kind, redis_url  # noqa: F401 (the fixtures)

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


async def test_a_key_is_claimed_once_on_every_store(
    kind,  # noqa: F811
    redis_url,  # noqa: F811
):
    async with a_store(kind, redis_url) as store:
        assert await store.claim("round:a", clock.now() + 60)
        assert not await store.claim("round:a", clock.now() + 60)
        assert await store.claim("round:b", clock.now() + 60)


async def test_the_first_put_wins_on_every_store(
    kind,  # noqa: F811
    redis_url,  # noqa: F811
):
    async with a_store(kind, redis_url) as store:
        assert await store.get("page:a") is None
        assert await store.put("page:a", b"sealed-1", clock.now() + 60)
        assert not await store.put("page:a", b"sealed-2", clock.now() + 60)
        assert await store.get("page:a") == b"sealed-1"


async def test_a_wait_is_woken_by_a_put_on_every_store(
    kind,  # noqa: F811
    redis_url,  # noqa: F811
):
    async with a_store(kind, redis_url) as store:
        got: list[bytes | None] = []

        async def waiter() -> None:
            got.append(await store.wait("page:a", 30))

        with anyio.fail_after(BOUND):
            async with anyio.create_task_group() as group:
                group.start_soon(waiter)
                await anyio.wait_all_tasks_blocked()
                assert await store.put("page:a", b"sealed", clock.now() + 60)
        assert got == [b"sealed"]


async def test_a_wait_ends_with_none_after_its_timeout_on_every_store(
    kind,  # noqa: F811
    redis_url,  # noqa: F811
):
    async with a_store(kind, redis_url) as store:
        with anyio.fail_after(BOUND):
            assert await store.wait("page:a", 0.05) is None
