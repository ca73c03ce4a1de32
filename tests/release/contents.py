"""What would be published: the wheel and the sdist hold what they must and nothing else.

`.ci/release` runs `python -m tests.release.contents dist/*.whl dist/*.tar.gz` from the checkout
after `python -m build`; `tests/test_release.py` checks the rules on made-up listings. Prints one
line per problem and exits 1, or prints what it checked and exits 0.

The wheel holds exactly the git-tracked files under `typed_elicit/` (modules, `py.typed`, the
templates, the locale catalogs, `.po` and compiled `.mo`), the examples `typed-elicit demo` runs
(`force-include` in pyproject.toml) and its `.dist-info` (metadata naming this version and the
MIT license, the LICENSE file, the command and the pytest plugin). The sdist holds exactly the
git-tracked tree and its `PKG-INFO`, so a wheel built from it is the same.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Collection, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "typed_elicit"
EXTRAS = ("cli", "pages", "apps", "redis")
"""The extras a user installs for the command, pages, app views and replicas (README, tutorial)."""
KINDS = {
    "the py.typed marker": re.compile(r"typed_elicit/py\.typed"),
    "a page template": re.compile(r"typed_elicit/pages/templates/[\w.]+\.html"),
    "the shared field markup": re.compile(r"typed_elicit/_views/templates/fields\.html"),
    "the app view's template, script and style": re.compile(
        r"typed_elicit/apps/templates/view\.(html|js|css)"
    ),
    "a compiled catalog": re.compile(r"typed_elicit/locale/\w+/LC_MESSAGES/typed_elicit\.mo"),
    "a catalog's source": re.compile(r"typed_elicit/locale/\w+/LC_MESSAGES/typed_elicit\.po"),
    "the catalog template": re.compile(r"typed_elicit/locale/typed_elicit\.pot"),
    "a bundled example": re.compile(r"typed_elicit/_cli/examples/\w+\.py"),
}
"""What a user's install needs besides modules: the wheel must hold at least one of each."""


def tracked(root: Path = ROOT) -> list[str]:
    """The files git tracks in the checkout, as paths relative to it."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, text=True, check=True, timeout=60
    )
    return [name for name in listed.stdout.split("\0") if name and (root / name).is_file()]


def force_included(pyproject: str) -> dict[str, str]:
    """The wheel's `force-include` table of pyproject.toml: source path -> path in the wheel."""
    table = pyproject.split("[tool.hatch.build.targets.wheel.force-include]", 1)[1].split("\n[", 1)[0]
    return dict(re.findall(r'^"([^"]+)" = "([^"]+)"$', table, re.M))


def project_version(pyproject: str) -> str:
    """The `version` of pyproject.toml's `[project]` table."""
    found = re.search(r'^\[project\]$.*?^version = "([^"]+)"$', pyproject, re.M | re.S)
    if found is None:
        raise ValueError("pyproject.toml's [project] table has no version line")
    return found[1]


def wheel_problems(
    names: Collection[str], metadata: str, entry_points: str, *, version: str, expected: Iterable[str]
) -> list[str]:
    """Every way the wheel's listing and metadata differ from what it must ship.

    Args:
        names: The wheel's file names.
        metadata: Its `.dist-info/METADATA`.
        entry_points: Its `.dist-info/entry_points.txt`.
        version: The version it must carry.
        expected: The files it must hold outside its `.dist-info` (and no others).

    Returns:
        One sentence per problem; empty when the wheel is right.
    """
    info = f"{PACKAGE}-{version}.dist-info"
    wanted = set(expected) | {
        f"{info}/{name}" for name in ("METADATA", "WHEEL", "RECORD", "entry_points.txt")
    }
    wanted.add(f"{info}/licenses/LICENSE")
    problems = [f"missing from the wheel: {name}" for name in sorted(wanted - set(names))]
    problems += [f"not meant for the wheel: {name}" for name in sorted(set(names) - wanted)]
    problems += [
        f"the wheel has no {kind}" for kind, shape in KINDS.items() if not any(map(shape.fullmatch, names))
    ]
    fields = [tuple(line.split(": ", 1)) for line in metadata.split("\n\n", 1)[0].splitlines()]
    needed = [("Version", version), ("License-Expression", "MIT"), *(("Provides-Extra", x) for x in EXTRAS)]
    problems += [
        f"the wheel's METADATA lacks {key}: {value}" for key, value in needed if (key, value) not in fields
    ]
    for line in ("typed-elicit = typed_elicit._cli:run", "typed_elicit = typed_elicit.testing.pytest_plugin"):
        if line not in entry_points.splitlines():
            problems.append(f"the wheel's entry_points.txt lacks {line!r}")
    return problems


def sdist_problems(names: Collection[str], *, version: str, expected: Iterable[str]) -> list[str]:
    """Every way the sdist's listing differs from the tracked tree plus its `PKG-INFO`.

    Args:
        names: The sdist's file names (directories left out).
        version: The version it must carry (its top directory is `typed_elicit-<version>`).
        expected: The files it must hold, relative to its top directory.

    Returns:
        One sentence per problem; empty when the sdist is right.
    """
    top = f"{PACKAGE}-{version}/"
    outside = sorted(name for name in names if not name.startswith(top))
    inside = {name.removeprefix(top) for name in names if name.startswith(top)}
    wanted = {*expected, "PKG-INFO"}
    problems = [f"outside {top} in the sdist: {name}" for name in outside]
    problems += [f"missing from the sdist: {name}" for name in sorted(wanted - inside)]
    problems += [
        f"not meant for the sdist (untracked or installed by a harness): {name}"
        for name in sorted(inside - wanted)
    ]
    return problems


def check(wheel: Path, sdist: Path, root: Path = ROOT) -> tuple[list[str], str]:
    """The problems of a built wheel and sdist against the checkout at `root`, and a summary.

    Raises:
        ValueError: If pyproject.toml has no version.
    """
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    version = project_version(pyproject)
    files = tracked(root)
    shipped = [name for name in files if name.startswith(f"{PACKAGE}/")]
    shipped += force_included(pyproject).values()
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = f"{PACKAGE}-{version}.dist-info"
        read = {
            name: archive.read(f"{info}/{name}").decode() if f"{info}/{name}" in names else ""
            for name in ("METADATA", "entry_points.txt")
        }
    problems = wheel_problems(
        names, read["METADATA"], read["entry_points.txt"], version=version, expected=shipped
    )
    with tarfile.open(sdist) as archive:
        members = [member.name for member in archive.getmembers() if member.isfile()]
    problems += sdist_problems(members, version=version, expected=files)
    return problems, f"{len(names)} files in the wheel, {len(members)} in the sdist, version {version}"


def main(argv: list[str]) -> int:
    """`python -m tests.release.contents WHEEL SDIST`: exit 0 when both are right."""
    wheel, sdist = (Path(arg) for arg in argv)
    problems, summary = check(wheel, sdist)
    for problem in problems:
        print(f"contents: {problem}", file=sys.stderr)
    print(f"contents: {'FAILED' if problems else 'ok'}: {summary}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
