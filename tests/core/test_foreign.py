"""Other libraries' private attributes: each one typed_elicit reads is named, and still where it is read."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from mcp.server.apps import Apps
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateBoundary

import typed_elicit
from typed_elicit._core import foreign

PACKAGE = Path(typed_elicit.__file__).parent


def _owner(dotted: str) -> type:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize(("owner", "attribute"), foreign.PRIVATE, ids=[".".join(p) for p in foreign.PRIVATE])
def test_every_private_attribute_typed_elicit_reads_is_still_there(owner: str, attribute: str) -> None:
    if owner.startswith("opentelemetry."):
        subject: object = importlib.import_module(owner)
    elif owner.startswith("redis."):
        subject = _owner(owner)(host="127.0.0.1", port=1)  # (connects on first use only)
    else:
        server = MCPServer("probe")
        instance = next(m for m in server.middleware if isinstance(m, RequestStateBoundary))
        subject = instance if _owner(owner) is RequestStateBoundary else server
    assert hasattr(subject, attribute), (
        f"{owner}.{attribute} is gone: this release moved a private attribute typed_elicit reads; "
        "change typed_elicit/_core/foreign.py"
    )


def test_each_reader_works_on_a_real_server() -> None:
    apps = Apps()
    server = MCPServer("probe", extensions=[apps])

    @server.tool()
    async def hello() -> str:
        return "hi"

    security = foreign.request_state_security(server)
    assert security is not None
    assert security.ttl > 0
    assert ("tool", "hello") in [(kind, name) for kind, name, _ in foreign.registered(server)]
    assert foreign.extensions(server) == (apps,)
    settings = foreign.extension_settings(server)
    assert isinstance(settings, dict)
    foreign.apply_extension(MCPServer("other"), Apps())


def test_otel_unset_reads_the_apis_globals_and_says_no_when_they_moved() -> None:
    import opentelemetry.metrics._internal as meter_globals
    from opentelemetry import trace

    assert foreign.otel_unset(trace, meter_globals) is (
        trace._TRACER_PROVIDER is None and meter_globals._METER_PROVIDER is None  # pyright: ignore[reportPrivateUsage]
    )
    assert foreign.otel_unset(object(), object()) is False  # moved: the caller asks the public getters


def test_a_moved_attribute_is_named_in_a_typed_error_not_guessed(monkeypatch: pytest.MonkeyPatch) -> None:
    server = MCPServer("probe")
    boundary = next(m for m in server.middleware if isinstance(m, RequestStateBoundary))
    monkeypatch.delattr(boundary, "_security")
    with pytest.raises(foreign.ForeignChange, match=r"RequestStateBoundary no longer has _security"):
        foreign.request_state_security(server)


def test_no_other_module_reads_another_librarys_private_attribute() -> None:
    read = {attribute for _, attribute in foreign.PRIVATE}
    outside: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "foreign.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            name = None
            if isinstance(node, ast.Attribute):
                name = node.attr
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                name = node.value
            if name in read:
                outside.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {name}")
    assert outside == []


def test_a_cluster_client_says_its_slot_map_is_unknown_until_learnt_and_unknown_when_the_flag_moved() -> None:
    from redis.asyncio.cluster import RedisCluster

    cluster = RedisCluster(host="127.0.0.1", port=1)
    assert foreign.slot_map_unknown(cluster) is True
    cluster._initialize = False  # pyright: ignore[reportPrivateUsage]  (what redis-py sets once learnt)
    assert foreign.slot_map_unknown(cluster) is False
    assert foreign.slot_map_unknown(object()) is True  # moved: the caller asks the cluster to learn it
