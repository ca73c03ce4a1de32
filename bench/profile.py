"""Profile one round-trip contender: `python -m bench.profile [typed_elicit|sdk|floor] [--calls N]`.

Runs N in-memory push-era calls under cProfile and prints the functions with the most
own time, then every typed_elicit function with its cumulative time per call.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats

import anyio
from mcp import Client

from ._common import accept_signup, text_of
from .roundtrip import CONTENDERS, build_server


async def _calls(name: str, calls: int, profiler: cProfile.Profile) -> None:
    async with Client(build_server(), mode="legacy", elicitation_callback=accept_signup) as client:
        for _ in range(20):
            text_of(await client.call_tool(name, {}))
        profiler.enable()
        for _ in range(calls):
            text_of(await client.call_tool(name, {}))
        profiler.disable()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("contender", choices=CONTENDERS, nargs="?", default="typed_elicit")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    profiler = cProfile.Profile()
    anyio.run(_calls, args.contender, args.calls, profiler)
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(args.top)
    print(f"typed_elicit functions, cumulative µs per call ({args.calls} calls, profiler overhead included):")
    rows = []
    for (filename, line, func), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if "/typed_elicit/" in filename:
            rows.append((ct / args.calls * 1e6, f"{filename.rsplit('/', 1)[-1]}:{line} {func}"))
    for micros, where in sorted(rows, reverse=True):
        print(f"  {micros:9.1f} µs  {where}")


if __name__ == "__main__":
    main()
