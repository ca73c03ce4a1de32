"""The client half logs field names and actions only: no answer value, no URL query, anywhere."""

from __future__ import annotations

import logging
import warnings
from typing import Any, cast

import anyio
import pytest
from mcp.client import ClientRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    INTERNAL_ERROR,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    ErrorData,
    InputRequiredResult,
    TextContent,
)
from pydantic import BaseModel

from tests.client_servers import typed
from typed_elicit import PROTOCOL_VERSIONS, Accepted, ProtocolVersion
from typed_elicit._core.results import ElicitResult as TypedResult
from typed_elicit.client import (
    FormRequest,
    Responder,
    UrlAnswer,
    UrlRequest,
    elicitation_handler,
    parse_requested_schema,
)
from typed_elicit.errors import InvalidResponse as InvalidResponse
from typed_elicit.testing._kit import connect

pytestmark = pytest.mark.anyio

SECRET = "SECRET-4111-1111"
TOKEN = "tok-9f8e7d"
URL = f"https://id.example.com/authorize?code={TOKEN}#state={TOKEN}"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "card": {"type": "string", "maxLength": 40},
        "pin": {"type": "integer"},
        "mail": {"type": "string", "format": "email"},
        "when": {"type": "string", "format": "date"},
    },
    "required": ["card"],
}
NO_CONTEXT = cast("ClientRequestContext", None)


