"""pytest plugin: connect a client to your server in memory, once per protocol era.

Installed with typed_elicit (entry point `pytest11`), so the fixtures are available in
every test session:

- `elicit_protocol`: the protocol revision; a test that uses it (directly or through
  `elicit_connect`) runs once per revision. Narrow it with
  `@pytest.mark.elicit_protocols("2025-11-25", "2026-07-28")`.
- `scripted_user`: a fresh `ScriptedUser` for the test.
- `elicit_connect`: `async with elicit_connect(server) as client:` opens an `mcp.Client`
  on `elicit_protocol` whose questions `scripted_user` answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

# Only the version list is imported here: pytest loads plugins before coverage starts, so
# everything else is imported when a fixture first needs it.
from typed_elicit._core.versions import LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, ProtocolVersion

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from mcp import Client
    from mcp.client.session import ElicitationFnT
    from mcp.server import Server
    from mcp.server.mcpserver import MCPServer

    from typed_elicit.testing._kit import ScriptedUser

__all__ = ["Connector"]

_MARKER = "elicit_protocols"


def pytest_configure(config: pytest.Config) -> None:
    """Register the `elicit_protocols` marker."""
    config.addinivalue_line(
        "markers", f"{_MARKER}(*versions): run elicit_protocol tests only on these protocol revisions"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every test that needs `elicit_protocol` once per protocol revision.

    Raises:
        pytest.UsageError: The marker names a revision typed_elicit does not support.
    """
    if "elicit_protocol" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker(_MARKER)
    versions: tuple[Any, ...] = marker.args if marker is not None else PROTOCOL_VERSIONS
    unknown = [v for v in versions if v not in PROTOCOL_VERSIONS]
    if unknown or not versions:
        raise pytest.UsageError(
            f"{metafunc.definition.nodeid}: @pytest.mark.{_MARKER} takes one or more of "
            f"{', '.join(PROTOCOL_VERSIONS)}; got {', '.join(map(repr, unknown)) or 'none'}"
        )
    metafunc.parametrize("elicit_protocol", versions, ids=[str(v) for v in versions])


@pytest.fixture
def elicit_protocol() -> ProtocolVersion:
    """The protocol revision under test (parametrised over every revision by the plugin)."""
    return LATEST_PROTOCOL_VERSION


@pytest.fixture
def scripted_user() -> ScriptedUser:
    """A fresh scripted user; queue answers with `.accept(...)`, `.decline()`, `.cancel()`."""
    from typed_elicit.testing._kit import ScriptedUser

    return ScriptedUser()


@dataclass(frozen=True)
class Connector:
    """Opens in-memory client connections on one protocol revision."""

    protocol_version: ProtocolVersion
    user: ScriptedUser

    def __call__(
        self,
        server: Server[Any] | MCPServer,
        *,
        elicitation_callback: ElicitationFnT | None = None,
        read_timeout_seconds: float | None = 10.0,
    ) -> AbstractAsyncContextManager[Client]:
        """Connect to `server`; questions go to `elicitation_callback`, else to the scripted user.

        Args:
            server: The server under test.
            elicitation_callback: Who answers; the test's `scripted_user` by default.
            read_timeout_seconds: Per-request timeout, so a stuck test fails instead of hanging.

        Returns:
            An async context manager yielding the connected `mcp.Client`; when the
            scripted user makes a script mistake, the call raises `ScriptMistake`.
        """
        from typed_elicit.testing._kit import connect

        return connect(
            server,
            self.protocol_version,
            elicitation_callback=elicitation_callback or self.user,
            read_timeout_seconds=read_timeout_seconds,
        )


@pytest.fixture
def elicit_connect(elicit_protocol: ProtocolVersion, scripted_user: ScriptedUser) -> Connector:
    """Connect a client to a server in memory on `elicit_protocol`, answered by `scripted_user`."""
    return Connector(elicit_protocol, scripted_user)
