"""7. The 2026-07-28 `requestState`: bytes per round, typed_elicit against the SDK's resolvers.

Both contenders ask the same three-step wizard (`wizard.add_three_step`: Account, Plan,
Confirm) and the same k-step wizard (`Step` k times), each from a server of the same name
whose tool has the same name (`wizard`, `k{k}`), so the SDK's sealing envelope (target,
audience, times, nonce, tag) is the same size for both and only what each puts inside differs.

Each call is driven by hand (`session.call_tool(..., allow_input_required=True)`), answering
every question from `CANNED`, and every round's sealed `requestState` is measured as the
client carries it (`sealed`), along with the plaintext the server handed to the SDK to seal
(`plain`, recorded by a codec that wraps the SDK's AES-256-GCM one).

The growth rows give the bytes one more answered question adds: the slope of the last
round's sealed (and plaintext) state over k.

Usage: `.venv/bin/python -m tests.bench.state_bytes [--ks 1,2,4,8,16] [--json FILE]`.
"""

import argparse
import json
import secrets
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Annotated, Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.server.request_state import AESGCMRequestStateCodec, RequestStateSecurity

from . import wizard
from ._common import CANNED, Account, Confirm, Plan, accept_any

CONTENDERS = ("typed_elicit", "resolvers")

# The SDK keys a resolver's recorded outcome by its `module:qualname`: `wizard.py` defines its
# resolvers in closures (`...add_three_step.<locals>.ask_account`), these at module level, as
# most servers would. `wizard_top` is the three-step wizard written with these.


async def ask_account() -> Elicit[Account]:
    return Elicit("Who are you?", Account)


async def ask_plan(account: Annotated[Account, Resolve(ask_account)]) -> Elicit[Plan]:
    return Elicit("Which plan?", Plan)


async def ask_confirm(plan: Annotated[Plan, Resolve(ask_plan)]) -> Elicit[Confirm]:
    return Elicit("Create the account?", Confirm)


async def wizard_top_resolvers(
    account: Annotated[Account, Resolve(ask_account)],
    plan: Annotated[Plan, Resolve(ask_plan)],
    confirm: Annotated[Confirm, Resolve(ask_confirm)],
) -> str:
    return f"{account.name} {plan.plan} {confirm.ok}"


class RecordingCodec:
    """The SDK's AES-256-GCM codec, keeping the plaintext state of every token it seals."""

    def __init__(self) -> None:
        self._inner = AESGCMRequestStateCodec([secrets.token_bytes(32)])
        self.plain: dict[str, int] = {}
        """Plaintext bytes of the inner state, by the sealed token it went into."""

    def seal(self, payload: bytes) -> str:
        token = self._inner.seal(payload)
        self.plain[token] = len(json.loads(payload)["s"].encode())
        return token

    def unseal(self, token: str) -> bytes:
        return self._inner.unseal(token)


@dataclass
class Rounds:
    """One call of one contender: each round's sealed and plaintext `requestState` bytes."""

    contender: str
    tool: str
    k: int
    sealed: list[int] = field(default_factory=list[int])
    plain: list[int] = field(default_factory=list[int])


def _server(contender: str, ks: list[int]) -> tuple[MCPServer, RecordingCodec]:
    """A server `bench-state` with tools `wizard`, `wizard_top` and `k{k}`, written the contender's way."""
    codec = RecordingCodec()
    server = MCPServer("bench-state", request_state_security=RequestStateSecurity(codec=codec))
    scratch = MCPServer("scratch")
    counters = wizard.Counters()
    wizard.add_three_step(scratch, counters)
    for k in ks:
        wizard.add_k_step(scratch, k, counters)
    suffix = f"_{contender}"
    for tool in scratch._tool_manager.list_tools():  # pyright: ignore[reportPrivateUsage]
        if tool.name.endswith(suffix):
            server.add_tool(tool.fn, name=tool.name.removesuffix(suffix))
            if tool.name == "wizard_typed_elicit":  # typed_elicit has no resolver names to place
                server.add_tool(tool.fn, name="wizard_top")
    if contender == "resolvers":
        server.add_tool(wizard_top_resolvers, name="wizard_top")
    return server, codec


def _answer(request: types.InputRequest) -> types.ElicitResult:
    params = request.params
    assert isinstance(params, types.ElicitRequestFormParams)
    properties: dict[str, Any] = params.requested_schema["properties"]
    return types.ElicitResult(action="accept", content={key: CANNED[key] for key in properties})


