"""The server of the load benchmark (`tests.bench.load`): the three-step wizard of `tests.bench.wizard`.

Served by `tests/peers/serve_http.py` (a replica: shared request-state keys from
`PEERS_STATE_KEYS`, the shared store from `PEERS_STORE_URL`), so the same file runs as one
replica with the in-process store or as two replicas on one Redis behind nginx.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer, RequestStateSecurity

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # serve_http.py loads this file by path

from tests.bench._common import Account, Confirm, Plan
from typed_elicit import Accepted, ElicitContext, elicits


def build_server(request_state_security: RequestStateSecurity | None = None) -> MCPServer:
    """One tool, `wizard`: Account, then Plan, then Confirm; the same code on every era."""
    server = MCPServer("load", request_state_security=request_state_security)

    @server.tool()
    @elicits
    async def wizard(ctx: ElicitContext) -> str:
        account = await ctx.elicit(Account, "Who are you?")
        plan = await ctx.elicit(Plan, "Which plan?")
        confirm = await ctx.elicit(Confirm, "Create the account?")
        assert isinstance(account, Accepted)
        assert isinstance(plan, Accepted)
        assert isinstance(confirm, Accepted)
        return f"{account.data.name} {plan.data.plan} {confirm.data.ok}"

    return server