@pytest.fixture
def everything(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Every logger, at DEBUG."""
    caplog.set_level(logging.DEBUG)
    return caplog


def form(schema: dict[str, Any] = SCHEMA) -> ElicitRequestFormParams:
    return ElicitRequestFormParams(message="Pay", requested_schema=schema)


def assert_nowhere(caplog: pytest.LogCaptureFixture, *texts: object) -> None:
    logged = caplog.text + "".join(str(record.args) for record in caplog.records)
    assert caplog.records, "nothing was logged: the check would be empty"
    for secret in (SECRET, TOKEN):
        assert secret not in logged
        for text in texts:
            assert secret not in str(text)


async def test_an_accepted_answer_logs_field_names_only(everything: pytest.LogCaptureFixture) -> None:
    responder = Responder({"card": SECRET, "pin": 4111})

    result = responder.respond(form())

    assert result == ElicitResult(action="accept", content={"card": SECRET, "pin": 4111})
    assert "with fields card, pin" in everything.text
    assert "4111" not in everything.text
    assert_nowhere(everything)


@pytest.mark.parametrize(
    "values",
    [
        {"card": SECRET, "pin": SECRET},
        {"card": SECRET, "mail": SECRET},
        {"card": SECRET, "when": SECRET},
        {"card": SECRET * 3},
        {"card": SECRET, "pin": f"1e{SECRET}"},
    ],
    ids=["number", "email", "date", "too-long", "not-a-number"],
)
async def test_a_declined_answer_logs_and_records_the_field_not_the_value(
    everything: pytest.LogCaptureFixture, values: dict[str, Any]
) -> None:
    responder = Responder(values)

    assert responder.respond(form()) == ElicitResult(action="decline")

    reason = responder.log[0].reason
    assert reason is not None
    assert any(name in reason for name in ("pin", "mail", "when", "card"))
    assert_nowhere(everything, reason)


async def test_an_invalid_answer_message_names_fields_never_values() -> None:
    spec = parse_requested_schema(SCHEMA)

    with pytest.raises(InvalidResponse) as caught:
        spec.content({"card": SECRET, "pin": SECRET, "mail": SECRET, "when": SECRET})

    assert {name for name, _ in caught.value.errors} == {"pin", "mail", "when"}
    assert SECRET not in str(caught.value)
    assert SECRET not in repr(caught.value)
    assert caught.value.content["pin"] == SECRET


async def test_a_handler_answer_that_breaks_the_schema_gets_an_internal_error_naming_fields(
    everything: pytest.LogCaptureFixture,
) -> None:
    async def answer(request: FormRequest) -> TypedResult[BaseModel]:
        return Accepted(request.model.model_construct(card=SECRET, pin=SECRET))

    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        reply = await elicitation_handler(answer)(NO_CONTEXT, form())

    assert [str(w.message) for w in warned if SECRET in str(w.message)] == []
    assert isinstance(reply, ErrorData)
    assert reply.code == INTERNAL_ERROR
    assert reply.message == "the client's answer does not fit the requested form (fields: pin)"
    assert_nowhere(everything, reply)


async def test_a_raising_handler_gets_an_internal_error_naming_only_the_exception_type(
    everything: pytest.LogCaptureFixture,
) -> None:
    async def answer(request: FormRequest) -> TypedResult[BaseModel]:
        raise ValueError(f"card {SECRET} at {URL}")

    async def open_url(request: UrlRequest) -> UrlAnswer:
        raise RuntimeError(f"could not open {request.url}")

    callback = elicitation_handler(answer, url=open_url)
    replies = [
        await callback(NO_CONTEXT, form()),
        await callback(NO_CONTEXT, ElicitRequestURLParams(message="Sign in", url=URL, elicitation_id="e")),
    ]

    assert [(r.code, r.message) for r in replies if isinstance(r, ErrorData)] == [
        (INTERNAL_ERROR, "the client's form handler failed (ValueError)"),
        (INTERNAL_ERROR, "the client's URL handler failed (RuntimeError)"),
    ]
    assert "the form handler raised ValueError" in everything.text
    assert_nowhere(everything, replies)


async def test_a_url_request_shows_the_full_url_to_the_handler_and_a_redacted_one_in_its_repr() -> None:
    seen: list[UrlRequest] = []

    async def open_url(request: UrlRequest) -> UrlAnswer:
        seen.append(request)
        return "decline"

    async def answer(request: FormRequest) -> TypedResult[BaseModel]:
        raise AssertionError("no form expected")

    await elicitation_handler(answer, url=open_url)(NO_CONTEXT, ElicitRequestURLParams(message="m", url=URL))

    assert seen[0].url == URL
    assert "https://id.example.com/authorize?…" in repr(seen[0])
    assert TOKEN not in repr(seen[0])


asker = MCPServer("url-asker")


@asker.tool()
async def sign_in(ctx: Context) -> str | InputRequiredResult:
    """Ask the user to open a URL carrying a one-time token."""
    if ctx.protocol_version == "2026-07-28":
        if ctx.input_responses:
            return f"answered {ctx.input_responses['q'].model_dump(exclude_none=True)}"
        params = ElicitRequestURLParams(message="Sign in", url=URL)
        return InputRequiredResult(input_requests={"q": ElicitRequest(params=params)}, request_state="r")
    if ctx.protocol_version == "2025-06-18":
        return "no URL mode"
    result = await ctx.session.elicit_url("Sign in", URL, "el-1", related_request_id=ctx.request_id)
    return f"answered {result.action}"


@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_over_the_wire_no_answer_value_or_url_token_reaches_any_log(
    everything: pytest.LogCaptureFixture, era: ProtocolVersion
) -> None:
    responder = Responder({"name": SECRET})

    with anyio.fail_after(10):
        async with connect(typed, era, elicitation_callback=responder) as client:
            booked = await client.call_tool("book", {})
        async with connect(asker, era, elicitation_callback=responder) as client:
            signed = await client.call_tool("sign_in", {})

    booked_text, signed_text = booked.content[0], signed.content[0]
    assert isinstance(booked_text, TextContent)
    assert isinstance(signed_text, TextContent)
    assert SECRET in booked_text.text  # the tool itself put it there
    assert "decline" in signed_text.text or signed_text.text == "no URL mode"
    assert "with fields name" in everything.text
    assert_nowhere(everything, *(entry.reason for entry in responder.log))
