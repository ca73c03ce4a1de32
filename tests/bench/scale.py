"""4. Scale: many concurrent pending questions in one server process, push era, in memory.

Each scenario runs in a fresh interpreter (`python -m tests.bench.scale SCENARIO N CLIENTS`) so
its memory and task counts start clean; it prints one JSON line. Scenarios:

- `answered`: N tool calls (spread over CLIENTS in-memory connections) each ask one
  question; the callback holds every question until all N are pending, then all are
  released at once. Reports memory per pending question, the time to answer them all,
  and what is left afterwards.
- `timeout`: the same, but nobody answers; every question times out (`timeout=`).
- `disconnect`: the same, but the clients drop off while all N are pending.

`--tool floor` asks with `ctx.session.elicit_form` (no typed layer) for comparison;
`--trace` measures with tracemalloc (slower) and breaks the extra memory down by the
package that allocated it, and typed_elicit's own share by function (never by line number,
which moves with every edit).
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import functools
import gc
import json
import logging
import os
import sys
import time
import tracemalloc
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import Client
from mcp.client import ClientRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

from typed_elicit import Accepted, reduce_schema
from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.elicits import elicits

from ._common import MESSAGE, SIGNUP_ANSWER, Signup

Scenario = Literal["answered", "timeout", "disconnect"]
ToolName = Literal["typed_elicit", "floor"]
PAGE = os.sysconf("SC_PAGE_SIZE")
LIMIT = 300.0
"""No single wait in a scenario may take longer (seconds); keeps the run bounded."""


@dataclass
class Tally:
    """What the server's tool bodies and the client's callbacks saw."""

    entered: int = 0
    exited: int = 0
    arrived: int = 0
    answered: int = 0
    waiting: int = 0
    peak: int = 0


def build_server(tally: Tally) -> MCPServer:
    """Two tools asking one `Signup` question each: typed_elicit's and the floor's."""
    server = MCPServer("bench-scale")
    prebuilt = reduce_schema(Signup, protocol_version="2025-11-25")

    @server.tool()
    @elicits
    async def typed_elicit(ctx: ElicitContext, timeout: float) -> str:
        tally.entered += 1
        try:
            result = await ctx.elicit(Signup, MESSAGE, timeout=timeout)
            assert isinstance(result, Accepted)
            return result.data.name
        finally:
            tally.exited += 1

    @server.tool()
    async def floor(ctx: Context, timeout: float) -> str:
        tally.entered += 1
        try:
            result = await ctx.session.elicit_form(MESSAGE, prebuilt, ctx.request_id)
            assert result.content is not None
            return str(result.content["name"])
        finally:
            tally.exited += 1

    return server


@dataclass
class ScaleRun:
    """One scenario's measurements (seconds, bytes, counts)."""

    scenario: Scenario
    tool: ToolName
    pending: int
    clients: int
    traced: bool
    seconds_to_pending: float = 0.0
    seconds_to_settle: float = 0.0
    """After the release (answered), after the last question was asked (timeout), or the disconnect."""
    bytes_per_pending: float = 0.0
    """tracemalloc delta (with --trace) or resident-set delta, divided by the pending questions."""
    breakdown: dict[str, float] = field(default_factory=dict[str, float])
    """With --trace: bytes per pending question by allocating package."""
    ours: dict[str, float] = field(default_factory=dict[str, float])
    """With --trace: bytes per pending question allocated by typed_elicit, by function
    (`file.py:Class.function`, from the source lines tracemalloc names), largest first."""
    results: dict[str, int] = field(default_factory=dict[str, int])
    """Outcome of each tool call: "ok", "error: <first words>", "cancelled"."""
    tasks_left: dict[str, int] = field(default_factory=dict[str, int])
    """Tasks alive beyond the baseline: "connected" (clients still up), "closed" (all gone)."""
    leftovers: dict[str, int] = field(default_factory=dict[str, int])
    """Tool bodies still running, pending requests and in-flight handlers in every dispatcher."""


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE


