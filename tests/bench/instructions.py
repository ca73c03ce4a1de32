"""1d. Instructions per push round trip, counted by valgrind's callgrind.

Wall-clock ratios on a shared machine drift by tens of percent; the number of instructions a
round trip executes does not. The contenders of `roundtrip.py` (its server, tools and client
callback, one push-era connection) run in one Python process under

    valgrind --tool=callgrind --instr-atstart=no --cache-sim=no --dump-before=getppid

with `PYTHONHASHSEED=0`. The worker imports everything and makes `warmup` calls of every
contender with instrumentation off (the imports alone are about 3.3 G instructions; not
instrumenting them makes the run about four times faster), switches instrumentation on with
`vgdb`, then for each contender in turn: marker, N calls, marker, M calls; and a last marker.
The marker is `os.getppid()`: callgrind dumps its counters on every entry to libc's `getppid`.
Instructions per round trip = (count of the M stretch - count of the N stretch) / (M - N), so
whatever a stretch costs once (the marker, the loop) cancels, as start-up does in the
two-runs method. Client, transport and server share the process: a round trip counts both ends.

Run alone: `python -m tests.bench.instructions [--quick]`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .roundtrip import CONTENDERS

ROOT = Path(__file__).resolve().parents[2]
MARKER = "getppid"
INSTALL = "apt-get install valgrind"
GOAL = 1.03
"""The issue's goal: typed_elicit at most this many times floor_validated's instructions."""
FULL = (5, 20, 220)
QUICK = (2, 2, 6)
"""(warm-up calls, N, M) per contender."""


@dataclass
class Count:
    """One contender's two measured stretches."""

    calls: tuple[int, int]
    instructions: tuple[int, int]

    @property
    def per_call(self) -> float:
        """Instructions per round trip: the difference of the stretches over the difference of calls."""
        (n, m), (i_n, i_m) = self.calls, self.instructions
        return (i_m - i_n) / (m - n)


@dataclass
class InstructionRun:
    """What callgrind counted, or why it did not run."""

    counts: dict[str, Count] = field(default_factory=dict[str, Count])
    hot: list[tuple[str, float]] = field(default_factory=list[tuple[str, float]])
    """Functions where typed_elicit executes the most instructions beyond floor_validated, per call."""
    sizes: tuple[int, int, int] = (0, 0, 0)
    valgrind: str = ""
    seconds: float = 0.0
    note: str = ""

    def ratio(self, name: str, against: str) -> float:
        """`name`'s instructions per round trip over `against`'s."""
        return self.counts[name].per_call / self.counts[against].per_call


def missing() -> str | None:
    """Why callgrind cannot run here (with the fix), or None."""
    for tool in ("valgrind", "vgdb"):
        if shutil.which(tool) is None:
            return f"{tool} not found on PATH: install valgrind (`{INSTALL}` on Debian/Ubuntu) to count them"
    return None


def measure(sizes: tuple[int, int, int], timeout: float = 900.0) -> InstructionRun:
    """Count every contender in one valgrind process; never raises for a missing tool or a failed run."""
    problem = missing()
    if problem is not None:
        return InstructionRun(sizes=sizes, note=f"callgrind skipped: {problem}")
    started = time.perf_counter()
    version = subprocess.run(["valgrind", "--version"], capture_output=True, text=True, check=False)
    run = InstructionRun(sizes=sizes, valgrind=version.stdout.strip())
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as tmp:
        found = stretches("tests.bench.instructions", CONTENDERS, sizes, Path(tmp), timeout)
        if isinstance(found, str):
            run.note = f"callgrind failed: {found}"
        else:
            _, n, m = sizes
            run.counts = {
                name: Count((n, m), (_total(found[name][0]), _total(found[name][1]))) for name in CONTENDERS
            }
            run.hot = hot_functions(found["typed_elicit"], found["floor_validated"], sizes)
    run.seconds = time.perf_counter() - started
    return run


def stretches(
    module: str, names: tuple[str, ...], sizes: tuple[int, int, int], out: Path, timeout: float
) -> dict[str, tuple[Path, Path]] | str:
    """Run `module`'s worker under callgrind; each of `names`' (N, M) stretch dumps, or what went wrong.

    The worker (`python -m module --worker WARMUP N M`) runs each name's N and M stretches, in
    the order of `names`, each ending at `MARKER`.
    """
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
        module,
        "--worker",
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
    expected = 1 + 2 * len(names)
    if len(dumps) != expected:
        return f"expected {expected} dumps at `{MARKER}`, found {len(dumps)} (is libc's symbol named so?)"
    # Dump 1 closes what ran before the first marker; then each name's N and M stretches.
    return {name: (dumps[1 + 2 * i], dumps[2 + 2 * i]) for i, name in enumerate(names)}


def _total(dump: Path) -> int:
    for line in dump.read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise ValueError(f"{dump} has no `totals:` line")


_LINE = re.compile(r"^\s*([\d,]+)\s+(.+?)\s*$")


def self_costs(dump: Path) -> dict[str, int]:
    """Instructions executed in each function itself, from `callgrind_annotate` (recursion levels merged)."""
    done = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--auto=no", "--show-percs=no", str(dump)],
        capture_output=True,
        text=True,
        check=True,
    )
    costs: dict[str, int] = defaultdict(int)
    for line in done.stdout.splitlines():
        match = _LINE.match(line)
        if match is None or match[2] == "PROGRAM TOTALS":
            continue
        # "file:function'2 [object]": the object is printed on some lines only, so it is dropped.
        where = match[2].split(" [", 1)[0]
        costs[re.sub(r"'\d+$", "", where.rsplit(":", 1)[-1])] += int(match[1].replace(",", ""))
    return costs


