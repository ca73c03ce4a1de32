"""The one sealer: what typed_elicit keeps sealed outside a call is sealed with the server's own keys."""

from __future__ import annotations

import os

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateSecurity

from typed_elicit._calls.sealer import sealer_for
from typed_elicit.errors import ElicitUsageError


def test_a_sealed_payload_opens_only_for_the_purpose_it_was_sealed_for():
    sealer = sealer_for(MCPServer("one"), "test")
    sealed = sealer.seal("page:a", b"payload")
    assert b"payload" not in sealed.encode()
    assert sealer.unseal("page:a", sealed) == b"payload"
    assert sealer.unseal("page:a", sealed.encode()) == b"payload"
    assert sealer.unseal("page:b", sealed) is None
    assert sealer.unseal("page:a", sealed[:-2] + "xx") is None
    assert sealer.unseal("page:a", "not a sealed value") is None


def test_replicas_configured_with_the_same_keys_open_each_others_values_and_others_do_not():
    key = os.urandom(32)
    first, second = (
        MCPServer("bank", request_state_security=RequestStateSecurity(keys=[key])) for _ in range(2)
    )
    sealed = sealer_for(first, "test").seal("page:a", b"payload")
    assert sealer_for(second, "test").unseal("page:a", sealed) == b"payload"
    assert sealer_for(MCPServer("bank"), "test").unseal("page:a", sealed) is None  # its own random key


def test_a_server_without_request_state_keys_gets_no_key_made_up_but_a_typed_error():
    server = MCPServer("lowlevel")
    server.middleware.clear()
    with pytest.raises(ElicitUsageError, match="RequestStateBoundary") as refused:
        sealer_for(server, "install_fallback")
    assert refused.value.problem == "unsealed"
    assert refused.value.subject == "install_fallback"
    assert "several replicas share the secret" in str(refused.value)
