"""Replicas sharing a Redis master that Sentinel watches, each claim waiting for a replica.

    TYPED_ELICIT_STORE=redis+sentinel://:password@10.0.0.5:26379,10.0.0.6:26379,10.0.0.7:26379/mymaster/0 \\
    MCP_STATE_KEYS=<64 hex chars> python redis_sentinel.py

`replicas=1` makes each claim wait (`WAIT`) until one replica has it; a claim no replica
acknowledged within the store's timeout counts as not made (the call ends with
`StoreUnavailable`), so a failover cannot forget a claim that let an answer through.
"""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer, RequestStateSecurity
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, elicits, form
from typed_elicit.stores import RedisStore, configure

APPLIED: list[int] = []

SENTINELS = "redis+sentinel://127.0.0.1:26379,127.0.0.1:26380,127.0.0.1:26381/mymaster/0"


@form(message="Confirm the withdrawal")
class Withdrawal(BaseModel):
    amount: int = Field(ge=1, le=10_000, description="The amount to withdraw")


def build_server() -> MCPServer:
    """One replica: every replica gets the same name, keys and store."""
    keys = os.environ.get("MCP_STATE_KEYS")  # secrets of 32+ random bytes, comma-separated
    security = RequestStateSecurity(keys=keys.split(",")) if keys else RequestStateSecurity.ephemeral()
    server = MCPServer("withdrawals", request_state_security=security)
    url = os.environ.get("TYPED_ELICIT_STORE", SENTINELS)
    # Sentinel watches a master with replicas: wait for one. (The project's tests set
    # TYPED_ELICIT_STORE to a lone Redis, which has none.)
    replicas = 1 if url.startswith(("redis+sentinel:", "rediss+sentinel:")) else 0
    store = RedisStore.from_url(url, replicas=replicas)
    configure(server, store=store)

    @server.tool()
    @elicits(Withdrawal, timeout=120)
    async def withdraw(ctx: ElicitContext) -> str:
        match await ctx.elicit(Withdrawal):
            case Accepted(Withdrawal(amount=amount)):
                APPLIED.append(amount)  # the side effect: once per call, on any replica
                return f"withdrew {amount}"
            case _:
                return "nothing withdrawn"

    return server


if __name__ == "__main__":
    build_server().run("streamable-http")
