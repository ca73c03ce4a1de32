"""Release-ready (issue 29): one version, a dated changelog, moved names with a deadline, the license,
what the wheel holds, and CI running every Python the package claims."""

from __future__ import annotations

import ast
import importlib.metadata
import re
from datetime import date
from pathlib import Path

import pytest

import typed_elicit
import typed_elicit.stores
from tests.conftest import redis_for_this_process
from tests.release.contents import (
    EXTRAS,
    force_included,
    project_version,
    sdist_problems,
    wheel_problems,
)
from tests.release.tutorial import install_lines
from tests.test_docs_changelog import CLIENT_MOVED, PAGES_MOVED, SHIMS
from typed_elicit._core.deprecation import MOVED_IN, REMOVED_IN

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
CHANGELOG = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
HEADING = re.compile(r"^## \[([^\]]+)\](.*)$", re.M)


def release(version: str) -> tuple[int, ...]:
    """`"0.3.0"` as `(0, 3, 0)`: the releases this project makes are plain X.Y.Z."""
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), version
    return tuple(map(int, version.split(".")))


def releases() -> list[tuple[str, str]]:
    """The changelog's release headings, newest first: (version, what follows the brackets)."""
    return [(name, rest) for name, rest in HEADING.findall(CHANGELOG) if name != "Unreleased"]


# --- one version --------------------------------------------------------------------------------


def test_the_version_is_pyprojects_the_installed_metadatas_and_typed_elicit_dunder_versions() -> None:
    installed = importlib.metadata.version("typed-elicit")
    assert installed == project_version(PYPROJECT), "reinstall: pip install -e '.[dev]'"
    assert typed_elicit.__version__ == installed


def test_the_version_is_the_changelogs_newest_release() -> None:
    newest, _ = releases()[0]
    assert typed_elicit.__version__ == newest


def test_the_changelog_opens_with_an_unreleased_section_then_dated_releases_newest_first() -> None:
    headings = HEADING.findall(CHANGELOG)
    assert headings[0] == ("Unreleased", "")  # no version: the next one is decided when it is released
    dates = []
    for version, rest in releases():
        found = re.fullmatch(r": (\d{4}-\d{2}-\d{2})", rest)
        assert found, f"## [{version}] has no date (## [{version}]: YYYY-MM-DD)"
        dates.append(date.fromisoformat(found[1]))
    assert dates == sorted(dates, reverse=True)
    versions = [release(version) for version, _ in releases()]
    assert versions == sorted(versions, reverse=True)


# --- deprecations with a deadline ---------------------------------------------------------------


def still_importable() -> list[str]:
    """Every moved name still importable from its old home, and every old module still there."""
    maps = {
        "typed_elicit": typed_elicit.MOVED,
        "typed_elicit.stores": typed_elicit.stores._RENAMED,  # pyright: ignore[reportPrivateUsage]
        "typed_elicit.pages": PAGES_MOVED,
        "typed_elicit.client": CLIENT_MOVED,
    }
    names = [f"{module}.{name}" for module, moved in maps.items() for name in moved]
    modules = [old for old in SHIMS if (ROOT / Path(*old.split("."))).with_suffix(".py").is_file()]
    return names + modules


def overdue(version: str) -> list[str]:
    """What a package at `version` must no longer have: the moved names once REMOVED_IN is reached."""
    return still_importable() if release(version) >= release(REMOVED_IN) else []


def test_no_moved_name_outlives_the_release_that_removes_it() -> None:
    assert overdue(typed_elicit.__version__) == [], (
        f"typed_elicit {typed_elicit.__version__} still has names that go in {REMOVED_IN}: remove them, "
        "their rows in docs/migration.md and the shims, then move REMOVED_IN on"
    )


def test_the_deadline_bites_at_the_removing_release_and_lies_after_this_one() -> None:
    assert overdue(REMOVED_IN) == still_importable()
    assert release(MOVED_IN) <= release(typed_elicit.__version__) < release(REMOVED_IN)


def test_a_moved_name_warns_with_the_release_that_removes_it() -> None:
    with pytest.warns(DeprecationWarning, match=rf"goes in typed_elicit {re.escape(REMOVED_IN)}\)$"):
        _ = typed_elicit.SchemaError  # pyright: ignore[reportAttributeAccessIssue]


# --- the license ----------------------------------------------------------------------------------


