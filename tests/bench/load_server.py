"""The server of the load benchmark (`tests.bench.load`): the three-step wizard of `tests.bench.wizard`.

Served by `tests/peers/serve_http.py` (a replica: shared request-state keys from
`PEERS_STATE_KEYS`, the shared store from `PEERS_STORE_URL`), so the same file runs as one
replica with the in-process store or as two replicas on one Redis behind nginx. The tool
the benchmark calls is `wizard_typed_elicit`: Account, then Plan, then Confirm.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer, RequestStateSecurity

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # serve_http.py loads this file by path

from tests.bench.wizard import Counters, add_three_step


def build_server(request_state_security: RequestStateSecurity | None = None) -> MCPServer:
    """The wizard's server, with the SDK's request-state security the replicas share."""
    server = MCPServer("load", request_state_security=request_state_security)
    add_three_step(server, Counters())
    return server
