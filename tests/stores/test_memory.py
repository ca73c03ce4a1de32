"""The in-process `Store`: claims, values that are put once, and waits woken by a put."""

from __future__ import annotations

import anyio
import pytest

import typed_elicit._core.clock as clock
from typed_elicit.stores import Store
from typed_elicit.stores._memory import InProcessStore

pytestmark = pytest.mark.anyio


def test_the_in_process_store_is_a_store() -> None:
    store: Store = InProcessStore()
    assert isinstance(store, InProcessStore)


async def test_a_key_is_claimed_once() -> None:
    store = InProcessStore()
    assert await store.claim("round:a", clock.now() + 60)
    assert not await store.claim("round:a", clock.now() + 60)


async def test_the_first_put_wins_and_is_kept() -> None:
    store = InProcessStore()
    assert await store.put("page:a", b"first", clock.now() + 60)
    assert not await store.put("page:a", b"second", clock.now() + 60)
    assert await store.get("page:a") == b"first"
    assert await store.get("page:b") is None


async def test_values_and_claims_are_forgotten_when_they_expire(monkeypatch: pytest.MonkeyPatch) -> None:
    store = InProcessStore()
    now = clock.now()
    await store.put("page:a", b"sealed", now + 10)
    await store.claim("round:a", now + 10)
    assert len(store) == 2
    monkeypatch.setattr(clock, "now", lambda: now + 11)
    assert await store.get("page:a") is None
    assert await store.claim("round:a", now + 20)
    assert len(store) == 1


async def test_a_wait_returns_at_once_when_the_value_is_there() -> None:
    store = InProcessStore()
    await store.put("page:a", b"sealed", clock.now() + 60)
    with anyio.fail_after(1):
        assert await store.wait("page:a", 30) == b"sealed"


async def test_a_put_wakes_every_waiter_and_leaves_no_waiter_behind() -> None:
    store = InProcessStore()
    got: list[bytes | None] = []

    async def waiter() -> None:
        got.append(await store.wait("page:a", 30))

    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            group.start_soon(waiter)
            await anyio.wait_all_tasks_blocked()
            assert await store.put("page:a", b"sealed", clock.now() + 60)
    assert got == [b"sealed", b"sealed"]
    assert store._waiters == {}  # pyright: ignore[reportPrivateUsage]


async def test_a_wait_ends_with_none_after_its_timeout_and_leaves_no_waiter_behind() -> None:
    store = InProcessStore()
    with anyio.fail_after(5):
        assert await store.wait("page:a", 0.01) is None
    assert store._waiters == {}  # pyright: ignore[reportPrivateUsage]


async def test_a_deleted_value_is_gone_and_a_value_stored_again_keeps_its_own_expiry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = InProcessStore()
    now = clock.now()
    await store.put("page-kept:a", b"first", now + 10)
    await store.delete("page-kept:a")
    await store.delete("page-kept:never-stored")
    assert await store.get("page-kept:a") is None
    assert await store.put("page-kept:a", b"second", now + 100)
    monkeypatch.setattr(clock, "now", lambda: now + 11)  # the first value's expiry passes
    assert await store.get("page-kept:a") == b"second"
    monkeypatch.setattr(clock, "now", lambda: now + 101)
    assert await store.get("page-kept:a") is None
    assert len(store) == 0
