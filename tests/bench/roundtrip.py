"""1. Round trip on a push era, in memory: one question of a 6-field model per tool call.

Contenders, all served by one `MCPServer` and called by one `mcp.Client(mode="legacy")`
(protocol 2025-11-25) whose callback accepts with a prebuilt answer:

- `typed_elicit`: `@elicits` + `await ctx.elicit(Signup)` (cached schema, re-validation).
- `sdk`: the SDK's `await ctx.elicit(message, Signup)` (renders the schema on every call).
- `floor`: `ctx.session.elicit_form(message, prebuilt_dict)`, no validation at all.
- `floor_validated`: the floor plus `Signup.model_validate(content)`: the least any layer
  that hands back a validated model can cost.

FastMCP runs in its own venv (`tests/bench/fastmcp_worker.py`) with the same three contenders
beside it, so its ratios come from the same process and the same method. The clock is
the process's CPU time (see `alternate`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.server.mcpserver import Context, MCPServer

from typed_elicit import Accepted, reduce_schema
from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.elicits import elicits

from ._common import MESSAGE, Samples, Signup, accept_signup, alternate, text_of

ROOT = Path(__file__).resolve().parents[2]
FASTMCP_VENV = ROOT / "tests" / "bench" / ".fastmcp-venv"
FASTMCP_SPEC = "fastmcp>=4,<5"

CONTENDERS = ("typed_elicit", "sdk", "floor", "floor_validated")


def build_server() -> MCPServer:
    """One server exposing the three in-process contenders as tools."""
    server = MCPServer("bench-roundtrip")
    prebuilt = reduce_schema(Signup, protocol_version="2025-11-25")

    @server.tool()
    @elicits
    async def typed_elicit(ctx: ElicitContext) -> str:
        result = await ctx.elicit(Signup, MESSAGE)
        assert isinstance(result, Accepted)
        return result.data.name

    @server.tool()
    async def sdk(ctx: Context) -> str:
        result = await ctx.elicit(MESSAGE, Signup)
        assert result.action == "accept"
        return result.data.name

    @server.tool()
    async def floor(ctx: Context) -> str:
        result = await ctx.session.elicit_form(MESSAGE, prebuilt, ctx.request_id)
        assert result.content is not None
        return str(result.content["name"])

    @server.tool()
    async def floor_validated(ctx: Context) -> str:
        result = await ctx.session.elicit_form(MESSAGE, prebuilt, ctx.request_id)
        return Signup.model_validate(result.content).name

    return server


async def measure_in_process(calls: int, blocks: int) -> Samples:
    """Alternate the three in-process contenders on one push-era connection."""
    async with Client(build_server(), mode="legacy", elicitation_callback=accept_signup) as client:

        def caller(name: str) -> Any:
            async def call() -> None:
                text_of(await client.call_tool(name, {}))

            return call

        return await alternate({name: caller(name) for name in CONTENDERS}, calls, blocks)


@dataclass
class FastMCPRun:
    """What the FastMCP worker reported, or why it did not run."""

    samples: Samples | None
    versions: dict[str, str]
    note: str


def ensure_fastmcp_venv(install: bool) -> str | None:
    """Make `tests/bench/.fastmcp-venv` with FastMCP 4 if missing; None when usable, else why not."""
    python = FASTMCP_VENV / "bin" / "python"
    if not python.exists():
        if not install:
            return (
                f"no {FASTMCP_VENV.relative_to(ROOT)} (run without --quick, or with --fastmcp, to create it)"
            )
        print(f"creating {FASTMCP_VENV} with {FASTMCP_SPEC!r} ...", file=sys.stderr)
        try:
            subprocess.run([sys.executable, "-m", "venv", str(FASTMCP_VENV)], check=True, timeout=120)
            subprocess.run(
                [str(python), "-m", "pip", "install", "-q", FASTMCP_SPEC],
                check=True,
                timeout=600,
                env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return f"FastMCP could not be installed ({exc})"
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import fastmcp, sys; sys.exit(0 if fastmcp.__version__.startswith('4.') else 1)",
        ],
        capture_output=True,
        check=False,
        timeout=120,
    )
    if probe.returncode != 0:
        return f"{FASTMCP_VENV.relative_to(ROOT)} has no FastMCP 4.x"
    return None


def measure_fastmcp(calls: int, blocks: int, install: bool) -> FastMCPRun:
    """Run `tests.bench.fastmcp_worker` in the FastMCP venv; skip cleanly when it is unavailable."""
    problem = ensure_fastmcp_venv(install)
    if problem is not None:
        return FastMCPRun(None, {}, f"FastMCP skipped: {problem}")
    python = FASTMCP_VENV / "bin" / "python"
    worker = "tests.bench.fastmcp_worker"
    command = [str(python), "-m", worker, "--calls", str(calls), "--blocks", str(blocks)]
    try:
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False, timeout=900)
    except subprocess.TimeoutExpired:
        return FastMCPRun(None, {}, "FastMCP skipped: the worker did not finish within 900 s")
    if done.returncode != 0:
        tail = " ".join(done.stderr.strip().splitlines()[-3:])
        return FastMCPRun(None, {}, f"FastMCP skipped: the worker failed ({tail})")
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return FastMCPRun(Samples.from_json(report["samples"]), report["versions"], "")