async def _drive(client: Client, codec: RecordingCodec, tool: str, contender: str, k: int) -> Rounds:
    rounds = Rounds(contender, tool, k)
    responses: dict[str, Any] | None = None
    state: str | None = None
    for _ in range(wizard.MAX_ROUNDS):
        result = await client.session.call_tool(
            tool, {}, input_responses=responses, request_state=state, allow_input_required=True
        )
        if not isinstance(result, types.InputRequiredResult):
            assert isinstance(result, types.CallToolResult), result
            assert not result.is_error, result
            return rounds
        state = result.request_state
        assert state is not None
        rounds.sealed.append(len(state.encode()))
        rounds.plain.append(codec.plain[state])
        responses = {key: _answer(request) for key, request in (result.input_requests or {}).items()}
    raise RuntimeError(f"{tool} did not finish in {wizard.MAX_ROUNDS} rounds")


async def measure(ks: list[int]) -> dict[str, list[Rounds]]:
    """Every round of both three-step wizards (k = 0 in the rows) and of each k-step wizard."""
    out: dict[str, list[Rounds]] = {}
    for contender in CONTENDERS:
        server, codec = _server(contender, ks)
        rows: list[Rounds] = []
        async with Client(server, mode="2026-07-28", elicitation_callback=accept_any) as client:
            rows.append(await _drive(client, codec, "wizard", contender, 0))
            rows.append(await _drive(client, codec, "wizard_top", contender, 0))
            for k in ks:
                rows.append(await _drive(client, codec, f"k{k}", contender, k))
        out[contender] = rows
    return out


def slope(points: list[tuple[int, int]]) -> float:
    """Least-squares bytes per step of `points` (k, bytes)."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    den = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / den if den else 0.0


TITLES = {
    "wizard": "three-step wizard, SDK resolvers in closures as in wizard.py (`module:f.<locals>.ask_x`)",
    "wizard_top": "three-step wizard, SDK resolvers at module level (`module:ask_account`)",
}


def render(results: dict[str, list[Rounds]], write: Callable[[str], object] = print) -> None:
    """Print the per-round tables of the three-step wizards and the growth over k."""
    for index, (tool, title) in enumerate(TITLES.items()):
        ours, theirs = results["typed_elicit"][index], results["resolvers"][index]
        assert ours.tool == theirs.tool == tool
        write(f"{title}: requestState bytes per round, sealed as the client carries it (plaintext)")
        write("| round | typed_elicit | SDK resolvers | ratio |")
        write("|---|---|---|---|")
        for n, (a, b) in enumerate(zip(ours.sealed, theirs.sealed, strict=True)):
            write(f"| {n + 1} | {a} ({ours.plain[n]}) | {b} ({theirs.plain[n]}) | {a / b:.2f}x |")
        total_a, total_b = sum(ours.sealed), sum(theirs.sealed)
        write(f"| all | {total_a} | {total_b} | {total_a / total_b:.2f}x |")
        write("")
    grows = {c: [r for r in results[c] if r.k] for c in CONTENDERS}
    if len(grows["typed_elicit"]) >= 2:
        write("k-step wizard (`Step`: choice + note), the last round's state (k - 1 answers + 1 pending)")
        write("| k | typed_elicit | SDK resolvers | ratio |")
        write("|---|---|---|---|")
        for mine, sdk in zip(grows["typed_elicit"], grows["resolvers"], strict=True):
            a, b = mine.sealed[-1], sdk.sealed[-1]
            write(f"| {mine.k} | {a} ({mine.plain[-1]}) | {b} ({sdk.plain[-1]}) | {a / b:.2f}x |")
        for contender in CONTENDERS:
            rows = grows[contender]
            sealed = slope([(r.k, r.sealed[-1]) for r in rows])
            plain = slope([(r.k, r.plain[-1]) for r in rows])
            write(f"bytes per added answer, {contender}: {sealed:.1f} sealed ({plain:.1f} plaintext)")


def main(argv: list[str] | None = None) -> dict[str, list[Rounds]]:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.state_bytes", description=__doc__)
    parser.add_argument("--ks", default="1,2,4,8,16", help="k-step wizards to run (comma-separated)")
    parser.add_argument("--json", help="also write the raw numbers here")
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: the k-step wizard with k = 1, 2 only"
    )
    args = parser.parse_args(argv)
    ks = [1, 2] if args.quick else [int(k) for k in args.ks.split(",") if k]
    results = anyio.run(measure, ks)
    render(results)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({c: [asdict(r) for r in rows] for c, rows in results.items()}, fh, indent=1)
    return results


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
