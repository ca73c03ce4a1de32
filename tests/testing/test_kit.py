"""The testing kit: scripted user, in-memory connections per era, Hypothesis strategies."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, TextContent, TextResourceContents
from pydantic import ValidationError

from tests.client_servers import Traveller, raw, typed
from tests.conftest import examples
from typed_elicit import PROTOCOL_VERSIONS, Accepted, ElicitContext, ProtocolVersion, elicits, reduce_schema
from typed_elicit._cli import sample_argument
from typed_elicit.client import parse_requested_schema
from typed_elicit.client._responder import plausible_value
from typed_elicit.errors import InvalidResponse as InvalidResponse
from typed_elicit.testing._kit import (
    Answer,
    Question,
    ScriptedUser,
    ScriptMistake,
    accept,
    cancel,
    connect,
    decline,
    invalid_answers,
    send_raw,
    valid_answers,
)

ROOT = Path(__file__).resolve().parents[2]


def text(result: Any) -> str:
    content = result.content[0]
    assert isinstance(content, TextContent)
    return content.text


async def book(user: ScriptedUser, era: ProtocolVersion = "2025-11-25") -> str:
    with anyio.fail_after(10):
        async with connect(typed, era, elicitation_callback=user) as client:
            return text(await client.call_tool("book", {}))


# --- ScriptedUser ----------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_the_scripted_user_records_message_schema_and_era_of_every_question(
    era: ProtocolVersion,
) -> None:
    user = ScriptedUser(accept(name="Ada"))

    assert await book(user, era) == "booked 1 for Ada, meal any, newsletter False"

    (question,) = user.questions
    assert question.message == "Who is travelling?"
    assert question.protocol_version == era
    assert question.mode == "form"
    assert question.field_names == ["name", "seats", "meal", "newsletter"]
    assert question.requested_schema == reduce_schema(Traveller, protocol_version=era)
    user.assert_done()


@pytest.mark.anyio
@pytest.mark.parametrize(("answer", "expected"), [(decline(), "declined"), (cancel(), "cancelled")])
async def test_scripted_decline_and_cancel_reach_the_tool(answer: Any, expected: str) -> None:
    user = ScriptedUser(answer)

    assert await book(user) == expected
    assert user.sent[0].action == answer.action


@pytest.mark.anyio
async def test_chained_answers_are_given_in_order_and_accept_takes_a_model() -> None:
    user = ScriptedUser().accept(Traveller(name="Bo", seats=3)).decline()

    assert await book(user) == "booked 3 for Bo, meal any, newsletter False"
    assert await book(user) == "declined"
    assert user.pending == 0


@pytest.mark.anyio
async def test_accepted_answers_get_the_schema_defaults_like_a_conforming_client() -> None:
    user = ScriptedUser(accept(name="Ada"))

    await book(user, "2026-07-28")

    assert user.sent[0].content == {"name": "Ada", "seats": 1, "meal": "any", "newsletter": False}


@pytest.mark.anyio
async def test_raw_content_is_sent_unchecked_and_the_tool_reports_it_invalid() -> None:
    user = ScriptedUser(send_raw({"name": "", "seats": "many"}))

    with anyio.fail_after(10):
        async with connect(typed, "2025-11-25", elicitation_callback=user) as client:
            result = await client.call_tool("book", {})

    assert result.is_error
    assert "invalid" in text(result)
    assert user.sent[0].content == {"name": "", "seats": "many"}


# A script mistake is one behaviour on every era: the call raises ScriptMistake. Never a tool
# result, which a test asserting `result.is_error` (a refusal) would take for the tool's own.
MISTAKES = [
    pytest.param((), "no answer left for question 1 ('Who is travelling?')", id="no-answer-left"),
    pytest.param(
        (accept(name="Ada", seats=99),),
        "scripted answer to question 1 does not fit",
        id="answer-does-not-fit",
    ),
]


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
@pytest.mark.parametrize(("answers", "expected"), MISTAKES)
async def test_a_script_mistake_raises_script_mistake_from_the_call_on_every_era(
    era: ProtocolVersion, answers: tuple[Answer, ...], expected: str
) -> None:
    user = ScriptedUser(*answers)

    with anyio.fail_after(10):
        async with connect(typed, era, elicitation_callback=user) as client:
            with pytest.raises(ScriptMistake) as caught:
                await client.call_tool("book", {})
            user.accept(name="Bo")
            after = text(await client.call_tool("book", {}))

    assert isinstance(caught.value, AssertionError)
    assert str(caught.value).startswith(f"ScriptedUser: {expected}")
    (problem,) = caught.value.problems
    assert problem.startswith(expected)
    assert user.mistakes == [problem]
    assert after == "booked 1 for Bo, meal any, newsletter False"
    with pytest.raises(AssertionError, match="ScriptedUser: " + expected.split(" (")[0]):
        user.assert_done()


def test_a_script_mistake_says_how_to_fix_the_script() -> None:
    async def mistakes() -> tuple[str, ...]:
        user = ScriptedUser(accept(name="Ada", seats=99))
        with anyio.fail_after(10):
            async with connect(typed, "2025-11-25", elicitation_callback=user) as client:
                for _ in range(2):
                    with pytest.raises(ScriptMistake):
                        await client.call_tool("book", {})
        return tuple(user.mistakes)

    misfit, exhausted = anyio.run(mistakes)

    assert "seats" in misfit
    assert misfit.endswith("fix the answer, or send it unchecked with send_raw()")
    assert exhausted.endswith("queue one more answer, or pass otherwise= to answer any number of questions")


lifecycle = MCPServer("lifecycle")


@lifecycle.prompt()
@elicits
async def greet(ctx: ElicitContext) -> str:
    match await ctx.elicit(Traveller):
        case Accepted(Traveller(name=name)):
            return f"hello {name}"
        case _:
            return "hello nobody"


@lifecycle.resource("traveller://{seat}")
@elicits
async def current(seat: str, ctx: ElicitContext) -> str:
    match await ctx.elicit(Traveller):
        case Accepted(Traveller(name=name)):
            return f"{seat}: {name}"
        case _:
            return f"{seat}: nobody"


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_prompts_and_resources_raise_the_same_script_mistake_on_every_era(era: ProtocolVersion) -> None:
    user = ScriptedUser(accept(name="Ada"), accept(name="Bo"))

    with anyio.fail_after(10):
        async with connect(lifecycle, era, elicitation_callback=user) as client:
            prompt = await client.get_prompt("greet")
            resource = await client.read_resource("traveller://1A")
            with pytest.raises(ScriptMistake, match="no answer left for question 3"):
                await client.get_prompt("greet")
            with pytest.raises(ScriptMistake, match="no answer left for question 4"):
                await client.read_resource("traveller://1A")

    block = prompt.messages[0].content
    assert isinstance(block, TextContent)
    assert block.text == "hello Ada"
    (contents,) = resource.contents
    assert isinstance(contents, TextResourceContents)
    assert contents.text == "1A: Bo"


@pytest.mark.anyio
@pytest.mark.parametrize(("era", "tool"), [("2025-11-25", "ask_push"), ("2026-07-28", "ask_rounds")])
async def test_data_in_the_consent_to_a_url_is_a_script_mistake(era: ProtocolVersion, tool: str) -> None:
    user = ScriptedUser(accept(code="123"))

    with anyio.fail_after(10), pytest.raises(ScriptMistake, match="question 1 is URL mode"):
        async with connect(raw, era, elicitation_callback=user) as client:
            await client.call_tool(tool, {"mode": "url"})


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_an_error_raised_in_the_body_of_connect_comes_out_as_is_not_in_exception_groups(
    era: ProtocolVersion,
) -> None:
    user = ScriptedUser()

    with anyio.fail_after(10), pytest.raises(ScriptMistake, match="no answer left"):
        async with connect(typed, era, elicitation_callback=user) as client:
            await client.call_tool("book", {})
    with anyio.fail_after(10), pytest.raises(AssertionError, match=r"^mine$"):
        async with connect(typed, era):
            raise AssertionError("mine")


@pytest.mark.anyio
async def test_a_server_error_without_a_script_mistake_is_the_sdks_own_error() -> None:
    with anyio.fail_after(10):
        async with connect(typed, "2026-07-28") as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("book", {})

    assert not isinstance(caught.value, ScriptMistake)


def test_assert_done_reports_unused_answers() -> None:
    with pytest.raises(AssertionError, match="1 scripted answer"):
        ScriptedUser(decline()).assert_done()


@pytest.mark.anyio
async def test_a_hostile_schema_is_refused_and_recorded_without_using_an_answer() -> None:
    user = ScriptedUser(decline())

    with anyio.fail_after(10):
        async with connect(raw, "2025-11-25", elicitation_callback=user) as client:
            result = await client.call_tool("ask_push", {})

    assert text(result).startswith(f"error {INVALID_PARAMS}")
    assert user.pending == 1
    assert "unusable schema" in user.problems[0]
    assert user.mistakes == []  # the server's fault, answered as any conforming client would


@pytest.mark.anyio
async def test_a_hostile_schema_on_2026_07_28_is_the_sdks_error_not_a_script_mistake() -> None:
    user = ScriptedUser(decline())

    with anyio.fail_after(10):
        async with connect(raw, "2026-07-28", elicitation_callback=user) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("ask_rounds", {})

    assert not isinstance(caught.value, ScriptMistake)
    assert caught.value.code == INVALID_PARAMS
    assert user.mistakes == []
    assert "unusable schema" in user.problems[0]


@pytest.mark.anyio
@pytest.mark.parametrize(("era", "tool"), [("2025-11-25", "ask_push"), ("2026-07-28", "ask_rounds")])
async def test_url_questions_are_recorded_and_accept_means_consent(era: ProtocolVersion, tool: str) -> None:
    user = ScriptedUser(accept())

    with anyio.fail_after(10):
        async with connect(raw, era, elicitation_callback=user) as client:
            result = await client.call_tool(tool, {"mode": "url"})

    assert "accept" in text(result)
    assert user.questions[0].mode == "url"
    assert user.questions[0].url == "https://auth.example/login"
    with pytest.raises(ValueError, match="URL-mode"):
        _ = user.questions[0].form


# --- connect -------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_connect_negotiates_exactly_the_era_asked_for(era: ProtocolVersion) -> None:
    with anyio.fail_after(10):
        async with connect(typed, era) as client:
            assert client.protocol_version == era


@pytest.mark.anyio
async def test_connect_refuses_an_unknown_era() -> None:
    with pytest.raises(ValueError, match="unsupported protocol version"):
        async with connect(typed, "2024-11-05"):  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
            pass


# --- Hypothesis strategies -------------------------------------------------------------------


@settings(max_examples=examples(60), deadline=None)
@given(valid_answers(Traveller))
def test_valid_answers_fit_both_the_wire_schema_and_the_model(answer: dict[str, Any]) -> None:
    content = parse_requested_schema(reduce_schema(Traveller)).content(answer)

    Traveller.model_validate(content)


@settings(max_examples=examples(100), deadline=None)
@given(invalid_answers(Traveller))
def test_invalid_answers_break_the_wire_schema_and_the_model(answer: dict[str, Any]) -> None:
    with pytest.raises(InvalidResponse):
        parse_requested_schema(reduce_schema(Traveller)).content(answer)
    with pytest.raises(ValidationError):
        Traveller.model_validate(answer)


RICH = {
    "type": "object",
    "properties": {
        "email": {"type": "string", "format": "email", "maxLength": 30},
        "day": {"type": "string", "format": "date"},
        "at": {"type": "string", "format": "date-time"},
        "site": {"type": "string", "format": "uri"},
        "code": {"type": "string", "minLength": 2, "maxLength": 4},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1},
        "tags": {
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b", "c"]},
            "minItems": 1,
            "maxItems": 2,
        },
        "tier": {"type": "string", "oneOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]},
        "ok": {"type": "boolean"},
    },
    "required": ["email", "day", "at", "site", "code", "ratio", "tags", "tier", "ok"],
}


@settings(max_examples=examples(60), deadline=None)
@given(valid_answers(RICH), invalid_answers(RICH))
def test_strategies_cover_formats_ranges_and_multi_select(good: dict[str, Any], bad: dict[str, Any]) -> None:
    form = parse_requested_schema(RICH)

    assert form.content(good) == good
    with pytest.raises(InvalidResponse):
        form.content(bad)


def test_a_form_without_fields_has_no_invalid_answers() -> None:
    with pytest.raises(ValueError, match="no field"):
        invalid_answers({"type": "object", "properties": {}})


@settings(max_examples=examples(10), deadline=None)
@given(st.lists(invalid_answers(Traveller), min_size=1, max_size=3))
def test_generated_invalid_answers_are_all_refused_by_a_typed_tool(answers: list[dict[str, Any]]) -> None:
    user = ScriptedUser(*(send_raw(answer) for answer in answers))

    async def call_once_per_answer() -> list[bool]:
        with anyio.fail_after(10):
            async with connect(typed, "2026-07-28", elicitation_callback=user) as client:
                return [(await client.call_tool("book", {})).is_error for _ in answers]

    assert all(anyio.run(call_once_per_answer))
    user.assert_done()


# --- every example and peer server, on every era ----------------------------------------------

EXAMPLES = ROOT / "examples"
PEER_SERVERS = ROOT / "tests" / "peers" / "servers"
ARGUMENTS: dict[tuple[str, str], dict[str, Any]] = {
    ("expense_approval", "submit_expense"): {"description": "team dinner", "amount": 5000.0},
    ("conformance_server", "test_elicitation"): {"message": "Who are you?"},
    # A directory with a matching file, so the tool has options to offer.
    ("pick_file", "open_file"): {"directory": str(EXAMPLES), "pattern": "pick_file.py"},
}
EXPECTED_REFUSALS = {
    # The code's pattern is checked on arrival but not sent on the wire, so a made-up code fails.
    ("funds_transfer", "transfer_funds", era)
    for era in PROTOCOL_VERSIONS
} | {
    # Multi-select fields need 2025-11-25 or later.
    ("interop_server", "all_kinds", "2025-06-18"),
    ("conformance_server", "test_elicitation_sep1330_enums", "2025-06-18"),
    ("interop_server", "shaped_pick", "2025-06-18"),
    ("split_bill", "split_bill", "2025-06-18"),
}
ASKS_NOTHING = {("split_bill", "2025-06-18")}
"""Examples whose every tool is refused on an era before it asks (split_bill's multi-select)."""
# The fallback's companion tool refuses a made-up token.
EXPECTED_REFUSALS |= {
    (name, "send_elicitation_result", era)
    for name in ("fallback_wizard", "interop_server")
    for era in PROTOCOL_VERSIONS
}


OUT_OF_BAND = {"link_bank", "drive_link", "pay_invoice", "ship_order", "book_courier"}
"""Examples whose tools wait for a page (or end with -32042) that a scripted user cannot fill:
tests/pages/test_host.py, tests/pages/test_pages_options.py, tests/pages/test_pages_options_tree.py,
tests/calls/test_url_required.py, tests/pages/test_pages_browser.py and
tests/pages/test_pages_browser_tree.py run them."""


def example_servers() -> list[tuple[str, MCPServer[Any]]]:
    for folder in (EXAMPLES, PEER_SERVERS):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    found: list[tuple[str, MCPServer[Any]]] = []
    for path in sorted([*EXAMPLES.glob("*.py"), *PEER_SERVERS.glob("*.py")], key=lambda p: p.stem):
        if path.stem.startswith("test_") or path.stem in OUT_OF_BAND:
            continue
        module = importlib.import_module(path.stem)
        servers: list[MCPServer[Any]] = [v for v in vars(module).values() if isinstance(v, MCPServer)]
        build = getattr(module, "build_server", None)
        if not servers and callable(build):
            built = build()
            assert isinstance(built, MCPServer)
            servers = [built]
        found.extend((path.stem, server) for server in servers)
    return found


def plausible_answer(question: Question) -> Answer:
    if question.mode == "url":
        return accept()
    form = question.form
    return accept({f.name: plausible_value(f) for f in form.fields if f.required and not f.has_default})


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
@pytest.mark.parametrize(("name", "server"), example_servers(), ids=[name for name, _ in example_servers()])
async def test_every_example_tool_answers_a_scripted_user_on_every_era(
    name: str, server: MCPServer[Any], era: ProtocolVersion
) -> None:
    user = ScriptedUser(otherwise=plausible_answer)
    outcomes: dict[str, bool] = {}

    with anyio.fail_after(30):
        async with connect(server, era, elicitation_callback=user) as client:
            for tool in (await client.list_tools()).tools:
                schema = tool.input_schema
                arguments = {
                    key: sample_argument(schema["properties"].get(key)) for key in schema.get("required", [])
                }
                arguments.update(ARGUMENTS.get((name, tool.name), {}))
                outcomes[tool.name] = (await client.call_tool(tool.name, arguments)).is_error

    assert user.problems == []
    assert user.questions or (name, era) in ASKS_NOTHING, f"{name} asked nothing"
    assert {q.protocol_version for q in user.questions} == ({era} if user.questions else set())
    refused = {(name, tool, era) for tool, is_error in outcomes.items() if is_error}
    assert refused == {key for key in EXPECTED_REFUSALS if key[:1] == (name,) and key[2] == era}
