"""The client half: answer a server's elicitation requests with typed, checked values.

A client program imports from here; a server never needs to (`typed_elicit` itself is
the server framework). The outcomes a form handler returns (`Accepted`, `Declined`,
`Cancelled`) are the same result types a tool receives and stay in `typed_elicit`.

- `elicitation_handler` turns typed async functions into the SDK's `elicitation_callback`;
  `FormRequest`/`UrlRequest` are what they receive, `UrlAnswer` what a URL handler returns.
- `Responder` answers by rule (CI, scripted clients) without a person.
- `parse_requested_schema` reads a requested schema into a `FormSpec` of `FieldSpec`s
  (with `Option`s); `model_from_schema` builds a pydantic model from it.
- `PinnedHandshake` pins the protocol revision a client offers.
- App views (draft, SEP-3118): `elicitation_handler(app=...)` shows a question in the
  server's app through an `AppRenderer` (it gets an `AppRequest`; `AppCannotRender` falls back
  to the form); `app_capability()` advertises it to the server.
- `call_tool_with_urls` calls a tool and, when it answers `-32042` (URL elicitation
  required), runs the listed URLs through a URL handler and calls it once more.
- Errors (from `typed_elicit.errors`): `RequestedSchemaError` (the server's schema is not a
  valid elicitation schema) and `InvalidResponse` (an answer does not fit the form: the
  same error a server raises for a client's answer that does not fit).
- `typed_elicit.client.terminal`: interactive terminal forms (the `cli` extra).
"""

from typing import Any

from typed_elicit._core.deprecation import moved
from typed_elicit._core.faces import publish
from typed_elicit.client._apps import AppRenderer, AppRequest, app_capability
from typed_elicit.client._handler import (
    FieldSpec,
    FormHandler,
    FormRequest,
    FormSpec,
    Option,
    PinnedHandshake,
    UrlAnswer,
    UrlHandler,
    UrlRequest,
    call_tool_with_urls,
    elicitation_handler,
    model_from_schema,
    parse_requested_schema,
)
from typed_elicit.client._responder import Responder
from typed_elicit.errors import AppCannotRender, InvalidResponse, RequestedSchemaError

__all__ = [
    "AppCannotRender",
    "AppRenderer",
    "AppRequest",
    "FieldSpec",
    "FormHandler",
    "FormRequest",
    "FormSpec",
    "InvalidResponse",
    "Option",
    "PinnedHandshake",
    "RequestedSchemaError",
    "Responder",
    "UrlAnswer",
    "UrlHandler",
    "UrlRequest",
    "app_capability",
    "call_tool_with_urls",
    "elicitation_handler",
    "model_from_schema",
    "parse_requested_schema",
]

publish(__name__, globals(), __all__)


def __getattr__(name: str) -> Any:
    """`InvalidAnswer` is `typed_elicit.errors.InvalidResponse` now: still importable, with a warning."""
    return moved(__name__, name, {"InvalidAnswer": "typed_elicit.errors:InvalidResponse"})
