"""Profile round-trip contenders: `python -m tests.bench.profile [CONTENDER] [--against OTHER] [--calls N]`.

Runs N in-memory push-era calls under cProfile and prints the functions with the most
own time, then every typed_elicit function with its cumulative time per call. With
`--against`, profiles both and lists the functions whose own time or call count per
call differs most (what one contender does that the other does not). Profiler overhead
inflates every number; compare them with each other, not with the round-trip table.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
from typing import Any

import anyio
from mcp import Client

from ._common import accept_signup, text_of
from .roundtrip import CONTENDERS, build_server

Key = tuple[str, int, str]


async def _calls(name: str, calls: int, profiler: cProfile.Profile) -> None:
    async with Client(build_server(), mode="legacy", elicitation_callback=accept_signup) as client:
        for _ in range(20):
            text_of(await client.call_tool(name, {}))
        profiler.enable()
        for _ in range(calls):
            text_of(await client.call_tool(name, {}))
        profiler.disable()


def profile(name: str, calls: int) -> dict[Key, tuple[float, float, float]]:
    """Per call: (primitive calls, own seconds, cumulative seconds) of every function."""
    profiler = cProfile.Profile()
    anyio.run(_calls, name, calls, profiler)
    table: dict[Key, tuple[Any, ...]] = getattr(pstats.Stats(profiler), "stats")  # noqa: B009
    return {key: (cc / calls, tt / calls, ct / calls) for key, (cc, _nc, tt, ct, *_rest) in table.items()}


def _where(key: Key) -> str:
    filename, line, func = key
    short = filename.split("site-packages/")[-1].split("/work/main/")[-1]
    return f"{short}:{line} {func}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("contender", choices=CONTENDERS, nargs="?", default="typed_elicit")
    parser.add_argument("--against", choices=CONTENDERS)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    ours = profile(args.contender, args.calls)
    if args.against is None:
        print(f"{args.contender}: most own time per call ({args.calls} calls)")
        for key, (n, tt, _ct) in sorted(ours.items(), key=lambda kv: -kv[1][1])[: args.top]:
            print(f"  {tt * 1e6:8.1f} µs own  {n:6.1f} calls  {_where(key)}")
        print("typed_elicit functions, cumulative µs per call:")
        for key, (_n, _tt, ct) in sorted(ours.items(), key=lambda kv: -kv[1][2]):
            if "/typed_elicit/" in key[0]:
                print(f"  {ct * 1e6:8.1f} µs  {_where(key)}")
        return
    theirs = profile(args.against, args.calls)
    total = sum(v[1] for v in ours.values()) - sum(v[1] for v in theirs.values())
    print(f"{args.contender} - {args.against}: {total * 1e6:+.1f} µs own time per call in all (profiled)")
    diffs: list[tuple[float, float, Key]] = []
    for key in ours.keys() | theirs.keys():
        a = ours.get(key, (0.0, 0.0, 0.0))
        b = theirs.get(key, (0.0, 0.0, 0.0))
        diffs.append((a[1] - b[1], a[0] - b[0], key))
    for dt, dn, key in sorted(diffs, key=lambda d: -abs(d[0]))[: args.top]:
        print(f"  {dt * 1e6:+8.1f} µs own  {dn:+6.1f} calls  {_where(key)}")


if __name__ == "__main__":
    main()
