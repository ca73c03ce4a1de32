"""docs/peers.md shows what the peers said last: every expected check, and no stale TODO."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "peers.md").read_text(encoding="utf-8")


def expected_checks() -> set[tuple[str, str]]:
    spec = importlib.util.spec_from_file_location(
        "check_results", ROOT / "tests" / "peers" / "check_results.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expected: dict[str, list[str]] = module.EXPECTED
    return {(scenario, check) for scenario, checks in expected.items() for check in checks}


def conformance_output() -> str:
    section = PAGE.split("## The conformance suite", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"^Last output.*?\n\n```text\n(.*?)^```", section, re.S | re.M)
    return str(block)


def test_the_conformance_output_on_the_page_has_every_expected_check_succeeding() -> None:
    lines = conformance_output().splitlines()
    passed = {tuple(line.split()[1:3]) for line in lines if line.startswith("  ok ")}
    expected = expected_checks()

    assert [line for line in lines if line.lstrip().startswith("FAIL")] == []
    assert passed == expected
    assert f"CONFORMANCE: all checks SUCCESS (4 scenarios, {len(expected)} expected checks present)" in lines
    assert f"Last output ({len(expected)} of {len(expected)} checks SUCCESS):" in PAGE


def test_every_todo_the_page_mentions_is_in_the_file_it_names() -> None:
    for paragraph in PAGE.split("\n\n"):
        if "TODO" not in paragraph:
            continue
        files = re.findall(r"`([\w./-]+\.py)`", paragraph)
        assert files, f"a TODO without a file: {paragraph!r}"
        for name in files:
            assert "TODO" in (ROOT / name).read_text(encoding="utf-8"), f"{name} has no TODO: {paragraph!r}"
