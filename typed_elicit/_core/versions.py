"""The protocol revisions typed_elicit speaks: names only (what each allows is `eras`)."""

from __future__ import annotations

from typing import Final, Literal, TypeAlias, get_args

ProtocolVersion: TypeAlias = Literal["2025-06-18", "2025-11-25", "2026-07-28"]
"""A protocol revision that has elicitation."""

PROTOCOL_VERSIONS: Final[tuple[ProtocolVersion, ...]] = get_args(ProtocolVersion)
"""Every supported revision, oldest first."""

LATEST_PROTOCOL_VERSION: Final[ProtocolVersion] = "2026-07-28"
"""The newest revision; the default wherever a revision is asked for."""
