"""Where the optional parts plug into a call: each registers per server, and a server keeps only its own."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from typed_elicit import install_fallback
from typed_elicit._calls import plugs
from typed_elicit.pages import serve_pages

PAIRS: list[tuple[Callable[[MCPServer, Any], None], Callable[[MCPServer], Any]]] = [
    (plugs.serve, plugs.host_for),
    (plugs.route, plugs.route_for),
    (plugs.show, plugs.apps_for),
]


@pytest.mark.parametrize(("plug", "found"), PAIRS, ids=["pages", "fallback", "apps"])
def test_a_part_plugged_into_one_server_is_found_there_and_nowhere_else(
    plug: Callable[[MCPServer, Any], None], found: Callable[[MCPServer], Any]
) -> None:
    served, other = MCPServer("served"), MCPServer("other")
    part = object()
    plug(served, part)
    assert found(served) is part
    assert found(other) is None


@pytest.mark.parametrize(("plug", "found"), PAIRS, ids=["pages", "fallback", "apps"])
def test_a_plugged_part_keeps_no_server_alive(
    plug: Callable[[MCPServer, Any], None], found: Callable[[MCPServer], Any]
) -> None:
    def plugged() -> weakref.ref[MCPServer]:
        server = MCPServer("gone")
        plug(server, object())
        assert found(server) is not None
        return weakref.ref(server)

    gone = plugged()
    gc.collect()
    assert gone() is None


def test_serve_pages_and_install_fallback_plug_in_through_here() -> None:
    server = MCPServer("both")
    assert plugs.host_for(server) is None
    assert plugs.route_for(server) is None
    serve_pages(server, "https://pages.example")
    install_fallback(server)
    assert plugs.host_for(server) is not None
    assert plugs.route_for(server) is not None
