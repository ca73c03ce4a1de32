"""Every seed scenario under examples/ runs on every protocol era."""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    TextContent,
)

from tests.conftest import BOUND
from typed_elicit.testing import ScriptedUser, Step, accept, cancel, decline

pytestmark = pytest.mark.anyio

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name: str) -> ModuleType:
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return importlib.import_module(name)


async def latest_code(params: ElicitRequestFormParams) -> ElicitResult:
    return accept(code=example("funds_transfer").OUTBOX[-1])


async def wrong_code(params: ElicitRequestFormParams) -> ElicitResult:
    sent = int(example("funds_transfer").OUTBOX[-1])
    return accept(code=f"{(sent + 1) % 10**6:06d}")


@dataclass
class Scenario:
    module: str
    tool: str
    arguments: dict[str, Any]
    replies: list[Step]
    expected: str
    questions: int = field(default=-1)

    def __post_init__(self) -> None:
        if self.questions < 0:
            self.questions = len(self.replies)


SCENARIOS = {
    "delete-confirmed": Scenario(
        "delete_file",
        "delete_file",
        {"path": "/tmp/x"},
        [ElicitResult(action="accept", content={"confirm": True})],
        "Deleted /tmp/x",
    ),
    "delete-declined": Scenario(
        "delete_file", "delete_file", {"path": "/tmp/x"}, [decline()], "Deletion cancelled"
    ),
    "registration": Scenario(
        "registration",
        "register",
        {"username": "ann"},
        [ElicitResult(action="accept", content={"email": "ann@example.com", "age": 30})],
        "Registered ann with email ann@example.com (age 30, newsletter=False)",
    ),
    "registration-cancelled": Scenario(
        "registration", "register", {"username": "ann"}, [cancel()], "Registration cancelled"
    ),
    "project": Scenario(
        "project_creation",
        "create_project",
        {"name": "demo"},
        [ElicitResult(action="accept", content={"description": "A demo"})],
        "Created project 'demo': A demo (public=False, max_users=10)",
    ),
    "deploy": Scenario(
        "deployment_wizard",
        "deploy",
        {"app_name": "web"},
        [
            ElicitResult(action="accept", content={"environment": "production"}),
            ElicitResult(action="accept", content={"cpu_cores": 4, "memory_gb": 16, "auto_scale": True}),
        ],
        "Deployed web to production (4 cores, 16GB, auto_scale=True)",
    ),
    "deploy-stopped-at-step-two": Scenario(
        "deployment_wizard",
        "deploy",
        {"app_name": "web"},
        [ElicitResult(action="accept", content={"environment": "staging"}), decline()],
        "Deployment cancelled",
    ),
    "pizza-with-toppings": Scenario(
        "pizza_order",
        "order_pizza",
        {"size": "large"},
        [
            ElicitResult(action="accept", content={"want_toppings": True}),
            ElicitResult(action="accept", content={"toppings": "ham, olives", "crust": "thin"}),
        ],
        "large thin-crust pizza with ham, olives",
    ),
    "pizza-plain-asks-once": Scenario(
        "pizza_order",
        "order_pizza",
        {"size": "small"},
        [ElicitResult(action="accept", content={"want_toppings": False})],
        "small plain pizza",
    ),
    "contact-email-asked-again": Scenario(
        "contact_form",
        "contact_us",
        {"topic": "billing"},
        [
            ElicitResult(action="accept", content={"name": "Ann", "email": "not-an-email"}),
            ElicitResult(action="accept", content={"name": "Ann", "email": "ann@example.com"}),
        ],
        "Ticket about 'billing' opened for Ann <ann@example.com>",
    ),
    "expense-approved": Scenario(
        "expense_approval",
        "submit_expense",
        {"description": "Laptop", "amount": 1500},
        [ElicitResult(action="accept", content={"approved": True, "note": "ok"})],
        "Processed Laptop ($1500.00), approved: ok",
    ),
    "expense-small-needs-no-question": Scenario(
        "expense_approval",
        "submit_expense",
        {"description": "Lunch", "amount": 20},
        [],
        "Processed Lunch ($20.00), no approval needed",
    ),
    "transfer": Scenario(
        "funds_transfer",
        "transfer_funds",
        {"from_account": "A", "to_account": "B", "amount": 50},
        [ElicitResult(action="accept", content={"confirmed": True}), latest_code],
        "Transferred $50.00 from A to B",
    ),
    "transfer-wrong-code": Scenario(
        "funds_transfer",
        "transfer_funds",
        {"from_account": "A", "to_account": "B", "amount": 50},
        [
            ElicitResult(action="accept", content={"confirmed": True}),
            ElicitResult(action="accept", content={"code": "12ab"}),
            wrong_code,
        ],
        "Invalid verification code; transfer cancelled",
    ),
    "dev-config": Scenario(
        "dev_config",
        "configure_dev",
        {"project": "web"},
        [ElicitResult(action="accept", content={"editor": "vim", "port": 8080})],
        "web: editor=vim port=8080 hot_reload=True",
    ),
}


