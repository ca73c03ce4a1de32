"""`ctx.elicit_page(Model, options=..., defaults=...)` for a page form with groups, on every URL era.

The model's own `Choices()` fields, beside a group and a list of rows, take their options per
call, and its own leaves their defaults, checked like `ctx.elicit`'s before anything is sent.
The page shows the shaped tree (titles, pre-filled values), checks answers against it (a forged
submit of an option not offered is shown again, never taken), a replica sharing the store shows
the same form, and on 2026-07-28 a re-run that offers other options is a `ReplayMismatch`.
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

from tests.conftest import BOUND
from tests.pages.test_host import ORIGIN, URL_ERAS, Browser, answering, no_form
from tests.pages.test_pages_options import Transfer
from typed_elicit import Accepted, Choices, ElicitContext, elicits, form
from typed_elicit.client import UrlRequest, elicitation_handler
from typed_elicit.pages import serve_pages
from typed_elicit.testing import connect

CARRIERS = {"ups": "UPS Express", "dhl": "DHL Parcel"}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


class Address(BaseModel):
    street: str
    city: str = "Paris"


class Line(BaseModel):
    product: str
    qty: int = 1


@form(message="Ship the parcel", page=True)
class Parcel(BaseModel):
    carrier: Annotated[str, Choices()]
    extras: Annotated[list[str], Choices()] = []
    weight: int
    address: Address
    lines: list[Line] = []
    pin: SecretStr


def make_server(offers: list[dict[str, Any]] | None = None, key: bytes | None = None) -> MCPServer:
    """A server whose tool shapes its page with the next of `offers` (or the same one every run)."""
    security = None if key is None else RequestStateSecurity(keys=[key])
    server = MCPServer("shipping", request_state_security=security)
    serve_pages(server, ORIGIN, poll_seconds=0.05)
    runs = iter(offers or [])

    @server.tool()
    @elicits
    async def ship(ctx: ElicitContext) -> str:
        offer = next(runs, None) or {"carrier": CARRIERS, "extras": ["gift", "insured"]}
        result = await ctx.elicit_page(Parcel, options=offer, defaults={"carrier": "dhl", "weight": 2})
        if isinstance(result, Accepted):
            data = result.data
            where, pin = f"{data.address.street}/{data.address.city}", len(data.pin.get_secret_value())
            return f"{data.carrier} {sorted(data.extras)} {data.weight} {where} pin:{pin}"
        return type(result).__name__

    @server.tool()
    @elicits
    async def misshapen(ctx: ElicitContext) -> str:
        await ctx.elicit_page(
            Parcel,
            options={"carrier": CARRIERS, "address": ["x"]},
            defaults={"carrier": "fedex", "address": {"street": "x"}, "lines": []},
        )
        return "asked"

    return server


FILLED = {"carrier": "ups", "extras": "insured", "weight": "5", "address.street": "Main 1", "pin": "4321"}


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_the_page_with_groups_shows_the_offered_options_and_defaults_and_returns_the_nested_model(
    era: str,
) -> None:
    server = make_server()
    browser = Browser(server)
    async with connect(server, era, elicitation_callback=answering(browser, FILLED)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("ship", {})
    assert result.is_error is False, result
    assert result.content[0].text == "ups ['insured'] 5 Main 1/Paris pin:4"  # type: ignore[union-attr]
    (page,) = browser.pages
    assert re.search(r'<option value="ups"[^>]*>UPS Express</option>', page)
    assert re.search(r'<option value="dhl" selected[^>]*>DHL Parcel</option>', page)  # the call's default
    assert 'name="weight" value="2"' in page
    assert 'value="gift"' in page
    assert 'value="insured"' in page
    assert 'name="address.street"' in page  # the group is on the same page


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_a_top_level_leaf_left_empty_takes_the_calls_default(era: str) -> None:
    server = make_server()
    browser = Browser(server)
    fields = {"weight": "", "address.street": "Elm 2", "address.city": "Lyon", "pin": "1"}
    async with connect(server, era, elicitation_callback=answering(browser, fields)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("ship", {})
    assert result.content[0].text == "dhl [] 2 Elm 2/Lyon pin:1"  # type: ignore[union-attr]


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_a_forged_option_on_a_page_with_groups_is_shown_again_and_never_taken(era: str) -> None:
    server = make_server()
    browser = Browser(server)
    forged: list[int] = []

    async def open_url(request: UrlRequest) -> str:
        for carrier, extras in (("fedex", "gift"), ("ups", "caviar")):
            refused = await browser.submit(request.url, {**FILLED, "carrier": carrier, "extras": extras})
            forged.append(refused.status_code)
            assert "Choose " in refused.text
            assert "fedex" not in refused.text
            assert "caviar" not in refused.text
            assert 'name="address.street" value="Main 1"' in refused.text  # the valid part is kept
        done = await browser.submit(request.url, FILLED)
        assert done.status_code == 200
        return "accept"

    async with connect(
        server, era, elicitation_callback=elicitation_handler(no_form, url=open_url)
    ) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("ship", {})
    assert forged == [422, 422]
    assert result.content[0].text == "ups ['insured'] 5 Main 1/Paris pin:4"  # type: ignore[union-attr]


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_options_or_defaults_that_do_not_fit_the_tree_fail_before_anything_is_sent(era: str) -> None:
    server = make_server()
    seen: list[UrlRequest] = []

    async def open_url(request: UrlRequest) -> str:
        seen.append(request)
        return "accept"

    async with connect(
        server, era, elicitation_callback=elicitation_handler(no_form, url=open_url)
    ) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("misshapen", {})
    assert result.is_error is True
    text = result.content[0].text  # type: ignore[union-attr]
    assert "OptionsError" in text
    assert "Parcel.address: is a group (a nested model), not a Choices() field" in text
    assert "Parcel.address: is a group (a nested model), which takes no default per question" in text
    assert "Parcel.lines: is a list of rows, which takes no default per question" in text
    assert "Parcel.extras: is a Choices() field" in text
    assert "Parcel.carrier:" in text  # a default outside the offer
    assert seen == []


@pytest.mark.anyio
async def test_on_2026_07_28_a_rerun_of_a_page_with_groups_offering_other_options_is_a_replay_mismatch() -> (
    None
):
    other = {"carrier": {"dhl": "DHL Parcel", "gls": "GLS"}, "extras": ["gift"]}
    server = make_server([{"carrier": CARRIERS, "extras": ["gift"]}, other])
    async with connect(server, "2026-07-28", elicitation_callback=elicitation_handler(no_form)) as client:
        session = client.session
        with anyio.fail_after(BOUND):
            first = await session.call_tool("ship", {}, allow_input_required=True)
            assert isinstance(first, InputRequiredResult)
            assert first.input_requests is not None
            ((key, request),) = first.input_requests.items()
            assert isinstance(request.params, ElicitRequestURLParams)
            again = await session.call_tool(
                "ship",
                {},
                input_responses={key: ElicitResult(action="accept")},
                request_state=first.request_state,
                allow_input_required=True,
            )
    assert not isinstance(again, InputRequiredResult)
    assert again.is_error is True
    assert "ReplayMismatch" in again.content[0].text  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_a_replica_sharing_the_store_shows_the_same_shaped_page_with_groups() -> None:
    from typed_elicit.stores import configure
    from typed_elicit.stores._memory import InProcessStore

    store, key = InProcessStore(), os.urandom(32)
    asking, serving = make_server(key=key), make_server(key=key)  # replicas share the store and the key
    for server in (asking, serving):
        configure(server, store=store)
    browser = Browser(serving)
    async with connect(asking, "2025-11-25", elicitation_callback=answering(browser, FILLED)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("ship", {})
    assert result.content[0].text == "ups ['insured'] 5 Main 1/Paris pin:4"  # type: ignore[union-attr]
    assert "DHL Parcel" in browser.pages[0]


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_the_book_courier_example_offers_the_countrys_carriers_and_prefills_the_usual_one(
    era: str,
) -> None:
    example = runpy.run_path(str(EXAMPLES / "book_courier.py"), run_name="served_example")
    server = example["build_server"](ORIGIN)
    browser = Browser(server)
    fields = {  # the carrier is left as the page pre-filled it
        "pickup.street": "Rue 1",
        "pickup.city": "Lyon",
        "parcels._n": "2",
        "parcels.0.weight_kg": "2.5",
        "parcels.1.weight_kg": "1",
        "parcels.1.fragile": "on",
    }
    async with connect(server, era, elicitation_callback=answering(browser, fields)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("book_courier", {"user": "ada", "country": "fr"})
    assert result.content[0].text == "ups picks up 2 parcel(s), 3.5 kg, at Rue 1, Lyon"  # type: ignore[union-attr]
    (page,) = browser.pages
    assert re.search(r'<option value="ups" selected[^>]*>UPS Standard</option>', page)
    assert "Colissimo" in page
    assert "DHL Paket" not in page  # not offered in France


@pytest.mark.parametrize("model", [Parcel, Transfer])
def test_elicits_lists_a_page_form_with_choices_fields_whose_options_come_per_call(
    model: type[BaseModel],
) -> None:
    @elicits(model)
    async def ask(ctx: ElicitContext) -> str:
        return ""

    assert callable(ask)
