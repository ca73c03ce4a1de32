"""The client half meets shaped questions unchanged: terminal forms, Responder and the scripted user."""

from __future__ import annotations

import io
from typing import Annotated, Any

import anyio
import pytest
from mcp_types import ElicitRequestFormParams, ElicitResult
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.plain_text import PlainTextOutput
from pydantic import BaseModel, Field

from tests.calls.test_context_options import server
from tests.conftest import BOUND
from typed_elicit import Accepted, Choices, reduce_schema
from typed_elicit import testing as kit
from typed_elicit._forms.reduce import shaped
from typed_elicit._forms.validate import validate_answer
from typed_elicit.client import FormRequest, Responder
from typed_elicit.client._handler import read_request
from typed_elicit.client._terminal import TerminalForms

pytestmark = pytest.mark.anyio


class Route(BaseModel):
    account: Annotated[str, Choices()]
    tags: Annotated[list[str], Choices(), Field(max_length=2)] = []
    amount: int = Field(default=5, ge=5, multiple_of=5)


OPTIONS: dict[str, Any] = {"account": {"a1": "Checking", "a2": "Savings"}, "tags": ["x", "y", "z"]}
DEFAULTS: dict[str, Any] = {"account": "a2", "tags": ["y"], "amount": 15}


def terminal(schema: dict[str, Any], keys: str) -> tuple[object, str]:
    request = read_request(None, ElicitRequestFormParams(message="Route?", requested_schema=schema))
    assert isinstance(request, FormRequest)
    screen = io.StringIO()

    async def ask() -> object:
        with create_pipe_input() as keyboard, anyio.fail_after(BOUND):
            keyboard.send_text(keys)
            forms = TerminalForms(input=keyboard, output=PlainTextOutput(screen), locale="en")
            return await forms.form(request)

    outcome = anyio.run(ask)
    assert isinstance(outcome, Accepted)
    return request.form.content(outcome.data), screen.getvalue()


def test_a_terminal_form_shows_the_offered_titles_defaults_and_hint_and_the_server_takes_its_answer() -> None:
    record = shaped(Route, "2026-07-28", options=OPTIONS, defaults=DEFAULTS)
    content, screen = terminal(record.schema, "y\r\r\r\r")
    assert content == {"account": "a2", "tags": ["y"], "amount": 15}
    assert "Checking" in screen
    assert "Savings" in screen
    assert "Must be a multiple of 5." in screen
    assert validate_answer(Route, record, content) == Route(account="a2", tags=["y"], amount=15)


def test_a_terminal_form_refuses_what_was_not_offered_and_asks_again() -> None:
    record = shaped(Route, "2026-07-28", options=OPTIONS)
    content, screen = terminal(record.schema, "y\rb9\ra1\rx,w\rx,z\r\r")
    assert content == {"account": "a1", "tags": ["x", "z"], "amount": 5}
    assert "'b9' is not one of the options; try again" in screen
    assert "'w' is not one of the options; try again" in screen
    assert validate_answer(Route, record, content).tags == ["x", "z"]


def test_the_responder_answers_a_shaped_question_from_its_defaults_and_the_server_takes_it() -> None:
    record = shaped(Route, "2025-11-25", options=OPTIONS, defaults=DEFAULTS)
    result = Responder().respond(ElicitRequestFormParams(message="Route?", requested_schema=record.schema))
    assert isinstance(result, ElicitResult)
    assert result.content == {"account": "a2", "tags": ["y"], "amount": 15}
    assert validate_answer(Route, record, result.content).account == "a2"


def test_the_responder_declines_a_given_value_that_was_not_offered() -> None:
    schema = reduce_schema(Route, options=OPTIONS)
    responder = Responder({"account": "a9"})
    assert responder.respond(
        ElicitRequestFormParams(message="Route?", requested_schema=schema)
    ) == ElicitResult(action="decline")


async def test_the_scripted_user_checks_its_answer_against_the_offered_options(era: Any) -> None:
    scripted = kit.ScriptedUser(kit.accept(account="acc-9"))

    async def pick() -> None:
        async with kit.connect(server, era, elicitation_callback=scripted) as client:
            with anyio.fail_after(BOUND):
                await client.call_tool("pick", {})

    with pytest.raises(kit.ScriptMistake, match="account"):
        await pick()


async def test_the_scripted_user_answers_a_shaped_question_on_every_era(era: Any) -> None:
    scripted = kit.ScriptedUser(kit.accept(account="acc-2"))
    async with kit.connect(server, era, elicitation_callback=scripted) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("pick", {})
    assert not result.is_error
    assert [o.value for o in scripted.questions[0].form.by_name["account"].options] == ["acc-1", "acc-2"]
    scripted.assert_done()
