"""2. The three-step wizard on 2026-07-28, and 3. the k-step wizard on both eras.

Each wizard is written twice:

- `typed_elicit`: one tool body with k `await ctx.elicit(...)` in a row. On 2026-07-28
  the body runs again from the top on every round (k + 1 runs); answered questions are
  replayed from the sealed request state.
- `resolvers`: the SDK's `Annotated[T, Resolve(fn)]` with resolvers returning
  `Elicit(message, Model)`, chained so that step i depends on step i-1 (a wizard asks
  one thing after the other). The SDK re-runs the resolvers of the chain on every round.

This module deliberately has no `from __future__ import annotations`: the resolver
chains are built in closures, and the SDK reads their annotations at registration.
"""

import gc
import statistics
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Annotated, Any

from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve

from typed_elicit import Accepted
from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.elicits import elicits

from ._common import Account, Confirm, Era, Plan, Samples, Step, accept_any, alternate, text_of

MAX_ROUNDS = 64


@dataclass
class Counters:
    """How often each function body ran."""

    runs: dict[str, int] = field(default_factory=dict[str, int])

    def hit(self, name: str) -> None:
        self.runs[name] = self.runs.get(name, 0) + 1

    def reset(self) -> None:
        self.runs.clear()

    def total(self, prefix: str) -> int:
        return sum(count for name, count in self.runs.items() if name.startswith(prefix))


def add_three_step(server: MCPServer, counters: Counters) -> None:
    """Register `wizard_typed_elicit` and `wizard_resolvers`: Account, then Plan, then Confirm."""

    @server.tool()
    @elicits
    async def wizard_typed_elicit(ctx: ElicitContext) -> str:
        counters.hit("te:body")
        account = await ctx.elicit(Account, "Who are you?")
        plan = await ctx.elicit(Plan, "Which plan?")
        confirm = await ctx.elicit(Confirm, "Create the account?")
        assert isinstance(account, Accepted)
        assert isinstance(plan, Accepted)
        assert isinstance(confirm, Accepted)
        return f"{account.data.name} {plan.data.plan} {confirm.data.ok}"

    async def ask_account() -> Elicit[Account]:
        counters.hit("res:account")
        return Elicit("Who are you?", Account)

    async def ask_plan(account: Annotated[Account, Resolve(ask_account)]) -> Elicit[Plan]:
        counters.hit("res:plan")
        return Elicit("Which plan?", Plan)

    async def ask_confirm(plan: Annotated[Plan, Resolve(ask_plan)]) -> Elicit[Confirm]:
        counters.hit("res:confirm")
        return Elicit("Create the account?", Confirm)

    @server.tool()
    async def wizard_resolvers(
        account: Annotated[Account, Resolve(ask_account)],
        plan: Annotated[Plan, Resolve(ask_plan)],
        confirm: Annotated[Confirm, Resolve(ask_confirm)],
    ) -> str:
        counters.hit("res:body")
        return f"{account.name} {plan.plan} {confirm.ok}"


def add_k_step(server: MCPServer, k: int, counters: Counters) -> None:
    """Register `k{k}_typed_elicit` and `k{k}_resolvers`: k `Step` questions in a row."""

    async def typed(ctx: ElicitContext) -> str:
        counters.hit("te:body")
        choices: list[str] = []
        for index in range(k):
            answer = await ctx.elicit(Step, f"Step {index + 1} of {k}")
            assert isinstance(answer, Accepted)
            choices.append(answer.data.choice)
        return "".join(choices)

    typed.__name__ = typed.__qualname__ = f"k{k}_typed_elicit"
    server.tool()(elicits(typed))

    previous: Callable[..., Coroutine[Any, Any, Elicit[Step]]] | None = None
    for index in range(k):
        previous = _step_resolver(index, k, previous, counters)
    assert previous is not None
    last = previous

    async def resolved(last_step: Step) -> str:
        counters.hit("res:body")
        return last_step.choice

    resolved.__annotations__ = {"last_step": Annotated[Step, Resolve(last)], "return": str}
    resolved.__name__ = resolved.__qualname__ = f"k{k}_resolvers"
    server.tool()(resolved)


