"""7. What the OpenTelemetry integration costs per question, counted by callgrind.

Three set-ups, each in its own valgrind process (OpenTelemetry's providers are
process-wide), each measuring the push-era round trip of `roundtrip.py`'s
`typed_elicit` tool (one question) and its `floor_validated` tool (the SDK's bare
`elicit_form` plus validation, no typed_elicit) with the method of
`instructions.py` (N and M calls between `getppid` markers, uninstrumented warm-up):

- `absent`: typed_elicit finds no OpenTelemetry API (as when `import opentelemetry`
  fails; the worker sets the module's record of that, since the `mcp` SDK itself
  imports the API);
- `unused`: the API is there and no provider is set (the default for every server);
- `exporting`: a `TracerProvider` with a `SimpleSpanProcessor` into an in-memory
  exporter, and a `MeterProvider` with an in-memory reader.

The `floor_validated` column shows what the SDK's own spans cost in each set-up
(the SDK records a `tools/call` span and an `MCP send elicitation/create` span per
call once a provider is set); typed_elicit's own share is the difference.

Run alone: `python -m tests.bench.telemetry [--quick]`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .instructions import MARKER, ROOT, Count, _total, drive, missing  # pyright: ignore[reportPrivateUsage]

SETUPS = ("absent", "unused", "exporting")
TOOLS = ("typed_elicit", "floor_validated")
FULL = (5, 20, 220)
QUICK = (2, 2, 6)


@dataclass
class TelemetryRun:
    """Instructions per call by set-up and tool, or why they were not counted."""

    counts: dict[str, dict[str, Count]] = field(default_factory=dict[str, dict[str, Count]])
    sizes: tuple[int, int, int] = (0, 0, 0)
    seconds: float = 0.0
    note: str = ""


def measure(sizes: tuple[int, int, int], timeout: float = 900.0) -> TelemetryRun:
    """Count each set-up in its own valgrind process; never raises for a missing tool or a failed run."""
    problem = missing()
    if problem is not None:
        return TelemetryRun(sizes=sizes, note=f"callgrind skipped: {problem}")
    started = time.perf_counter()
    run = TelemetryRun(sizes=sizes)
    _, n, m = sizes
    for setup in SETUPS:
        with tempfile.TemporaryDirectory(prefix="bench-otel-") as tmp:
            dumps = _dumps(setup, sizes, Path(tmp), timeout)
            if isinstance(dumps, str):
                run.note = f"callgrind failed for {setup}: {dumps}"
                break
            run.counts[setup] = {
                tool: Count((n, m), (_total(dumps[1 + 2 * i]), _total(dumps[2 + 2 * i])))
                for i, tool in enumerate(TOOLS)
            }
    run.seconds = time.perf_counter() - started
    return run


def _dumps(setup: str, sizes: tuple[int, int, int], out: Path, timeout: float) -> list[Path] | str:
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--collect-atstart=yes",
        "--cache-sim=no",
        "--vgdb=yes",
        f"--dump-before={MARKER}",
        f"--callgrind-out-file={out / 'cg.out'}",
        sys.executable,
        "-m",
        "tests.bench.telemetry",
        "--worker",
        setup,
        *(str(size) for size in sizes),
    ]
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": path}
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"no result within {timeout:.0f} s"
    if done.returncode != 0:
        tail = " ".join(done.stderr.strip().splitlines()[-3:])
        return f"the worker exited with {done.returncode} ({tail})"
    dumps = sorted(out.glob("cg.out.*"), key=lambda p: int(p.suffix[1:]))
    if len(dumps) != 1 + 2 * len(TOOLS):
        return f"expected {1 + 2 * len(TOOLS)} dumps, found {len(dumps)}"
    return dumps


def table(run: TelemetryRun) -> list[str]:
    """The Markdown of section 7."""
    warmup, n, m = run.sizes
    lines = ["### 7. OpenTelemetry: instructions per question (callgrind)", ""]
    if len(run.counts) != len(SETUPS):
        return [*lines, f"{run.note}.", ""]
    lines += [
        "One push-era question per call (`roundtrip.py`'s tools), client and server in one process, "
        f"{warmup} warm-up calls uninstrumented, then stretches of N = {n} and M = {m} calls; "
        "instructions per call = (M stretch - N stretch) / (M - N). Each set-up runs in its own "
        f"process; {run.seconds:.0f} s in all; see `tests/bench/telemetry.py`.",
        "",
        "| set-up | typed_elicit call | floor_validated call (SDK only) | typed_elicit's own cost | "
        "vs `unused` |",
        "|---|---:|---:|---:|---:|",
    ]
    unused = run.counts["unused"]
    base = unused["typed_elicit"].per_call - unused["floor_validated"].per_call
    for setup in SETUPS:
        ours, floor = (
            run.counts[setup]["typed_elicit"].per_call,
            run.counts[setup]["floor_validated"].per_call,
        )
        own = ours - floor
        lines.append(
            f"| {setup} | {ours / 1e6:.3f} M | {floor / 1e6:.3f} M | {own / 1e3:,.0f} k "
            f"| {own - base:+,.0f} |"
        )
    lines.append("")
    return lines


def worker(setup: str, warmup: int, n: int, m: int) -> None:
    """Inside valgrind: set up telemetry, warm up uninstrumented, then the marked stretches."""

    from typed_elicit._observe import telemetry as _telemetry

    if setup == "absent":
        _telemetry._api = False  # pyright: ignore[reportPrivateUsage]  # as when the import fails
    elif setup == "exporting":
        from opentelemetry import metrics, trace
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        tracers = TracerProvider()
        tracers.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
        trace.set_tracer_provider(tracers)
        metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))
    assert _telemetry.enabled() == (setup == "exporting")

    drive(TOOLS, warmup, n, m)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.telemetry", description=__doc__)
    parser.add_argument("--quick", action="store_true", help=f"sizes {QUICK} instead of {FULL}")
    parser.add_argument("--worker", nargs=4, metavar=("SETUP", "WARMUP", "N", "M"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        setup, *sizes = args.worker
        worker(setup, *(int(size) for size in sizes))
        return
    run = measure(QUICK if args.quick else FULL)
    print("\n".join(table(run)))
    for setup, counts in run.counts.items():
        for tool, count in counts.items():
            print(f"{setup} {tool}: stretches {count.calls} -> {count.instructions}", file=sys.stderr)
    if run.note.startswith("callgrind failed"):  # a skipped run (no valgrind) is not a failure
        sys.exit(1)


if __name__ == "__main__":
    main()