def _category(filename: str) -> str:
    """The package that owns a source file: typed_elicit, bench, a site-packages top-level name, or stdlib."""
    path = Path(filename)
    if "typed_elicit" in path.parts:
        return "typed_elicit"
    if "bench" in path.parts and "site-packages" not in path.parts:
        return "bench (tool bodies, callback)"
    if "site-packages" in path.parts:
        top = path.parts[path.parts.index("site-packages") + 1]
        return top.split(".")[0].removesuffix(".py")
    return "Python stdlib (tasks, contexts, dataclass __init__)"


@functools.cache
def _functions(filename: str) -> list[tuple[int, int, str]]:
    """(first line, last line, qualified name) of every function and class in a source file."""
    found: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                found.append((child.lineno, child.end_lineno or child.lineno, name))
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(Path(filename).read_text(encoding="utf-8")), "")
    return found


def _function_at(filename: str, lineno: int) -> str:
    """The innermost function (or class) of `filename` holding line `lineno`; `<module>` if none."""
    spans = [(first, name) for first, last, name in _functions(filename) if first <= lineno <= last]
    return max(spans)[1] if spans else "<module>"


def _error_kind(text: str) -> str:
    """ "Error executing tool t: ElicitationTimeout: ..." -> "error: ElicitationTimeout"."""
    parts = text.split(": ")
    return "error: " + (
        parts[1] if len(parts) > 2 and parts[0].startswith("Error executing tool") else parts[0]
    )


def _extra_tasks(baseline: set[asyncio.Task[Any]]) -> int:
    current = asyncio.current_task()
    return sum(1 for task in asyncio.all_tasks() if task not in baseline and task is not current)


def _dispatcher_leftovers() -> dict[str, int]:
    gc.collect()
    dispatchers: list[JSONRPCDispatcher[Any]] = [
        obj for obj in gc.get_objects() if isinstance(obj, JSONRPCDispatcher)
    ]
    return {
        "dispatchers alive": len(dispatchers),
        "outbound requests pending": sum(len(d._pending) for d in dispatchers),  # pyright: ignore[reportPrivateUsage]
        "inbound requests in flight": sum(len(d._in_flight) for d in dispatchers),  # pyright: ignore[reportPrivateUsage]
        "ElicitContext alive": sum(1 for obj in gc.get_objects() if isinstance(obj, ElicitContext)),
    }


