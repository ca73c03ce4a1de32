"""The protocol revisions typed_elicit speaks, and what each allows on the wire."""

from __future__ import annotations

from typing import Final, Literal, TypeAlias, get_args

ProtocolVersion: TypeAlias = Literal["2025-06-18", "2025-11-25", "2026-07-28"]
"""A protocol revision that has elicitation."""

PROTOCOL_VERSIONS: Final[tuple[ProtocolVersion, ...]] = get_args(ProtocolVersion)
"""Every supported revision, oldest first."""

LATEST_PROTOCOL_VERSION: Final[ProtocolVersion] = "2026-07-28"
"""The newest revision; the default wherever a revision is asked for."""


def uses_input_required(version: ProtocolVersion) -> bool:
    """Whether questions travel as `InputRequiredResult` rounds (2026-07-28 and later).

    Named after the SDK's `InputRequiredResult`, the round it means.
    """
    return version >= "2026-07-28"


def has_url_mode(version: ProtocolVersion) -> bool:
    """Whether URL-mode questions exist (SEP-1036, 2025-11-25 and later)."""
    return version >= "2025-11-25"


def has_elicit_complete(version: ProtocolVersion) -> bool:
    """Whether `notifications/elicitation/complete` exists (2025-11-25 only; 2026-07-28 dropped it)."""
    return has_url_mode(version) and not uses_input_required(version)


def has_primitive_defaults(version: ProtocolVersion) -> bool:
    """Whether string, number and enum fields may carry a `default` (SEP-1034)."""
    return version >= "2025-11-25"


def has_modern_enums(version: ProtocolVersion) -> bool:
    """Whether titled `oneOf` and multi-select arrays exist (SEP-1330)."""
    return version >= "2025-11-25"
