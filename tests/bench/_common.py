"""What every benchmark shares: the models, the scripted answers and the alternating timer.

Importable from the FastMCP worker's own venv too: it needs only pydantic, mcp and
typed_elicit (found through the repository root on `sys.path`).
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import mcp_types as types
from mcp.client import ClientRequestContext
from pydantic import BaseModel, EmailStr, Field

from typed_elicit import form


@form(message="Create your account")
class Signup(BaseModel):
    """The six-field model of the round-trip benchmark.

    Every contender asks exactly this model. `referrer` is a plain `str` with a
    default rather than `str | None`, because FastMCP 4 rejects `T | None` fields.
    """

    name: str = Field(min_length=1, max_length=40)
    email: EmailStr
    age: int = Field(ge=13, le=130)
    plan: Literal["free", "pro", "team"] = "free"
    newsletter: bool = False
    referrer: str = ""


class Account(BaseModel):
    """Wizard step 1."""

    name: str = Field(min_length=1, max_length=40)
    email: EmailStr


class Plan(BaseModel):
    """Wizard step 2."""

    plan: Literal["free", "pro", "team"] = "free"
    seats: int = Field(default=1, ge=1, le=50)


class Confirm(BaseModel):
    """Wizard step 3."""

    ok: bool


class Step(BaseModel):
    """One step of the k-step growth wizard (asked k times)."""

    choice: Literal["a", "b", "c"]
    note: str = ""


MESSAGE = "Create your account"

CANNED: Mapping[str, Any] = {
    "name": "Ada Lovelace",
    "email": "ada@example.com",
    "age": 36,
    "plan": "pro",
    "newsletter": True,
    "referrer": "friend",
    "seats": 3,
    "ok": True,
    "choice": "b",
    "note": "n",
}
"""What the scripted user answers, per property name."""

SIGNUP_ANSWER: Mapping[str, Any] = {key: CANNED[key] for key in Signup.model_fields}


async def accept_signup(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult | types.ErrorData:
    """Elicitation callback for the round trip: accept with the same prebuilt answer."""
    return types.ElicitResult(action="accept", content=dict(SIGNUP_ANSWER))


async def accept_any(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult | types.ErrorData:
    """Elicitation callback for the wizards: accept, filling each asked property from `CANNED`."""
    assert isinstance(params, types.ElicitRequestFormParams)
    properties: Mapping[str, Any] = params.requested_schema["properties"]
    return types.ElicitResult(action="accept", content={key: CANNED[key] for key in properties})


def text_of(result: types.CallToolResult) -> str:
    """The text of a tool result; raises if the call failed."""
    if result.is_error:
        raise RuntimeError(f"tool call failed: {result.content}")
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


Era = Literal["legacy", "2026-07-28"]
"""`mcp.Client` modes: "legacy" negotiates 2025-11-25 (push), the other pins the replay era."""


@dataclass
class Samples:
    """Per-call seconds of each contender, one value per block, in block order."""

    blocks: dict[str, list[float]] = field(default_factory=dict[str, list[float]])

    def median(self, name: str) -> float:
        """Median seconds per call over the blocks."""
        return statistics.median(self.blocks[name])

    def ratio(self, name: str, against: str) -> float:
        """Median over rounds of `name`'s block time divided by `against`'s in the same round.

        Pairing the blocks of one round cancels most of the machine's slow drift.
        """
        pairs = zip(self.blocks[name], self.blocks[against], strict=True)
        return statistics.median(a / b for a, b in pairs)

    def spread(self, name: str) -> float:
        """Half the interquartile range relative to the median (a noise indicator)."""
        values = sorted(self.blocks[name])
        if len(values) < 4:
            return 0.0
        q = statistics.quantiles(values, n=4)
        return (q[2] - q[0]) / 2 / statistics.median(values)

    def to_json(self) -> dict[str, list[float]]:
        """Plain data for the worker's output."""
        return self.blocks

    @classmethod
    def from_json(cls, data: Mapping[str, Sequence[float]]) -> Samples:
        """Read the worker's output."""
        return cls({name: list(values) for name, values in data.items()})


async def alternate(
    contenders: Mapping[str, Callable[[], Awaitable[object]]],
    calls: int,
    blocks: int,
    clock: Callable[[], float] = time.process_time,
) -> Samples:
    """Time `calls` calls of each contender per block, rotating the order every round.

    Every contender runs once before timing starts (warm-up: caches, imports). The
    garbage collector runs between blocks, never inside one.

    The clock is the process's CPU time by default: everything here runs in one
    thread of one process (client, transport and server in memory), so CPU time is
    the work done, minus the time other processes on a shared machine took the CPU.
    """
    names = list(contenders)
    for fn in contenders.values():
        await fn()
    samples = Samples({name: [] for name in names})
    for round_no in range(blocks):
        shift = round_no % len(names)
        for name in names[shift:] + names[:shift]:
            fn = contenders[name]
            gc.collect()
            start = clock()
            for _ in range(calls):
                await fn()
            samples.blocks[name].append((clock() - start) / calls)
    return samples
