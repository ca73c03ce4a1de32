"""Which store a server uses: `configure` takes a store or a Redis URL, and refuses anything else."""

from __future__ import annotations

import pytest
from mcp.server.mcpserver import MCPServer

from tests.stores.test_redis import redis_url  # noqa: F401 (the fixture)
from typed_elicit.stores import RedisStore, configure
from typed_elicit.stores._config import store_for

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


async def test_configure_takes_a_redis_url(
    redis_url,  # noqa: F811
):
    server = MCPServer("by-url")
    configure(server, store=redis_url)
    assert isinstance(store_for(server), RedisStore)


def test_configure_refuses_a_string_that_is_no_redis_url():
    with pytest.raises(ValueError, match=r"starts with redis://"):
        configure(MCPServer("bad"), store="http://127.0.0.1:6379")
