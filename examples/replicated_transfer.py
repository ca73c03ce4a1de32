"""A tool that must act once, served by several replicas that share one Redis.

Run each replica with the same keys and the same store:

    TYPED_ELICIT_STORE=redis://127.0.0.1:6379/0 MCP_STATE_KEYS=<64 hex chars> python replicated_transfer.py
"""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer, RequestStateSecurity
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, elicits, form
from typed_elicit.stores import configure

APPLIED: list[int] = []


@form(message="Confirm the transfer")
class Confirm(BaseModel):
    amount: int = Field(ge=1, le=10_000, description="The amount to send")


def build_server() -> MCPServer:
    """One replica: every replica gets the same name, keys and store."""
    keys = os.environ.get("MCP_STATE_KEYS")  # secrets of 32+ random bytes, comma-separated
    security = RequestStateSecurity(keys=keys.split(",")) if keys else RequestStateSecurity.ephemeral()
    server = MCPServer("transfers", request_state_security=security)
    configure(server, store=os.environ.get("TYPED_ELICIT_STORE", "redis://127.0.0.1:6379/0"))

    @server.tool()
    @elicits(Confirm, timeout=120)
    async def transfer(ctx: ElicitContext) -> str:
        match await ctx.elicit(Confirm):
            case Accepted(Confirm(amount=amount)):
                APPLIED.append(amount)  # the side effect: once per call, on any replica
                return f"sent {amount}"
            case _:
                return "nothing sent"

    return server


if __name__ == "__main__":
    build_server().run("streamable-http")
