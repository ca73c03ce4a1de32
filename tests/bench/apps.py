"""8. What app views cost a question whose client cannot show one, counted by callgrind.

Issue 23's rule: a question without the capability costs the same instructions as today.
One valgrind process (the method of `instructions.py`: uninstrumented warm-up, then N and M
push round trips between `getppid` markers, `PYTHONHASHSEED=0`) measures three set-ups, each
its own server and in-memory `mcp.Client(mode="legacy")` (2025-11-25) that accepts with the
same answer as the round-trip benchmark:

- `plain`: `ctx.elicit(Signup)` on a server without app views (what main does);
- `app_not_shown`: the same six fields declared `@form(app=True)`, on a server that called
  `serve_apps`, asked by a client that does not declare the capability: the plain form goes
  out, unchanged (what the issue asks to cost the same);
- `app_shown`: the same server and model, a client that declares it (`app_capability()`):
  the question carries `_meta.ui.resourceUri` (for reference: the app path's own cost).

Run alone: `python -m tests.bench.apps [--quick]`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, EmailStr, Field

from typed_elicit import Accepted, ElicitContext, elicits, form

from .instructions import (  # pyright: ignore[reportPrivateUsage]
    Count,
    _instrumentation_on,
    _total,
    missing,
    stretches,
)

SETUPS = ("plain", "app_not_shown", "app_shown")
FULL = (5, 20, 220)
QUICK = (2, 2, 6)
GOAL = 1.01
"""A question whose client cannot show the app costs at most this many times `plain`."""


@form(message="Create your account", app=True)
class AppSignup(BaseModel):
    """`_common.Signup`'s fields, with an app view."""

    name: str = Field(min_length=1, max_length=40)
    email: EmailStr
    age: int = Field(ge=13, le=130)
    plan: Literal["free", "pro", "team"] = "free"
    newsletter: bool = False
    referrer: str = ""


@dataclass
class AppsRun:
    """Instructions per round trip by set-up, or why they were not counted."""

    counts: dict[str, Count] = field(default_factory=dict[str, Count])
    sizes: tuple[int, int, int] = (0, 0, 0)
    seconds: float = 0.0
    note: str = ""

    def ratio(self, name: str) -> float:
        """`name`'s instructions per round trip over `plain`'s."""
        return self.counts[name].per_call / self.counts["plain"].per_call


def measure(sizes: tuple[int, int, int], timeout: float = 900.0) -> AppsRun:
    """Count the three set-ups in one valgrind process; never raises for a missing tool or a failed run."""
    problem = missing()
    if problem is not None:
        return AppsRun(sizes=sizes, note=f"callgrind skipped: {problem}")
    started = time.perf_counter()
    run = AppsRun(sizes=sizes)
    _, n, m = sizes
    with tempfile.TemporaryDirectory(prefix="bench-apps-") as tmp:
        found = stretches("tests.bench.apps", SETUPS, sizes, Path(tmp), timeout)
        if isinstance(found, str):
            run.note = f"callgrind failed: {found}"
            return run
        for setup in SETUPS:
            run.counts[setup] = Count((n, m), (_total(found[setup][0]), _total(found[setup][1])))
    run.seconds = time.perf_counter() - started
    return run


def table(run: AppsRun) -> list[str]:
    """The Markdown of section 8."""
    warmup, n, m = run.sizes
    lines = ["#### 8. App views: a question whose client cannot show one (callgrind)", ""]
    if not run.counts:
        return [*lines, f"{run.note}.", ""]
    lines += [
        f"One process, `PYTHONHASHSEED=0`, {warmup} warm-up calls each uninstrumented, stretches of "
        f"N = {n} and M = {m} push round trips (2025-11-25) between markers; instructions per round "
        f"trip = (M stretch - N stretch) / (M - N), client and server together. {run.seconds:.0f} s; "
        "see `tests/bench/apps.py`.",
        "",
        "| set-up | instructions per round trip | vs plain |",
        "|---|---:|---:|",
        *(f"| {s} | {run.counts[s].per_call / 1e6:.4f} M | {run.ratio(s):.4f}x |" for s in SETUPS),
    ]
    ratio = run.ratio("app_not_shown")
    verdict = "met" if ratio <= GOAL else "**not met**"
    lines += ["", f"app_not_shown / plain = {ratio:.4f}x (goal at most {GOAL:.2f}x: {verdict}).", ""]
    return lines


def worker(warmup: int, n: int, m: int) -> None:
    """Inside valgrind: the three set-ups warmed up, instrumentation on, then their marked stretches."""
    from contextlib import AsyncExitStack

    import anyio
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    from typed_elicit.apps import serve_apps
    from typed_elicit.client import app_capability

    from ._common import MESSAGE, Signup, accept_signup, text_of

    def server(model: type[BaseModel], apps: bool) -> MCPServer:
        built = MCPServer("bench-apps")

        @built.tool()
        @elicits
        async def ask(ctx: ElicitContext) -> str:
            result = await ctx.elicit(model, MESSAGE)
            assert isinstance(result, Accepted)
            return "ok"

        if apps:
            serve_apps(built, models=[model])
        return built

    viewed = server(AppSignup, apps=True)
    servers = {"plain": server(Signup, apps=False), "app_not_shown": viewed, "app_shown": viewed}

    async def main() -> None:
        async with AsyncExitStack() as stack:
            clients = {}
            for setup in SETUPS:
                extensions = [app_capability()] if setup == "app_shown" else []
                client = Client(
                    servers[setup], mode="legacy", elicitation_callback=accept_signup, extensions=extensions
                )
                clients[setup] = await stack.enter_async_context(client)
                for _ in range(warmup):
                    text_of(await clients[setup].call_tool("ask", {}))
            _instrumentation_on()
            for setup in SETUPS:
                for calls in (n, m):
                    os.getppid()
                    for _ in range(calls):
                        text_of(await clients[setup].call_tool("ask", {}))
            os.getppid()

    anyio.run(main)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.apps", description=__doc__)
    parser.add_argument("--quick", action="store_true", help=f"sizes {QUICK} instead of {FULL}")
    parser.add_argument("--worker", nargs=3, type=int, metavar=("WARMUP", "N", "M"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return
    run = measure(QUICK if args.quick else FULL)
    print("\n".join(table(run)))
    for setup, count in run.counts.items():
        print(f"{setup}: stretches {count.calls} -> {count.instructions}", file=sys.stderr)
    if run.note.startswith("callgrind failed"):
        sys.exit(1)


if __name__ == "__main__":
    main()
