"""A/B a modified copy of typed_elicit against the working tree, in one process, alternating.

Usage: `python -m tests.bench.ab DIR [--blocks N]`, where DIR holds a changed `typed_elicit`
package (for example a copy of the repository with a patch applied). The copy is
imported under another name (`typed_elicit_candidate`; the package uses relative imports
only), its tools are registered beside the current ones on the same servers, and the
same alternating harness times: the push round trip (with the floors), and the
2026-07-28 three-step and 16-step wizards.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
import tempfile
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer

from . import roundtrip, wizard
from ._common import (
    MESSAGE,
    Account,
    Confirm,
    Plan,
    Samples,
    Signup,
    Step,
    accept_any,
    accept_signup,
    alternate,
    text_of,
)


def load_candidate(source: Path) -> Any:
    """Import `source/typed_elicit` as the package `typed_elicit_candidate`."""
    package = source / "typed_elicit"
    if not (package / "__init__.py").exists():
        raise SystemExit(f"{package} is not a typed_elicit package")
    target = Path(tempfile.mkdtemp(prefix="te-candidate-"))
    shutil.copytree(package, target / "typed_elicit_candidate")
    sys.path.insert(0, str(target))
    return importlib.import_module("typed_elicit_candidate")


def add_candidate_tools(server: MCPServer, candidate: Any) -> None:
    """The round-trip tool and both wizards, written against the candidate package."""
    context = importlib.import_module("typed_elicit_candidate._context")
    elicits = importlib.import_module("typed_elicit_candidate._elicits").elicits
    accepted = candidate.Accepted

    async def candidate_roundtrip(ctx: Any) -> str:
        result = await ctx.elicit(Signup, MESSAGE)
        assert isinstance(result, accepted)
        return str(result.data.name)

    async def candidate_wizard(ctx: Any) -> str:
        account = await ctx.elicit(Account, "Who are you?")
        plan = await ctx.elicit(Plan, "Which plan?")
        confirm = await ctx.elicit(Confirm, "Create the account?")
        return f"{account.data.name} {plan.data.plan} {confirm.data.ok}"

    async def candidate_k16(ctx: Any) -> str:
        choices: list[str] = []
        for index in range(16):
            answer = await ctx.elicit(Step, f"Step {index + 1} of 16")
            choices.append(answer.data.choice)
        return "".join(choices)

    for fn in (candidate_roundtrip, candidate_wizard, candidate_k16):
        fn.__annotations__ = {"ctx": context.ElicitContext, "return": str}
        server.tool()(elicits(fn))


def _callers(client: Client, names: list[str]) -> dict[str, Callable[[], Coroutine[Any, Any, None]]]:
    def caller(name: str) -> Callable[[], Coroutine[Any, Any, None]]:
        async def call() -> None:
            text_of(await client.call_tool(name, {}))

        return call

    return {name: caller(name) for name in names}


def _print(title: str, samples: Samples, against: str) -> None:
    print(f"\n{title}")
    for name in samples.blocks:
        print(
            f"  {name:22s} {samples.median(name) * 1e3:8.3f} ms   vs {against}: "
            f"{samples.ratio(name, against):.3f}   ± {samples.spread(name):.0%}"
        )


async def run(candidate: Any, blocks: int) -> None:
    server = roundtrip.build_server()
    add_candidate_tools(server, candidate)
    async with Client(server, mode="legacy", elicitation_callback=accept_signup) as client:
        names = ["typed_elicit", "candidate_roundtrip", "floor_validated", "floor"]
        _print("push round trip", await alternate(_callers(client, names), 200, blocks), "floor")
    server = wizard.build_server([16], wizard.Counters())
    add_candidate_tools(server, candidate)
    async with Client(
        server, elicitation_callback=accept_any, input_required_max_rounds=wizard.MAX_ROUNDS
    ) as client:
        names = ["wizard_typed_elicit", "candidate_wizard", "wizard_resolvers"]
        _print(
            "2026-07-28 three-step wizard", await alternate(_callers(client, names), 30, blocks), names[-1]
        )
        names = ["k16_typed_elicit", "candidate_k16"]
        _print("2026-07-28 16-step wizard", await alternate(_callers(client, names), 5, blocks), names[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("source", type=Path, help="directory holding the modified typed_elicit package")
    parser.add_argument("--blocks", type=int, default=15)
    args = parser.parse_args()
    anyio.run(run, load_candidate(args.source), args.blocks)


if __name__ == "__main__":
    main()
