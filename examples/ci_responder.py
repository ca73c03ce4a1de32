"""Answering without a person, for CI: given values first, then the schema's defaults.

Run it from the repository root: it starts `examples/deployment_wizard.py` over stdio and
calls `deploy` twice, once with every value the wizard needs and once with one missing.
"""

from __future__ import annotations

import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import TextContent

from typed_elicit.client import Responder


async def deploy(responder: Responder) -> str:
    server = StdioServerParameters(command=sys.executable, args=["examples/deployment_wizard.py"])
    async with Client(server, elicitation_callback=responder) as client:
        result = await client.call_tool("deploy", {"app_name": "shop"})
    return " ".join(block.text for block in result.content if isinstance(block, TextContent))


async def main() -> None:
    complete = Responder({"environment": "staging", "cpu_cores": 2, "memory_gb": 4})
    print(await deploy(complete))  # auto_scale comes from the schema's default

    missing = Responder({"environment": "staging"})
    print(await deploy(missing))
    for entry in missing.log:
        print(f"{entry.action}: {entry.message} ({entry.reason or entry.content})")


if __name__ == "__main__":
    anyio.run(main)
