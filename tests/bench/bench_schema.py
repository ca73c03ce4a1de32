"""5. Schema cost: `reduce_schema` on a cached model vs a bare dict lookup vs the SDK's per-call render.

Run alone: `python tests/bench/bench_schema.py [--quick]` prints one Markdown table; `python -m tests.bench`
runs it with everything else. Ratios are measured in the same run, contenders alternating,
median of the blocks. Also measured: the one-time cost of reducing a model never seen
before (what `@elicits(Model)` or the first question pays once per model and revision).
"""

from __future__ import annotations

import statistics
import sys
import time
import timeit
from collections.abc import Callable
from typing import Any, Literal

from mcp.server.elicitation import render_elicitation_schema
from pydantic import BaseModel, EmailStr, Field

from typed_elicit import form, reduce_schema

FLOOR = "dict lookup (floor)"
CACHED = "typed_elicit reduce_schema (cached)"
COLD = "typed_elicit reduce_schema (first call on a new model: the full reduction, once)"
SDK = "SDK render_elicitation_schema (per call)"


def fresh_signup(declare: bool = True) -> type[BaseModel]:
    """A new class each call: the six-field model of the round-trip benchmark (bench/_common.py).

    With `declare`, it is decorated with `@form` (which reduces it at once); without, the
    first `reduce_schema` call does the whole reduction.
    """

    class Signup(BaseModel):
        """A six-field model, as in the round-trip benchmark."""

        name: str = Field(min_length=1, max_length=40)
        email: EmailStr
        age: int = Field(ge=13, le=130)
        plan: Literal["free", "pro", "team"] = "free"
        newsletter: bool = False
        referrer: str = ""

    return form(Signup) if declare else Signup


Signup = fresh_signup()


def measure(contenders: dict[str, Callable[[], Any]], number: int, blocks: int) -> dict[str, float]:
    """Median seconds per call of each contender, alternating them block by block."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(blocks):
        for name, fn in contenders.items():
            samples[name].append(timeit.timeit(fn, number=number) / number)
    return {name: statistics.median(values) for name, values in samples.items()}


def cold_reduce(models: int) -> float:
    """Median seconds of the first `reduce_schema` of a model class never reduced before."""
    classes = [fresh_signup(declare=False) for _ in range(models)]
    times: list[float] = []
    for model in classes:
        start = time.perf_counter()
        reduce_schema(model)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(quick: bool = False) -> dict[str, float]:
    """Seconds per call of every contender (no output)."""
    cache = {(Signup, "2026-07-28", False): reduce_schema(Signup)}
    key = (Signup, "2026-07-28", False)
    number, blocks = (200, 3) if quick else (20_000, 9)
    times = measure({FLOOR: lambda: cache[key], CACHED: lambda: reduce_schema(Signup)}, number, blocks)
    times[COLD] = cold_reduce(10 if quick else 200)
    times |= measure({SDK: lambda: render_elicitation_schema(Signup)}, max(number // 100, 20), blocks)
    return times


def table(times: dict[str, float]) -> str:
    """The Markdown table of `run`'s result."""
    floor = times[FLOOR]
    lines = ["| contender | time per call | vs dict lookup |", "|---|---:|---:|"]
    for name, seconds in times.items():
        lines.append(f"| {name} | {seconds * 1e6:,.3f} µs | {seconds / floor:,.1f}x |")
    return "\n".join(lines)


def main(quick: bool = False) -> dict[str, float]:
    """Run the comparison and print a Markdown table; return seconds per call."""
    times = run(quick)
    print(table(times))
    return times


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
