"""Replicas sharing a Redis Cluster: list any of its nodes, the client finds the others.

    TYPED_ELICIT_STORE=redis+cluster://10.0.0.1:6379,10.0.0.2:6379 \\
    MCP_STATE_KEYS=<64 hex chars> python redis_cluster.py

(`rediss+cluster://user:password@...` for TLS and an ACL user.)
"""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer, RequestStateSecurity
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, elicits, form
from typed_elicit.stores import configure

APPLIED: list[int] = []


@form(message="Confirm the refund")
class Refund(BaseModel):
    amount: int = Field(ge=1, le=10_000, description="The amount to refund")


def build_server() -> MCPServer:
    """One replica: every replica gets the same name, keys and store."""
    keys = os.environ.get("MCP_STATE_KEYS")  # secrets of 32+ random bytes, comma-separated
    security = RequestStateSecurity(keys=keys.split(",")) if keys else RequestStateSecurity.ephemeral()
    server = MCPServer("refunds", request_state_security=security)
    configure(
        server, store=os.environ.get("TYPED_ELICIT_STORE", "redis+cluster://127.0.0.1:7000,127.0.0.1:7001")
    )

    @server.tool()
    @elicits(Refund, timeout=120)
    async def refund(ctx: ElicitContext) -> str:
        match await ctx.elicit(Refund):
            case Accepted(Refund(amount=amount)):
                APPLIED.append(amount)  # the side effect: once per call, on any replica
                return f"refunded {amount}"
            case _:
                return "nothing refunded"

    return server


if __name__ == "__main__":
    build_server().run("streamable-http")
