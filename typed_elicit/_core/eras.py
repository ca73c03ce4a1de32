"""What each protocol revision allows: the one place the era is compared.

Every question about an era is a predicate here (a revision in, a yes or no out), and
`negotiated_era` turns a request's negotiated version into an era, once per call. Only the
modules `docs/architecture.md` names import this module (import-linter's forbidden contract
in `pyproject.toml`): everything else sees an asker and a question, not an era.
"""

from __future__ import annotations

from typed_elicit._core.versions import LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, ProtocolVersion


def negotiated_era(version: str | None) -> ProtocolVersion | None:
    """The elicitation era of a negotiated protocol version, or None if it has none.

    Args:
        version: `Context.protocol_version` (None outside a request).

    Returns:
        The matching supported revision; revisions newer than the newest known
        one behave like it; revisions before 2025-06-18 have no elicitation.
    """
    if version is None:
        return None
    for era in PROTOCOL_VERSIONS:
        if version == era:
            return era
    return LATEST_PROTOCOL_VERSION if version > LATEST_PROTOCOL_VERSION else None


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
