"""A multipart submit, bounded before and while it streams: its own limit, file parts for file inputs only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.server.mcpserver import MCPServer
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.testclient import TestClient

from tests.pages.test_serve import ORIGIN, Client
from tests.pages.test_serve_files import PNG, Claim
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


class Sent:
    """A request whose body streams in chunks of `size` bytes."""

    def __init__(self, body: bytes, size: int = 7) -> None:
        self.headers: dict[str, str] = {}
        self.body = body
        self.size = size

    async def stream(self) -> Any:
        for at in range(0, len(self.body), self.size):
            yield self.body[at : at + self.size]


BOUNDARY = b"te7MA4YWxkTrZu0gW"


def body_of(parts: list[tuple[str, str | None, bytes]], *, end: bytes = b"--\r\n") -> bytes:
    """A multipart body as a browser writes it: (name, file name or None, bytes) per part."""
    out = b""
    for name, filename, data in parts:
        out += b"--" + BOUNDARY + b'\r\nContent-Disposition: form-data; name="' + name.encode() + b'"'
        out += (
            b"\r\n\r\n"
            if filename is None
            else f'; filename="{filename}"\r\nContent-Type: image/PNG\r\n\r\n'.encode()
        )
        out += data + b"\r\n"
    return out + b"--" + BOUNDARY + end


def claim_tree() -> Any:
    tree = page_reduced(Claim).tree
    assert tree is not None
    return tree


@pytest.mark.anyio
@pytest.mark.parametrize("size", [1, 7, 1 << 20])
async def test_a_body_as_a_browser_writes_it_reads_as_its_fields_and_files_in_any_chunks(size: int):
    body = body_of(
        [
            ("title", None, "Caf\u00e9\r\n--te7 not the end".encode()),
            ("title", None, b""),
            ("scan", "big.png", PNG + b"x" * 3000),
            ("extra", "a.png", PNG),
        ],
        end=b"--\r\nan epilogue, ignored",
    )
    texts, files = await read_multipart(Sent(body, size), claim_tree(), BOUNDARY)
    assert texts == {"title": ["Caf\u00e9\r\n--te7 not the end", ""]}
    extra = files["extra"]
    assert (extra.filename, extra.media_type, bytes(extra.data), extra.too_large) == (
        "a.png",
        "image/png",
        PNG,
        False,
    )
    scan = files["scan"]  # kept up to its field's limit (2048) and one byte more: "too large"
    assert (bytes(scan.data), scan.too_large) == ((PNG + b"x" * 3000)[:2049], True)


def mangled(body: bytes, old: bytes, new: bytes) -> bytes:
    assert old in body
    return body.replace(old, new, 1)


GOOD = body_of([("title", None, b"t"), ("scan", "a.png", PNG)])


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"a preamble\r\n" + GOOD, 400),
        (GOOD[: -len(b"--\r\n")], 400),  # no close delimiter
        (GOOD[: GOOD.index(b"t\r\n--")], 400),  # a part that never ends
        (mangled(GOOD, b"\r\nContent-Disposition", b"\r\n\r\nContent-Disposition"), 400),  # no headers
        (mangled(GOOD, b'name="title"\r\n', b'name="title"\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n'), 400),
        (mangled(GOOD, b'name="title"\r\n', b'name="title"\r\nX-Long: ' + b"x" * 1100 + b"\r\n"), 400),
        (mangled(GOOD, b'name="title"\r\n', b'name="title"\r\nno colon here\r\n'), 400),
        (mangled(GOOD, b'name="title"\r\n', b'name="title"\r\nBad Name: 1\r\n'), 400),
        (mangled(GOOD, b'name="title"\r\n', b'name="title"\r\nX: a\nb\r\n'), 400),
        (mangled(GOOD, b"form-data; name", b"attachment; name"), 400),
        (mangled(GOOD, b'; name="title"', b""), 400),
        (mangled(GOOD, b'name="title"', b'name="' + b"n" * 513 + b'"'), 400),
        (mangled(GOOD, b'name="title"', b'name="\xff"'), 400),
        (mangled(GOOD, b"\r\n\r\nt\r\n", b"\r\n\r\n\xff\r\n"), 400),  # text that is not UTF-8
        (mangled(GOOD, b'name="scan"', b'name="title"'), 400),  # a file for a text input
        (body_of([("scan", "a.png", PNG), ("scan", "b.png", PNG)]), 400),  # a file twice
        (body_of([("title", None, b"x")] * 2100), 400),  # too many parts
        (body_of([("title", None, b"x" * (MAX_BODY_BYTES // 2 + 1))] * 2), 413),  # text over its limit
    ],
)
async def test_a_body_no_browser_would_send_is_refused_whole(body: bytes, status: int):
    with pytest.raises(BadBody) as refused:
        await read_multipart(Sent(body, 64 * 1024), claim_tree(), BOUNDARY)
    assert refused.value.status == status


def reference(body: bytes) -> tuple[dict[str, list[str]], dict[str, tuple[str, str, bytes]]]:
    """What `python_multipart`'s parser (Starlette's) reads from `body`: text fields and files."""
    texts: dict[str, list[str]] = {}
    files: dict[str, tuple[str, str, bytes]] = {}
    part: dict[str, Any] = {}

    def header_field(data: bytes, start: int, end: int) -> None:
        part["field"] = part.get("field", b"") + data[start:end]

    def header_value(data: bytes, start: int, end: int) -> None:
        part["value"] = part.get("value", b"") + data[start:end]

    def header_end() -> None:
        part[part.pop("field").lower()] = part.pop("value", b"")

    def part_data(data: bytes, start: int, end: int) -> None:
        part["data"] = part.get("data", b"") + data[start:end]

    def part_end() -> None:
        _, options = parse_options_header(part[b"content-disposition"])
        name, data = options[b"name"].decode(), part.get("data", b"")
        if b"filename" in options:
            media = parse_options_header(part.get(b"content-type", b""))[0].decode().lower()
            files[name] = (options[b"filename"].decode(), media, data)
        else:
            texts.setdefault(name, []).append(data.decode())
        part.clear()

    callbacks: Any = {
        "on_header_field": header_field,
        "on_header_value": header_value,
        "on_header_end": header_end,
        "on_part_data": part_data,
        "on_part_end": part_end,
    }
    parser = MultipartParser(BOUNDARY, callbacks)
    parser.write(body)
    parser.finalize()
    return texts, files


@pytest.mark.anyio
@settings(max_examples=150, deadline=None)
@given(
    titles=st.lists(st.text(st.characters(codec="utf-8"), max_size=30), max_size=4),
    scan=st.binary(max_size=2048),
    size=st.integers(1, 4096),
)
async def test_a_body_reads_as_starlettes_parser_reads_it(titles: list[str], scan: bytes, size: int):
    parts: list[tuple[str, str | None, bytes]] = [("title", None, t.encode()) for t in titles]
    body = body_of([*parts, ("scan", "s.png", scan)])
    texts, files = await read_multipart(Sent(body, size), claim_tree(), BOUNDARY)
    assert (texts, {k: (f.filename, f.media_type, bytes(f.data)) for k, f in files.items()}) == reference(
        body
    )