def hot_functions(
    ours: tuple[Path, Path], floor: tuple[Path, Path], sizes: tuple[int, int, int], top: int = 5
) -> list[tuple[str, float]]:
    """The `top` functions with the most extra instructions per call in `ours` over `floor`.

    Per function: ((ours M - ours N) - (floor M - floor N)) / (M - N), from the self costs of the
    (N, M) stretch dumps of each. Empty when `callgrind_annotate` is missing or fails.
    """
    if shutil.which("callgrind_annotate") is None:
        return []
    _, n, m = sizes
    try:
        ours_n, ours_m, floor_n, floor_m = (self_costs(dump) for dump in (*ours, *floor))
    except (OSError, subprocess.CalledProcessError):  # e.g. no perl to run the script
        return []
    extra: dict[str, float] = {}
    for key in ours_n.keys() | ours_m.keys() | floor_n.keys() | floor_m.keys():
        ours_calls = ours_m.get(key, 0) - ours_n.get(key, 0)
        floor_calls = floor_m.get(key, 0) - floor_n.get(key, 0)
        extra[key] = (ours_calls - floor_calls) / (m - n)
    return sorted(extra.items(), key=lambda item: -item[1])[:top]


def table(run: InstructionRun) -> list[str]:
    """The Markdown of section 1d."""
    warmup, n, m = run.sizes
    lines = ["#### 1d. Instructions per round trip (callgrind)", ""]
    if not run.counts:
        return [*lines, f"{run.note}.", ""]
    lines += [
        "All contenders in one process on one push-era connection, under `valgrind --tool=callgrind "
        f"--instr-atstart=no --cache-sim=no --dump-before={MARKER}` with `PYTHONHASHSEED=0` "
        f"({run.valgrind}): {warmup} warm-up calls each uninstrumented, then for each contender "
        f"stretches of N = {n} and M = {m} calls between markers; instructions per round trip = "
        "(M stretch - N stretch) / (M - N), client and server together. "
        f"{run.seconds:.0f} s in all; see `tests/bench/instructions.py`.",
        "",
        "| contender | instructions per round trip | vs floor + validate | vs SDK `ctx.elicit` |",
        "|---|---:|---:|---:|",
    ]
    for name in CONTENDERS:
        lines.append(
            f"| {name} | {run.counts[name].per_call / 1e6:.3f} M | "
            f"{run.ratio(name, 'floor_validated'):.3f}x | {run.ratio(name, 'sdk'):.3f}x |"
        )
    ratio = run.ratio("typed_elicit", "floor_validated")
    verdict = "met" if ratio <= GOAL else "**not met**"
    lines += ["", f"typed_elicit / floor_validated = {ratio:.3f}x (goal at most {GOAL:.2f}x: {verdict})."]
    if run.hot:
        lines += [
            "",
            "Where typed_elicit executes more than floor_validated (self instructions per round trip, "
            "by C function, from `callgrind_annotate` of both stretches):",
            "",
            "| C function | extra instructions per round trip |",
            "|---|---:|",
            *(f"| `{name}` | {extra:+,.0f} |" for name, extra in run.hot),
        ]
    lines.append("")
    return lines


def worker(warmup: int, n: int, m: int) -> None:
    """Inside valgrind: warm up uninstrumented, switch instrumentation on, then the marked stretches."""
    from .roundtrip import CONTENDERS

    drive(CONTENDERS, warmup, n, m)


def drive(names: tuple[str, ...], warmup: int, n: int, m: int) -> None:
    """Call each tool `warmup` times, switch instrumentation on, then `n` and `m` calls between markers.

    Shared by the benchmarks that count instructions per call with callgrind (see `worker`).
    """
    import anyio
    from mcp import Client

    from ._common import accept_signup, text_of
    from .roundtrip import build_server

    async def main() -> None:
        async with Client(build_server(), mode="legacy", elicitation_callback=accept_signup) as client:
            for name in names:
                for _ in range(warmup):
                    text_of(await client.call_tool(name, {}))
            _instrumentation_on()
            for name in names:
                for calls in (n, m):
                    os.getppid()
                    for _ in range(calls):
                        text_of(await client.call_tool(name, {}))
            os.getppid()

    anyio.run(main)


def _instrumentation_on() -> None:
    """Ask callgrind (through vgdb) to start counting; busy-wait so valgrind polls for the request."""
    vgdb = subprocess.Popen(
        ["vgdb", f"--pid={os.getpid()}", "instrumentation", "on"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 120
    while vgdb.poll() is None:
        if time.monotonic() > deadline:
            vgdb.kill()
            raise SystemExit("vgdb did not reach callgrind within 120 s")
        time.sleep(0.001)
    output = vgdb.stdout.read() if vgdb.stdout else ""
    if vgdb.returncode != 0:
        raise SystemExit(f"vgdb failed ({vgdb.returncode}): {output.strip()}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.instructions", description=__doc__)
    parser.add_argument("--quick", action="store_true", help=f"sizes {QUICK} instead of {FULL}")
    parser.add_argument("--worker", nargs=3, type=int, metavar=("WARMUP", "N", "M"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return
    run = measure(QUICK if args.quick else FULL)
    print("\n".join(table(run)))
    for name, count in run.counts.items():
        print(f"{name}: stretches {count.calls} -> {count.instructions} instructions", file=sys.stderr)


if __name__ == "__main__":
    main()
