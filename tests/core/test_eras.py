"""Where a request's version becomes an era, and what each era allows."""

from __future__ import annotations

import pytest

from typed_elicit._core import eras
from typed_elicit._core.eras import negotiated_era
from typed_elicit._core.versions import LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS


@pytest.mark.parametrize(
    ("version", "era"),
    [
        (None, None),
        ("2024-11-05", None),
        ("2025-03-26", None),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2026-07-28"),
        ("2027-01-01", "2026-07-28"),
    ],
)
def test_negotiated_versions_map_to_elicitation_eras(version, era):
    assert negotiated_era(version) == era


@pytest.mark.parametrize(
    ("era", "rounds", "url_mode", "complete", "defaults", "enums"),
    [
        ("2025-06-18", False, False, False, False, False),
        ("2025-11-25", False, True, True, True, True),
        ("2026-07-28", True, True, False, True, True),
    ],
)
def test_each_era_allows_exactly_what_its_revision_brought(era, rounds, url_mode, complete, defaults, enums):
    assert eras.uses_input_required(era) is rounds
    assert eras.has_url_mode(era) is url_mode
    assert eras.has_elicit_complete(era) is complete
    assert eras.has_primitive_defaults(era) is defaults
    assert eras.has_modern_enums(era) is enums


def test_every_supported_revision_is_its_own_era_oldest_first():
    assert [negotiated_era(version) for version in PROTOCOL_VERSIONS] == list(PROTOCOL_VERSIONS)
    assert list(PROTOCOL_VERSIONS) == sorted(PROTOCOL_VERSIONS)
    assert PROTOCOL_VERSIONS[-1] == LATEST_PROTOCOL_VERSION
