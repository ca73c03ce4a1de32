"""`ctx.elicit_page(Model, options=..., defaults=...)`: a page shaped at call time, on every URL era.

The options and defaults are checked like `ctx.elicit`'s before anything is sent, travel to the
page in its sealed ticket (so any replica sharing the store shows the same form), are shown on
the page (titles, pre-filled values), and bind the answer: a forged submit of an option the page
did not offer is shown again, never taken. On 2026-07-28 the page's pin covers them, so a re-run
that offers other options is a `ReplayMismatch`.
"""

from __future__ import annotations

import os
import re
import runpy
from pathlib import Path
from typing import Annotated, Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp_types import ElicitRequestURLParams, ElicitResult, InputRequiredResult
from pydantic import BaseModel, SecretStr

from tests.conftest import BOUND, serve_http
from tests.pages.test_host import ORIGIN, URL_ERAS, Browser, answering, no_form
from typed_elicit import Accepted, Choices, ElicitContext, elicits, form
from typed_elicit.client import UrlRequest, elicitation_handler
from typed_elicit.errors import OptionsError
from typed_elicit.pages import serve_pages
from typed_elicit.testing import connect

ACCOUNTS = {"acc-1": "Checking", "acc-2": "Savings"}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@form(message="Move money", page=True)
class Transfer(BaseModel):
    account: Annotated[str, Choices()]
    tags: Annotated[list[str], Choices()] = []
    amount: int
    pin: SecretStr