def test_the_license_file_is_the_mit_license_pyproject_declares() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the typed_elicit authors\n")
    assert 'license = "MIT"' in PYPROJECT
    assert 'license-files = ["LICENSE"]' in PYPROJECT


# --- what the wheel and the sdist hold (tests/release/contents.py; .ci/release runs it on real ones) ---

PACKAGE_FILES = [
    "typed_elicit/__init__.py",
    "typed_elicit/py.typed",
    "typed_elicit/pages/templates/page.html",
    "typed_elicit/_views/templates/fields.html",
    "typed_elicit/apps/templates/view.html",
    "typed_elicit/apps/templates/view.js",
    "typed_elicit/apps/templates/view.css",
    "typed_elicit/locale/typed_elicit.pot",
    "typed_elicit/locale/de/LC_MESSAGES/typed_elicit.po",
    "typed_elicit/locale/de/LC_MESSAGES/typed_elicit.mo",
    "typed_elicit/_cli/examples/deployment_wizard.py",
]
INFO = "typed_elicit-9.9.9.dist-info"
WHEEL = [*PACKAGE_FILES, *(f"{INFO}/{n}" for n in ("METADATA", "WHEEL", "RECORD", "entry_points.txt"))]
WHEEL.append(f"{INFO}/licenses/LICENSE")
METADATA = "Metadata-Version: 2.4\nName: typed-elicit\nVersion: 9.9.9\nLicense-Expression: MIT\n" + "".join(
    f"Provides-Extra: {extra}\n" for extra in EXTRAS
)
ENTRY_POINTS = (
    "[console_scripts]\ntyped-elicit = typed_elicit._cli:run\n\n"
    "[pytest11]\ntyped_elicit = typed_elicit.testing.pytest_plugin\n"
)


def problems_of(names: list[str], metadata: str = METADATA, entry_points: str = ENTRY_POINTS) -> list[str]:
    return wheel_problems(names, metadata, entry_points, version="9.9.9", expected=PACKAGE_FILES)


def test_a_wheel_of_the_tracked_package_its_metadata_and_license_has_no_problems() -> None:
    assert problems_of(WHEEL) == []


@pytest.mark.parametrize(
    "stray",
    ["tests/test_x.py", "typed_elicit/__pycache__/x.cpython-311.pyc", "typed_elicit/notes.txt", "x.py"],
)
def test_a_wheel_holding_anything_else_is_refused_by_name(stray: str) -> None:
    assert problems_of([*WHEEL, stray]) == [f"not meant for the wheel: {stray}"]


@pytest.mark.parametrize(
    ("gone", "kind"),
    [
        ("typed_elicit/py.typed", "the py.typed marker"),
        ("typed_elicit/locale/de/LC_MESSAGES/typed_elicit.mo", "a compiled catalog"),
        ("typed_elicit/_cli/examples/deployment_wizard.py", "a bundled example"),
        ("typed_elicit/apps/templates/view.js", None),
    ],
)
def test_a_wheel_without_a_file_it_ships_says_which(gone: str, kind: str | None) -> None:
    problems = problems_of([name for name in WHEEL if name != gone])
    assert f"missing from the wheel: {gone}" in problems
    assert kind is None or f"the wheel has no {kind}" in problems


def test_a_wheel_with_another_version_or_without_the_command_says_so() -> None:
    assert problems_of(WHEEL, METADATA.replace("9.9.9", "0.1.0")) == [
        "the wheel's METADATA lacks Version: 9.9.9"
    ]
    assert problems_of(WHEEL, METADATA.replace("Provides-Extra: pages\n", "")) == [
        "the wheel's METADATA lacks Provides-Extra: pages"
    ]
    assert problems_of(
        WHEEL, entry_points="[pytest11]\ntyped_elicit = typed_elicit.testing.pytest_plugin\n"
    ) == ["the wheel's entry_points.txt lacks 'typed-elicit = typed_elicit._cli:run'"]