def _step_resolver(
    index: int,
    k: int,
    previous: Callable[..., Coroutine[Any, Any, Elicit[Step]]] | None,
    counters: Counters,
) -> Callable[..., Coroutine[Any, Any, Elicit[Step]]]:
    async def ask_first() -> Elicit[Step]:
        counters.hit(f"res:step{index}")
        return Elicit(f"Step {index + 1} of {k}", Step)

    fn: Callable[..., Coroutine[Any, Any, Elicit[Step]]]
    if previous is None:
        fn = ask_first
    else:

        async def ask_next(previous_step: Step) -> Elicit[Step]:
            counters.hit(f"res:step{index}")
            return Elicit(f"Step {index + 1} of {k}", Step)

        ask_next.__annotations__ = {
            "previous_step": Annotated[Step, Resolve(previous)],
            "return": Elicit[Step],
        }
        fn = ask_next
    fn.__qualname__ = f"k{k}_step{index}"
    return fn


def build_server(ks: list[int], counters: Counters) -> MCPServer:
    """A server with the three-step wizard and a k-step wizard for each k, both ways."""
    server = MCPServer("bench-wizard")
    add_three_step(server, counters)
    for k in ks:
        add_k_step(server, k, counters)
    return server


async def measure_three_step(era: Era, calls: int, blocks: int) -> tuple[Samples, dict[str, int]]:
    """Alternate the two three-step wizards; also count body runs for one call of each."""
    counters = Counters()
    async with _client(build_server([], counters), era) as client:
        runs: dict[str, int] = {}
        for name, prefix in (("wizard_typed_elicit", "te:"), ("wizard_resolvers", "res:")):
            counters.reset()
            assert text_of(await client.call_tool(name, {})) == "Ada Lovelace pro True"
            runs[name] = counters.total(prefix)

        def caller(name: str) -> Callable[[], Coroutine[Any, Any, None]]:
            async def call() -> None:
                text_of(await client.call_tool(name, {}))

            return call

        names = ("wizard_typed_elicit", "wizard_resolvers")
        return await alternate({name: caller(name) for name in names}, calls, blocks), runs


@dataclass
class GrowthRow:
    """One k on one era: median seconds per call and body runs per call, for both contenders."""

    era: Era
    k: int
    typed_seconds: float
    resolvers_seconds: float
    typed_runs: int
    resolvers_runs: int


async def measure_growth(ks: list[int], era: Era, repeats: int) -> list[GrowthRow]:
    """Time one call of each k-step wizard `repeats` times (alternating), median per k."""
    counters = Counters()
    rows: list[GrowthRow] = []
    async with _client(build_server(ks, counters), era) as client:
        for k in ks:
            runs: dict[str, int] = {}
            times: dict[str, list[float]] = {"typed_elicit": [], "resolvers": []}
            for name, prefix in (("typed_elicit", "te:"), ("resolvers", "res:")):
                counters.reset()
                text_of(await client.call_tool(f"k{k}_{name}", {}))  # warm-up, and the run count
                runs[name] = counters.total(prefix)
            for repeat in range(repeats):
                order = ("typed_elicit", "resolvers") if repeat % 2 == 0 else ("resolvers", "typed_elicit")
                for name in order:
                    gc.collect()
                    start = time.process_time()
                    text_of(await client.call_tool(f"k{k}_{name}", {}))
                    times[name].append(time.process_time() - start)
            rows.append(
                GrowthRow(
                    era=era,
                    k=k,
                    typed_seconds=statistics.median(times["typed_elicit"]),
                    resolvers_seconds=statistics.median(times["resolvers"]),
                    typed_runs=runs["typed_elicit"],
                    resolvers_runs=runs["resolvers"],
                )
            )
    return rows


def _client(server: MCPServer, era: Era) -> Client:
    return Client(server, mode=era, elicitation_callback=accept_any, input_required_max_rounds=MAX_ROUNDS)
