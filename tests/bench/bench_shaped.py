"""Cost of a question shaped at call time (issue 13): the per-question record and its answer check.

Run alone: `python -m tests.bench.bench_shaped [--quick]` prints one Markdown table (not part of
`python -m tests.bench` yet, so docs/benchmarks.md is unchanged). Contenders alternate block
by block; each figure is the median of the blocks. A shaped question is built afresh on every
call (never cached), so its cost is paid per question: building the record (`shaped`: schema
with the options, defaults checked, digest) and, when the answer arrives, checking it (wire
kinds against a form shared per model, options against the offer, then the model).
"""

from __future__ import annotations

import statistics
import sys
import timeit
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from typed_elicit import Choices
from typed_elicit._forms.reduce import reduced, shaped
from typed_elicit._forms.validate import validate_answer


class Fixed(BaseModel):
    """Options fixed in the class: the cached record (the baseline)."""

    account: Literal["acc-1", "acc-2", "acc-3"]
    amount: int = Field(default=40, ge=1, le=1000)
    note: str = ""


class PerCall(BaseModel):
    """The same question with its options and a default given per call."""

    account: Annotated[str, Choices()]
    amount: int = Field(ge=1, le=1000)
    note: str = ""


OPTIONS = {"account": {"acc-1": "Checking", "acc-2": "Savings", "acc-3": "Joint"}}
DEFAULTS = {"amount": 40}
ANSWER = {"account": "acc-2", "amount": 12, "note": "rent"}

CACHED = "cached record, options in the class (reduced)"
SHAPED = "shaped record, options and a default per call (shaped)"
CACHED_ANSWER = "record + answer check, options in the class"
SHAPED_ANSWER = "record + answer check, options per call"


def contenders() -> dict[str, Callable[[], Any]]:
    def shaped_answer() -> Any:
        record = shaped(PerCall, "2026-07-28", options=OPTIONS, defaults=DEFAULTS)
        return validate_answer(PerCall, record, ANSWER)

    return {
        CACHED: lambda: reduced(Fixed, "2026-07-28"),
        SHAPED: lambda: shaped(PerCall, "2026-07-28", options=OPTIONS, defaults=DEFAULTS),
        CACHED_ANSWER: lambda: validate_answer(Fixed, reduced(Fixed, "2026-07-28"), ANSWER),
        SHAPED_ANSWER: shaped_answer,
    }


def run(quick: bool = False) -> dict[str, float]:
    """Median seconds per call of every contender."""
    number, blocks = (20, 3) if quick else (500, 9)
    samples: dict[str, list[float]] = {name: [] for name in contenders()}
    for _ in range(blocks):
        for name, fn in contenders().items():
            samples[name].append(timeit.timeit(fn, number=number) / number)
    return {name: statistics.median(values) for name, values in samples.items()}


def table(times: dict[str, float]) -> str:
    rows = ["| per question | µs |", "|---|---:|"]
    rows += [f"| {name} | {seconds * 1e6:,.1f} |" for name, seconds in times.items()]
    return "\n".join(rows)


if __name__ == "__main__":
    print(table(run(quick="--quick" in sys.argv)))
