"""Other libraries' private attributes: read in this one module, each named, each tested.

The `mcp` SDK keeps a few things typed_elicit needs without a public accessor: the
request-state security of an `MCPServer` (inside its `RequestStateBoundary` middleware), the
functions registered on it (its managers), its low-level server's extension settings, the
extensions it was built with, and how it applies one. Each is read here and nowhere else,
and `tests/core/test_foreign.py` names every one: when an SDK release moves one, that test
fails saying which, and the function here raises `ForeignChange` naming it instead of
guessing. redis-py's asyncio `RedisCluster` says whether it has learnt its slot map only in a
private flag (`slot_map_unknown`). OpenTelemetry's public `get_*_provider()` answers whether a
provider is set, but while none is, each call looks the environment up and catches a `KeyError`
(measured: about 17,000 instructions a call, 0.5 % of a push round trip): `otel_unset` reads the
API's two module globals first, and falls back to the public getters when they move.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts import PromptManager
from mcp.server.mcpserver.resources import ResourceManager
from mcp.server.mcpserver.tools import ToolManager
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity

PRIVATE: Final = (
    ("mcp.server.request_state.RequestStateBoundary", "_security"),
    ("mcp.server.mcpserver.MCPServer", "_tool_manager"),
    ("mcp.server.mcpserver.MCPServer", "_prompt_manager"),
    ("mcp.server.mcpserver.MCPServer", "_resource_manager"),
    ("mcp.server.mcpserver.MCPServer", "_lowlevel_server"),
    ("mcp.server.mcpserver.MCPServer", "_extensions"),
    ("mcp.server.mcpserver.MCPServer", "_apply_extension"),
    ("opentelemetry.trace", "_TRACER_PROVIDER"),
    ("opentelemetry.metrics._internal", "_METER_PROVIDER"),
    ("redis.asyncio.cluster.RedisCluster", "_initialize"),
)
"""Every other library's private attribute typed_elicit reads: (owner, attribute)."""


class ForeignChange(AttributeError):
    """An SDK release moved a private attribute typed_elicit reads (upgrade typed_elicit)."""

    def __init__(self, owner: str, attribute: str) -> None:
        super().__init__(
            f"{owner} no longer has {attribute}, which typed_elicit reads (see typed_elicit._core.foreign); "
            "this mcp release is newer than the one this typed_elicit supports: pin mcp to the "
            "version in typed_elicit's requirements, or upgrade typed_elicit"
        )


def _read(obj: object, owner: str, attribute: str) -> Any:
    try:
        return getattr(obj, attribute)
    except AttributeError:
        raise ForeignChange(owner, attribute) from None


def request_state_security(server: MCPServer) -> RequestStateSecurity | None:
    """The `RequestStateSecurity` that seals `server`'s 2026-07-28 request state; None if it has none.

    `MCPServer` keeps it only inside the `RequestStateBoundary` it puts in its middleware.

    Raises:
        ForeignChange: If the boundary no longer keeps it as `_security`.
    """
    for middleware in server.middleware:
        if isinstance(middleware, RequestStateBoundary):
            security = _read(middleware, "RequestStateBoundary", "_security")
            return security if isinstance(security, RequestStateSecurity) else None
    return None


def registered(server: MCPServer) -> Iterator[tuple[str, str, Any]]:
    """`(kind, name, function)` of every tool, prompt and resource template on `server`.

    The SDK lists them publicly only as protocol objects, without their functions.

    Raises:
        ForeignChange: If a manager moved.
    """
    tools = _read(server, "MCPServer", "_tool_manager")
    prompts = _read(server, "MCPServer", "_prompt_manager")
    resources = _read(server, "MCPServer", "_resource_manager")
    if isinstance(tools, ToolManager):
        yield from (("tool", tool.name, tool.fn) for tool in tools.list_tools())
    if isinstance(prompts, PromptManager):
        yield from (("prompt", prompt.name, prompt.fn) for prompt in prompts.list_prompts())
    if isinstance(resources, ResourceManager):
        yield from (("resource template", t.uri_template, t.fn) for t in resources.list_templates())


def extension_settings(server: MCPServer) -> dict[str, Any]:
    """The settings `server` advertises per extension (its low-level server's own dict, changed in place).

    Raises:
        ForeignChange: If the low-level server or its settings moved.
    """
    lowlevel = _read(server, "MCPServer", "_lowlevel_server")
    settings: dict[str, Any] = _read(lowlevel, "Server", "extensions")
    return settings


def extensions(server: MCPServer) -> tuple[object, ...]:
    """The extensions `server` was built with (`MCPServer(extensions=[...])`).

    Raises:
        ForeignChange: If they moved.
    """
    return tuple(_read(server, "MCPServer", "_extensions") or ())


def otel_unset(trace: Any, meters: Any) -> bool:
    """Whether OpenTelemetry has no global tracer nor meter provider set: two attribute reads.

    False when one is set, or when the API's globals moved (the caller then asks the public
    getters). A provider the environment names is loaded by the API on first use, so a caller
    asks this only where the environment names none.

    Args:
        trace: The `opentelemetry.trace` module.
        meters: The `opentelemetry.metrics._internal` module.
    """
    tracers = getattr(trace, "_TRACER_PROVIDER", trace)  # a module: never None, so "not unset"
    meter = getattr(meters, "_METER_PROVIDER", meters)
    return tracers is None and meter is None


def apply_extension(server: MCPServer, extension: object) -> None:
    """Apply `extension` to `server` as `MCPServer(extensions=[...])` would have.

    Raises:
        ForeignChange: If the SDK no longer applies extensions this way.
    """
    _read(server, "MCPServer", "_apply_extension")(extension)


def slot_map_unknown(cluster: object) -> bool:
    """Whether a `redis.asyncio.RedisCluster` has not learnt its slot map yet (redis-py's `_initialize`).

    True when the flag moved: the caller then asks the cluster to learn it, which redis-py does
    at once when it already has.
    """
    return bool(getattr(cluster, "_initialize", True))
