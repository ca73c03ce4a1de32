"""Import-time reduction at scale: `@form` on a 200-field model vs pydantic's `model_json_schema()`.

What every server start pays once per form model: `@form` reduces the class when it is
defined (each field's wire property, its default checked against the field, its
answerability, the size of the schema). The yardstick is what pydantic itself spends on the same class
to describe it, `Model.model_json_schema()`. Both contenders run in one process on fresh,
identical classes (a class is made untimed before each measurement, so neither finds a cache
warmed by the other), alternating, with the garbage collector off while timed, as `timeit`
runs; each figure is the median over the repetitions of the thread's CPU time (what other
processes on a shared machine take is not counted), and the ratio is of the medians.

Run alone: `python -m tests.bench.form_import [--quick]` prints one Markdown table and the ratio.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable
from datetime import date
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, EmailStr, Field, create_model

from typed_elicit import Titles, form

FIELDS = 200
"""Fields of the model: the most one form may have (`MAX_FIELDS`)."""
FORM = "typed_elicit @form (reduce the model, check every field)"
PYDANTIC = "pydantic model_json_schema()"


class Size(str, Enum):
    """The options of the titled choice fields."""

    SMALL = "s"
    MEDIUM = "m"
    LARGE = "l"


SIZE_TITLES = Titles({Size.SMALL: "Small", Size.MEDIUM: "Medium", Size.LARGE: "Large"})


def _field(i: int) -> tuple[Any, Any]:
    """Field `i` of the model: ten kinds in turn, with the constraints and defaults forms carry."""
    kind = i % 10
    if kind == 0:
        return str, Field(min_length=1, max_length=40, title=f"Name {i}", description="Who to ask")
    if kind == 1:
        return int, Field(default=1, ge=0, le=1000, description="How many")
    if kind == 2:
        return float, Field(gt=0, le=100.0, description="A ratio")  # an exclusive bound: a hint
    if kind == 3:
        return bool, False
    if kind == 4:
        return Literal["red", "green", "blue"], "red"
    if kind == 5:
        return EmailStr | None, None
    if kind == 6:
        return date, Field(description="When")
    if kind == 7:
        return Annotated[Size, SIZE_TITLES], Size.MEDIUM
    if kind == 8:
        return list[Literal["x", "y", "z"]], Field(default=["x"], max_length=2)
    return str, Field(default="", pattern=r"^[a-z]*$", description="Lower-case letters")  # a hint


def fresh_model(n: int = 0) -> type[BaseModel]:
    """A new 200-field model class, every field defined anew (nothing shared with earlier classes)."""
    definitions: dict[str, Any] = {f"field_{i}": _field(i) for i in range(FIELDS)}
    return create_model(f"Wide{n}", __doc__="Two hundred fields of every kind.", **definitions)


def _timed(subject: type[BaseModel], run: Callable[[type[BaseModel]], Any]) -> float:
    """CPU seconds `run(subject)` takes on this thread, the collector off meanwhile."""
    gc.collect()
    gc.disable()
    try:
        start = time.thread_time()
        run(subject)
        return time.thread_time() - start
    finally:
        gc.enable()


def run(quick: bool = False) -> dict[str, float]:
    """Median seconds of each contender on a fresh 200-field class, contenders alternating."""
    repetitions = 3 if quick else 31
    contenders: dict[str, Callable[[type[BaseModel]], Any]] = {
        FORM: form,
        PYDANTIC: lambda model: model.model_json_schema(),
    }
    for contender in contenders.values():  # warm up: first-use imports and pydantic's own caches
        contender(fresh_model())
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for n in range(repetitions):
        for name, contender in contenders.items():
            samples[name].append(_timed(fresh_model(n), contender))  # made untimed
    return {name: statistics.median(values) for name, values in samples.items()}


def table(times: dict[str, float]) -> str:
    """The Markdown table of `run`'s result, and the ratio below it."""
    floor = times[PYDANTIC]
    lines = [f"| on a {FIELDS}-field model | time | vs model_json_schema |", "|---|---:|---:|"]
    lines += [
        f"| {name} | {seconds * 1e3:,.1f} ms | {seconds / floor:.2f}x |" for name, seconds in times.items()
    ]
    return (
        "\n".join(lines) + f"\n\n@form / model_json_schema = {times[FORM] / floor:.2f}x (goal at most 1.0x)"
    )


def main(quick: bool = False) -> dict[str, float]:
    """Run the comparison and print the table; return median seconds per contender."""
    times = run(quick)
    print(table(times))
    return times


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
