"""A Redis that does not answer: a typed error in time, saying why in words a user can act on, never a key."""

from __future__ import annotations

import anyio
import pytest

import typed_elicit._core.clock as clock
from tests.conftest import BOUND
from tests.stores.test_redis import _free_port
from typed_elicit.errors import StoreUnavailable
from typed_elicit.stores import RedisStore

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


async def test_a_store_that_is_down_fails_the_operation_with_a_typed_error_in_time():
    port = _free_port()
    store = RedisStore.from_url(f"redis://127.0.0.1:{port}/0", timeout=0.5)
    with anyio.fail_after(BOUND), pytest.raises(StoreUnavailable) as raised:
        await store.claim("round:abc", clock.now() + 60)
    error = raised.value
    assert error.operation == "claim"
    assert error.namespace == "round"
    assert f"redis 127.0.0.1:{port} db 0" in str(error)
    assert "abc" not in str(error)
    assert error.cause == "connection refused"
    assert error.claimed == "no"  # it never reached a store: the same round can be sent again
    assert "Nothing was claimed" in str(error)


async def test_a_delete_on_a_store_that_is_down_is_logged_not_raised(caplog):
    port = _free_port()
    store = RedisStore.from_url(f"redis://127.0.0.1:{port}/0", timeout=0.5)
    with anyio.fail_after(BOUND):
        await store.delete("page-kept:abc")
    assert "could not delete a page-kept value from redis 127.0.0.1" in caplog.text
    assert "abc" not in caplog.text


async def test_a_wait_on_a_store_that_is_down_fails_in_time_with_a_typed_error():
    port = _free_port()
    store = RedisStore.from_url(f"redis://127.0.0.1:{port}/0", timeout=0.5)
    with anyio.fail_after(BOUND), pytest.raises(StoreUnavailable) as raised:
        await store.wait("page:abc", 30)
    assert raised.value.operation == "wait"
    assert raised.value.namespace == "page"
    assert "abc" not in str(raised.value)
    await store.aclose()
