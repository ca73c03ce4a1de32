"""The draft this package builds to: every name, key and shape it takes from SEP-3118 / ext-apps PR 733.

Everything marked "follows ext-apps PR 733 @ PIN" may change when the SEP settles; change it
here (and in the view's script, `typed_elicit/apps/templates/view.js`, which repeats the bridge
names) and the rest follows: the server's reach (`_calls.reach`), the app views (`apps`) and the
client half (`client`) all read their names from here. What was read, and what could not be, is in
`docs/howto/app_views.md`.

Pinned text: SEP-3118, `seps/0000-app-rendered-elicitations.md` in
modelcontextprotocol/modelcontextprotocol at commit
2f3669e5d21697db2744567d0d65b76aa54c8206 (the PR's branch, as stored). ext-apps PR 733's own
head commit could not be read here; its description and the merged Inspector PR 2083
(`core/mcp/appElicitation.ts`, "mirror the ext-apps draft (#733)") agree with the SEP on every
name below.
"""

from __future__ import annotations

from typing import Any, Final

SEP_COMMIT: Final = "2f3669e5d21697db2744567d0d65b76aa54c8206"
"""The commit of SEP-3118's text this package follows."""
PIN: Final = (
    f"SEP-3118 @ modelcontextprotocol/modelcontextprotocol {SEP_COMMIT}; ext-apps PR 733 (head unverified)"
)
"""What "the pin" means wherever the code or the docs say "follows ext-apps PR 733 @ PIN"."""

# --- MCP Apps, as released (mcp.server.apps, ext-apps 2.0.4) --------------------------------

UI_EXTENSION: Final = "io.modelcontextprotocol/ui"
"""The MCP Apps extension identifier (released; the SDK's `mcp.server.apps.EXTENSION_ID`)."""
APP_MIME_TYPE: Final = "text/html;profile=mcp-app"
"""The MIME type of an app's HTML resource (released; `mcp.server.apps.APP_MIME_TYPE`)."""
CLIENT_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
"""Where a 2026-07-28 request carries the client's capabilities (request-scoped; released core)."""
BRIDGE_PROTOCOL_VERSION: Final = "2026-01-26"
"""The View<->Host bridge revision the view offers in `ui/initialize` (ext-apps 2.0.4's latest)."""
INITIALIZE: Final = "ui/initialize"
"""View -> Host request: `{protocolVersion, appInfo, appCapabilities}` (released)."""
INITIALIZED: Final = "ui/notifications/initialized"
"""View -> Host notification after the initialize result (released)."""
SIZE_CHANGED: Final = "ui/notifications/size-changed"
"""View -> Host notification `{width, height}` (released)."""
TEARDOWN: Final = "ui/resource-teardown"
"""Host -> View request before the view is removed; the view answers `{}` (released)."""

# --- what the draft adds: follows ext-apps PR 733 @ PIN -------------------------------------

ELICITATION_SETTING: Final = "elicitation"
"""The member SEP-3118 adds, as `{}`, to: the client's ui extension settings, the server's ui
extension settings, the app's `appCapabilities` and the host's `hostCapabilities`
(follows ext-apps PR 733 @ PIN)."""
CLIENT_UI_SETTINGS: Final[dict[str, Any]] = {"mimeTypes": [APP_MIME_TYPE], ELICITATION_SETTING: {}}
"""A client's `capabilities.extensions["io.modelcontextprotocol/ui"]` that can show app views,
beside core `elicitation.form` (follows ext-apps PR 733 @ PIN)."""
SERVER_UI_SETTINGS: Final[dict[str, Any]] = {ELICITATION_SETTING: {}}
"""A server's `capabilities.extensions["io.modelcontextprotocol/ui"]` member that offers app
views: in `initialize` before 2026-07-28, in `server/discover` on it (follows ext-apps PR 733 @ PIN)."""
ELICIT_METHOD: Final = "elicitation/create"
"""Host -> View request forwarding the server's form request UNCHANGED (`_meta` included);
the view's response is the standard `ElicitResult` (follows ext-apps PR 733 @ PIN)."""
UI_META: Final = "ui"
"""The `_meta` member of an `elicitation/create` request that binds an app (follows ext-apps PR 733 @ PIN)."""
RESOURCE_URI: Final = "resourceUri"
"""Inside `_meta.ui`: the absolute `ui://` URI of the app resource (follows ext-apps PR 733 @ PIN)."""

# --- typed_elicit's own (not the draft's) ---------------------------------------------------

VIEW_META: Final = "io.github.typed-elicit/view"
"""typed_elicit's `_meta` key for one call's data: `{"preview": ..., "search": [field, ...]}`."""
APP_NAME: Final = "typed-elicit-view"
"""The `appInfo.name` the view gives in `ui/initialize`."""
