"""typed_elicit: typed, safe MCP elicitation over the official `mcp` SDK."""

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
    "LATEST_PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "Accepted",
    "Cancelled",
    "Declined",
    "ElicitResult",
    "ElicitationTimeout",
    "ElicitationUnsupported",
    "InvalidResponse",
    "ProtocolVersion",
    "ReplayMismatch",
    "SchemaError",
    "Titles",
    "TypedElicitError",
    "form",
    "form_message",
    "is_form",
    "reduce_schema",
]
