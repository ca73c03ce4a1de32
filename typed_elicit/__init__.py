"""typed_elicit: typed, safe MCP elicitation over the official `mcp` SDK.

This top level is the server framework. The client half (answering a server's
questions) is `typed_elicit.client`; the testing kit is `typed_elicit.testing`; the
terminal forms (which need the `cli` extra) are `typed_elicit.terminal`. Every error
typed_elicit raises is importable from here, except the two only a client meets
(`typed_elicit.client.RequestedSchemaError` and `InvalidAnswer`).
"""

import logging

from ._context import ElicitContext
from ._elicits import elicits
from ._errors import (
    ClientError,
    ElicitArgumentError,
    ElicitationTimeout,
    ElicitationUnsupported,
    ElicitUsageError,
    FallbackNotInstalled,
    HookError,
    InvalidFallbackToken,
    InvalidResponse,
    OptionsError,
    ReplayMismatch,
    SchemaError,
    StoreUnavailable,
    TypedElicitError,
)
from ._fallback import install_fallback
from ._hooks import AnswerEvent, ElicitHook, QuestionEvent, add_hooks, remove_hooks
from ._policy import get_default_timeout, set_default_timeout
from ._reducer import Choices, Titles, form, reduce_schema
from ._results import Accepted, Cancelled, Consented, Declined, ElicitResult, UrlResult
from ._store import ClaimStore, Store, configure
from ._versions import PROTOCOL_VERSIONS, ProtocolVersion

logging.getLogger("typed_elicit").addHandler(logging.NullHandler())

__all__ = [
    "PROTOCOL_VERSIONS",
    "Accepted",
    "AnswerEvent",
    "Cancelled",
    "Choices",
    "ClaimStore",
    "ClientError",
    "Consented",
    "Declined",
    "ElicitArgumentError",
    "ElicitContext",
    "ElicitHook",
    "ElicitResult",
    "ElicitUsageError",
    "ElicitationTimeout",
    "ElicitationUnsupported",
    "FallbackNotInstalled",
    "HookError",
    "InvalidFallbackToken",
    "InvalidResponse",
    "OptionsError",
    "ProtocolVersion",
    "QuestionEvent",
    "ReplayMismatch",
    "SchemaError",
    "Store",
    "StoreUnavailable",
    "Titles",
    "TypedElicitError",
    "UrlResult",
    "add_hooks",
    "configure",
    "elicits",
    "form",
    "get_default_timeout",
    "install_fallback",
    "reduce_schema",
    "remove_hooks",
    "set_default_timeout",
]
