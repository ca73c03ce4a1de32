"""File fields on a page: multipart submits, per-field limits, the bytes in the store and back to the tool."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Annotated, Any

import anyio
import httpx2 as httpx
import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field
from starlette.testclient import TestClient

from tests.conftest import BOUND
from tests.pages.test_host import URL_ERAS, no_form
from tests.pages.test_serve import ORIGIN, Client, page_outcome
from typed_elicit import Accepted, ElicitContext, elicits, form
from typed_elicit._forms.reduce import page_reduced
from typed_elicit.client import UrlRequest, elicitation_handler
from typed_elicit.pages import FileLimits, UploadedFile, serve_pages
from typed_elicit.pages._multipart import (
    MAX_BODY_BYTES,
    multipart_limit,
)
from typed_elicit.pages._tickets import ANSWER_PREFIX
from typed_elicit.stores import configure
from typed_elicit.stores._memory import InProcessStore
from typed_elicit.testing import connect

PNG = b"\x89PNG\r\n\x1a\n" + b"\x17pixels\x17" * 40
PDF = b"%PDF-1.7\n" + b"\x42" * 100


@form(page=True, message="Send the scan")
class Claim(BaseModel):
    title: str
    scan: Annotated[UploadedFile, FileLimits(max_bytes=2048, media_types=("image/png", "application/pdf"))]
    extra: UploadedFile | None = None


class KeyedStore(InProcessStore):
    """The in-process store, with a look at which keys it holds."""

    def held(self) -> list[str]:
        return list(self._values)


@pytest.fixture
def store() -> KeyedStore:
    return KeyedStore()


@pytest.fixture
def client(store: KeyedStore) -> Iterator[Client]:
    server = MCPServer("claims")
    configure(server, store=store)
    serve_pages(server, ORIGIN)
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        yield Client(server, http)


def upload(client: Client, page: Any, fields: dict[str, str], files: dict[str, tuple[str, bytes, str]]):
    html = client.http.get(client.path(page)).text
    data = {**fields, "_csrf": client.csrf(html), "_action": "accept"}
    return client.http.post(client.path(page), data=data, files=files, headers={"Origin": ORIGIN})


def test_a_page_with_a_file_field_is_a_multipart_form_with_a_file_input(client: Client):
    page = client.open(Claim)
    html = client.http.get(client.path(page)).text
    assert 'enctype="multipart/form-data"' in html
    assert 'type="file" id="f1" name="scan" accept="image/png,application/pdf" required' in html
    assert "Files up to 2 KB" in html


def test_an_uploaded_file_reaches_the_model_whole_and_its_bytes_are_stored_sealed_in_the_answer(
    client: Client, store: KeyedStore
):
    page = client.open(Claim)
    done = upload(client, page, {"title": "Dent"}, {"scan": ("C:\\photos\\dent.png", PNG, "image/png")})
    assert done.status_code == 200, done.text
    held = store.held()
    assert [k for k in held if k.startswith(ANSWER_PREFIX)] == [ANSWER_PREFIX + page.id]  # files inside
    assert len(held) == 2  # the ticket and the answer: no key of its own for a file
    assert all(PNG[8:20] not in value for value, _ in store._values.values())  # sealed, never in clear
    answer = client.answer(page)
    assert answer is not None
    outcome = page_outcome(Claim, answer)
    assert isinstance(outcome, Accepted)
    scan = outcome.data.scan
    assert (scan.name, scan.media_type, scan.data) == ("dent.png", "image/png", PNG)
    assert outcome.data.extra is None


@pytest.mark.parametrize(
    ("sent", "told"),
    [
        (("big.png", PNG * 10, "image/png"), "Choose a smaller file: at most 2 KB"),
        (("notes.txt", b"plain text", "text/plain"), "Choose a file of one of the types allowed"),
        (("fake.png", PDF, "image/png"), "This file&#39;s contents do not match its type"),
        (("fake.pdf", PNG, "application/pdf"), "This file&#39;s contents do not match its type"),
    ],
)
def test_a_file_over_its_size_of_another_type_or_mislabelled_is_told_and_must_be_chosen_again(
    client: Client, store: KeyedStore, sent: tuple[str, bytes, str], told: str
):
    page = client.open(Claim)
    refused = upload(client, page, {"title": "Dent"}, {"scan": sent})
    assert refused.status_code == 422
    assert told in refused.text
    assert "Choose the file again" in refused.text
    assert 'value="Dent"' in refused.text
    assert client.answer(page) is None
    assert [k for k in store.held() if k.startswith(ANSWER_PREFIX)] == []


def test_a_required_file_left_empty_is_told_to_be_filled_in(client: Client):
    page = client.open(Claim)
    refused = upload(client, page, {"title": "Dent"}, {"scan": ("", b"", "application/octet-stream")})
    assert refused.status_code == 422
    assert "Fill this in" in refused.text


def claim_server(store: KeyedStore) -> MCPServer:
    server = MCPServer("claims")
    configure(server, store=store)
    serve_pages(server, ORIGIN, poll_seconds=0.05)

    @server.tool()
    @elicits(Claim)
    async def file_claim(ctx: ElicitContext) -> str:
        result = await ctx.elicit_page(Claim)
        assert isinstance(result, Accepted)
        scan = result.data.scan
        return f"{scan.name} {scan.media_type} {len(scan.data)} {scan.data == PNG}"

    return server


def uploading(server: MCPServer):
    """A client's URL handler that submits `Claim`'s page with a title and the PNG, like a browser."""
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=server.streamable_http_app()), base_url=ORIGIN)

    async def open_url(request: UrlRequest) -> str:
        path = request.url.removeprefix(ORIGIN)
        page = await http.get(path)
        token = re.search(r'name="_csrf" value="([0-9a-f]+)"', page.text)
        assert token is not None
        done = await http.post(
            path,
            data={"title": "Dent", "_csrf": token.group(1), "_action": "accept"},
            files={"scan": ("dent.png", PNG, "image/png")},
            headers={"Origin": ORIGIN},
        )
        assert done.status_code == 200
        return "accept"

    return elicitation_handler(no_form, url=open_url)


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_the_tool_gets_the_file_and_its_bytes_never_reach_the_client_or_the_logs(
    era: str, caplog: pytest.LogCaptureFixture
):
    store = KeyedStore()
    server = claim_server(store)
    wire: list[str] = []

    async def on_message(message: Any) -> None:
        wire.append(repr(message))

    caplog.set_level(logging.DEBUG)
    handler = uploading(server)
    async with connect(server, era, elicitation_callback=handler, message_handler=on_message) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("file_claim", {})
    assert result.content[0].text == f"dent.png image/png {len(PNG)} True"  # type: ignore[union-attr]
    marker = PNG[8:20]
    assert marker.decode() not in repr(result)
    assert all(marker.decode() not in text for text in wire)
    assert marker.decode() not in caplog.text
    # The call ended in the round that took it: nothing is held, the answer stays (single use).
    assert sorted(k.partition(":")[0] for k in store.held()) == ["page", "page-ticket"]


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_the_ship_order_example_ships_the_nested_order_with_its_customs_form(era: str):
    import runpy
    from pathlib import Path

    example = runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" / "ship_order.py"))
    server = example["build_server"](ORIGIN)
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=server.streamable_http_app()), base_url=ORIGIN)

    async def open_url(request: UrlRequest) -> str:
        path = request.url.removeprefix(ORIGIN)
        page = await http.get(path)
        token = re.search(r'name="_csrf" value="([0-9a-f]+)"', page.text)
        assert token is not None
        fields = {
            "recipient": "Ada",
            "address.street": "Rue 1",
            "address.city": "Lyon",
            "address.postcode": "69001",
            "lines._n": "1",
            "lines.0.product": "Tea",
            "lines.0.quantity": "3",
            "delivery.kind": "courier",
            "delivery.slot": "afternoon",
            "_csrf": token.group(1),
            "_action": "accept",
        }
        done = await http.post(
            path,
            data=fields,
            files={"customs": ("form.pdf", PDF, "application/pdf")},
            headers={"Origin": ORIGIN},
        )
        assert done.status_code == 200, done.text
        return "accept"

    handler = elicitation_handler(no_form, url=open_url)
    async with connect(server, era, elicitation_callback=handler) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("ship_order", {})
    expected = f"Shipping 3 x Tea to Ada, Lyon by courier; customs form form.pdf ({len(PDF)} bytes)"
    assert result.content[0].text == expected  # type: ignore[union-attr]
    assert example["SHIPPED"][-1].delivery.slot == "afternoon"


class Receipt(BaseModel):
    amount: int
    image: Annotated[UploadedFile, FileLimits(max_bytes=1024, media_types=("image/png",))]


@form(page=True)
class Expenses(BaseModel):
    receipts: list[Receipt] = Field(default_factory=list[Receipt], max_length=3)


def test_files_inside_rows_reach_their_rows(client: Client):
    page = client.open(Expenses)
    html = client.http.get(client.path(page)).text
    data = {"receipts._n": "2", "receipts.0.amount": "5", "receipts.1.amount": "7"}
    done = client.http.post(
        client.path(page),
        data={**data, "_csrf": client.csrf(html), "_action": "accept"},
        files=[
            ("receipts.1.image", ("b.png", PNG + bytes(572), "image/png")),
            ("receipts.0.image", ("a.png", PNG[:100], "image/png")),
        ],
        headers={"Origin": ORIGIN},
    )
    assert done.status_code == 200, done.text
    answer = client.answer(page)
    assert answer is not None
    outcome = page_outcome(Expenses, answer)
    assert isinstance(outcome, Accepted)
    assert [(r.amount, r.image.name, r.image.size) for r in outcome.data.receipts] == [
        (5, "a.png", 100),
        (7, "b.png", 900),
    ]
    tree = page_reduced(Expenses).tree
    assert tree is not None
    assert multipart_limit(tree) == MAX_BODY_BYTES + 3 * (1024 + 4096) + 64 * 1024
