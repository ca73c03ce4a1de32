"""6. k independent questions: k sequential `ctx.elicit` against one `ctx.elicit_all`.

On 2026-07-28 `elicit_all` asks all k in one round (body runs 2), the sequential wizard
needs k rounds (body runs k + 1). On a push era both send k elicitation requests.
"""

from __future__ import annotations

import gc
import statistics
import time
from dataclasses import dataclass
from typing import Any

from mcp import Client
from mcp.server.mcpserver import MCPServer

from typed_elicit import Accepted
from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.elicits import elicits

from ._common import Era, Step, accept_any, text_of
from .wizard import MAX_ROUNDS, Counters, add_k_step


@dataclass
class AllRow:
    """One k on one era: body runs and median process seconds per call, both contenders."""

    era: Era
    k: int
    sequential_runs: int
    all_runs: int
    sequential_seconds: float
    all_seconds: float


def add_k_all(server: MCPServer, k: int, counters: Counters) -> None:
    """Register `k{k}_elicit_all`: one `ctx.elicit_all` of k `Step` models."""

    async def together(ctx: ElicitContext) -> str:
        counters.hit("all:body")
        models: list[Any] = [Step] * k
        answers = await ctx.elicit_all(*models)
        choices: list[str] = []
        for answer in answers:
            assert isinstance(answer, Accepted)
            choices.append(str(answer.data.choice))
        return "".join(choices)

    together.__name__ = together.__qualname__ = f"k{k}_elicit_all"
    server.tool()(elicits(together))


async def measure(ks: list[int], era: Era, repeats: int) -> list[AllRow]:
    """Body runs of one call, then the median of `repeats` alternated timed calls, per k."""
    counters = Counters()
    server = MCPServer("bench-elicit-all")
    for k in ks:
        add_k_step(server, k, counters)
        add_k_all(server, k, counters)
    rows: list[AllRow] = []
    client_of = Client(
        server, mode=era, elicitation_callback=accept_any, input_required_max_rounds=MAX_ROUNDS
    )
    async with client_of as client:
        for k in ks:
            names = {"seq": (f"k{k}_typed_elicit", "te:"), "all": (f"k{k}_elicit_all", "all:")}
            runs: dict[str, int] = {}
            times: dict[str, list[float]] = {"seq": [], "all": []}
            for key, (tool, prefix) in names.items():
                counters.reset()
                text_of(await client.call_tool(tool, {}))
                runs[key] = counters.total(prefix)
            for repeat in range(repeats):
                for key in ("seq", "all") if repeat % 2 == 0 else ("all", "seq"):
                    gc.collect()
                    start = time.process_time()
                    text_of(await client.call_tool(names[key][0], {}))
                    times[key].append(time.process_time() - start)
            rows.append(
                AllRow(
                    era,
                    k,
                    runs["seq"],
                    runs["all"],
                    statistics.median(times["seq"]),
                    statistics.median(times["all"]),
                )
            )
    return rows


if __name__ == "__main__":
    import anyio

    for era in ("legacy", "2026-07-28"):
        for row in anyio.run(measure, [2, 4, 6], era, 9):
            print(row)
