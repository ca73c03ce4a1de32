"""The server and the client half that the browser proof runs against: the ONE place to swap at merge.

Until `typed_elicit.apps` (helper apps23) is merged, these are the stand-ins of
tests/apps/standin.py, built to the contract in /work/notes/app_pin.md section 7. At merge,
replace the import below with the real ones (and delete standin.py, standin_view.html):

    from typed_elicit.client import AppCannotRender, AppRequest, app_capability, elicitation_handler
    APP_CLIENT_EXTENSIONS = [app_capability()]
    from tests.apps.real_server import RESOURCE_URI, build_server  # a typed_elicit server, see below

`build_server(origin) -> MCPServer` must serve a tool `book_offsite` (no arguments) that asks
`Offsite` (the model of standin.py, opted into its app view) with `@elicits(Offsite, retries=1)`
and `await ctx.elicit(Offsite)`, and returns the same words as the stand-in: "Booked {seats}
seats in {city} for {organiser}" (+ ", vegetarian"), "declined", "cancelled". RESOURCE_URI is
the view's `ui://` URI (typed_elicit.apps names it `ui://typed-elicit/<module>.<Qualname>`).
"""

from __future__ import annotations

from tests.apps.standin import (
    APP_CLIENT_EXTENSIONS,
    RESOURCE_URI,
    AppCannotRender,
    AppRequest,
    elicitation_handler,
)
from tests.apps.standin import build_standin_server as build_server

__all__ = [
    "APP_CLIENT_EXTENSIONS",
    "RESOURCE_URI",
    "AppCannotRender",
    "AppRequest",
    "build_server",
    "elicitation_handler",
]