@pytest.mark.parametrize("name", SCENARIOS)
async def test_seed_scenario_behaves_the_same_on_every_era(connect, era, name):
    scenario = SCENARIOS[name]
    module = example(scenario.module)
    sent_before = len(example("funds_transfer").OUTBOX)
    scripted = ScriptedUser(*scenario.replies)
    async with connect(module.server, era, scripted) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool(scenario.tool, scenario.arguments)
    assert isinstance(result.content[0], TextContent)
    assert (result.is_error, result.content[0].text) == (False, scenario.expected)
    assert len(scripted.questions) == scenario.questions
    if scenario.module == "funds_transfer" and len(scripted.questions) > 1:
        assert len(example("funds_transfer").OUTBOX) == sent_before + 1


async def test_contact_form_states_the_email_problem_when_asking_again(connect, era):
    scripted = ScriptedUser(*SCENARIOS["contact-email-asked-again"].replies)
    async with connect(example("contact_form").server, era, scripted) as client:
        with anyio.fail_after(BOUND):
            await client.call_tool("contact_us", {"topic": "billing"})
    assert "email: value is not a valid email address" in scripted.questions[1].message


async def test_dev_config_shows_titled_editors_in_the_era_shape(connect, era):
    scripted = ScriptedUser(accept(editor="emacs"))
    async with connect(example("dev_config").server, era, scripted) as client:
        with anyio.fail_after(BOUND):
            await client.call_tool("configure_dev", {"project": "web"})
    editor = scripted.questions[0].requested_schema["properties"]["editor"]
    if era == "2025-06-18":
        assert editor["enumNames"] == ["VS Code", "Vim", "Emacs", "Sublime Text"]
    else:
        assert editor["oneOf"][2] == {"const": "emacs", "title": "Emacs"}


async def test_dev_config_falls_back_to_defaults_without_elicitation(connect, era):
    async with connect(example("dev_config").server, era) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("configure_dev", {"project": "web"})
    assert isinstance(result.content[0], TextContent)
    assert result.content[0].text == "web: editor=vscode port=3000 hot_reload=True"


async def test_a_resent_final_round_moves_the_money_once(connect):
    bank = example("funds_transfer")
    arguments = {"from_account": "A", "to_account": "B", "amount": 25}
    before = dict(bank.TRANSFERS)
    async with connect(bank.server, "2026-07-28", ScriptedUser()) as client:
        session = client.session
        with anyio.fail_after(BOUND):
            first = await session.call_tool("transfer_funds", arguments, allow_input_required=True)
            assert isinstance(first, InputRequiredResult)
            second = await session.call_tool(
                "transfer_funds",
                arguments,
                input_responses={"q0": ElicitResult(action="accept", content={"confirmed": True})},
                request_state=first.request_state,
                allow_input_required=True,
            )
            assert isinstance(second, InputRequiredResult)
            final = {"q1": ElicitResult(action="accept", content={"code": bank.OUTBOX[-1]})}
            done = await session.call_tool(
                "transfer_funds", arguments, input_responses=final, request_state=second.request_state
            )
            for _ in range(2):
                with pytest.raises(MCPError) as refused:
                    await session.call_tool(
                        "transfer_funds", arguments, input_responses=final, request_state=second.request_state
                    )
                assert refused.value.error.code == INVALID_PARAMS
                assert "was already answered" in refused.value.error.message
    assert isinstance(done, CallToolResult)
    assert isinstance(done.content[0], TextContent)
    assert done.content[0].text == "Transferred $25.00 from A to B"
    new = {key: transfer for key, transfer in bank.TRANSFERS.items() if key not in before}
    assert list(new.values()) == [("A", "B", 25)]
