"""Over real HTTP: server CPU per call, typed_elicit against the bare SDK on both eras.

The in-memory sections (1 and 2 of `python -m tests.bench`) run client, transport and
server in one thread, so their ratios count the client's work and no transport. Here the
server is a process of its own (`uvicorn` serving the SDK's streamable HTTP app on
127.0.0.1, started as `python -m tests.bench.http --serve`) and the client runs in this
process. A block's cost is the server process's CPU time (the kernel's per-thread
`/proc/PID/task/*/schedstat`, nanoseconds) over the block, divided by its calls; the
client's own CPU time per call is reported beside it.

Contenders, the tools of sections 1 and 2 served by one server:

- push era (`mcp.Client(url, mode="legacy")`, 2025-11-25): `typed_elicit`
  (`await ctx.elicit(Signup)`) against `sdk` (`await ctx.elicit(message, Signup)`), with
  `floor` and `floor_validated` for scale;
- 2026-07-28 (`mcp.Client(url)`): the three-step wizard, `wizard_typed_elicit` against
  the SDK's resolvers, `wizard_resolvers`.

Method as `_common.alternate`: contenders alternate in blocks, the order rotating every
round; a figure is the median over blocks, a ratio the median over rounds of the two
blocks of that round. Then a throughput phase: for each session count S (`--sessions`),
S client sessions call one contender concurrently for a block; calls per second by the
wall clock, and the server's CPU time per call. One client process drives every session,
on the same machine: at high S the client's own CPU competes with the server's.

Usage (from the repository root):

    .venv/bin/python -m tests.bench.http           # about 3 to 4 minutes
    .venv/bin/python -m tests.bench.http --quick   # smoke run, a few seconds
    .venv/bin/python -m tests.bench.http --calls 200 --blocks 15 --wizard-calls 40 --sessions 1,50,200
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import platform
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import asdict, dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from mcp import Client

from . import roundtrip, wizard
from ._common import Samples, accept_any, accept_signup, text_of

ROOT = Path(__file__).resolve().parents[2]
PUSH = ("typed_elicit", "sdk", "floor", "floor_validated")
WIZARD = ("wizard_typed_elicit", "wizard_resolvers")
PAIRS = (
    ("push (2025-11-25)", "typed_elicit", "sdk"),
    ("2026-07-28 wizard", "wizard_typed_elicit", "wizard_resolvers"),
)
"""(era, typed_elicit's tool, the SDK's tool): the two comparisons this benchmark is for."""
LIMIT = 600.0
"""No phase may take longer (seconds)."""


# --- the server process -------------------------------------------------------------------------


def build_server() -> Any:
    """Section 1's four push-era tools and section 2's two three-step wizards on one server."""
    server = roundtrip.build_server()
    wizard.add_three_step(server, wizard.Counters())
    return server


class _Server(uvicorn.Server):
    """Prints `ready` on stdout once it listens, so the harness waits on a line, not a timer."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        print("ready", flush=True)


def serve() -> None:
    """Serve `build_server()` on a free loopback port; print the port, then `ready`."""
    logging.disable(logging.WARNING)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(build_server().streamable_http_app(), log_level="warning", lifespan="on")
    _Server(config).run([sock])


class ServerProcess:
    """`python -m tests.bench.http --serve` in a process of its own, and its CPU time."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.bench.http", "--serve"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        port = self.process.stdout.readline().strip()
        ready = self.process.stdout.readline().strip()
        if not port.isdigit() or ready != "ready":
            self.close()
            raise RuntimeError(f"the benchmark server did not start (said {port!r}, {ready!r})")
        self.url = f"http://127.0.0.1:{port}/mcp"

    def cpu(self) -> float:
        """Seconds of CPU the server process has used: every thread's, from the scheduler."""
        total = 0
        task_dir = Path(f"/proc/{self.process.pid}/task")
        for task in task_dir.iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):  # a thread that just ended
                continue
        return total / 1e9

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# --- the harness ------------------------------------------------------------------------------


@dataclass
class Throughput:
    """One contender at one session count."""

    tool: str
    sessions: int
    calls: int
    calls_per_second: float
    server_cpu_per_call: float
    error: str = ""
    """Why this block failed (its first exception), if it did; the run goes on."""


