"""Typed client handlers answer real servers on every era."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, TextContent
from pydantic import BaseModel

from tests.client_servers import raw, typed
from tests.conftest import example_output
from typed_elicit import PROTOCOL_VERSIONS, Cancelled, Declined, ProtocolVersion
from typed_elicit._core.results import ElicitResult
from typed_elicit.client import FormRequest, UrlAnswer, UrlRequest, elicitation_handler
from typed_elicit.client._handler import read_request
from typed_elicit.errors import InvalidResponse as InvalidResponse
from typed_elicit.testing._kit import connect

pytestmark = pytest.mark.anyio


def text(result: CallToolResult) -> str:
    content = result.content[0]
    assert isinstance(content, TextContent)
    return content.text


@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_a_typed_handler_sees_message_schema_model_and_era_and_its_answer_reaches_the_tool(
    era: ProtocolVersion,
) -> None:
    seen: list[FormRequest] = []

    @elicitation_handler
    async def answer(request: FormRequest) -> ElicitResult[BaseModel]:
        seen.append(request)
        return request.accept(request.model(name="Ada", seats=2))

    with anyio.fail_after(10):
        async with connect(typed, era, elicitation_callback=answer) as client:
            result = await client.call_tool("book", {})

    assert text(result) == "booked 2 for Ada, meal any, newsletter False"
    assert seen[0].message == "Who is travelling?"
    assert seen[0].protocol_version == era
    assert seen[0].server_name == "travel-desk"
    assert seen[0].requested_schema["required"] == ["name"]
    assert seen[0].model.model_fields["name"].title == "Full name"


@pytest.mark.parametrize(("outcome", "expected"), [(Declined(), "declined"), (Cancelled(), "cancelled")])
async def test_decline_and_cancel_from_a_handler_reach_the_tool(
    outcome: ElicitResult[BaseModel], expected: str
) -> None:
    async def answer(request: FormRequest) -> ElicitResult[BaseModel]:
        return outcome

    with anyio.fail_after(10):
        async with connect(typed, "2025-11-25", elicitation_callback=elicitation_handler(answer)) as client:
            result = await client.call_tool("book", {})

    assert text(result) == expected


async def test_schema_defaults_fill_fields_the_handler_left_out() -> None:
    sent: list[dict[str, Any]] = []

    async def answer(request: FormRequest) -> ElicitResult[BaseModel]:
        accepted = request.accept({"name": "Ada"})
        sent.append(request.form.content(accepted.data))
        return accepted

    with anyio.fail_after(10):
        async with connect(typed, "2026-07-28", elicitation_callback=elicitation_handler(answer)) as client:
            await client.call_tool("book", {})

    assert sent == [{"name": "Ada", "seats": 1, "meal": "any", "newsletter": False}]


async def test_an_answer_that_breaks_the_schema_is_refused_on_the_client() -> None:
    problems: list[InvalidResponse] = []

    async def answer(request: FormRequest) -> ElicitResult[BaseModel]:
        try:
            return request.accept({"name": "", "seats": 12})
        except InvalidResponse as exc:
            problems.append(exc)
            return Declined()

    with anyio.fail_after(10):
        async with connect(typed, "2025-11-25", elicitation_callback=elicitation_handler(answer)) as client:
            result = await client.call_tool("book", {})

    assert text(result) == "declined"
    assert {name for name, _ in problems[0].errors} == {"name", "seats"}


async def test_a_hostile_schema_on_a_push_era_gets_invalid_params_and_never_reaches_the_handler() -> None:
    calls: list[FormRequest] = []

    async def answer(request: FormRequest) -> ElicitResult[BaseModel]:
        calls.append(request)
        return Declined()

    with anyio.fail_after(10):
        async with connect(raw, "2025-11-25", elicitation_callback=elicitation_handler(answer)) as client:
            result = await client.call_tool("ask_push", {})

    assert text(result).startswith(
        f"error {INVALID_PARAMS}: the requested schema is not a valid elicitation schema"
    )
    assert "$ref not allowed" in text(result)
    assert calls == []


async def test_a_hostile_schema_on_2026_fails_the_call_with_the_same_error() -> None:
    async def answer(request: FormRequest) -> ElicitResult[BaseModel]:
        raise AssertionError("never called")

    with anyio.fail_after(10):
        async with connect(raw, "2026-07-28", elicitation_callback=elicitation_handler(answer)) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("ask_rounds", {})

    assert caught.value.code == INVALID_PARAMS
    assert "$ref not allowed" in caught.value.message


@pytest.mark.parametrize(("era", "tool"), [("2025-11-25", "ask_push"), ("2026-07-28", "ask_rounds")])
async def test_url_requests_go_to_the_url_handler_with_the_full_url(era: ProtocolVersion, tool: str) -> None:
    seen: list[UrlRequest] = []

    async def on_form(request: FormRequest) -> ElicitResult[BaseModel]:
        raise AssertionError("no form expected")

    async def on_url(request: UrlRequest) -> UrlAnswer:
        seen.append(request)
        return "accept"

    callback = elicitation_handler(on_form, url=on_url)
    with anyio.fail_after(10):
        async with connect(raw, era, elicitation_callback=callback) as client:
            result = await client.call_tool(tool, {"mode": "url"})

    assert seen[0].url == "https://auth.example/login"
    assert seen[0].message == "Sign in"
    assert "accept" in text(result)


async def test_url_requests_are_declined_when_no_url_handler_is_given() -> None:
    async def on_form(request: FormRequest) -> ElicitResult[BaseModel]:
        raise AssertionError("no form expected")

    with anyio.fail_after(10):
        async with connect(raw, "2025-11-25", elicitation_callback=elicitation_handler(on_form)) as client:
            result = await client.call_tool("ask_push", {"mode": "url"})

    assert text(result) == "decline None"


def test_read_request_works_without_a_connection() -> None:
    from mcp_types import ElicitRequestFormParams

    request = read_request(
        None, ElicitRequestFormParams(message="m", requested_schema={"type": "object", "properties": {}})
    )

    assert isinstance(request, FormRequest)
    assert request.protocol_version is None
    assert request.server_name is None


@pytest.mark.slow
def test_the_client_handler_example_answers_the_wizard_over_stdio() -> None:
    assert example_output("client_handler.py") == [
        "deployment-wizard asks: Select deployment environment",
        "deployment-wizard asks: Configure resources for staging",
        "Deployed shop to staging (2 cores, 4GB, auto_scale=False)",
    ]
