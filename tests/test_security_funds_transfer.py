"""The one-time-code example, attacked on the raw 2026-07-28 wire, and used normally on push eras."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, ElicitResult, InputRequiredResult, TextContent

import typed_elicit._core.clock as clock_module
from tests.conftest import BOUND
from typed_elicit.testing import ScriptedUser, accept

pytestmark = pytest.mark.anyio

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ARGS: dict[str, Any] = {"from_account": "A", "to_account": "B", "amount": 25}
WRONG_CODES = 300


def bank() -> ModuleType:
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    module = importlib.import_module("funds_transfer")
    module.TRANSFERS.clear()
    return module


async def send(
    session: ClientSession, state: str | None = None, answers: dict[str, ElicitResult] | None = None
) -> CallToolResult | InputRequiredResult:
    with anyio.fail_after(BOUND):
        return await session.call_tool(
            "transfer_funds", ARGS, input_responses=answers, request_state=state, allow_input_required=True
        )


def state_of(result: CallToolResult | InputRequiredResult) -> str:
    assert isinstance(result, InputRequiredResult), result
    assert result.request_state is not None
    return result.request_state


def text_of(result: CallToolResult | InputRequiredResult) -> str:
    assert isinstance(result, CallToolResult), result
    assert isinstance(result.content[0], TextContent)
    return result.content[0].text


async def at_the_code_question(session: ClientSession) -> str:
    """Confirm the transfer; returns the sealed state of the round asking for the code."""
    first = state_of(await send(session))
    return state_of(
        await send(session, first, {"q0": ElicitResult(action="accept", content={"confirmed": True})})
    )


def other_code(code: str, offset: int) -> str:
    return f"{(int(code) + offset) % 10**6:06d}"


async def test_one_sealed_state_takes_one_code_so_the_code_cannot_be_brute_forced():
    module = bank()
    refused: list[int] = []
    async with Client(module.server, mode="auto", elicitation_callback=ScriptedUser()) as client:
        session = client.session
        state = await at_the_code_question(session)
        sent = module.OUTBOX[-1]
        first = await send(
            session, state, {"q1": ElicitResult(action="accept", content={"code": other_code(sent, 1)})}
        )
        for offset in [*range(2, WRONG_CODES + 1), 0]:  # the right code comes last
            try:
                await send(
                    session,
                    state,
                    {"q1": ElicitResult(action="accept", content={"code": other_code(sent, offset)})},
                )
            except MCPError as error:
                refused.append(error.error.code)
    assert text_of(first) == "Invalid verification code; transfer cancelled"
    assert refused == [INVALID_PARAMS] * WRONG_CODES  # every try after the first, the right code included
    assert module.TRANSFERS == {}


async def test_the_code_question_refreshed_past_120_s_times_out_and_moves_nothing(monkeypatch):
    module = bank()
    now = [1_000_000.0]
    monkeypatch.setattr(clock_module, "now", lambda: now[0])
    async with Client(module.server, mode="auto", elicitation_callback=ScriptedUser()) as client:
        session = client.session
        state = await at_the_code_question(session)
        for _ in range(4):  # refreshes every 30 s keep the question alive, but not its clock
            now[0] += 30
            state = state_of(await send(session, state))
        now[0] += 1  # 121 s after the code was asked
        refreshed = await send(session, state)
        answered = await send(
            session, state, {"q1": ElicitResult(action="accept", content={"code": module.OUTBOX[-1]})}
        )
    assert "ElicitationTimeout: no answer to Verification within 120 s: it was asked 121 s ago" in text_of(
        refreshed
    )
    assert "ElicitationTimeout: the answer to Verification arrived 121 s after it was asked" in text_of(
        answered
    )
    assert module.TRANSFERS == {}
    assert len(module.OUTBOX) >= 1


async def test_a_final_round_resent_20_times_moves_the_money_once():
    module = bank()
    outcomes: list[str] = []
    async with Client(module.server, mode="auto", elicitation_callback=ScriptedUser()) as client:
        session = client.session
        state = await at_the_code_question(session)
        final = {"q1": ElicitResult(action="accept", content={"code": module.OUTBOX[-1]})}
        for _ in range(20):
            try:
                outcomes.append(text_of(await send(session, state, final)))
            except MCPError as error:
                outcomes.append(f"refused {error.error.code}")
    assert outcomes == ["Transferred $25.00 from A to B"] + [f"refused {INVALID_PARAMS}"] * 19
    assert list(module.TRANSFERS.values()) == [("A", "B", 25)]


async def test_a_malformed_code_is_asked_again_once_then_the_call_fails(connect):
    module = bank()
    async with Client(module.server, mode="auto", elicitation_callback=ScriptedUser()) as client:
        session = client.session
        state = await at_the_code_question(session)
        again = state_of(
            await send(session, state, {"q1": ElicitResult(action="accept", content={"code": "12"})})
        )
        out = await send(session, again, {"q1": ElicitResult(action="accept", content={"code": "34"})})
    assert "InvalidResponse" in text_of(out)
    assert "asked 2 times (retries=1)" in text_of(out)
    assert module.TRANSFERS == {}


async def test_a_transfer_on_a_push_era_asks_twice_and_moves_the_money_once(connect, push_era):
    module = bank()

    async def latest_code(params: Any) -> ElicitResult:
        return accept(code=module.OUTBOX[-1])

    scripted = ScriptedUser(accept(confirmed=True), latest_code)
    async with connect(module.server, push_era, scripted) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("transfer_funds", ARGS)
    assert text_of(result) == "Transferred $25.00 from A to B"
    assert len(scripted.questions) == 2
    assert list(module.TRANSFERS.values()) == [("A", "B", 25)]


async def test_a_transfer_refuses_a_non_positive_amount_before_asking(connect, push_era):
    module = bank()
    scripted = ScriptedUser()
    async with connect(module.server, push_era, scripted) as client:
        with anyio.fail_after(BOUND):
            negative = await client.call_tool("transfer_funds", {**ARGS, "amount": -5})
    assert negative.is_error
    assert scripted.questions == []
    assert module.TRANSFERS == {}
