"""Hostile submits to pages with groups and files: each is refused, at a cost bounded by the page's limits.

The bounds this file states and checks, for every hostile submit below (the server's own work,
measured by calling the page handler with a request whose body was built before measuring):

- memory: the peak of Python allocations (`tracemalloc`) while the submit is handled stays under
  `PEAK_CAP` (4 MiB), and a submit 50 times larger (50 000 rows instead of 1 000, a 20 MB file
  instead of 300 KB, 100 000 parts instead of 3 000) peaks within `GROWTH` (4x) of the smaller one:
  the work is bounded by the page's limits (256 KiB of text, the multipart limit, 2 064 names,
  each file kept up to its own `max_bytes`), not by what is sent;
- time: each submit is handled in under `TIME_CAP` seconds (2 s, timed without tracemalloc:
  generous for a slow CI runner; a refusal here takes a few milliseconds, 3 000 multipart
  parts about a tenth of a second).
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any

import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel
from starlette.testclient import TestClient

from tests.pages.test_serve import ORIGIN, Client, hosted
from tests.pages.test_serve_files import PDF, PNG
from tests.pages.test_tree import Order
from typed_elicit import form
from typed_elicit._calls.state import PageRecord
from typed_elicit.pages import FileLimits, UploadedFile, serve_pages
from typed_elicit.pages._serve import _handle  # pyright: ignore[reportPrivateUsage]

PEAK_CAP = 4 * 1024 * 1024
GROWTH = 4.0
TIME_CAP = 2.0


@form(page=True)
class Scan(BaseModel):
    title: str = ""
    scan: Annotated[UploadedFile, FileLimits(max_bytes=2048, media_types=("image/png",))]


@dataclass
class Hostile:
    """A request as the page handler reads it, its body built beforehand and streamed in 64 KiB chunks."""

    path_params: dict[str, str]
    body: bytes
    content_type: str
    cookie: str
    method: str = "POST"
    headers: dict[str, str] = field(default_factory=dict[str, str])
    cookies: dict[str, str] = field(default_factory=dict[str, str])

    def __post_init__(self) -> None:
        self.headers = {"origin": ORIGIN, "content-type": self.content_type}
        self.cookies = {"te_page_csrf": self.cookie}

    async def stream(self) -> AsyncIterator[bytes]:
        for start in range(0, len(self.body), 65536):
            yield self.body[start : start + 65536]


@dataclass
class Measured:
    status: int
    peak: int
    seconds: float


@pytest.fixture
def client() -> Iterator[Client]:
    server = MCPServer("hostile")
    serve_pages(server, ORIGIN)
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        yield Client(server, http)


def opened(client: Client, model: type[BaseModel]) -> tuple[PageRecord, str, str]:
    """A page, its CSRF token, and the cookie its GET set (as a browser holds them)."""
    page = client.open(model)
    shown = client.http.get(client.path(page))
    cookie = shown.cookies.get("te_page_csrf")
    assert cookie is not None
    return page, client.csrf(shown.text), cookie


def measure(client: Client, page: PageRecord, cookie: str, body: bytes, content_type: str) -> Measured:
    host = hosted(client.server)
    request: Any = Hostile({"page_id": page.id}, body, content_type, cookie)

    async def handle() -> Any:
        return await _handle(client.server, host.config, request)

    started = time.perf_counter()
    response = client.http.portal.call(handle)  # type: ignore[union-attr]
    seconds = time.perf_counter() - started  # timed alone: tracemalloc slows Python down several times
    tracemalloc.start()
    try:
        again = client.http.portal.call(handle)  # type: ignore[union-attr]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert again.status_code == response.status_code
    return Measured(response.status_code, peak, seconds)


FORM = "application/x-www-form-urlencoded"


def urlencoded(token: str, pairs: list[tuple[str, str]]) -> bytes:
    from urllib.parse import urlencode

    return urlencode([*pairs, ("_csrf", token), ("_action", "accept")]).encode()


def multipart(token: str, parts: list[tuple[str, str | None, bytes, str]]) -> tuple[bytes, str]:
    boundary = "hostileboundary"
    out = bytearray()
    for name, filename, data, media in [
        *parts,
        ("_csrf", None, token.encode(), ""),
        ("_action", None, b"accept", ""),
    ]:
        out += f"--{boundary}\r\n".encode()
        if filename is None:
            out += f'Content-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
        else:
            out += f'Content-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'.encode()
            out += f"Content-Type: {media}\r\n\r\n".encode()
        out += data + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out), f"multipart/form-data; boundary={boundary}"


def bounded(small: Measured, large: Measured, status: int | tuple[int, ...]) -> None:
    statuses = status if isinstance(status, tuple) else (status,)
    assert small.status in statuses
    assert large.status in statuses
    assert small.peak < PEAK_CAP
    assert large.peak < PEAK_CAP
    assert large.peak < GROWTH * max(small.peak, 256 * 1024), (small.peak, large.peak)
    assert small.seconds < TIME_CAP
    assert large.seconds < TIME_CAP


def test_tens_of_thousands_of_rows_are_refused_at_a_bounded_cost(client: Client):
    page, token, cookie = opened(client, Order)
    results = []
    for rows in (1_000, 50_000):
        pairs = [("lines._n", "5"), *((f"lines.{i}.product", "x") for i in range(rows))]
        results.append(measure(client, page, cookie, urlencoded(token, pairs), FORM))
    bounded(results[0], results[1], (400, 413))
    assert client.answer(page) is None


def test_a_row_count_far_past_the_limit_shows_only_the_rows_a_list_may_hold(client: Client):
    page, token, cookie = opened(client, Order)
    small = measure(client, page, cookie, urlencoded(token, [("lines._n", "9"), ("name", "a")]), FORM)
    large = measure(client, page, cookie, urlencoded(token, [("lines._n", "9999"), ("name", "a")]), FORM)
    bounded(small, large, 422)  # refused by the model (required fields), never built past 5 rows


def test_deep_nesting_and_escaping_names_are_refused_at_a_bounded_cost(client: Client):
    page, token, cookie = opened(client, Order)
    hostile = [
        "a." * 100_000 + "b",
        "lines.0.__class__",
        "lines.999999.product",
        "a..b",
        "address." + "street." * 5000,
        "labels.0.key.__dict__",
    ]
    for name in hostile:
        result = measure(client, page, cookie, urlencoded(token, [(name, "x"), ("name", "a")]), FORM)
        assert result.status in (400, 413), name[:40]
        assert result.peak < PEAK_CAP
        assert result.seconds < TIME_CAP


def test_duplicate_names_are_refused(client: Client):
    page, token, cookie = opened(client, Order)
    result = measure(client, page, cookie, urlencoded(token, [("name", "a"), ("name", "b")]), FORM)
    assert result.status == 400


def test_an_oversized_file_is_refused_at_a_cost_bounded_by_its_field_and_the_body_limit(client: Client):
    page, token, cookie = opened(client, Scan)
    small_body, kind = multipart(token, [("scan", "a.png", PNG[:8] + b"\x00" * 300_000, "image/png")])
    large_body, _ = multipart(token, [("scan", "a.png", PNG[:8] + b"\x00" * 20_000_000, "image/png")])
    small = measure(client, page, cookie, small_body, kind)
    large = measure(client, page, cookie, large_body, kind)
    assert small.status == 422  # under the body limit: kept up to 2 KiB + 1 and told "smaller"
    assert large.status == 413  # past the page's multipart limit while it streams
    bounded(small, large, (413, 422))
    assert client.answer(page) is None


def test_a_mislabelled_file_is_refused(client: Client):
    page, token, cookie = opened(client, Scan)
    body, kind = multipart(token, [("scan", "a.png", PDF, "image/png")])
    assert measure(client, page, cookie, body, kind).status == 422


def test_huge_multipart_part_counts_are_refused_at_a_bounded_cost(client: Client):
    page, token, cookie = opened(client, Scan)
    results = []
    for parts in (3_000, 100_000):
        body, kind = multipart(token, [("title", None, b"x", "")] * parts)
        results.append(measure(client, page, cookie, body, kind))
    bounded(results[0], results[1], (400, 413))
