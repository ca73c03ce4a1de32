"""Every error typed_elicit raises, as one tree.

```
TypedElicitError
├── DeclarationError: the code declares or asks for something that cannot work (fix the code)
│   ├── SchemaError             a model cannot be elicited (at class definition)
│   ├── OptionsError            a question's options or defaults do not fit its model
│   ├── ElicitUsageError        typed_elicit used in a way that cannot work
│   │   └── ElicitArgumentError a call got an argument it cannot use (ValueError, TypeError)
│   ├── FallbackNotInstalled    on_unsupported="fallback" without install_fallback(server)
│   ├── PagesNotServed          ctx.elicit_page without serve_pages(server)
│   ├── PageSetupError          a serve_pages or Brand (a page's look) setting that cannot be used
│   ├── AppViewError            an app view that cannot be served or asked for as given
│   ├── StoreUrlError           a store URL that names no Redis
│   ├── RequestedSchemaError    (a client) a server's schema is no elicitation schema
│   └── ScriptMistake           (the testing kit) a test's script went wrong, not the tool
├── NoAnswerError: a question got no usable answer (carry on without it)
│   ├── ElicitationUnsupported  the client cannot be asked (and the policy is "raise")
│   ├── ElicitationTimeout      no answer in time, or the call outlived its call_timeout
│   ├── InvalidResponse         an answer does not fit the form (on both ends)
│   ├── ClientError             the client answered with a JSON-RPC error
│   ├── AppCannotRender         (a client) the host cannot show the app: the form answers
│   └── HookError               an elicitation hook failed
└── ServerStateError: what a call carries between requests cannot be used (start afresh)
    ├── ReplayMismatch          a 2026-07-28 re-run asked another question at a position
    ├── InvalidFallbackToken    a fallback token that is altered, expired, used or foreign
    └── StoreUnavailable        the shared store did not answer
```

Each error keeps what went wrong as attributes, documented on its class; code reads the
attributes, people read the message. Every raise goes through a builder that takes the
situation's data (a classmethod such as `ElicitationTimeout.unanswered(...)`, or a
constructor that takes data, not a message), and the builder holds the wording: what
failed, why, and the fix. No message quotes a user's answer; an attribute is None only
where its docstring says "None when ...".
"""

from typed_elicit._core.faces import publish
from typed_elicit.errors._apps import AppCannotRender, AppViewError
from typed_elicit.errors._base import DeclarationError, NoAnswerError, ServerStateError, TypedElicitError
from typed_elicit.errors._declaration import (
    ElicitArgumentError,
    ElicitUsageError,
    FallbackNotInstalled,
    OptionsError,
    PageSetupError,
    PagesNotServed,
    RequestedSchemaError,
    SchemaError,
    ScriptMistake,
    StoreUrlError,
)
from typed_elicit.errors._no_answer import (
    ClientError,
    ElicitationTimeout,
    ElicitationUnsupported,
    HookError,
    InvalidResponse,
)
from typed_elicit.errors._server_state import InvalidFallbackToken, ReplayMismatch, StoreUnavailable

__all__ = [
    "AppCannotRender",
    "AppViewError",
    "ClientError",
    "DeclarationError",
    "ElicitArgumentError",
    "ElicitUsageError",
    "ElicitationTimeout",
    "ElicitationUnsupported",
    "FallbackNotInstalled",
    "HookError",
    "InvalidFallbackToken",
    "InvalidResponse",
    "NoAnswerError",
    "OptionsError",
    "PageSetupError",
    "PagesNotServed",
    "ReplayMismatch",
    "RequestedSchemaError",
    "SchemaError",
    "ScriptMistake",
    "ServerStateError",
    "StoreUnavailable",
    "StoreUrlError",
    "TypedElicitError",
]

publish(__name__, globals(), __all__)
