"""typed_elicit: typed, safe MCP elicitation over the official `mcp` SDK."""

from ._context import DEFAULT_TIMEOUT, ElicitContext, OnUnsupported, get_default_timeout, set_default_timeout
from ._elicits import elicits
from ._errors import (
    ElicitationTimeout,
    ElicitationUnsupported,
    InvalidResponse,
    ReplayMismatch,
    SchemaError,
    TypedElicitError,
)
from ._reducer import Titles, form, form_message, is_form, reduce_schema
from ._results import Accepted, Cancelled, Declined, ElicitResult
from ._versions import LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, ProtocolVersion

__all__ = [
    "DEFAULT_TIMEOUT",
    "LATEST_PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "Accepted",
    "Cancelled",
    "Declined",
    "ElicitContext",
    "ElicitResult",
    "ElicitationTimeout",
    "ElicitationUnsupported",
    "InvalidResponse",
    "OnUnsupported",
    "ProtocolVersion",
    "ReplayMismatch",
    "SchemaError",
    "Titles",
    "TypedElicitError",
    "elicits",
    "form",
    "form_message",
    "get_default_timeout",
    "is_form",
    "reduce_schema",
    "set_default_timeout",
]
