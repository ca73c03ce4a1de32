"""What a page is in the store: a random id, a ticket of this server's only, values sealed to their key."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from mcp.server.mcpserver import MCPServer
from starlette.testclient import TestClient

from tests.pages.test_serve import ORIGIN, SECRET, BankLogin, Client
from typed_elicit._calls.sealer import sealer_for
from typed_elicit.pages import serve_pages
from typed_elicit.pages._tickets import ANSWER_PREFIX, new_page_id, seal
from typed_elicit.stores._config import store_for


@pytest.fixture
def client() -> Iterator[Client]:
    server = MCPServer("pages-test")
    serve_pages(server, ORIGIN)
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        yield Client(server, http)


def test_a_page_id_is_at_least_128_random_bits():
    ids = {new_page_id() for _ in range(200)}
    assert len(ids) == 200
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{43}", i) for i in ids)  # 256 bits


def test_a_link_of_another_server_is_foreign(client: Client):
    other = MCPServer("other")
    serve_pages(other, ORIGIN)
    with TestClient(other.streamable_http_app(), base_url=ORIGIN) as http:
        foreign = Client(other, http).open(BankLogin)
    assert client.http.get(f"/elicit-pages/{foreign.id}").status_code == 404


def test_a_sealed_answer_cannot_be_moved_to_another_page(client: Client):
    sealer = sealer_for(client.server, "serve_pages")
    sealed = seal(sealer, ANSWER_PREFIX + "a" * 43, b'{"action":"accept","content":{}}')
    assert sealer.unseal(ANSWER_PREFIX + "a" * 43, sealed) is not None
    assert sealer.unseal(ANSWER_PREFIX + "b" * 43, sealed) is None
    assert sealer.unseal(ANSWER_PREFIX + "a" * 43, sealed[:-2] + b"xx") is None


def test_the_store_holds_the_answer_sealed_never_in_clear(client: Client):
    ticket = client.open(BankLogin)
    client.submit(ticket, {"username": "ada", "password": SECRET, "otp": "123456"})
    stored = client.http.portal.call(store_for(client.server).get, ANSWER_PREFIX + ticket.id)  # type: ignore[union-attr]
    assert stored is not None
    assert SECRET.encode() not in stored
    assert b"123456" not in stored
