"""Pages with groups over HTTP: fieldsets, rows added and removed without script, choices, optional groups,
nested errors by path, and a nested answer handed back as the typed model."""

from __future__ import annotations

import gc
import re
import weakref
from collections.abc import Iterator
from typing import Annotated, Literal

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, EmailStr, Field, SecretStr, field_validator
from starlette.testclient import TestClient

from tests.conftest import BOUND
from tests.pages.test_host import URL_ERAS, Browser, answering
from tests.pages.test_serve import ORIGIN, Client, page_outcome
from typed_elicit import Accepted, ElicitContext, elicits, form
from typed_elicit._forms.page.tree import page_tree
from typed_elicit._forms.reduce import page_reduced
from typed_elicit.pages import UploadedFile, serve_pages
from typed_elicit.pages._tree import _KNOWN, _MAX_TREES, BadSubmit, _names, check_names  # pyright: ignore[reportPrivateUsage]
from typed_elicit.testing import connect


class Address(BaseModel):
    street: Annotated[str, Field(min_length=2)]
    city: str = "Paris"


class Line(BaseModel):
    product: str
    qty: Annotated[int, Field(ge=1)] = 1


class Card(BaseModel):
    """Pay by card."""

    kind: Literal["card"]
    holder: str


class Invoice(BaseModel):
    """Pay by invoice."""

    kind: Literal["invoice"]
    vat_id: str

    @field_validator("vat_id")
    @classmethod
    def looks_like_vat(cls, value: str) -> str:
        if not value.startswith("EU"):
            raise ValueError("A VAT id starts with EU")
        return value


@form(page=True, message="Place the order")
class Order(BaseModel):
    name: str
    address: Address
    lines: list[Line] = Field(default_factory=list[Line], max_length=5)
    notes: list[str] = Field(default_factory=list[str], max_length=3)
    gift: Address | None = None
    payment: Annotated[Card | Invoice, Field(discriminator="kind")]
    labels: dict[str, int] = Field(default_factory=dict[str, int])
    pin: SecretStr


@pytest.fixture
def client() -> Iterator[Client]:
    server = MCPServer("tree-pages")
    serve_pages(server, ORIGIN)
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        yield Client(server, http)


def post(client: Client, path: str, html: str, fields: dict[str, str | list[str]], action: str = "accept"):
    data = {**fields, "_csrf": client.csrf(html), "_action": action}
    return client.http.post(path, data=data, headers={"Origin": ORIGIN})


def names(html: str) -> list[str]:
    return re.findall(r'name="([^"]+)"', html)


def test_groups_render_as_fieldsets_whose_inputs_are_named_by_dotted_paths(client: Client):
    page = client.open(Order)
    html = client.http.get(client.path(page)).text
    assert '<fieldset class="group" id=' in html
    assert '<legend dir="auto">address' in html
    assert {
        "name",
        "address.street",
        "address.city",
        "lines._n",
        "payment.kind",
        "payment.holder",
        "pin",
    } <= set(names(html))
    assert 'name="gift._on"' in html  # an optional group's box, inside <details>
    assert "<details>" in html
    assert 'type="password" id=' in html  # the secret stays a password input
    assert "<script" not in html


def test_the_servers_own_form_template_shows_a_page_with_groups_too(tmp_path):
    (tmp_path / "mine.html").write_text(
        "<p>mine {{ message }} {% for n in nodes %}[{{ n.path }}]{% endfor %}{{ fields|length }}"
    )
    server = MCPServer("own-template")
    serve_pages(server, ORIGIN, templates_dir=tmp_path, template="mine.html")
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        client = Client(server, http)
        html = http.get(client.path(client.open(Order))).text
    assert html.startswith("<p>mine Please answer [name][address][lines]")
    assert html.endswith("0")  # a page with groups has nodes, no flat fields


