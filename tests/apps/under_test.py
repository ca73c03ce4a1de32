"""The server and the client half that the real-host proof runs against, named in one place.

The server is tests/apps/real_server.py (typed_elicit.apps); the client half is
typed_elicit.client's: `elicitation_handler(form, app=renderer)`, the capability from
`app_capability()`, and `AppCannotRender`, which a renderer raises to fall back to the form.
"""

from __future__ import annotations

from mcp.client.extension import ClientExtension

from tests.apps.real_server import RESOURCE_URI, build_server
from typed_elicit.client import AppCannotRender, AppRequest, app_capability, elicitation_handler

APP_CLIENT_EXTENSIONS: list[ClientExtension] = [app_capability()]
"""`mcp.Client(extensions=...)` of a client that can show app-rendered questions."""

__all__ = [
    "APP_CLIENT_EXTENSIONS",
    "RESOURCE_URI",
    "AppCannotRender",
    "AppRequest",
    "build_server",
    "elicitation_handler",
]
