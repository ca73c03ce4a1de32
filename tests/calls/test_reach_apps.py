"""`reach.shows_apps`: SEP-3118's client conditions, read where each revision carries them."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any, cast

import pytest
from mcp_types import ClientCapabilities

from typed_elicit._calls.call import Call
from typed_elicit._calls.reach import shows_apps

UI = "io.modelcontextprotocol/ui"
MIME = "text/html;profile=mcp-app"
FULL: dict[str, Any] = {
    "elicitation": {"form": {}},
    "extensions": {UI: {"mimeTypes": [MIME], "elicitation": {}}},
}


def call(era: str, capabilities: dict[str, Any] | None, *, request_scoped: bool) -> Call:
    """A call whose client declared `capabilities` in `initialize`, or per request on 2026-07-28."""
    key = "io.modelcontextprotocol/clientCapabilities"
    meta = {key: capabilities} if request_scoped and capabilities is not None else None
    session_caps = (
        None if capabilities is None or request_scoped else ClientCapabilities.model_validate(capabilities)
    )
    request = SimpleNamespace(meta=meta, session=SimpleNamespace(client_capabilities=session_caps))
    return cast("Call", SimpleNamespace(era=era, request=request))


def without(path: str) -> dict[str, Any]:
    """FULL with one member removed (`extensions.ui.mimeTypes`; `ui` names the MCP Apps entry)."""
    caps = copy.deepcopy(FULL)
    *parents, last = [UI if part == "ui" else part for part in path.split(".")]
    node = caps
    for part in parents:
        node = node[part]
    del node[last]
    return caps


CASES = {
    "everything": (FULL, True),
    "legacy empty elicitation means form": ({**FULL, "elicitation": {}}, True),
    "URL mode only": ({**FULL, "elicitation": {"url": {}}}, False),
    "no elicitation": (without("elicitation"), False),
    "no MCP Apps": (without("extensions.ui"), False),
    "no mimeTypes": (without("extensions.ui.mimeTypes"), False),
    "no ui elicitation": (without("extensions.ui.elicitation"), False),
    "another MIME type": (
        {**FULL, "extensions": {UI: {"mimeTypes": ["text/html"], "elicitation": {}}}},
        False,
    ),
    "nothing declared": (None, False),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("era", ["2025-06-18", "2025-11-25"])
def test_before_2026_07_28_the_sessions_capabilities_decide(case, era):
    capabilities, expected = CASES[case]
    assert shows_apps(call(era, capabilities, request_scoped=False)) is expected


@pytest.mark.parametrize("case", list(CASES))
def test_on_2026_07_28_the_requests_own_capabilities_decide(case):
    capabilities, expected = CASES[case]
    assert shows_apps(call("2026-07-28", capabilities, request_scoped=True)) is expected


def test_on_2026_07_28_capabilities_outside_the_request_do_not_count():
    assert shows_apps(call("2026-07-28", FULL, request_scoped=False)) is False


def test_a_call_without_a_request_or_an_era_shows_no_app():
    assert shows_apps(cast("Call", SimpleNamespace(era=None, request=SimpleNamespace()))) is False
    assert shows_apps(cast("Call", SimpleNamespace(era="2026-07-28", request=None))) is False
