"""typed_elicit: typed, safe MCP elicitation over the official `mcp` SDK.

This top level is the server framework. The client half (answering a server's
questions) is `typed_elicit.client`; the testing kit is `typed_elicit.testing`; the
terminal forms (which need the `cli` extra) are `typed_elicit.terminal`. Every error
typed_elicit raises is importable from here, except the two only a client meets
(`typed_elicit.client.RequestedSchemaError` and `InvalidAnswer`).
"""

import logging

from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.elicits import elicits
from typed_elicit._calls.policy import get_default_timeout, set_default_timeout
from typed_elicit._calls.url_required import UrlElicitation, url_required
from typed_elicit._core.results import Accepted, Cancelled, Consented, Declined, ElicitResult, UrlResult
from typed_elicit._core.versions import PROTOCOL_VERSIONS, ProtocolVersion
from typed_elicit._forms.reduce import Choices, Titles, form, reduce_schema
from typed_elicit._observe.hooks import AnswerEvent, ElicitHook, QuestionEvent, add_hooks, remove_hooks
from typed_elicit.errors import (
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
from typed_elicit.fallback._companion import install_fallback
from typed_elicit.stores._memory import ClaimStore, Store, configure

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
    "UrlElicitation",
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
    "url_required",
]
