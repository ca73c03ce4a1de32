"""App views: a form question shown by the server's own MCP App where the host can, a plain form elsewhere.

DRAFT. This follows SEP-3118 ("App-Rendered Elicitations for MCP Apps") and its normative MCP
Apps draft, ext-apps PR 733, neither of them settled; `typed_elicit._wire.draft` holds every
name taken from them and the pinned commit. What may change is listed in the how-to
(docs/howto/app_views.md).

- `@form(app=True)` (or `app=AppView(...)`) gives a form model an app view; `ctx.elicit(Model,
  app=...)` turns it on or off for one question, or adds a `Preview`.
- `serve_apps(server)` serves one fixed `ui://` resource per such model through the SDK's
  MCP Apps extension and advertises the draft's `elicitation` capability.
- `AppView` brands the view, or replaces its page; `Preview` is one call's preview.

Needs Jinja2 (the `apps` extra). Secrets stay page-only: a model with a secret field cannot
have an app view (`SchemaError`).
"""

from typed_elicit._core.faces import publish
from typed_elicit.apps._serve import serve_apps
from typed_elicit.apps._view import AppView, Preview
from typed_elicit.errors import AppViewError

__all__ = ["AppView", "AppViewError", "Preview", "serve_apps"]

publish(__name__, globals(), __all__)
