"""A 2025-06-18 client over a real transport: `PinnedHandshake` wraps the transport.

The SDK's client always offers 2025-11-25 (or 2026-07-28). To act as a client of the
older revision, against a server that must keep working with such clients, wrap the
transport in `PinnedHandshake(transport, "2025-06-18")` and connect with
`mode="legacy"`: the `initialize` request then offers 2025-06-18 and declares
`elicitation: {}`, as a client of that revision does. Any SDK transport works:
`stdio_client(...)` here, `streamable_http_client(url)` for a server over HTTP.

Run it from the repository root: it starts `examples/deployment_wizard.py` over stdio and
calls `deploy` on 2025-06-18.
"""

from __future__ import annotations

import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import TextContent

from typed_elicit.client import PinnedHandshake, Responder


async def main() -> None:
    server = StdioServerParameters(command=sys.executable, args=["examples/deployment_wizard.py"])
    transport = PinnedHandshake(stdio_client(server), "2025-06-18")
    answers = Responder({"environment": "production", "cpu_cores": 4, "memory_gb": 8})
    async with Client(transport, mode="legacy", elicitation_callback=answers) as client:
        print(f"negotiated {client.protocol_version}")
        result = await client.call_tool("deploy", {"app_name": "shop"})
        print(*(block.text for block in result.content if isinstance(block, TextContent)))


if __name__ == "__main__":
    anyio.run(main)
