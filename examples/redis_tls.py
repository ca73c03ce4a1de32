"""Replicas sharing one Redis over TLS, as an ACL user of their own.

The password comes from the environment (or your secret store) and is never logged: the
store logs and reports `redis <host>:<port> db <n>` only.

    REDIS_USER=elicit-app REDIS_PASSWORD=... REDIS_HOST=redis.internal:6380 \\
    REDIS_CA=/etc/ssl/redis-ca.pem MCP_STATE_KEYS=<64 hex chars> python redis_tls.py

(`TYPED_ELICIT_STORE=<url>`, when set, is used as it is: the project's tests point it at theirs.)
"""

from __future__ import annotations

import os
from urllib.parse import quote

from mcp.server.mcpserver import MCPServer, RequestStateSecurity
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, elicits, form
from typed_elicit.stores import configure

APPLIED: list[int] = []


@form(message="Confirm the payout")
class Payout(BaseModel):
    amount: int = Field(ge=1, le=10_000, description="The amount to pay out")


def store_url() -> str:
    """`rediss://user:password@host:port/db?ssl_ca_certs=...`: TLS, an ACL user, a private CA."""
    user = quote(os.environ.get("REDIS_USER", "elicit-app"), safe="")
    password = quote(os.environ.get("REDIS_PASSWORD", ""), safe="")  # quoted: it may hold @ or /
    host = os.environ.get("REDIS_HOST", "127.0.0.1:6380")
    ca = os.environ.get("REDIS_CA", "/etc/ssl/redis-ca.pem")
    return f"rediss://{user}:{password}@{host}/0?ssl_ca_certs={quote(ca)}"


def build_server() -> MCPServer:
    """One replica: every replica gets the same name, keys and store."""
    keys = os.environ.get("MCP_STATE_KEYS")  # secrets of 32+ random bytes, comma-separated
    security = RequestStateSecurity(keys=keys.split(",")) if keys else RequestStateSecurity.ephemeral()
    server = MCPServer("payouts", request_state_security=security)
    configure(server, store=os.environ.get("TYPED_ELICIT_STORE") or store_url())

    @server.tool()
    @elicits(Payout, timeout=120)
    async def payout(ctx: ElicitContext) -> str:
        match await ctx.elicit(Payout):
            case Accepted(Payout(amount=amount)):
                APPLIED.append(amount)  # the side effect: once per call, on any replica
                return f"paid {amount}"
            case _:
                return "nothing paid"

    return server


if __name__ == "__main__":
    build_server().run("streamable-http")
