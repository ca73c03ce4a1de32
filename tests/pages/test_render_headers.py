"""The headers every page response carries, plain pages too: a strict CSP with a style nonce, no store."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.server.mcpserver import MCPServer
from starlette.testclient import TestClient

from tests.pages.test_serve import ORIGIN, BankLogin, Client
from typed_elicit.pages import serve_pages


@pytest.fixture
def client() -> Iterator[Client]:
    server = MCPServer("pages-test")
    serve_pages(server, ORIGIN)
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        yield Client(server, http)


@pytest.mark.parametrize(
    "page_id",
    ["A" * 43, "not-a-page", "../../etc/passwd", "A" * 42 + "%00"],
)
def test_an_unknown_or_malformed_link_gets_a_plain_404(client: Client, page_id: str):
    page = client.http.get(f"/elicit-pages/{page_id}")
    assert page.status_code == 404
    assert "Traceback" not in page.text


def test_every_page_response_carries_the_security_headers(client: Client):
    ticket = client.open(BankLogin)
    for response in (
        client.http.get(client.path(ticket)),
        client.submit(ticket, {"otp": "x"}),
        client.http.get("/elicit-pages/" + "A" * 43),
    ):
        headers = response.headers
        assert headers["cache-control"] == "no-store"
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] in ("no-referrer", "same-origin")
        csp = headers["content-security-policy"]
        assert "default-src 'none'" in csp
        assert "form-action 'self'" in csp
        assert "frame-ancestors 'none'" in csp
        assert "script-src" not in csp
        nonce = re.search(r"style-src 'nonce-([^']+)'", csp)
        assert nonce is not None
        assert f'<style nonce="{nonce.group(1)}">' in response.text


def test_the_error_pages_send_no_referrer(client: Client):
    assert client.http.get("/elicit-pages/" + "A" * 43).headers["referrer-policy"] == "no-referrer"


def test_pages_and_views_move_nothing_so_reduced_motion_is_respected_by_construction() -> None:
    """WCAG 2.3.3: no transition, animation or smooth scrolling in the styles a person gets."""
    import typed_elicit.apps
    import typed_elicit.pages

    styles = [
        path.read_text()
        for package in (typed_elicit.pages, typed_elicit.apps)
        for path in (Path(package.__file__).parent / "templates").iterdir()
        if path.suffix in (".html", ".css", ".js")
    ]
    assert len(styles) >= 5
    moving = re.compile(r"transition|animation|@keyframes|scroll-behavior:\s*smooth")
    assert [m.group(0) for text in styles for m in moving.finditer(text)] == []
