"""The CI responder answers from given values, then schema defaults, and says why it declines."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import pytest
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult, ErrorData, TextContent

from tests.client_servers import raw, typed
from tests.conftest import example_output
from typed_elicit import PROTOCOL_VERSIONS, ProtocolVersion
from typed_elicit.client import Responder, parse_requested_schema
from typed_elicit.client._responder import redacted_url
from typed_elicit.testing._kit import connect

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Full name"},
        "seats": {"type": "integer", "default": 2, "maximum": 9},
        "note": {"type": "string"},
    },
    "required": ["name"],
}


def ask(schema: dict[str, Any] = SCHEMA) -> ElicitRequestFormParams:
    return ElicitRequestFormParams(message="Who?", requested_schema=schema)


def test_given_values_come_first_then_schema_defaults_and_unset_optionals_stay_out() -> None:
    responder = Responder({"name": "CI", "unrelated": 1})

    result = responder.respond(ask())

    assert result == ElicitResult(action="accept", content={"name": "CI", "seats": 2})
    assert responder.log[0].action == "accept"
    assert responder.log[0].content == {"name": "CI", "seats": 2}


def test_a_given_value_overrides_the_schema_default() -> None:
    result = Responder({"name": "CI", "seats": 5}).respond(ask())

    assert isinstance(result, ElicitResult)
    assert result.content == {"name": "CI", "seats": 5}


def test_a_missing_required_value_declines_and_names_the_field() -> None:
    responder = Responder()

    result = responder.respond(ask())

    assert result == ElicitResult(action="decline")
    assert responder.log[0].reason is not None
    assert "name (Full name)" in responder.log[0].reason


def test_a_value_that_breaks_the_schema_declines_with_the_problem() -> None:
    responder = Responder({"name": "CI", "seats": 50})

    assert responder.respond(ask()) == ElicitResult(action="decline")
    assert responder.log[0].reason is not None
    assert "seats" in responder.log[0].reason


def test_url_requests_are_declined_with_the_url_in_the_reason() -> None:
    responder = Responder({"name": "CI"})

    result = responder.respond(ElicitRequestURLParams(message="Pay", url="https://pay.example/x"))

    assert result == ElicitResult(action="decline")
    assert responder.log[0].reason is not None
    assert "https://pay.example/x" in responder.log[0].reason


def test_a_declined_url_is_logged_and_recorded_without_its_query_or_fragment(
    caplog: pytest.LogCaptureFixture,
) -> None:
    responder = Responder()
    url = "https://id.example.com:8443/authorize?state=s3cr3t&code=tok3n#frag"

    with caplog.at_level(logging.WARNING, logger="typed_elicit.responder"):
        responder.respond(ElicitRequestURLParams(message="Sign in", url=url))

    reason = responder.log[0].reason
    assert reason is not None
    assert "https://id.example.com:8443/authorize?…" in reason
    assert "https://id.example.com:8443/authorize?…" in caplog.text
    for secret in ("s3cr3t", "tok3n", "frag"):
        assert secret not in reason
        assert secret not in caplog.text


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://id.example.com/authorize?t=x", "https://id.example.com/authorize?…"),
        ("https://id.example.com/authorize", "https://id.example.com/authorize"),
        ("https://user:pw@id.example.com/a", "https://id.example.com/a"),
        ("http://[::1]:8080/cb#t=x", "http://[::1]:8080/cb?…"),
        ("https://[::1/", "<unreadable URL>"),
    ],
)
def test_redacted_urls_keep_only_scheme_host_and_path(url: str, shown: str) -> None:
    assert redacted_url(url) == shown


def test_an_unusable_schema_gets_an_error_and_is_logged() -> None:
    responder = Responder()

    result = responder.respond(ask({"type": "object", "properties": {"a": {"type": "object"}}}))

    assert isinstance(result, ErrorData)
    assert responder.log[0].action == "error"


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_the_responder_drives_a_real_tool_on_every_era(era: ProtocolVersion) -> None:
    responder = Responder({"name": "CI bot", "newsletter": True})

    with anyio.fail_after(10):
        async with connect(typed, era, elicitation_callback=responder) as client:
            result = await client.call_tool("book", {})

    content = result.content[0]
    assert isinstance(content, TextContent)
    assert content.text == "booked 1 for CI bot, meal any, newsletter True"


@pytest.mark.anyio
async def test_the_responder_declines_a_url_request_over_the_wire() -> None:
    responder = Responder()

    with anyio.fail_after(10):
        async with connect(raw, "2025-11-25", elicitation_callback=responder) as client:
            result = await client.call_tool("ask_push", {"mode": "url"})

    content = result.content[0]
    assert isinstance(content, TextContent)
    assert content.text == "decline None"


@pytest.mark.slow
def test_the_ci_responder_example_deploys_then_declines_with_the_reason() -> None:
    assert example_output("ci_responder.py") == [
        "Deployed shop to staging (2 cores, 4GB, auto_scale=False)",
        "Deployment cancelled",
        "accept: Select deployment environment ({'environment': 'staging'})",
        "decline: Configure resources for staging "
        "(no value for required field(s) cpu_cores, memory_gb; "
        "give them in the Responder's values: Responder({'cpu_cores': ..., 'memory_gb': ...}))",
    ]


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "integer", "exclusiveMinimum": 0},
        {"type": "integer", "exclusiveMaximum": -5},
        {"type": "integer", "minimum": 2, "exclusiveMaximum": 4},
        {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.5},
        {"type": "number", "exclusiveMinimum": 1e-300, "exclusiveMaximum": 2e-300},
        {"type": "number", "exclusiveMinimum": 1.7e308},
        {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 1, "exclusiveMaximum": True},
        {"type": "number", "maximum": -1e308},
    ],
)
def test_invented_numbers_fit_every_bound_exclusive_ones_included(prop: dict[str, Any]) -> None:
    schema = {"type": "object", "properties": {"x": prop}, "required": ["x"]}

    result = Responder(invent=True).respond(ask(schema))

    assert isinstance(result, ElicitResult)
    assert result.content is not None
    value = result.content["x"]
    assert isinstance(value, (int, float))
    assert parse_requested_schema(schema).content({"x": value}) == {"x": value}
