"""Load across replicas: M concurrent HTTP sessions calling the three-step wizard, on both eras.

Two set-ups, each a real server process (`tests/peers/serve_http.py` serving
`tests/bench/load_server.py`) on 127.0.0.1:

- `two replicas + Redis`: replicas r1 and r2 share request-state keys and one Redis store
  (a database of its own, flushed first), behind nginx (round-robin; push-era sessions stick
  to the replica that minted them, as in `tests/peers/replicas.sh`);
- `one replica, in-process`: one server with the default in-process store, reached directly.

For each set-up, era (2025-11-25 push, 2026-07-28 rounds) and session count M (`--sessions`),
M client sessions (one `mcp.Client` each, all in this process) call the wizard `--calls` times
each, all at once. Reported per row: calls per second by the wall clock, the latency of a
call (p50, p99), errors (must be 0: a failed call or a result that is not the wizard's),
the largest server RSS after the row, and Redis commands per question answered (Redis's own
`total_commands_processed` over the row, divided by 3 questions per call).

One client process drives every session on the same 2-core machine as the servers, nginx
and Redis: at high M the client's own CPU competes with theirs, so calls/s is a floor.

Usage (from the repository root; needs nginx and a Redis on 127.0.0.1:6379):

    .venv/bin/python -m tests.bench.load                  # about 2 to 3 minutes
    .venv/bin/python -m tests.bench.load --quick          # smoke run (CI), a few seconds
    .venv/bin/python -m tests.bench.load --plot docs/img/load.png --json /tmp/load.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from ._common import Era, accept_any, text_of

ROOT = Path(__file__).resolve().parents[2]
SERVE = ROOT / "tests" / "peers" / "serve_http.py"
SERVER = ROOT / "tests" / "bench" / "load_server.py"
TEMPLATE = ROOT / "tests" / "peers" / "nginx.conf.template"
ERAS: dict[str, Era] = {"2025-11-25": "legacy", "2026-07-28": "2026-07-28"}
TOOL = "wizard_typed_elicit"
EXPECTED = "Ada Lovelace pro True"
READY_SECONDS = 30.0
CALL_SECONDS = 120.0


@dataclass
class Row:
    """One measured row: a set-up, an era and a session count."""

    setup: str
    era: str
    sessions: int
    calls: int
    errors: int
    seconds: float
    calls_per_second: float
    p50_ms: float
    p99_ms: float
    rss_mib: float
    redis_commands_per_question: float | None


@dataclass
class Server:
    """A server process and the URL it serves."""

    process: subprocess.Popen[str]
    url: str

    def rss_mib(self) -> float:
        """The process's resident set size now, in MiB."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(env: dict[str, str], *args: str) -> Server:
    """Start `serve_http.py` on the load server and wait (bounded) for its READY line."""
    process = subprocess.Popen(
        [sys.executable, str(SERVE), str(SERVER), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **env},
        cwd=ROOT,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.startswith("READY "):
            return Server(process, line.split()[1])
        if not line and process.poll() is not None:
            break
    process.kill()
    raise SystemExit(f"load: the server did not start ({' '.join(args)})")


def start_nginx(work: Path, port1: int, port2: int) -> tuple[subprocess.Popen[bytes], str]:
    """nginx in front of the two replicas (the peers' template), on a free port; waits for it."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        raise SystemExit("load: nginx not found (apt-get install nginx-light)")
    prefix = work / "nginx"
    (prefix / "tmp").mkdir(parents=True)
    lb_port = free_port()
    config = (
        TEMPLATE.read_text()
        .replace("@PREFIX@", str(prefix))
        .replace("@PORT1@", str(port1))
        .replace("@PORT2@", str(port2))
        .replace("@LB_PORT@", str(lb_port))
        .replace("worker_connections 256;", "worker_connections 2048;")
    )
    (prefix / "nginx.conf").write_text(config)
    process = subprocess.Popen(
        [nginx, "-p", str(prefix), "-e", str(prefix / "error.log"), "-c", str(prefix / "nginx.conf")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", lb_port), 0.2):
            return process, f"http://127.0.0.1:{lb_port}/mcp"
        time.sleep(0.05)
    process.kill()
    raise SystemExit("load: nginx did not come up")


def port_of(url: str) -> int:
    return int(url.split(":")[2].split("/")[0])


@contextlib.contextmanager
def setup(name: str, redis_url: str) -> Iterator[tuple[str, list[Server]]]:
    """Start a set-up; yield the URL clients call and its server processes; stop everything after."""
    keys = secrets.token_hex(32)  # the replicas share one request-state key
    started: list[subprocess.Popen[Any]] = []
    with tempfile.TemporaryDirectory(prefix="load.") as work:
        try:
            if name == "one replica, in-process":
                server = start_server({"PEERS_STATE_KEYS": keys})
                started.append(server.process)
                yield server.url, [server]
                return
            import redis

            redis.Redis.from_url(redis_url, socket_connect_timeout=2).flushdb()
            env = {"PEERS_STATE_KEYS": keys, "PEERS_STORE_URL": redis_url}
            replicas = [start_server(env, "--replica", replica) for replica in ("r1", "r2")]
            started += [replica.process for replica in replicas]
            nginx, url = start_nginx(Path(work), port_of(replicas[0].url), port_of(replicas[1].url))
            started.append(nginx)
            yield url, replicas
        finally:
            for process in started:
                process.terminate()
            for process in started:
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()


def redis_commands(redis_url: str) -> int:
    import redis

    info: dict[str, Any] = redis.Redis.from_url(redis_url).info("stats")
    return int(info["total_commands_processed"])


async def run_row(url: str, era: str, sessions: int, calls: int) -> tuple[list[float], int, float]:
    """M sessions, each calling `wizard` `calls` times, all at once: latencies (s), errors, wall time."""
    latencies: list[float] = []
    errors = 0

    async def session() -> None:
        nonlocal errors
        try:
            async with Client(
                url, mode=ERAS[era], elicitation_callback=accept_any, input_required_max_rounds=16
            ) as client:
                for _ in range(calls):
                    began = time.perf_counter()
                    try:
                        result = await client.call_tool(TOOL, {})
                        ok = text_of(result) == EXPECTED
                    except Exception:
                        ok = False
                    latencies.append(time.perf_counter() - began)
                    errors += not ok
        except Exception:
            errors += calls

    began = time.perf_counter()
    with anyio.fail_after(CALL_SECONDS):
        async with anyio.create_task_group() as group:
            for _ in range(sessions):
                group.start_soon(session)
    return latencies, errors, time.perf_counter() - began


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(setups: list[str], eras: list[str], sessions: list[int], calls: int, redis_url: str) -> list[Row]:
    rows: list[Row] = []
    for name in setups:
        with setup(name, redis_url) as (url, servers):
            for era in eras:
                anyio.run(run_row, url, era, 1, 1)  # warm-up: imports, schemas, connections
                for count in sessions:
                    before = redis_commands(redis_url) if "Redis" in name else None
                    latencies, errors, seconds = anyio.run(run_row, url, era, count, calls)
                    after = redis_commands(redis_url) if "Redis" in name else None
                    total = count * calls
                    per_question = None
                    if before is not None and after is not None:
                        per_question = round((after - before) / (3 * total), 2)
                    rows.append(
                        Row(
                            setup=name,
                            era=era,
                            sessions=count,
                            calls=total,
                            errors=errors,
                            seconds=round(seconds, 2),
                            calls_per_second=round(total / seconds, 1),
                            p50_ms=round(1000 * percentile(latencies, 0.5), 1),
                            p99_ms=round(1000 * percentile(latencies, 0.99), 1),
                            rss_mib=round(max(server.rss_mib() for server in servers), 1),
                            redis_commands_per_question=per_question,
                        )
                    )
                    print(format_row(rows[-1]), flush=True)
    return rows


def format_row(row: Row) -> str:
    redis_ops = "-" if row.redis_commands_per_question is None else f"{row.redis_commands_per_question:.2f}"
    return (
        f"| {row.setup} | {row.era} | {row.sessions} | {row.calls} | {row.calls_per_second:.1f} | "
        f"{row.p50_ms:.0f} | {row.p99_ms:.0f} | {row.errors} | {row.rss_mib:.0f} | {redis_ops} |"
    )


HEADER = (
    "| set-up | era | sessions | calls | calls/s | p50 ms | p99 ms | errors | server RSS MiB | "
    "Redis commands per question |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def plot(rows: list[Row], path: Path) -> None:
    """Calls per second against sessions, one line per set-up and era."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))  # pyright: ignore[reportUnknownMemberType]
    for name in dict.fromkeys(row.setup for row in rows):
        for era in dict.fromkeys(row.era for row in rows):
            mine = [row for row in rows if row.setup == name and row.era == era]
            label = f"{name}, {era}"
            left.plot([r.sessions for r in mine], [r.calls_per_second for r in mine], marker="o", label=label)
            right.plot([r.sessions for r in mine], [r.p99_ms for r in mine], marker="o", label=label)
    left.set(xlabel="concurrent sessions", ylabel="wizard calls per second", xscale="log")
    right.set(xlabel="concurrent sessions", ylabel="p99 latency of a call (ms)", xscale="log")
    left.legend(fontsize=7)
    fig.suptitle("Three-step wizard over HTTP: two replicas on Redis behind nginx vs one in-process replica")
    fig.tight_layout()
    fig.savefig(path, dpi=110)  # pyright: ignore[reportUnknownMemberType]
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table; exit 1 if any call failed."""
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--sessions", default="10,50,200", help="session counts, comma-separated")
    parser.add_argument("--calls", type=int, default=5, help="wizard calls per session")
    parser.add_argument("--quick", action="store_true", help="smoke run: 2 sessions, 1 call each")
    parser.add_argument(
        "--redis",
        default=os.environ.get("TYPED_ELICIT_BENCH_REDIS", "redis://127.0.0.1:6379/9"),
        help="the Redis database the replicas share (flushed first)",
    )
    parser.add_argument("--json", type=Path, help="write the rows as JSON here")
    parser.add_argument("--plot", type=Path, help="write a plot (PNG, needs matplotlib) here")
    args = parser.parse_args(argv)
    sessions = [2] if args.quick else [int(n) for n in args.sessions.split(",")]
    calls = 1 if args.quick else args.calls
    setups = ["two replicas + Redis", "one replica, in-process"]
    print(f"Load: {calls} wizard call(s) per session, sessions {sessions}, eras {', '.join(ERAS)}\n")
    print(HEADER, flush=True)
    rows = measure(setups, list(ERAS), sessions, calls, args.redis)
    if args.json:
        args.json.write_text(json.dumps([asdict(row) for row in rows], indent=2))
    if args.plot:
        plot(rows, args.plot)
    failed = sum(row.errors for row in rows)
    print(f"\n{failed} failed calls of {sum(row.calls for row in rows)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
