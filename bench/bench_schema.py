"""Schema cost: `reduce_schema` on a cached model vs a bare dict lookup vs the SDK's per-call render.

Run: `python bench/bench_schema.py [--quick]`. Prints one Markdown table; ratios are
measured in the same run, contenders alternating, median of the blocks.
"""

from __future__ import annotations

import statistics
import sys
import timeit
from collections.abc import Callable
from typing import Any, Literal

from mcp.server.elicitation import render_elicitation_schema
from pydantic import BaseModel, EmailStr, Field

from typed_elicit import form, reduce_schema


@form
class Signup(BaseModel):
    """A six-field model, as in the round-trip benchmark."""

    name: str = Field(min_length=1, max_length=40)
    email: EmailStr
    age: int = Field(ge=13, le=130)
    plan: Literal["free", "pro", "team"] = "free"
    newsletter: bool = False
    referrer: str | None = None


def measure(contenders: dict[str, Callable[[], Any]], number: int, blocks: int) -> dict[str, float]:
    """Median seconds per call of each contender, alternating them block by block."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(blocks):
        for name, fn in contenders.items():
            samples[name].append(timeit.timeit(fn, number=number) / number)
    return {name: statistics.median(values) for name, values in samples.items()}


def main(quick: bool = False) -> dict[str, float]:
    """Run the comparison and print a Markdown table; return seconds per call."""
    cache = {(Signup, "2026-07-28", False): reduce_schema(Signup)}
    key = (Signup, "2026-07-28", False)
    contenders: dict[str, Callable[[], Any]] = {
        "dict lookup (floor)": lambda: cache[key],
        "typed_elicit reduce_schema (cached)": lambda: reduce_schema(Signup),
        "SDK render_elicitation_schema (per call)": lambda: render_elicitation_schema(Signup),
    }
    number, blocks = (200, 3) if quick else (20_000, 9)
    times = measure({k: v for k, v in contenders.items() if "SDK" not in k}, number, blocks)
    times |= measure({k: v for k, v in contenders.items() if "SDK" in k}, max(number // 100, 20), blocks)
    floor = times["dict lookup (floor)"]
    print("| contender | time per call | vs dict lookup |")
    print("|---|---|---|")
    for name, seconds in times.items():
        print(f"| {name} | {seconds * 1e6:.3f} µs | {seconds / floor:.1f}x |")
    return times


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