def test_rows_are_added_and_removed_by_submit_buttons_with_the_values_kept(client: Client):
    page = client.open(Order)
    path = client.path(page)
    html = client.http.get(path).text
    for _ in range(3):
        shown = post(
            client, path, html, {"name": "Ada", "lines._n": _count(html, "lines")}, action="add:lines"
        )
        assert shown.status_code == 200
        html = shown.text
    assert _count(html, "lines") == "3"
    filled = {
        "name": "Ada",
        "lines._n": "3",
        "lines.0.product": "tea",
        "lines.1.product": "cake",
        "lines.2.product": "jam",
    }
    shown = post(client, path, html, filled, action="remove:lines.1")
    assert shown.status_code == 200
    assert _count(shown.text, "lines") == "2"
    assert 'name="lines.1.product" value="jam"' in shown.text
    assert "cake" not in shown.text
    assert 'value="Ada"' in shown.text


def test_a_union_shows_the_fields_of_the_chosen_member_after_a_show_round_trip(client: Client):
    page = client.open(Order)
    path = client.path(page)
    html = client.http.get(path).text
    assert 'name="payment.holder"' in html
    assert 'name="payment.vat_id"' not in html
    shown = post(client, path, html, {"payment.kind": "invoice"}, action="show:payment")
    assert 'name="payment.vat_id"' in shown.text
    assert 'name="payment.holder"' not in shown.text
    assert '<option value="invoice" selected' in shown.text


def valid(**extra: str | list[str]) -> dict[str, str | list[str]]:
    return {
        "name": "Ada",
        "address.street": "Main 1",
        "lines._n": "2",
        "lines.0.product": "tea",
        "lines.0.qty": "2",
        "lines.1.product": "cake",
        "notes._n": "1",
        "notes.0": "ring twice",
        "payment.kind": "invoice",
        "payment.vat_id": "EU123",
        "labels._n": "2",
        "labels.0.key": "floor",
        "labels.0.value": "3",
        "labels.1.key": "",
        "labels.1.value": "",
        "pin": "pin-7319",
        **extra,
    }


def test_a_valid_nested_submit_becomes_the_typed_model(client: Client):
    page = client.open(Order)
    answered = client.submit(page, valid(**{"gift._on": "true", "gift.street": "Side 2"}))
    assert answered.status_code == 200
    assert "Thank you" in answered.text
    answer = client.answer(page)
    assert answer is not None
    outcome = page_outcome(Order, answer)
    assert isinstance(outcome, Accepted)
    order = outcome.data
    assert order.address.city == "Paris"
    assert [(line.product, line.qty) for line in order.lines] == [("tea", 2), ("cake", 1)]
    assert order.notes == ["ring twice"]
    assert order.gift is not None
    assert order.gift.street == "Side 2"
    assert isinstance(order.payment, Invoice)
    assert order.labels == {"floor": 3}
    assert order.pin.get_secret_value() == "pin-7319"


def test_an_unticked_optional_group_is_left_out_whatever_its_fields_hold(client: Client):
    page = client.open(Order)
    client.submit(page, valid(**{"gift.street": "ignored"}))
    answer = client.answer(page)
    assert answer is not None
    assert "gift" not in answer.content


def test_nested_errors_are_shown_at_their_field_in_plain_words_with_valid_parts_kept_and_secrets_cleared(
    client: Client,
):
    page = client.open(Order)
    refused = client.submit(
        page,
        valid(**{"address.street": "x", "lines.1.qty": "0", "payment.vat_id": "US9", "lines.0.qty": "two"}),
    )
    assert refused.status_code == 422
    html = refused.text
    assert "Enter a whole number" in html  # lines.0.qty, read before the model
    assert client.answer(page) is None
    refused = client.submit(
        page, valid(**{"address.street": "x", "lines.1.qty": "0", "payment.vat_id": "US9"})
    )
    html = refused.text
    assert re.search(r'name="address.street" value="x"[^>]*aria-invalid="true"', html)
    assert "Enter at least 2 characters" in html
    assert re.search(r'name="lines.1.qty" value="0"[^>]*aria-invalid="true"', html)
    assert "Enter 1 or more" in html
    assert "A VAT id starts with EU" in html
    assert "address \u203a street: Enter at least 2 characters" in html  # the summary says where
    assert "lines, row 2 \u203a qty: Enter 1 or more" in html
    assert 'value="Ada"' in html  # a valid part kept
    assert "pin-7319" not in html  # the secret is never sent back
    assert "Enter it again" in html


