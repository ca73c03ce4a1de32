"""A small MCP client built on typed_elicit's client side, for the conformance suite.

The suite runs it as `python tests/peers/conformance_client.py <server url>` (the URL is the last
argument; the scenario name is in `MCP_CONFORMANCE_SCENARIO`). It connects over streamable
HTTP, lists the tools, calls each one with no arguments and answers every elicitation with
typed_elicit's non-interactive `Responder`: no values given, so every field takes the
schema's default (what scenario `elicitation-sep1034-client-defaults` checks).

Exits 0 when every elicitation was accepted and every tool call succeeded; 1 otherwise;
bounded to 25 s (the suite's own timeout kills only the shell around us).
"""

from __future__ import annotations

import os
import sys
from urllib.parse import urlparse

import anyio
from mcp import Client

from typed_elicit.client import Responder

TIMEOUT_S = 25.0


async def run(url: str) -> int:
    """Call every tool of the server at `url`, answering questions with schema defaults."""
    responder = Responder()
    failures: list[str] = []
    with anyio.fail_after(TIMEOUT_S):
        async with Client(url, mode="legacy", elicitation_callback=responder) as client:
            tools = (await client.list_tools()).tools
            for tool in tools:
                result = await client.call_tool(tool.name, {})
                if result.is_error:
                    failures.append(f"{tool.name}: tool error {result.content}")
    for entry in responder.log:
        print(f"elicitation {entry.message!r}: {entry.action} {entry.content or entry.reason or ''}")
        if entry.action != "accept":
            failures.append(f"{entry.message!r}: {entry.action} ({entry.reason})")
    if not responder.log:
        failures.append("the server asked no question")
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    return 1 if failures else 0


def main() -> int:
    """Entry point: the server URL is the last command-line argument."""
    if len(sys.argv) < 2:
        print("usage: conformance_client.py <server url>", file=sys.stderr)
        return 2
    url = sys.argv[-1]
    if urlparse(url).hostname not in ("127.0.0.1", "localhost", "::1"):
        print(f"refusing a non-loopback server: {url}", file=sys.stderr)
        return 2
    print(f"scenario {os.environ.get('MCP_CONFORMANCE_SCENARIO', '?')} against {url}")
    return anyio.run(run, url)


if __name__ == "__main__":
    sys.exit(main())
