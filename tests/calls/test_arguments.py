"""Argument mistakes in every `ElicitContext` method reach the client as what, why and the fix.

Issue 18, item 13: `ctx.elicit_all(options={"field": [...]})` raised a plain `ValueError`,
which the SDK hides behind "Error executing tool". Every argument mistake is an
`ElicitArgumentError` (a `TypedElicitError`), whose text `@elicits` hands to the client,
and still a `ValueError` and a `TypeError` for code that catches those.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import TextContent
from pydantic import BaseModel, SecretStr

from tests.conftest import BOUND
from typed_elicit import Choices, ElicitContext, TypedElicitError, elicits, form
from typed_elicit.errors import ElicitArgumentError, ElicitUsageError

pytestmark = pytest.mark.anyio


class Booking(BaseModel):
    plan: Annotated[str, Choices()]


class Confirm(BaseModel):
    confirm: bool


@form(page=True)
class BillingKey(BaseModel):
    api_key: SecretStr


Misuse = Callable[[ElicitContext], Awaitable[object]]

MISUSES: dict[str, tuple[Misuse, str]] = {
    "options_by_field": (
        lambda ctx: ctx.elicit_all(Booking, options={"plan": ["basic", "pro"]}),  # type: ignore[dict-item]
        "ctx.elicit_all takes options= per model, not per field ('plan' is a field of Booking). "
        "Pass options={Booking: {'plan': [...]}}, one entry per model asked.",
    ),
    "defaults_by_field": (
        lambda ctx: ctx.elicit_all(Booking, defaults={"plan": "pro"}),  # type: ignore[dict-item]
        "ctx.elicit_all takes defaults= per model, not per field ('plan' is a field of Booking). "
        "Pass defaults={Booking: {'plan': ...}}, one entry per model asked.",
    ),
    "options_by_an_unknown_name": (
        lambda ctx: ctx.elicit_all(Confirm, options={"colour": ["red"]}),  # type: ignore[dict-item]
        "ctx.elicit_all takes options= per model, not per field ('colour' is no model). "
        "Pass options={Confirm: {'colour': [...]}}, one entry per model asked.",
    ),
    "options_not_a_mapping": (
        lambda ctx: ctx.elicit_all(Booking, options=[Booking]),  # type: ignore[arg-type]
        "ctx.elicit_all takes options= as a mapping of model to its options. "
        "Pass options={Booking: {'field': [...]}}.",
    ),
    "options_for_a_model_not_asked": (
        lambda ctx: ctx.elicit_all(Confirm, options={Booking: {"plan": ["pro"]}}),
        "ctx.elicit_all got options= for Booking, which it does not ask for",
    ),
    "no_models": (
        lambda ctx: ctx.elicit_all(),
        "ctx.elicit_all needs at least one model to ask for, e.g. ctx.elicit_all(A, B)",
    ),
    "elicit_timeout": (
        lambda ctx: ctx.elicit(Confirm, timeout=-1),
        "ctx.elicit got timeout=-1, which is not a positive number of seconds (or math.inf)",
    ),
    "elicit_policy": (
        lambda ctx: ctx.elicit(Confirm, on_unsupported="ignore"),  # type: ignore[arg-type]
        "ctx.elicit takes on_unsupported='raise', 'defaults', 'decline' or 'fallback', got 'ignore'",
    ),
    "elicit_not_a_model": (
        lambda ctx: ctx.elicit("Confirm"),  # type: ignore[arg-type]
        "ctx.elicit needs a pydantic.BaseModel subclass to ask for, got str",
    ),
    "elicit_url_scheme": (
        lambda ctx: ctx.elicit_url("ftp://files.example.com/x", "Open it."),
        "ctx.elicit_url needs an absolute https:// (or http://) URL with a host",
    ),
    "elicit_page_blank": (
        lambda ctx: ctx.elicit_page(BillingKey, " "),
        "ctx.elicit_page got a blank message for BillingKey",
    ),
    "elicit_page_timeout": (
        lambda ctx: ctx.elicit_page(BillingKey, timeout=0),
        "ctx.elicit_page got timeout=0, which is not a positive number of seconds (or math.inf)",
    ),
    "complete_url_empty": (
        lambda ctx: ctx.complete_url(""),
        "ctx.complete_url needs the elicitation_id given to ctx.elicit_url, got ''",
    ),
    "once_tuple": (
        lambda ctx: ctx.once("k", lambda: (1, 2)),  # type: ignore[arg-type,return-value]
        "ctx.once('k') returned tuple data that changes in a JSON round trip",
    ),
    "once_key": (
        lambda ctx: ctx.once(3, lambda: 1),  # type: ignore[arg-type]
        "ctx.once needs its key as a non-empty string, got int",
    ),
    "once_not_callable": (
        lambda ctx: ctx.once("k", 1),  # type: ignore[arg-type]
        "ctx.once('k') needs a function to run once, got int",
    ),
}

server = MCPServer("misuse")


@server.tool()
@elicits
async def misuse(ctx: ElicitContext, kind: str, catch: str = "") -> str:
    run, _ = MISUSES[kind]
    if not catch:
        await run(ctx)
        return "no error"
    caught: type[BaseException] = {
        "ValueError": ValueError,
        "TypeError": TypeError,
        "ElicitArgumentError": ElicitArgumentError,
    }[catch]
    try:
        await run(ctx)
    except caught as exc:
        return f"caught {type(exc).__name__}"
    return "no error"


async def call(client: Any, arguments: dict[str, str]) -> tuple[bool, str]:
    with anyio.fail_after(BOUND):
        result = await client.call_tool("misuse", arguments)
    assert isinstance(result.content[0], TextContent)
    return bool(result.is_error), result.content[0].text


@pytest.mark.parametrize("kind", list(MISUSES))
async def test_an_argument_mistake_reaches_the_client_with_what_why_and_the_fix(connect, era, kind):
    async with connect(server, era) as client:
        is_error, text = await call(client, {"kind": kind})
    assert is_error
    assert text != "Error executing tool misuse"  # what the SDK shows of an unexpected exception
    assert f"ElicitArgumentError: {MISUSES[kind][1]}" in text


@pytest.mark.parametrize("kind", list(MISUSES))
@pytest.mark.parametrize("catch", ["ValueError", "TypeError"])
async def test_an_except_value_or_type_error_in_the_tool_never_hides_an_argument_mistake(
    connect, kind, catch
):
    async with connect(server, "2025-11-25") as client:
        is_error, text = await call(client, {"kind": kind, "catch": catch})
    assert is_error
    assert "ElicitArgumentError: " in text


@pytest.mark.parametrize("kind", list(MISUSES))
async def test_one_except_elicit_argument_error_catches_every_argument_mistake(connect, kind):
    async with connect(server, "2025-11-25") as client:
        assert await call(client, {"kind": kind, "catch": "ElicitArgumentError"}) == (
            False,
            "caught ElicitArgumentError",
        )


def test_an_argument_error_is_a_usage_error_carrying_its_call_argument_reason_and_fix():
    error = ElicitArgumentError("ctx.elicit", "timeout", "timeout must be positive, got 0", "Pass 5.")
    assert isinstance(error, ElicitUsageError)
    assert isinstance(error, TypedElicitError)
    assert isinstance(error, RuntimeError)  # as every ElicitUsageError
    assert not isinstance(error, ValueError | TypeError)
    assert (error.problem, error.subject, error.argument, error.reason, error.fix) == (
        "argument",
        "ctx.elicit",
        "timeout",
        "timeout must be positive, got 0",
        "Pass 5.",
    )
    assert str(error) == "ctx.elicit timeout must be positive, got 0. Pass 5."


@pytest.mark.parametrize("locale", [42, "", "de DE", "x" * 40, "<script>"])
def test_a_page_locale_that_is_no_language_tag_is_refused_before_anything_is_sent(locale: object) -> None:
    from typed_elicit._calls.arguments import check_locale
    from typed_elicit.errors import ElicitArgumentError

    with pytest.raises(ElicitArgumentError, match="language tag") as caught:
        check_locale(locale)
    assert caught.value.argument == "locale"


@pytest.mark.parametrize("locale", [None, "de", "pt-BR", "zh-Hant-TW", "de_AT"])
def test_a_page_locale_may_be_any_language_tag_or_none(locale: str | None) -> None:
    from typed_elicit._calls.arguments import check_locale

    check_locale(locale)
