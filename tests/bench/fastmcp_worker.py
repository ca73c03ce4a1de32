# pyright: basic
# mypy: disable-error-code="import-not-found, untyped-decorator, no-any-return, unused-ignore"
"""FastMCP 4's `ctx.elicit` beside the in-process contenders; runs inside `tests/bench/.fastmcp-venv`.

Run from the repository root: `tests/bench/.fastmcp-venv/bin/python -m tests.bench.fastmcp_worker`.
The FastMCP server is driven by the same `mcp.Client(mode="legacy")`, in memory, as the
others (FastMCP's own in-memory transport does exactly this: its low-level server's
`run` inside the server's lifespan), and the four contenders alternate block by block.
Prints one JSON line: `{"versions": {...}, "samples": {name: [seconds per call, ...]}}`.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib.metadata import version
from typing import Any

import anyio
from fastmcp import Context, FastMCP  # pyright: ignore[reportMissingImports]
from mcp import Client
from mcp.client._memory import InMemoryTransport

from ._common import MESSAGE, Signup, accept_signup, alternate, text_of
from .roundtrip import CONTENDERS, build_server


def build_fastmcp() -> Any:
    """A FastMCP server whose tool asks `Signup` once with FastMCP's `ctx.elicit`."""
    server = FastMCP("bench-fastmcp")

    @server.tool()
    async def fastmcp(ctx: Context) -> str:
        result = await ctx.elicit(MESSAGE, Signup)
        assert result.action == "accept", result
        return result.data.name

    return server


async def main(calls: int, blocks: int) -> None:
    fast = build_fastmcp()
    async with (
        fast._lifespan_manager(),
        Client(InMemoryTransport(fast._mcp_server), mode="legacy", elicitation_callback=accept_signup) as fc,
        Client(build_server(), mode="legacy", elicitation_callback=accept_signup) as client,
    ):

        def caller(target: Client, name: str) -> Any:
            async def call() -> None:
                text_of(await target.call_tool(name, {}))

            return call

        contenders = {name: caller(client, name) for name in CONTENDERS}
        contenders["fastmcp"] = caller(fc, "fastmcp")
        samples = await alternate(contenders, calls, blocks)
    versions = {name: version(name) for name in ("fastmcp", "mcp", "pydantic")}
    versions["python"] = sys.version.split()[0]
    print(json.dumps({"versions": versions, "samples": samples.to_json()}))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--blocks", type=int, default=15)
    args = parser.parse_args()
    anyio.run(main, args.calls, args.blocks)