def test_an_sdist_is_the_tracked_tree_and_its_pkg_info_nothing_installed_by_a_harness() -> None:
    tracked = ["pyproject.toml", "LICENSE", "typed_elicit/__init__.py"]
    right = [f"typed_elicit-9.9.9/{name}" for name in [*tracked, "PKG-INFO"]]
    installed = "tests/apps/host/node_modules/x/index.js"
    harness = f"typed_elicit-9.9.9/{installed}"
    assert sdist_problems(right, version="9.9.9", expected=tracked) == []
    assert sdist_problems([*right, harness], version="9.9.9", expected=tracked) == [
        f"not meant for the sdist (untracked or installed by a harness): {installed}"
    ]
    assert sdist_problems(right[1:], version="9.9.9", expected=tracked) == [
        "missing from the sdist: pyproject.toml"
    ]


def test_the_examples_the_demo_runs_are_force_included_from_files_that_exist() -> None:
    included = force_included(PYPROJECT)
    assert "examples/deployment_wizard.py" in included
    assert all((ROOT / source).is_file() for source in included)
    assert all(target.startswith("typed_elicit/_cli/examples/") for target in included.values())


# --- every Python it claims, in CI ----------------------------------------------------------------


def nox_pythons() -> list[str]:
    """noxfile.py's PYTHONS, read without importing it (importing it edits PATH)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    (value,) = [
        node.value
        for node in tree.body
        if isinstance(node, ast.AnnAssign | ast.Assign)
        and any(
            getattr(t, "id", None) == "PYTHONS"
            for t in getattr(node, "targets", [getattr(node, "target", None)])
        )
    ]
    found = ast.literal_eval(value)  # pyright: ignore[reportArgumentType]
    assert isinstance(found, list)
    return [str(version) for version in found]


def test_nox_runs_every_python_the_classifiers_claim_from_the_requires_python_floor() -> None:
    claimed = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', PYPROJECT)
    assert nox_pythons() == claimed
    assert f'requires-python = ">={claimed[0]}"' in PYPROJECT


def test_ci_runs_the_release_checks_and_every_nox_session_the_readme_run_does_not_cover() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme_python = "3.11"  # the README's command runs the whole suite in .ci/run's own .venv (3.11)
    floor = nox_pythons()[0]  # `lowest` runs there (noxfile.py)
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert re.search(r"@nox\.session\(python=PYTHONS\[0\]\)\ndef lowest\(", noxfile)
    sessions = [f"tests-{version}" for version in nox_pythons() if version not in (readme_python, floor)]
    (nox_line,) = [line for line in ci.splitlines() if re.search(r"\bnox\b.* -s ", line)]
    assert nox_line.split(" -s ", 1)[1].split()[: len(sessions) + 1] == [*sessions, "lowest"]
    assert re.search(r"^(timed )?\.ci/release( >\S+ 2>&1 &)?$", ci, re.M)
    if "timed .ci/release >" in ci:  # run beside nox: its failure must still fail CI
        assert re.search(r'wait "\$release_pid" \|\| release_status=\$\?', ci)
        assert '[ "$release_status" = 0 ] ||' in ci


def test_the_tutorial_installs_the_wheel_of_this_version_and_says_how_it_will_read_once_published() -> None:
    page = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    block = install_lines(page)
    assert f"pip install './typed_elicit-{typed_elicit.__version__}-py3-none-any.whl[cli]' pytest" in block
    assert (
        "Once typed-elicit is published, the second line will read `pip install 'typed-elicit[cli]' pytest`"
        in (" ".join(page.split()))
    )


# --- a fast loop that tells the truth: parallel workers, each on its own Redis database ---------


@pytest.mark.parametrize(
    ("base", "worker", "used"),
    [
        ("redis://127.0.0.1:6379/1", None, "redis://127.0.0.1:6379/1"),
        ("redis://127.0.0.1:6379/1", "gw0", "redis://127.0.0.1:6379/1"),
        ("redis://127.0.0.1:6379/1", "gw3", "redis://127.0.0.1:6379/4"),
        ("redis://:pw@10.0.0.5:6380/10", "gw5", "redis://:pw@10.0.0.5:6380/15"),
    ],
)
def test_each_xdist_worker_uses_the_database_after_the_previous_ones(
    base: str, worker: str | None, used: str
) -> None:
    assert redis_for_this_process(base, worker) == used


def test_a_worker_past_the_sixteen_databases_redis_has_is_a_usage_error_saying_what_to_do() -> None:
    with pytest.raises(pytest.UsageError, match=r"gw15 would use Redis database 16.*fewer workers"):
        redis_for_this_process("redis://127.0.0.1:6379/1", "gw15")
