"""A multipart submit, bounded before and while it streams: its own limit, file parts for file inputs only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from python_multipart.multipart import parse_options_header
from starlette.testclient import TestClient

from tests.pages.test_files import PNG, Claim
from tests.pages.test_serve import ORIGIN, Client
from typed_elicit._forms.page.files import MAX_FILE_BYTES
from typed_elicit._forms.reduce import page_reduced
from typed_elicit.pages import serve_pages
from typed_elicit.pages._multipart import (
    MAX_BODY_BYTES,
    MAX_MULTIPART_BYTES,
    BadBody,
    _disposition,  # pyright: ignore[reportPrivateUsage]
    multipart_limit,
    read_multipart,
)


@pytest.fixture
def client() -> Iterator[Client]:
    server = MCPServer("claims")
    serve_pages(server, ORIGIN)
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        yield Client(server, http)


class Declared:
    """A request whose headers declare a length and whose body must never be read."""

    def __init__(self, length: int) -> None:
        self.headers = {"content-length": str(length)}

    async def stream(self) -> Any:
        raise AssertionError("the body was read")
        yield b""  # pragma: no cover


@pytest.mark.anyio
async def test_the_multipart_limit_is_its_own_and_a_longer_declared_body_is_refused_unread():
    tree = page_reduced(Claim).tree
    assert tree is not None
    limit = multipart_limit(tree)
    assert limit == MAX_BODY_BYTES + (2048 + 4096) + (MAX_FILE_BYTES + 4096) + 64 * 1024
    assert limit <= MAX_MULTIPART_BYTES
    with pytest.raises(BadBody) as refused:
        await read_multipart(Declared(limit + 1), tree, b"b")
    assert refused.value.status == 413


def test_a_multipart_body_over_the_limit_is_refused_while_it_streams(client: Client):
    page = client.open(Claim)
    html = client.http.get(client.path(page)).text
    tree = page_reduced(Claim).tree
    assert tree is not None
    huge = b"x" * (multipart_limit(tree) + 10)
    refused = client.http.post(
        client.path(page),
        data={"title": "t", "_csrf": client.csrf(html)},
        files={"scan": ("a.png", huge, "image/png")},
        headers={"Origin": ORIGIN},
    )
    assert refused.status_code == 413
    assert client.answer(page) is None


def test_a_file_part_for_no_file_input_or_sent_twice_is_refused_whole(client: Client):
    page = client.open(Claim)
    for files in (
        [("title", ("x.png", PNG, "image/png"))],
        [("scan", ("a.png", PNG, "image/png")), ("scan", ("b.png", PNG, "image/png"))],
        [("scan.x", ("a.png", PNG, "image/png"))],
    ):
        html = client.http.get(client.path(page)).text
        refused = client.http.post(
            client.path(page),
            data={"title": "t", "_csrf": client.csrf(html)},
            files=files,
            headers={"Origin": ORIGIN},
        )
        assert refused.status_code == 400, files


@pytest.mark.parametrize(
    "header",
    [
        b'form-data; name="address.street"',
        b'form-data; name="scan"; filename="scan.txt"',
        b'form-data; name=""',
        b'form-data; name="caf\xc3\xa9"; filename="r\xc3\xa9sum\xc3\xa9.pdf"',
        b'form-data; name="a;b"; filename="x;y.png"',
        b'form-data; name="a\\"b"',
        b'form-data; name="scan"; filename="C:\\\\Users\\\\me\\\\scan.png"',
        b'Form-Data; NAME="title"',
        b'form-data;name="title"',
        b"form-data; name=title",
        b"form-data; name=\"title\"; filename*=UTF-8''x.png",
        b'attachment; name="title"',
        b"form-data",
        b"",
    ],
)
def test_a_parts_disposition_reads_as_the_general_parser_reads_it(header: bytes):
    kind, options = parse_options_header(header)
    assert _disposition(header) == (kind, options.get(b"name"), options.get(b"filename"))