async def run(
    scenario: Scenario, tool: ToolName, pending: int, clients: int, trace: bool, timeout: float
) -> ScaleRun:
    """Run one scenario (see the module docstring) and measure it."""
    tally = Tally()
    server = build_server(tally)
    report = ScaleRun(scenario, tool, pending, clients, trace)
    all_pending = anyio.Event()
    release = anyio.Event()
    go = anyio.Event()
    close = anyio.Event()
    connected = 0
    all_connected = anyio.Event()
    done = 0
    all_done = anyio.Event()
    outcomes: Counter[str] = Counter()
    scopes: list[anyio.CancelScope] = []

    async def callback(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        tally.arrived += 1
        tally.waiting += 1
        tally.peak = max(tally.peak, tally.waiting)
        if tally.arrived == pending:
            all_pending.set()
        try:
            await release.wait()
        finally:
            tally.waiting -= 1
        tally.answered += 1
        return types.ElicitResult(action="accept", content=dict(SIGNUP_ANSWER))

    async def one_call(client: Client) -> None:
        nonlocal done
        try:
            result = await client.call_tool(tool, {"timeout": timeout})
            if result.is_error:
                block = result.content[0]
                text = block.text if isinstance(block, types.TextContent) else "?"
                outcomes[_error_kind(text)] += 1
            else:
                outcomes["ok"] += 1
        except anyio.get_cancelled_exc_class():
            outcomes["cancelled"] += 1
            raise
        except Exception as exc:
            outcomes[f"raised {type(exc).__name__}"] += 1
        finally:
            done += 1
            if done == pending:
                all_done.set()

    async def one_client(index: int) -> None:
        nonlocal connected
        share = pending // clients + (1 if index < pending % clients else 0)
        with anyio.CancelScope() as scope:
            scopes.append(scope)
            async with Client(server, mode="legacy", elicitation_callback=callback) as client:
                connected += 1
                if connected == clients:
                    all_connected.set()
                await go.wait()
                async with anyio.create_task_group() as calls:
                    for _ in range(share):
                        calls.start_soon(one_call, client)
                await close.wait()

    before_connect = set(asyncio.all_tasks())
    before: tracemalloc.Snapshot | None = None
    base_traced = 0
    start = 0.0
    async with anyio.create_task_group() as group:
        for index in range(clients):
            group.start_soon(one_client, index)
        with anyio.fail_after(LIMIT):
            await all_connected.wait()
        gc.collect()
        connected_baseline = set(asyncio.all_tasks())
        if trace:
            tracemalloc.start()
            before = tracemalloc.take_snapshot()
            base_traced = tracemalloc.get_traced_memory()[0]
        base_rss = _rss()
        start = time.perf_counter()
        go.set()
        with anyio.fail_after(LIMIT):
            await all_pending.wait()
        report.seconds_to_pending = time.perf_counter() - start
        gc.collect()
        if before is not None:
            grown = tracemalloc.get_traced_memory()[0] - base_traced
            after = tracemalloc.take_snapshot()
            tracemalloc.stop()
            by_package: Counter[str] = Counter()
            for stat in after.compare_to(before, "filename"):
                by_package[_category(stat.traceback[0].filename)] += stat.size_diff
            report.breakdown = {name: size / pending for name, size in by_package.most_common()}
            by_function: Counter[str] = Counter()
            for stat in after.compare_to(before, "lineno"):
                frame = stat.traceback[0]
                if _category(frame.filename) == "typed_elicit":
                    where = f"{Path(frame.filename).name}:{_function_at(frame.filename, frame.lineno)}"
                    by_function[where] += stat.size_diff
            report.ours = {
                where: size / pending for where, size in by_function.most_common() if size >= pending * 8
            }
            report.bytes_per_pending = grown / pending
        else:
            report.bytes_per_pending = (_rss() - base_rss) / pending
        start = time.perf_counter()
        if scenario == "answered":
            release.set()
        if scenario == "disconnect":
            for scope in scopes:
                scope.cancel()  # the task group below waits until every client has closed
        else:
            with anyio.fail_after(LIMIT):
                await all_done.wait()
            report.seconds_to_settle = time.perf_counter() - start
            await anyio.sleep(0.05)  # let handlers finish writing their responses
            report.tasks_left["connected"] = _extra_tasks(connected_baseline)
            report.leftovers = _dispatcher_leftovers()
            close.set()
    if scenario == "disconnect":
        report.seconds_to_settle = time.perf_counter() - start
    await anyio.sleep(0)
    report.tasks_left["closed"] = _extra_tasks(before_connect)
    report.leftovers["tool bodies still running"] = tally.entered - tally.exited
    report.leftovers |= {k: v for k, v in _dispatcher_leftovers().items() if k != "dispatchers alive"}
    report.results = dict(outcomes)
    report.results["questions answered by the client"] = tally.answered
    report.results["peak pending at once"] = tally.peak
    return report


def run_in_subprocess(
    scenario: Scenario, tool: ToolName, pending: int, clients: int, trace: bool, timeout: float
) -> ScaleRun:
    """Run one scenario in a fresh interpreter and read its report."""
    import subprocess

    command = [sys.executable, "-m", "tests.bench.scale", scenario, tool, str(pending), str(clients)]
    command += ["--timeout", str(timeout)] + (["--trace"] if trace else [])
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False, timeout=LIMIT * 3)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[2:])} failed:\n{done.stderr[-3000:]}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return ScaleRun(**data)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=["answered", "timeout", "disconnect"])
    parser.add_argument("tool", choices=["typed_elicit", "floor"])
    parser.add_argument("pending", type=int)
    parser.add_argument("clients", type=int)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--trace", action="store_true")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)  # 10,000 "tool failed" lines on timeout are expected
    report = anyio.run(run, args.scenario, args.tool, args.pending, args.clients, args.trace, args.timeout)
    print(json.dumps(asdict(report)))


if __name__ == "__main__":
    main()
