"""Run every benchmark and write `docs/benchmarks.md` (between its markers) and `docs/img/benchmarks.png`.

Usage (from the repository root):

    .venv/bin/python -m tests.bench          # full run, a few minutes; creates tests/bench/.fastmcp-venv once
    .venv/bin/python -m tests.bench --quick  # smoke run, seconds; prints the tables, writes nothing

Options: `--no-fastmcp` skips FastMCP; `--fastmcp` creates its venv even with `--quick`;
`--no-callgrind` skips the instruction count (1d; skipped with a note when valgrind is missing);
`--pending N` sets the scale run's question count (10,000); `--write`/`--no-write`;
`--json FILE` keeps the raw numbers.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio

from . import bench_schema, elicit_all, instructions, overhead, roundtrip, scale, wizard
from ._common import Era, Samples
from .elicit_all import AllRow
from .instructions import InstructionRun
from .report import render_markdown, write_outputs
from .roundtrip import FastMCPRun
from .scale import ScaleRun
from .wizard import GrowthRow

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "benchmarks.md"
IMG = ROOT / "docs" / "img" / "benchmarks.png"


@dataclass
class Config:
    """What to run and how big (the defaults are the full run; see `Config.quick_run`)."""

    quick: bool = False
    fastmcp: bool = True
    install_fastmcp: bool = True
    roundtrip_size: tuple[int, int] = (200, 15)
    """(calls per block, blocks per contender)."""
    wizard_size: tuple[int, int] = (40, 15)
    growth_ks: list[int] = field(default_factory=lambda: list(range(1, 17)))
    growth_repeats: int = 9
    pending: int = 10_000
    clients: int = 10
    traced_pending: int = 2_000
    """tracemalloc makes the scale run ~3x slower; the breakdown is per question, so fewer suffice."""
    callgrind: bool = True
    instructions_size: tuple[int, int, int] = instructions.FULL
    """(warm-up calls, N, M) per contender of the callgrind count."""

    @classmethod
    def quick_run(cls, **changes: Any) -> Config:
        """Tiny sizes for the CI smoke run (seconds, not minutes)."""
        preset: dict[str, Any] = {
            "quick": True,
            "roundtrip_size": (20, 3),
            "wizard_size": (5, 3),
            "growth_ks": [1, 2, 3],
            "growth_repeats": 1,
            "pending": 200,
            "clients": 2,
            "traced_pending": 100,
            "instructions_size": instructions.QUICK,
        }
        return cls(**(preset | changes))


@dataclass
class Results:
    """Everything one run measured."""

    config: Config
    environment: dict[str, str]
    roundtrip: Samples
    fastmcp: FastMCPRun
    steps: dict[str, float]
    instructions: InstructionRun
    three_step: dict[str, Samples]
    three_step_runs: dict[str, dict[str, int]]
    growth: list[GrowthRow]
    scale: list[ScaleRun]
    schema: dict[str, float]
    elicit_all: list[AllRow] = field(default_factory=list[AllRow])
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list[str])


def environment() -> dict[str, str]:
    """Versions and machine facts for the report header."""
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        rev = ""
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "mcp": version("mcp"),
        "pydantic": version("pydantic"),
        "anyio": version("anyio"),
        "typed_elicit": f"{version('typed-elicit')} (git {rev or '?'}, uncommitted changes included)",
        "machine": f"{platform.machine()}, {_cores()} cores, {platform.system()} {platform.release()}",
    }


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 0)


def _log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def run(config: Config) -> Results:
    """Run the comparisons in order; each is bounded in time."""
    started = time.perf_counter()
    calls, blocks = config.roundtrip_size
    _log(f"1. round trip, push era: {calls} calls x {blocks} blocks per contender")
    rt = anyio.run(roundtrip.measure_in_process, calls, blocks)
    if config.fastmcp:
        _log("1b. FastMCP worker (its own venv)")
        fm = roundtrip.measure_fastmcp(calls, blocks, install=config.install_fastmcp)
    else:
        fm = FastMCPRun(None, {}, "FastMCP skipped: --no-fastmcp")
    if fm.note:
        _log(fm.note)
    _log("1c. typed_elicit's steps, timed inside a live tool call")
    steps = anyio.run(overhead.measure, 2_000 if config.quick else 20_000)
    if config.callgrind:
        _log(f"1d. instructions per round trip under callgrind: (warm-up, N, M) = {config.instructions_size}")
        counted = instructions.measure(config.instructions_size, timeout=300.0 if config.quick else 900.0)
    else:
        counted = InstructionRun(note="callgrind skipped: --no-callgrind")
    if counted.note:
        _log(counted.note)

    wcalls, wblocks = config.wizard_size
    three: dict[str, Samples] = {}
    three_runs: dict[str, dict[str, int]] = {}
    eras: tuple[Era, Era] = ("2026-07-28", "legacy")
    for era in eras:
        _log(f"2. three-step wizard on {era}: {wcalls} calls x {wblocks} blocks")
        three[era], three_runs[era] = anyio.run(wizard.measure_three_step, era, wcalls, wblocks)

    growth: list[GrowthRow] = []
    for era in reversed(eras):
        _log(f"3. growth on {era}: k = {config.growth_ks[0]}..{config.growth_ks[-1]}")
        growth += anyio.run(wizard.measure_growth, config.growth_ks, era, config.growth_repeats)

    pending, clients, traced = config.pending, config.clients, config.traced_pending
    runs: list[ScaleRun] = []
    _log(f"4. scale: {pending} pending questions over {clients} clients (fresh interpreter per scenario)")
    runs.append(scale.run_in_subprocess("answered", "typed_elicit", pending, clients, False, 300.0))
    runs.append(scale.run_in_subprocess("answered", "floor", pending, clients, False, 300.0))
    _log(f"4. scale, traced: {traced} pending questions")
    runs.append(scale.run_in_subprocess("answered", "typed_elicit", traced, clients, True, 300.0))
    runs.append(scale.run_in_subprocess("answered", "floor", traced, clients, True, 300.0))
    # The timeout must outlast the time it takes to get every question pending.
    timeout = round(max(1.0, 1.5 * runs[0].seconds_to_pending + 1.0), 1)
    _log(f"4. scale: {pending} questions timing out after {timeout} s")
    runs.append(scale.run_in_subprocess("timeout", "typed_elicit", pending, clients, False, timeout))
    _log(f"4. scale: {pending} pending questions, then the clients disconnect")
    runs.append(scale.run_in_subprocess("disconnect", "typed_elicit", pending, clients, False, 300.0))

    _log("5. schema cost")
    schema = bench_schema.run(config.quick)
    results = Results(config, environment(), rt, fm, steps, counted, three, three_runs, growth, runs, schema)
    all_ks = [2] if config.quick else [2, 4, 6]
    for era in reversed(eras):
        _log(f"6. elicit_all vs sequential on {era}: k = {all_ks}")
        results.elicit_all += anyio.run(elicit_all.measure, all_ks, era, 1 if config.quick else 9)
    results.seconds = time.perf_counter() - started
    _log(f"done in {results.seconds:.0f} s")
    return results


def main(argv: list[str] | None = None) -> Results:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes (CI smoke run); writes nothing")
    parser.add_argument("--no-fastmcp", action="store_true", help="skip the FastMCP comparison")
    parser.add_argument("--fastmcp", action="store_true", help="create the FastMCP venv even with --quick")
    parser.add_argument("--no-callgrind", action="store_true", help="skip the instruction count (1d)")
    parser.add_argument("--pending", type=int, help="scale run size (default 10000; 200 with --quick)")
    parser.add_argument("--write", dest="write", action="store_true", default=None)
    parser.add_argument("--no-write", dest="write", action="store_false")
    parser.add_argument("--doc", type=Path, default=DOC)
    parser.add_argument("--img", type=Path, default=IMG)
    parser.add_argument("--json", type=Path, help="also dump the raw numbers here")
    args = parser.parse_args(argv)
    options: dict[str, Any] = {
        "fastmcp": not args.no_fastmcp,
        "install_fastmcp": args.fastmcp or not args.quick,
        "callgrind": not args.no_callgrind,
    }
    if args.pending is not None:
        options["pending"] = args.pending
    config = Config.quick_run(**options) if args.quick else Config(**options)
    results = run(config)
    markdown = render_markdown(results, image=args.img, doc=args.doc)
    print(markdown)
    if args.json:
        args.json.write_text(json.dumps(asdict(results), indent=1, default=_plain))
    write = (not args.quick) if args.write is None else args.write
    if write:
        for line in write_outputs(results, markdown, args.doc, args.img):
            _log(line)
    return results


def _plain(obj: Any) -> Any:
    return str(obj)


if __name__ == "__main__":
    main()
