"""A bounded tamper suite: altered, truncated and forged request states, replays and refreshes.

Every input is a 2026-07-28 round sent on the raw wire with an answer to the pending
question. Each is counted as refused (a JSON-RPC error -32602, or `ElicitationTimeout`
where time is the reason), wrongly accepted (the tool ran past the question with it) or
a crash (anything else). The figures are asserted, and quoted in docs/security figures.
"""

from __future__ import annotations

import base64
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.session import ClientSession
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, ElicitResult, InputRequiredResult, TextContent
from pydantic import BaseModel

import typed_elicit._core.clock as clock_module
from tests.conftest import BOUND
from typed_elicit import Accepted, ElicitContext, elicits
from typed_elicit.testing import ScriptedUser

pytestmark = pytest.mark.anyio

KEY = "k" * 32
RAN: list[str] = []


class Door(BaseModel):
    door: str


def build(name: str = "vault", key: str = KEY) -> MCPServer:
    server = MCPServer(name, request_state_security=RequestStateSecurity(keys=[key]))

    @server.tool()
    @elicits(Door, timeout=60)
    async def open_vault(vault: str, ctx: ElicitContext) -> str:
        match await ctx.elicit(Door, f"Which door of {vault}?"):
            case Accepted(Door(door=door)):
                RAN.append(door)
                return f"opened {vault}"
            case _:
                return "closed"

    @server.tool()
    @elicits(Door)
    async def other_tool(vault: str, ctx: ElicitContext) -> str:
        match await ctx.elicit(Door, f"Which door of {vault}?"):
            case Accepted(Door(door=door)):
                RAN.append(door)
                return "other"
            case _:
                return "closed"

    return server


@dataclass
class Tally:
    """Inputs tried, and what became of them."""

    outcomes: Counter[str] = field(default_factory=lambda: Counter[str]())

    @property
    def tried(self) -> int:
        return sum(self.outcomes.values())

    async def send(
        self,
        session: ClientSession,
        state: str | None,
        answer: ElicitResult | None = None,
        *,
        tool: str = "open_vault",
        vault: str = "main",
        allowed: bool = False,
    ) -> CallToolResult | InputRequiredResult | None:
        """Send one round; `allowed` marks the one input that should go through."""
        ran = len(RAN)
        try:
            with anyio.fail_after(BOUND):
                result = await session.call_tool(
                    tool,
                    {"vault": vault},
                    input_responses=None if answer is None else {"q0": answer},
                    request_state=state,
                    allow_input_required=True,
                )
        except MCPError as error:
            self.outcomes["refused" if error.error.code == INVALID_PARAMS else "crash"] += 1
            return None
        except Exception:
            self.outcomes["crash"] += 1
            return None
        if len(RAN) > ran:
            self.outcomes["accepted" if allowed else "wrongly accepted"] += 1
        elif isinstance(result, CallToolResult) and result.is_error and "ElicitationTimeout" in _text(result):
            self.outcomes["refused"] += 1
        elif isinstance(result, InputRequiredResult) and answer is None:
            self.outcomes["refreshed"] += 1
        else:
            self.outcomes["crash"] += 1
        return result


def _text(result: CallToolResult) -> str:
    return result.content[0].text if result.content and isinstance(result.content[0], TextContent) else ""


def _state(result: CallToolResult | InputRequiredResult | None) -> str:
    assert isinstance(result, InputRequiredResult)
    assert result.request_state is not None
    return result.request_state


def altered(state: str, rng: random.Random, count: int) -> list[str]:
    """`count` copies of `state`, each with one character replaced by another of the alphabet."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
    out: list[str] = []
    for _ in range(count):
        at = rng.randrange(len(state))
        other = rng.choice(alphabet.replace(state[at], ""))
        out.append(state[:at] + other + state[at + 1 :])
    return out


def forged(rng: random.Random, count: int) -> list[Any]:
    """States this server never sealed: random tokens in the SDK's format, plain JSON, junk."""
    plain = '{"v":2,"started":0,"answers":[],"pending":{"question":{"key":"q0","model":"m","digest":"d"},'
    plain += '"asked_at":0,"attempt":0,"round":"r"},"once":{}}'
    out: list[Any] = [plain, "", "v1.", "v1.AAAA", "null", "{}", "v1." + "A" * 5000, "\u0000", "v2.xyz"]
    while len(out) < count:
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(16, 400)))
        out.append("v1." + base64.urlsafe_b64encode(raw).decode().rstrip("="))
    return out


async def test_tampered_forged_replayed_and_refreshed_states_are_all_refused(monkeypatch):
    RAN.clear()
    rng = random.Random(9)
    tally = Tally()
    now = [1_000_000.0]
    monkeypatch.setattr(clock_module, "now", lambda: now[0])
    monkeypatch.setattr(clock_module, "now", lambda: now[0])  # the claim store shares the clock
    right = ElicitResult(action="accept", content={"door": "4242"})
    async with Client(build(), mode="auto", elicitation_callback=ScriptedUser()) as client:
        session = client.session
        state = _state(await tally.send(session, None))  # the first round asks
        inputs = [
            *altered(state, rng, 250),
            *(state[:cut] for cut in sorted(rng.sample(range(len(state)), 60))),
            state + "A",
            state + "==",
            *forged(rng, 100),
        ]
        for bad in inputs:
            await tally.send(session, bad, right)
        # Bound to the tool and its arguments: the same state on another tool or vault.
        await tally.send(session, state, right, tool="other_tool")
        await tally.send(session, state, right, vault="spare")
        # Sealed by another server, or under another key.
        async with Client(build("elsewhere"), mode="auto", elicitation_callback=ScriptedUser()) as foreign:
            await tally.send(session, _state(await tally.send(foreign.session, None)), right)
        async with Client(build(key="j" * 32), mode="auto", elicitation_callback=ScriptedUser()) as rekeyed:
            await tally.send(session, _state(await tally.send(rekeyed.session, None)), right)
        # Refreshes: the round keeps its id, so the old and the refreshed states share one answer.
        refreshed = [state]
        for _ in range(20):
            now[0] += 1
            refreshed.append(_state(await tally.send(session, refreshed[-1])))
        await tally.send(session, refreshed[-1], right, allowed=True)  # the one answer that counts
        for replay in refreshed:  # replays, with the right answer and with others
            await tally.send(session, replay, right)
            await tally.send(
                session, replay, ElicitResult(action="accept", content={"door": str(rng.randrange(10**4))})
            )
        # A fresh call whose question is refreshed past its timeout.
        late = _state(await tally.send(session, None))
        now[0] += 61
        await tally.send(session, late)
        await tally.send(session, late, right)
    outcomes = tally.outcomes
    hostile = tally.tried - outcomes["refreshed"] - outcomes["accepted"]
    assert outcomes["refreshed"] == 24  # 20 refreshes, and the 4 first rounds that asked
    assert outcomes["accepted"] == 1
    assert RAN == ["4242"]
    assert hostile == 460
    assert outcomes["refused"] == hostile
    assert outcomes["wrongly accepted"] == 0
    assert outcomes["crash"] == 0