def test_a_list_over_its_row_limit_is_refused_before_anything_is_built(client: Client):
    page = client.open(Order)
    refused = client.submit(page, valid(**{"notes._n": "3", "notes.3": "one too many"}))
    assert refused.status_code == 400
    assert client.answer(page) is None


@pytest.mark.parametrize(
    "name",
    [
        "lines.0.__class__",
        "lines.99999.product",
        "lines.01.product",
        "a..b",
        "address",
        "address.street.more",
        "_n",
        "labels.0.other",
        "payment.nope",
        "name.0",
        "",
    ],
)
def test_a_name_the_page_never_wrote_is_refused_whole_with_a_plain_400(client: Client, name: str):
    page = client.open(Order)
    refused = client.submit(page, valid(**{name: "x"}))
    assert refused.status_code == 400
    assert "The form could not be read" in refused.text
    assert client.answer(page) is None


def test_a_repeated_name_of_a_one_value_field_is_refused(client: Client):
    page = client.open(Order)
    html = client.http.get(client.path(page)).text
    body = "&".join(f"{k}={v}" for k, v in valid().items() if isinstance(v, str))
    body += f"&name=Eve&_csrf={client.csrf(html)}&_action=accept"
    refused = client.http.post(
        client.path(page),
        content=body.encode(),
        headers={"Origin": ORIGIN, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert refused.status_code == 400


def test_an_action_on_a_path_that_is_no_list_is_refused(client: Client):
    page = client.open(Order)
    for action in ("add:name", "remove:lines.7", "remove:name.0", "show:address", "add:lines.0.qty", "jump"):
        refused = client.submit(page, valid(), action=action)
        assert refused.status_code == 400, action


def test_decline_and_cancel_work_on_a_page_with_groups(client: Client):
    page = client.open(Order)
    declined = client.submit(page, {}, action="decline")
    assert declined.status_code == 200
    answer = client.answer(page)
    assert answer is not None
    assert answer.action == "decline"


def _count(html: str, path: str) -> str:
    found = re.search(rf'name="{re.escape(path)}._n" value="(\d+)"', html)
    assert found is not None
    return found.group(1)


def order_server() -> MCPServer:
    server = MCPServer("shop")
    serve_pages(server, ORIGIN, poll_seconds=0.05)

    @server.tool()
    @elicits(Order)
    async def place_order(ctx: ElicitContext) -> str:
        result = await ctx.elicit_page(Order)
        if isinstance(result, Accepted):
            order = result.data
            lines = ", ".join(f"{line.qty}x{line.product}" for line in order.lines)
            return (
                f"{order.name} {order.address.city} [{lines}] {type(order.payment).__name__} {order.labels}"
            )
        return type(result).__name__

    return server


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_ctx_elicit_page_returns_the_nested_model_on_every_era_with_urls(era: str):
    server = order_server()
    browser = Browser(server)
    fields = {k: v for k, v in valid().items() if isinstance(v, str)}
    async with connect(server, era, elicitation_callback=answering(browser, fields)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("place_order", {})
    assert result.is_error is False, result
    assert result.content[0].text == "Ada Paris [2xtea, 1xcake] Invoice {'floor': 3}"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "action", ["add:lines.²", "remove:lines.²", "remove:lines", "add:lines." + "9" * 5000, "show:"]
)
def test_an_action_with_a_strange_index_is_refused_with_a_400_not_a_failure(client: Client, action: str):
    page = client.open(Order)
    refused = client.submit(page, valid(), action=action)
    assert refused.status_code == 400


def test_an_optional_union_left_unticked_is_none_and_ticked_is_its_member(client: Client):
    @form(page=True)
    class Maybe(BaseModel):
        name: str
        pay: Annotated[Card | Invoice, Field(discriminator="kind")] | None = None

    page = client.open(Maybe)
    assert 'name="pay._on"' in client.http.get(client.path(page)).text
    client.submit(page, {"name": "a", "pay.kind": "card", "pay.holder": "ignored"})
    answer = client.answer(page)
    assert answer is not None
    assert answer.content == {"name": "a"}
    page = client.open(Maybe)
    client.submit(page, {"name": "a", "pay._on": "true", "pay.kind": "card", "pay.holder": "Ada"})
    answer = client.answer(page)
    assert answer is not None
    outcome = page_outcome(Maybe, answer)
    assert isinstance(outcome, Accepted)
    assert isinstance(outcome.data.pay, Card)
    assert outcome.data.pay.holder == "Ada"


def test_a_list_shows_its_min_length_rows_with_no_remove_button_and_tells_too_few_at_the_list(client: Client):
    @form(page=True)
    class AtLeastOne(BaseModel):
        lines: list[Line] = Field(min_length=1, max_length=3)
        codes: list[str] = Field(min_length=2, max_length=4)

    page = client.open(AtLeastOne)
    html = client.http.get(client.path(page)).text
    assert 'name="lines.0.product"' in html  # min_length rows are shown from the start
    assert '<label for="f1" dir="auto">product <span class="req"' in html  # its own name, not its path
    assert "Remove row" not in html  # no row may go below min_length
    refused = client.submit(
        page, {"lines._n": "0", "lines.0.product": "tea", "codes._n": "2", "codes.0": "a"}
    )
    assert refused.status_code == 422
    assert re.search(r'<fieldset class="rows invalid" id="f\d+">', refused.text)
    assert "Add at least 2" in refused.text  # one code left empty: a row of a plain value is left out


@pytest.mark.parametrize("tag", ["evil", "", "card\x00"], ids=["unknown", "empty", "nul"])
def test_a_forged_union_choice_is_shown_again_and_never_reaches_the_tool(client: Client, tag: str):
    page = client.open(Order)
    refused = client.submit(page, valid(**{"payment.kind": tag, "payment.holder": "Mallory"}))
    assert refused.status_code == 422
    assert "Choose one of the options" in refused.text
    assert client.answer(page) is None


class Zip(BaseModel):
    code: Annotated[str, Field(pattern=r"^\d{5}$")]


class Upload(BaseModel):
    email: EmailStr
    zip: Zip
    reference: Annotated[str, Field(pattern=r"^[A-Z]{3}-\d+$")]
    w9: UploadedFile
    password: SecretStr


def test_every_problem_of_a_page_with_groups_is_shown_at_once_with_the_right_count(client: Client):
    page = client.open(Upload)
    fields = {"email": "not-an-email", "zip.code": "123", "reference": "abc", "password": ""}
    refused = client.submit(page, fields)
    assert refused.status_code == 422
    html = refused.text
    assert "Please correct 5 problems" in html
    for path in ("email", "zip.code", "reference", "w9", "password"):
        assert re.search(rf'name="{re.escape(path)}"[^>]*aria-invalid="true"', html), path
    assert client.answer(page) is None


def test_a_name_once_found_is_remembered_but_a_repeat_of_a_one_value_field_is_still_refused():
    tree = page_reduced(Order).tree
    assert tree is not None
    check_names(tree, {"name": ["Ada"], "lines.0.product": ["tea"], "_csrf": ["t"]})
    remembered = _names(tree)
    assert remembered["name"] is False
    assert remembered["lines.0.product"] is False
    assert "_csrf" not in remembered  # the page's own names are never looked up in the tree
    for repeated in ({"name": ["Ada", "Eve"]}, {"lines.0.product": ["tea", "tea"]}, {"_csrf": ["t", "u"]}):
        with pytest.raises(BadSubmit):
            check_names(tree, repeated)


def test_names_a_submit_makes_up_never_grow_what_the_server_remembers():
    tree = page_reduced(Order).tree
    assert tree is not None
    before = dict(_names(tree))
    for i in range(200):
        with pytest.raises(BadSubmit):
            check_names(tree, {f"made.up.{i}": ["x"], "lines.9999.product": ["x"]})
    assert _names(tree) == before
    fresh = [page_tree(Order) for _ in range(_MAX_TREES + 5)]  # trees come and go
    for each in fresh:
        check_names(each, {"name": ["Ada"]})
    assert len(_KNOWN) == _MAX_TREES  # the oldest went first
    assert _names(fresh[-1]) == {"name": False}


def test_the_names_remembered_keep_no_tree_alive():
    tree = page_tree(Order)
    check_names(tree, {"name": ["Ada"]})
    gone = weakref.ref(tree)
    del tree
    gc.collect()
    assert gone() is None
