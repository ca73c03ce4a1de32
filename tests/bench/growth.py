"""`elicit_all` of k questions on 2026-07-28: instructions per call as k grows, counted by callgrind.

A call of `k{k}_elicit_all` (one `ctx.elicit_all` of k `Step` models, `elicit_all.add_k_all`)
takes two rounds on 2026-07-28: one that asks all k, one that brings the k answers. Each k's
tool runs in one Python process under callgrind, as in `instructions.py` (warm-up calls
uninstrumented, then stretches of N and M calls between `getppid` markers; per call =
(M stretch - N stretch) / (M - N), client and server together, `PYTHONHASHSEED=0`). After the
warm-up the objects made so far are frozen (`gc.freeze()`, as a server that preloads does), so
the cyclic collector's full passes over every module and class do not land in one k's stretch
and not another's: its work on the calls' own objects is still counted. Linear
growth: each added question costs the same, so the cost per added question from 4 to 16
is no more than from 1 to 4 (the goal, with 10% for the noise of a count).

Run alone: `python -m tests.bench.growth [--quick]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .instructions import missing, stretches

KS = (1, 4, 16)
FULL = (3, 5, 25)
QUICK = (1, 1, 3)
"""(warm-up calls, N, M) per k."""
GOAL = 1.10
"""Linear: the cost per added question from 4 to 16 at most this many times that from 1 to 4."""
BEFORE = {1: 4.37e6, 4: 8.47e6, 16: 30.98e6}
"""Instructions per call at 4b4fc3e (before issue 30's fix), counted by this module's full run.
(The issue's own figures: 1.48 M per added question from 1 to 4, 1.97 M from 4 to 16.)"""


@dataclass
class Growth:
    """Instructions per call, by k (empty when callgrind could not run: `note` says why)."""

    per_call: dict[int, float] = field(default_factory=dict[int, float])
    sizes: tuple[int, int, int] = (0, 0, 0)
    seconds: float = 0.0
    note: str = ""

    def slope(self, low: int, high: int) -> float:
        """Instructions per added question from `low` to `high` questions."""
        return (self.per_call[high] - self.per_call[low]) / (high - low)


def measure(sizes: tuple[int, int, int], timeout: float = 900.0) -> Growth:
    """Count every k in one valgrind process; never raises for a missing tool or a failed run."""
    run = Growth(sizes=sizes)
    problem = missing()
    if problem is not None:
        run.note = f"callgrind skipped: {problem}"
        return run
    started = time.perf_counter()
    names = tuple(f"k{k}_elicit_all" for k in KS)
    with tempfile.TemporaryDirectory(prefix="bench-growth-") as tmp:
        found = stretches("tests.bench.growth", names, sizes, Path(tmp), timeout)
        if isinstance(found, str):
            run.note = f"callgrind failed: {found}"
        else:
            _, n, m = sizes
            for k, name in zip(KS, names, strict=True):
                short, long = (_total(dump) for dump in found[name])
                run.per_call[k] = (long - short) / (m - n)
    run.seconds = time.perf_counter() - started
    return run


def _total(dump: Path) -> int:
    for line in dump.read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise ValueError(f"{dump} has no `totals:` line")


def table(run: Growth) -> str:
    """The Markdown table, the goal beside the measured figure."""
    if not run.per_call:
        return f"{run.note}."
    warmup, n, m = run.sizes
    lines = [
        "| questions k | instructions per call | per added question | before: per call |",
        "|---:|---:|---:|---:|",
    ]
    previous: int | None = None
    for k, count in run.per_call.items():
        added = "" if previous is None else f"{run.slope(previous, k) / 1e6:.3f} M (from {previous})"
        lines.append(f"| {k} | {count / 1e6:.2f} M | {added} | {BEFORE[k] / 1e6:.2f} M |")
        previous = k
    low, high = run.slope(1, 4), run.slope(4, 16)
    before_low, before_high = (BEFORE[4] - BEFORE[1]) / 3, (BEFORE[16] - BEFORE[4]) / 12
    ratio = high / low
    verdict = "met" if ratio <= GOAL else "**not met**"
    if run.sizes == QUICK:
        verdict = "no verdict on a smoke run's sizes"
    lines += [
        "",
        f"Per added question: {low / 1e6:.3f} M from 1 to 4, {high / 1e6:.3f} M from 4 to 16: "
        f"{ratio:.3f}x (goal at most {GOAL:.2f}x, linear: {verdict}; before: {before_low / 1e6:.3f} M and "
        f"{before_high / 1e6:.3f} M, {before_high / before_low:.3f}x). Callgrind, {warmup} warm-up calls, "
        f"N = {n}, M = {m}; {run.seconds:.0f} s.",
    ]
    return "\n".join(lines)


def worker(warmup: int, n: int, m: int) -> None:
    """Inside valgrind: warm up uninstrumented, switch instrumentation on, then the marked stretches."""
    import gc
    import os

    import anyio
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    from ._common import accept_any, text_of
    from .elicit_all import add_k_all
    from .instructions import _instrumentation_on  # pyright: ignore[reportPrivateUsage]
    from .wizard import MAX_ROUNDS, Counters

    server = MCPServer("bench-growth")
    for k in KS:
        add_k_all(server, k, Counters())

    async def main() -> None:
        client_of = Client(
            server, mode="2026-07-28", elicitation_callback=accept_any, input_required_max_rounds=MAX_ROUNDS
        )
        async with client_of as client:
            for k in KS:
                for _ in range(warmup):
                    text_of(await client.call_tool(f"k{k}_elicit_all", {}))
            # The objects made so far (modules, classes, the warmed caches) are moved out of the
            # collector's reach: a full collection would traverse them all, once per so many
            # allocations, and whether one falls inside a short stretch is a step, not a cost of k.
            gc.collect()
            gc.freeze()
            _instrumentation_on()
            for k in KS:
                for calls in (n, m):
                    os.getppid()
                    for _ in range(calls):
                        text_of(await client.call_tool(f"k{k}_elicit_all", {}))
            os.getppid()

    anyio.run(main)


def main(argv: list[str] | None = None) -> Growth:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.growth", description=__doc__)
    parser.add_argument("--quick", action="store_true", help=f"sizes {QUICK} instead of {FULL}")
    parser.add_argument("--worker", nargs=3, type=int, metavar=("WARMUP", "N", "M"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return Growth()
    run = measure(QUICK if args.quick else FULL)
    print(table(run))
    return run


if __name__ == "__main__":
    main()
