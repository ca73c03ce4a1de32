"""The one sealer: what typed_elicit keeps sealed outside a call, with the server's own keys.

Page tickets, page answers and their files, and fallback tokens are sealed with the codec that
seals the server's 2026-07-28 request state (the SDK seals that itself): the keys the server is
configured with (`MCPServer(request_state_security=RequestStateSecurity(keys=[...]))`), so every
replica that shares them opens what another sealed. Each sealed value is bound to what it is
for (`purpose`: a store key, a token's kind), so a value cannot be moved to another place. A
server without those keys is refused when pages or the fallback are set up: never a key made
up in one process, which replicas could not share.
"""

from __future__ import annotations

import hmac

from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import InvalidRequestState, RequestStateCodec

from typed_elicit._core.foreign import request_state_security
from typed_elicit.errors import ElicitUsageError


class Sealer:
    """Seals and opens payloads with one server's request-state codec (AES-256-GCM by default)."""

    __slots__ = ("_codec",)

    def __init__(self, codec: RequestStateCodec) -> None:
        self._codec = codec

    def seal(self, purpose: str, payload: bytes) -> str:
        """`payload`, sealed and bound to `purpose`."""
        return self._codec.seal(purpose.encode() + b"\n" + payload)

    def unseal(self, purpose: str, sealed: str | bytes) -> bytes | None:
        """What `seal(purpose, ...)` sealed; None if `sealed` is not that (tampered, moved, foreign)."""
        try:
            raw = self._codec.unseal(sealed.decode("ascii") if isinstance(sealed, bytes) else sealed)
        except (InvalidRequestState, UnicodeDecodeError, ValueError):
            return None
        head, separator, payload = raw.partition(b"\n")
        if not separator or not hmac.compare_digest(head, purpose.encode()):
            return None
        return payload


def sealer_for(server: MCPServer, needs: str) -> Sealer:
    """The sealer of `server`: its request-state codec.

    Args:
        server: The server.
        needs: What asks for it (`"serve_pages"`, `"install_fallback"`), for the error.

    Raises:
        ElicitUsageError: If the server has no request-state security (a low-level server
            without a `RequestStateBoundary`), naming how to give it one.
    """
    security = request_state_security(server)
    if security is None:
        raise ElicitUsageError.unsealed(server.name or "", needs)
    return Sealer(security.codec)
