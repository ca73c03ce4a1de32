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
- `call_tool_with_urls` calls a tool and, when it answers `-32042` (URL elicitation
  required), runs the listed URLs through a URL handler and calls it once more.
- Errors: `RequestedSchemaError` (the server's schema is not a valid elicitation
  schema) and `InvalidAnswer` (an answer does not fit the form). Both derive from
  `typed_elicit.TypedElicitError`.
"""

from typed_elicit.client._handler import (
    FieldSpec,
    FormHandler,
    FormRequest,
    FormSpec,
    InvalidAnswer,
    Option,
    PinnedHandshake,
    RequestedSchemaError,
    UrlAnswer,
    UrlHandler,
    UrlRequest,
    call_tool_with_urls,
    elicitation_handler,
    model_from_schema,
    parse_requested_schema,
)
from typed_elicit.client._responder import Responder

__all__ = [
    "FieldSpec",
    "FormHandler",
    "FormRequest",
    "FormSpec",
    "InvalidAnswer",
    "Option",
    "PinnedHandshake",
    "RequestedSchemaError",
    "Responder",
    "UrlAnswer",
    "UrlHandler",
    "UrlRequest",
    "call_tool_with_urls",
    "elicitation_handler",
    "model_from_schema",
    "parse_requested_schema",
]
