"""Each error's advice names the call the tool actually made, and never points back at itself.

Issue 18, item 11: a page form passed to `ctx.elicit` was told to declare `@form(page=True)`,
which it already had; `ctx.elicit_page` was told to pass `on_unsupported` to `ctx.elicit_url`,
which the tool never called (and `elicit_page` takes no `on_unsupported=` of its own).
"""

from __future__ import annotations

import inspect
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitResult
from pydantic import BaseModel, SecretStr

from tests.calls.test_context_url import error_text, form_only
from tests.conftest import BOUND
from typed_elicit import ElicitContext, elicits, form, reduce_schema
from typed_elicit.errors import ElicitationUnsupported, SchemaError
from typed_elicit.pages import serve_pages
from typed_elicit.testing import ScriptedUser

pytestmark = pytest.mark.anyio

__all__ = ["form_only"]  # a fixture, used by name

ORIGIN = "https://mcp.example.com"


@form(page=True)
class BillingKey(BaseModel):
    """Your billing API key."""

    api_key: SecretStr


@form(page=True)
class Nickname(BaseModel):
    """A page form without secrets: still a page form."""

    nickname: str


class Confirm(BaseModel):
    confirm: bool


def outside() -> ElicitContext:
    return ElicitContext(Context())


@pytest.mark.parametrize("model", [BillingKey, Nickname])
async def test_a_page_form_passed_to_ctx_elicit_is_told_it_is_one_and_which_call_asks_it(model):
    with pytest.raises(SchemaError) as caught:
        await outside().elicit(model)
    text = str(caught.value)
    assert f"{model.__name__} is a page form: ask it with ctx.elicit_page, not ctx.elicit" in text
    assert "declare" not in text
    assert caught.value.model_name == model.__name__


async def test_a_page_form_passed_to_ctx_elicit_all_names_ctx_elicit_all():
    with pytest.raises(SchemaError) as caught:
        await outside().elicit_all(Confirm, BillingKey)
    assert "BillingKey is a page form: ask it with ctx.elicit_page, not ctx.elicit_all" in str(caught.value)


def test_reduce_schema_of_a_page_form_says_it_is_one_instead_of_advising_to_declare_it():
    with pytest.raises(SchemaError) as caught:
        reduce_schema(BillingKey)
    text = str(caught.value)
    assert "BillingKey is a page form (@form(page=True)): ask it with ctx.elicit_page" in text
    assert "declare the model" not in text


def test_elicit_page_has_no_on_unsupported_of_its_own():
    """What the advice below relies on: the knob for a page question is the decorator's."""
    assert "on_unsupported" not in inspect.signature(ElicitContext.elicit_page).parameters


def page_server() -> MCPServer:
    server = MCPServer("billing")
    serve_pages(server, ORIGIN)

    @server.tool()
    @elicits
    async def billing(ctx: ElicitContext) -> str:
        return type(await ctx.elicit_page(BillingKey)).__name__

    @server.tool()
    @elicits(on_unsupported="defaults")
    async def billing_with_defaults(ctx: ElicitContext) -> str:
        return type(await ctx.elicit_page(BillingKey)).__name__

    @server.tool()
    @elicits
    async def hurried(ctx: ElicitContext) -> str:
        return type(await ctx.elicit_page(BillingKey, timeout=0.2)).__name__

    @server.tool()
    @elicits
    async def together(ctx: ElicitContext) -> str:
        answers = await ctx.elicit_all(Confirm, Confirm)
        return ",".join(type(a).__name__ for a in answers)

    return server


PAGE_ADVICE = (
    "Pass on_unsupported='decline' to @elicits to carry on without asking "
    "(ctx.elicit_page takes no on_unsupported= of its own)."
)


async def test_elicit_page_on_2025_06_18_names_the_decorators_policy_not_elicit_url(connect):
    async with connect(page_server(), "2025-06-18", ScriptedUser()) as client:
        text = await error_text(client, "2025-06-18", "billing")
    assert "ElicitationUnsupported: cannot send the user to a URL" in text
    assert PAGE_ADVICE in text
    assert "ctx.elicit_url" not in text


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_elicit_page_for_a_form_only_client_names_the_decorators_policy(connect, era, form_only):
    async with connect(page_server(), era, ScriptedUser()) as client:
        text = await error_text(client, era, "billing")
    assert "the client declared form-mode elicitation only" in text
    assert PAGE_ADVICE in text
    assert "ctx.elicit_url" not in text


async def test_elicit_page_under_a_defaults_policy_says_why_it_counts_as_raise(connect):
    async with connect(page_server(), "2025-06-18", ScriptedUser()) as client:
        text = await error_text(client, "2025-06-18", "billing_with_defaults")
    assert "on_unsupported='defaults' (from @elicits) counts as 'raise' here" in text
    assert PAGE_ADVICE in text


async def test_elicit_all_that_cannot_ask_names_elicit_all(connect):
    async with connect(page_server(), "2025-06-18") as client:  # a client without elicitation
        text = await error_text(client, "2025-06-18", "together")
    assert "to ctx.elicit_all or @elicits" in text


def test_an_unsupported_url_names_the_call_that_asked():
    page = ElicitationUnsupported.for_url("no URL mode", "ctx.elicit_page")
    assert (page.mode, page.reason, page.asker, page.advised) == (
        "url",
        "no URL mode",
        "ctx.elicit_page",
        ("'decline'",),
    )
    assert str(page).endswith(PAGE_ADVICE)
    url = ElicitationUnsupported.for_url("no URL mode", "ctx.elicit_url")
    assert str(url).endswith("Pass on_unsupported='decline' to ctx.elicit_url to carry on without asking.")


async def test_a_page_consent_that_timed_out_advises_the_timeout_of_elicit_page(connect):
    asked = anyio.Event()

    async def never(context: Any, params: Any) -> ElicitResult:
        asked.set()
        await anyio.Event().wait()
        raise AssertionError("unreachable")

    async with connect(page_server(), "2025-11-25", never) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("hurried", {})
    assert asked.is_set()
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert "ElicitationTimeout: no answer to" in text
    assert "Pass timeout= to ctx.elicit_page or @elicits" in text
