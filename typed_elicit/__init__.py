"""typed_elicit: typed, safe MCP elicitation over the official `mcp` SDK.

The testing kit lives in `typed_elicit.testing`; the terminal forms (which need the
`cli` extra) in `typed_elicit.terminal`.
"""

import logging

from ._client import (
    FieldSpec,
    FormRequest,
    FormSpec,
    InvalidAnswer,
    Option,
    PinnedHandshake,
    RequestedSchemaError,
    UrlAnswer,
    UrlRequest,
    elicitation_handler,
    model_from_schema,
    parse_requested_schema,
)
from ._context import (
    DEFAULT_TIMEOUT,
    ElicitContext,
    OnUnsupported,
    UrlOnUnsupported,
    get_default_timeout,
    set_default_timeout,
)
from ._elicits import elicits
from ._errors import (
    ClientError,
    ElicitationTimeout,
    ElicitationUnsupported,
    ElicitUsageError,
    FallbackNotInstalled,
    HookError,
    InvalidFallbackToken,
    InvalidResponse,
    ReplayMismatch,
    SchemaError,
    TypedElicitError,
)
from ._fallback import RedeemedTokens, install_fallback
from ._hooks import AnswerEvent, ElicitHook, QuestionEvent, add_hooks, remove_hooks
from ._reducer import Titles, form, form_message, is_form, reduce_schema
from ._responder import Responder
from ._results import Accepted, Cancelled, Consented, Declined, ElicitResult, UrlResult
from ._store import ClaimStore, configure
from ._versions import LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, ProtocolVersion

logging.getLogger("typed_elicit").addHandler(logging.NullHandler())

__all__ = [
    "DEFAULT_TIMEOUT",
    "LATEST_PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "Accepted",
    "AnswerEvent",
    "Cancelled",
    "ClaimStore",
    "ClientError",
    "Consented",
    "Declined",
    "ElicitContext",
    "ElicitHook",
    "ElicitResult",
    "ElicitUsageError",
    "ElicitationTimeout",
    "ElicitationUnsupported",
    "FallbackNotInstalled",
    "FieldSpec",
    "FormRequest",
    "FormSpec",
    "HookError",
    "InvalidAnswer",
    "InvalidFallbackToken",
    "InvalidResponse",
    "OnUnsupported",
    "Option",
    "PinnedHandshake",
    "ProtocolVersion",
    "QuestionEvent",
    "RedeemedTokens",
    "ReplayMismatch",
    "RequestedSchemaError",
    "Responder",
    "SchemaError",
    "Titles",
    "TypedElicitError",
    "UrlAnswer",
    "UrlOnUnsupported",
    "UrlRequest",
    "UrlResult",
    "add_hooks",
    "configure",
    "elicitation_handler",
    "elicits",
    "form",
    "form_message",
    "get_default_timeout",
    "install_fallback",
    "is_form",
    "model_from_schema",
    "parse_requested_schema",
    "reduce_schema",
    "remove_hooks",
    "set_default_timeout",
]