@dataclass
class HttpRun:
    """What one run measured (seconds per call unless named otherwise)."""

    environment: dict[str, str]
    calls: int
    wizard_calls: int
    blocks: int
    server: Samples = field(default_factory=Samples)
    """Server CPU seconds per call, per block, for every contender."""
    client: Samples = field(default_factory=Samples)
    """This process's CPU seconds per call, per block."""
    throughput: list[Throughput] = field(default_factory=list[Throughput])
    seconds: float = 0.0


def _environment() -> dict[str, str]:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 0
    with open("/proc/loadavg") as loadavg:
        load = " ".join(loadavg.read().split()[:3])
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": platform.python_version(),
        "mcp": version("mcp"),
        "uvicorn": version("uvicorn"),
        "machine": f"{platform.machine()}, {cores} cores, load average {load} at the start",
    }


def _log(message: str) -> None:
    print(f"[bench.http {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _first_error(exc: BaseException) -> str:
    """The first exception that is not a group, as `Type: message`."""
    while (inner := getattr(exc, "exceptions", None)) and isinstance(inner[0], BaseException):
        exc = inner[0]
    return f"{type(exc).__name__}: {str(exc)[:200]}"


def _caller(client: Client, tool: str) -> Callable[[], Awaitable[None]]:
    async def call() -> None:
        text_of(await client.call_tool(tool, {}))

    return call


async def _alternate(
    server: ServerProcess,
    contenders: dict[str, tuple[Callable[[], Awaitable[None]], int]],
    blocks: int,
    run: HttpRun,
) -> None:
    names = list(contenders)
    for call, _ in contenders.values():  # warm-up: imports, caches, the schema of every model
        for _ in range(3):
            await call()
    for name in names:
        run.server.blocks.setdefault(name, [])
        run.client.blocks.setdefault(name, [])
    for round_no in range(blocks):
        shift = round_no % len(names)
        for name in names[shift:] + names[:shift]:
            call, calls = contenders[name]
            gc.collect()
            server_start, client_start = server.cpu(), time.process_time()
            for _ in range(calls):
                await call()
            run.server.blocks[name].append((server.cpu() - server_start) / calls)
            run.client.blocks[name].append((time.process_time() - client_start) / calls)


async def _throughput(server: ServerProcess, tool: str, sessions: int, calls: int) -> Throughput:
    mode: Any = "auto" if tool in WIZARD else "legacy"
    callback = accept_any if tool in WIZARD else accept_signup
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(Client(server.url, mode=mode, elicitation_callback=callback))
            for _ in range(sessions)
        ]
        for client in clients:  # warm every session up before the clock starts
            await _caller(client, tool)()
        share = [calls // sessions + (1 if i < calls % sessions else 0) for i in range(sessions)]

        async def session(client: Client, count: int) -> None:
            call = _caller(client, tool)
            for _ in range(count):
                await call()

        gc.collect()
        server_start, wall_start = server.cpu(), time.perf_counter()
        with anyio.fail_after(LIMIT):
            async with anyio.create_task_group() as group:
                for client, count in zip(clients, share, strict=True):
                    group.start_soon(session, client, count)
        wall, cpu = time.perf_counter() - wall_start, server.cpu() - server_start
    return Throughput(tool, sessions, calls, calls / wall, cpu / calls)


async def measure(
    calls: int, wizard_calls: int, blocks: int, sessions: Sequence[int], throughput_calls: int
) -> HttpRun:
    """Start the server process, run both phases against it, stop it."""
    started = time.perf_counter()
    run = HttpRun(_environment(), calls, wizard_calls, blocks)
    server = ServerProcess()
    try:
        async with (
            Client(server.url, mode="legacy", elicitation_callback=accept_signup) as push,
            Client(server.url, elicitation_callback=accept_any) as replay,
        ):
            assert push.protocol_version == "2025-11-25", push.protocol_version
            assert replay.protocol_version == "2026-07-28", replay.protocol_version
            contenders = {name: (_caller(push, name), calls) for name in PUSH}
            contenders |= {name: (_caller(replay, name), wizard_calls) for name in WIZARD}
            _log(f"server CPU per call: {blocks} blocks per contender")
            with anyio.fail_after(LIMIT):
                await _alternate(server, contenders, blocks, run)
        for count in sessions:
            _log(f"throughput: {count} session(s)")
            for _, ours, theirs in PAIRS:
                for tool in (ours, theirs):
                    per = max(count, throughput_calls if tool in PUSH else max(1, throughput_calls // 5))
                    try:
                        row = await _throughput(server, tool, count, per)
                    except Exception as exc:  # report it and go on: one overloaded block loses no other
                        row = Throughput(tool, count, per, 0.0, 0.0, error=_first_error(exc))
                        _log(f"{tool} with {count} session(s) failed: {row.error}")
                    run.throughput.append(row)
    finally:
        server.close()
    run.seconds = time.perf_counter() - started
    return run


# --- the report ---------------------------------------------------------------------------------


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def render(run: HttpRun) -> str:
    """Markdown tables of one run."""
    env = run.environment
    lines = [
        f"_`python -m tests.bench.http` on {env['date']} ({run.seconds:.0f} s): python {env['python']}, "
        f"mcp {env['mcp']}, uvicorn {env['uvicorn']}, {env['machine']}._",
        "",
        f"Server CPU per call, streamable HTTP on loopback, one session per era, calls one at a time "
        f"({run.calls} push calls or {run.wizard_calls} wizard calls per block, {run.blocks} blocks "
        f"per contender, alternating):",
        "",
        "| era | contender | server CPU per call | ± | client CPU per call |",
        "|---|---|---:|---:|---:|",
    ]
    for name in (*PUSH, *WIZARD):
        era = "push (2025-11-25)" if name in PUSH else "2026-07-28"
        lines.append(
            f"| {era} | {name} | {_ms(run.server.median(name))} | {run.server.spread(name):.0%} | "
            f"{_ms(run.client.median(name))} |"
        )
    lines += [
        "",
        "| era | typed_elicit / SDK, server CPU | typed_elicit / SDK, client CPU |",
        "|---|---:|---:|",
    ]
    for era, ours, theirs in PAIRS:
        lines.append(
            f"| {era} | {run.server.ratio(ours, theirs):.2f}x | {run.client.ratio(ours, theirs):.2f}x |"
        )
    if run.throughput:
        lines += [
            "",
            "Concurrent sessions (one client process drives them all; calls/s by the wall clock):",
            "",
            "| sessions | contender | calls | calls/s | server CPU per call |",
            "|---:|---|---:|---:|---:|",
        ]
        for row in run.throughput:
            if row.error:
                lines.append(f"| {row.sessions} | {row.tool} | {row.calls} | failed: {row.error} | |")
                continue
            lines.append(
                f"| {row.sessions} | {row.tool} | {row.calls} | {row.calls_per_second:,.1f} | "
                f"{_ms(row.server_cpu_per_call)} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> HttpRun | None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.http", description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", action="store_true", help="be the server process (the harness starts it)")
    parser.add_argument("--quick", action="store_true", help="smoke run: tiny sizes, a few seconds")
    parser.add_argument("--calls", type=int, default=200, help="push-era calls per block")
    parser.add_argument("--wizard-calls", type=int, default=40, help="2026-07-28 wizard calls per block")
    parser.add_argument("--blocks", type=int, default=15, help="blocks per contender")
    parser.add_argument("--sessions", default="1,50", help="session counts of the throughput phase")
    parser.add_argument("--throughput-calls", type=int, default=1000, help="push calls per throughput block")
    parser.add_argument("--json", type=Path, help="also write the raw numbers here")
    args = parser.parse_args(argv)
    if args.serve:
        serve()
        return None
    sessions = [int(s) for s in args.sessions.split(",") if s]
    if args.quick:
        args.calls, args.wizard_calls, args.blocks, args.throughput_calls = 3, 2, 2, 6
        sessions = [1, 2]
    run = anyio.run(measure, args.calls, args.wizard_calls, args.blocks, sessions, args.throughput_calls)
    print(render(run))
    if args.json:
        args.json.write_text(json.dumps(asdict(run), indent=1))
    return run


if __name__ == "__main__":
    main()