def make_server(offers: list[dict[str, Any]] | None = None, key: bytes | None = None) -> MCPServer:
    """A server whose tool shapes its page with the next of `offers` (or the same one every run)."""
    security = None if key is None else RequestStateSecurity(keys=[key])
    server = MCPServer("bank", request_state_security=security)
    serve_pages(server, ORIGIN, poll_seconds=0.05)
    runs = iter(offers or [])

    @server.tool()
    @elicits
    async def transfer(ctx: ElicitContext) -> str:
        offer = next(runs, None) or {"account": ACCOUNTS, "tags": ["rent", "food"]}
        result = await ctx.elicit_page(Transfer, options=offer, defaults={"account": "acc-2", "amount": 25})
        if isinstance(result, Accepted):
            data = result.data
            return f"{data.account} {sorted(data.tags)} {data.amount} pin:{len(data.pin.get_secret_value())}"
        return type(result).__name__

    @server.tool()
    @elicits
    async def unoffered(ctx: ElicitContext) -> str:
        await ctx.elicit_page(Transfer, options={"account": ACCOUNTS, "nope": ["x"]})
        return "asked"

    return server


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_the_page_shows_the_offered_options_and_defaults_and_returns_the_choice(era: str) -> None:
    server = make_server()
    browser = Browser(server)
    fields = {"account": "acc-1", "tags": "food", "amount": "30", "pin": "4321"}
    async with connect(server, era, elicitation_callback=answering(browser, fields)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("transfer", {})
    assert result.is_error is False, result
    assert result.content[0].text == "acc-1 ['food'] 30 pin:4"  # type: ignore[union-attr]
    (page,) = browser.pages
    assert re.search(r'<option value="acc-1"[^>]*>Checking</option>', page)
    assert re.search(r'<option value="acc-2" selected[^>]*>Savings</option>', page)  # the call's default
    assert 'name="amount" value="25"' in page
    assert 'value="rent"' in page
    assert 'value="food"' in page


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_a_field_left_empty_takes_the_calls_default(era: str) -> None:
    server = make_server()
    browser = Browser(server)
    fields = {"account": "acc-1", "amount": "", "pin": "1"}
    async with connect(server, era, elicitation_callback=answering(browser, fields)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("transfer", {})
    assert result.content[0].text == "acc-1 [] 25 pin:1"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_a_forged_submit_of_an_option_not_offered_is_shown_again_and_never_taken() -> None:
    server = make_server()
    browser = Browser(server)
    forged: list[int] = []

    async def open_url(request: UrlRequest) -> str:
        path = request.url.removeprefix(ORIGIN)
        for account, tags in (("acc-9", "food"), ("acc-1", "caviar")):
            refused = await browser.submit(
                request.url, {"account": account, "tags": tags, "amount": "1", "pin": "1"}
            )
            forged.append(refused.status_code)
            assert "Choose " in refused.text
            assert "acc-9" not in refused.text
            assert "caviar" not in refused.text
        done = await browser.submit(request.url, {"account": "acc-2", "amount": "1", "pin": "1"})
        assert done.status_code == 200
        assert path
        return "accept"

    handler = elicitation_handler(no_form, url=open_url)
    async with connect(server, "2025-11-25", elicitation_callback=handler) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("transfer", {})
    assert forged == [422, 422]
    assert result.content[0].text == "acc-2 [] 1 pin:1"  # type: ignore[union-attr]


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_options_that_do_not_fit_the_model_fail_before_anything_is_sent(era: str) -> None:
    server = make_server()
    seen: list[UrlRequest] = []

    async def open_url(request: UrlRequest) -> str:
        seen.append(request)
        return "accept"

    async with connect(
        server, era, elicitation_callback=elicitation_handler(no_form, url=open_url)
    ) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("unoffered", {})
    assert result.is_error is True
    text = result.content[0].text  # type: ignore[union-attr]
    assert "OptionsError" in text
    assert "Transfer.nope: is no field of Transfer" in text
    assert seen == []


@pytest.mark.anyio
async def test_without_options_a_choices_page_form_says_which_field_needs_them() -> None:
    server = MCPServer("bare")
    serve_pages(server, ORIGIN)
    caught: list[OptionsError] = []

    @server.tool()
    @elicits
    async def bare(ctx: ElicitContext) -> str:
        try:
            await ctx.elicit_page(Transfer)
        except OptionsError as exc:
            caught.append(exc)
        return "done"

    async with connect(server, "2025-11-25", elicitation_callback=elicitation_handler(no_form)) as client:
        with anyio.fail_after(BOUND):
            await client.call_tool("bare", {})
    (error,) = caught
    assert error.fields == ("account", "tags")
    assert "ctx.elicit_page" in error.problems[0]


@pytest.mark.anyio
async def test_on_2026_07_28_a_rerun_that_offers_other_options_is_a_replay_mismatch() -> None:
    other = {"account": {"acc-2": "Savings", "acc-3": "Brokerage"}, "tags": ["rent"]}
    server = make_server([{"account": ACCOUNTS, "tags": ["rent"]}, other])
    async with connect(server, "2026-07-28", elicitation_callback=elicitation_handler(no_form)) as client:
        session = client.session
        with anyio.fail_after(BOUND):
            first = await session.call_tool("transfer", {}, allow_input_required=True)
            assert isinstance(first, InputRequiredResult)
            assert first.input_requests is not None
            ((key, request),) = first.input_requests.items()
            assert isinstance(request.params, ElicitRequestURLParams)
            again = await session.call_tool(
                "transfer",
                {},
                input_responses={key: ElicitResult(action="accept")},
                request_state=first.request_state,
                allow_input_required=True,
            )
    assert not isinstance(again, InputRequiredResult)
    assert again.is_error is True
    assert "ReplayMismatch" in again.content[0].text  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_a_replica_sharing_the_store_shows_the_same_shaped_page() -> None:
    from typed_elicit.stores import configure
    from typed_elicit.stores._memory import InProcessStore

    store, key = InProcessStore(), os.urandom(32)
    asking, serving = make_server(key=key), make_server(key=key)  # replicas share the store and the key
    for server in (asking, serving):
        configure(server, store=store)
    browser = Browser(serving)
    fields = {"account": "acc-1", "tags": "rent", "amount": "7", "pin": "99"}
    async with connect(asking, "2025-11-25", elicitation_callback=answering(browser, fields)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("transfer", {})
    assert result.content[0].text == "acc-1 ['rent'] 7 pin:2"  # type: ignore[union-attr]
    assert "Savings" in browser.pages[0]


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_the_pay_invoice_example_offers_the_users_accounts_and_prefills_the_amount(era: str) -> None:
    example = runpy.run_path(str(EXAMPLES / "pay_invoice.py"), run_name="served_example")
    server = example["build_server"](ORIGIN)
    browser = Browser(server)
    fields = {"account": "sav-2", "pin": "1234"}  # the amount is left as the page pre-filled it
    async with connect(server, era, elicitation_callback=answering(browser, fields)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("pay_invoice", {"user": "ada", "invoice_amount": 120})
    assert result.content[0].text == "Paid 120 EUR from sav-2"  # type: ignore[union-attr]
    assert example["PAID"] == [("sav-2", 120)]
    assert "Savings ·· 9031" in browser.pages[0]
    assert 'value="120"' in browser.pages[0]
    assert "1234" not in result.content[0].text  # type: ignore[union-attr]


# --- a shaped page, then more questions in the same call (issue 27, item 1) -----------------------


@form(message="Confirm the transfer")
class Confirm(BaseModel):
    ok: bool


def make_wizard(key: bytes | None = None) -> MCPServer:
    """A tool that asks a page shaped at call time, then two more form questions."""
    security = None if key is None else RequestStateSecurity(keys=[key])
    server = MCPServer("bank", request_state_security=security)
    serve_pages(server, ORIGIN, poll_seconds=0.05)

    @server.tool()
    @elicits
    async def transfer_then_confirm(ctx: ElicitContext) -> str:
        offer = {"account": ACCOUNTS, "tags": ["rent"]}
        page = await ctx.elicit_page(Transfer, options=offer, defaults={"amount": 25})
        first = await ctx.elicit(Confirm, "Really?")
        second = await ctx.elicit(Confirm, "Really, really?")
        shown = [type(result).__name__ for result in (page, first, second)]
        if isinstance(page, Accepted):
            shown.append(page.data.account)
        return " ".join(shown)

    return server


def page_and_forms(browser: Browser) -> Any:
    """A client that fills the page in the browser and accepts every form."""

    async def confirm(request: Any) -> Any:
        return Accepted(request.model(ok=True))

    async def open_url(request: UrlRequest) -> str:
        done = await browser.submit(request.url, {"account": "acc-1", "pin": "1"})
        assert done.status_code == 200
        return "accept"

    return elicitation_handler(confirm, url=open_url)


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_a_page_with_call_time_options_then_two_more_questions_completes(era: str) -> None:
    server = make_wizard()
    async with connect(server, era, elicitation_callback=page_and_forms(Browser(server))) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("transfer_then_confirm", {})
    assert result.is_error is False, result
    assert result.content[0].text == "Accepted Accepted Accepted acc-1"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_a_shaped_page_then_two_questions_completes_across_two_replicas() -> None:
    from typed_elicit.stores import configure
    from typed_elicit.stores._memory import InProcessStore

    store, key = InProcessStore(), os.urandom(32)
    replicas = [make_wizard(key), make_wizard(key)]
    for server in replicas:
        configure(server, store=store)
    browser = Browser(replicas[1])  # the page is served by the other replica
    handler = page_and_forms(browser)
    rounds = 0
    async with (
        connect(replicas[0], "2026-07-28", elicitation_callback=handler) as first,
        connect(replicas[1], "2026-07-28", elicitation_callback=handler) as second,
    ):
        with anyio.fail_after(BOUND):
            result = await first.session.call_tool("transfer_then_confirm", {}, allow_input_required=True)
            while isinstance(result, InputRequiredResult):  # each round goes to the other replica
                rounds += 1
                responses = {}
                for name, request in (result.input_requests or {}).items():
                    responses[name] = await handler(None, request.params)  # type: ignore[arg-type]
                session = (second if rounds % 2 else first).session
                result = await session.call_tool(
                    "transfer_then_confirm",
                    {},
                    input_responses=responses,
                    request_state=result.request_state,
                    allow_input_required=True,
                )
    assert rounds >= 3
    assert result.is_error is False, result
    assert result.content[0].text == "Accepted Accepted Accepted acc-1"  # type: ignore[union-attr]


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_a_shaped_page_then_two_questions_completes_over_http(era: str) -> None:
    server = make_wizard()
    handler = page_and_forms(Browser(server))
    async with serve_http(server) as url, connect(url, era, elicitation_callback=handler) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("transfer_then_confirm", {})
    assert result.is_error is False, result
    assert result.content[0].text == "Accepted Accepted Accepted acc-1"  # type: ignore[union-attr]
