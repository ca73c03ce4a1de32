"""The shared store's cost: `python -m tests.bench.stores [--quick]`.

One question per call on 2026-07-28, in memory (client and server in one process): the
call's first round asks, the second answers, and the answer's round id is claimed in
the server's store. Two contenders, timed in alternating blocks in one run:

- `in_process`: the default `InProcessStore`;
- `redis`: `RedisStore` on the machine's Redis (127.0.0.1:6379, database 14, flushed).

The clock is wall time (`perf_counter`), not CPU time: Redis runs in its own process,
and its round trips are the cost being measured. A counting wrapper gives the store
operations per question. Needs a Redis on 127.0.0.1:6379.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, ElicitResult, InputRequiredResult
from pydantic import BaseModel
from redis import asyncio as redis_asyncio

from typed_elicit import Accepted, ElicitContext, elicits
from typed_elicit.stores import InProcessStore, RedisStore, Store, configure

from ._common import alternate

URL = "redis://127.0.0.1:6379/14"


class Code(BaseModel):
    """Enter the code."""

    code: str


class Counting:
    """A `Store` that counts the operations it passes on."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.operations = 0

    async def claim(self, key: str, expires_at: float, /) -> bool:
        self.operations += 1
        return await self.inner.claim(key, expires_at)

    async def put(self, key: str, value: bytes, expires_at: float, /) -> bool:
        self.operations += 1
        return await self.inner.put(key, value, expires_at)

    async def get(self, key: str, /) -> bytes | None:
        self.operations += 1
        return await self.inner.get(key)

    async def wait(self, key: str, timeout: float, /) -> bytes | None:
        self.operations += 1
        return await self.inner.wait(key, timeout)


async def never(context: Any, params: Any) -> ElicitResult:
    """Declares the elicitation capability; the benchmark answers by hand instead."""
    raise AssertionError("2026-07-28 questions travel as rounds, not as requests")


def server(store: Store) -> MCPServer:
    served = MCPServer("stores")
    configure(served, store=store)

    @served.tool()
    @elicits
    async def ask(ctx: ElicitContext) -> str:
        match await ctx.elicit(Code):
            case Accepted(Code(code=code)):
                return code
            case _:
                return "no"

    return served


async def measure(calls: int, blocks: int) -> None:
    """Print µs per question for both stores, their ratio, and store operations per question."""
    flusher: Any = redis_asyncio.Redis.from_url(URL)
    await flusher.flushdb()
    redis_store = RedisStore.from_url(URL, prefix="bench:")
    stores = {"in_process": Counting(InProcessStore()), "redis": Counting(redis_store)}
    async with (
        Client(server(stores["in_process"]), mode="auto", elicitation_callback=never) as local,
        Client(server(stores["redis"]), mode="auto", elicitation_callback=never) as shared,
    ):

        def one(client: Client) -> Any:
            async def call() -> None:
                first = await client.session.call_tool("ask", {}, allow_input_required=True)
                assert isinstance(first, InputRequiredResult)
                answer = ElicitResult(action="accept", content={"code": "42"})
                done = await client.session.call_tool(
                    "ask",
                    {},
                    input_responses={"q0": answer},
                    request_state=first.request_state,
                    allow_input_required=True,
                )
                assert isinstance(done, CallToolResult)
                assert not done.is_error

            return call

        samples = await alternate(
            {"in_process": one(local), "redis": one(shared)}, calls, blocks, clock=time.perf_counter
        )
    await redis_store.aclose()
    await flusher.flushdb()
    await flusher.aclose()
    questions = calls * blocks + 1  # the warm-up call too
    print("| store | µs per question (median block) | store operations per question |")
    print("|---|---:|---:|")
    for name, counted in stores.items():
        print(f"| {name} | {samples.median(name) * 1e6:,.0f} | {counted.operations / questions:g} |")
    print(f"\nredis / in_process = {samples.ratio('redis', 'in_process'):.2f}x (wall time, one run)")


def main() -> None:
    """Run the comparison (`--quick`: a smoke run)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    options = parser.parse_args()
    calls, blocks = (5, 2) if options.quick else (100, 11)
    anyio.run(measure, calls, blocks)


if __name__ == "__main__":
    main()
