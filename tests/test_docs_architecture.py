"""docs/architecture.md states what the code is: its layout, its layers, where the era is checked.

The import cost it states (`import typed_elicit` loads no pages, Jinja2, Redis or client
module) is `tests/test_public_api.py::test_importing_the_server_framework_loads_no_client_half`;
this file checks the page names that test, and the rest here.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: pytest's own dependency
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "typed_elicit"
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")

VERSION_NAMES = frozenset({"PROTOCOL_VERSIONS", "LATEST_PROTOCOL_VERSION", "era", "protocol_version"})
"""Names whose comparison is a comparison of revisions."""
REVISION = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def section(heading: str) -> str:
    return PAGE.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def contract_layers() -> list[set[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (layers,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return [{name.strip() for name in layer.split("|")} for layer in layers["layers"]]


def page_layers() -> list[set[str]]:
    rows = re.findall(r"^\| (\d+) \| (.*) \|$", section("The layers"), re.M)
    assert [int(number) for number, _ in rows] == list(range(1, len(rows) + 1))
    return [set(re.findall(r"`([\w.]+)`", packages)) for _, packages in rows]


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_revision(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and bool(REVISION.match(node.value))
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_is_revision(item) for item in node.elts)
    return _name(node) in VERSION_NAMES


def era_checks(source: str) -> list[str]:
    """Every comparison of revisions in a module's source (a predicate's import is import-linter's).

    `x is None` / `x is not None` does not count: whether a call has an era at all is not
    a question about which era it is.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            about_none = all(isinstance(op, ast.Is | ast.IsNot) for op in node.ops) and any(
                isinstance(operand, ast.Constant) and operand.value is None for operand in operands
            )
            if not about_none and any(_is_revision(operand) for operand in operands):
                found.append(ast.unparse(node))
    return found


def documented_era_modules() -> set[str]:
    """The modules (`.../x.py`) and packages (`.../`, any module in it) the page lets check the era."""
    block = PAGE.split("<!-- era-checks -->", 1)[1].split("<!-- /era-checks -->", 1)[0]
    return set(re.findall(r"^- `(typed_elicit/[\w/]+(?:\.py|/))`", block, re.M))


def allowed_by(path: str, documented: set[str]) -> str | None:
    """The entry of the page that lets `path` check the era, if any."""
    for entry in documented:
        if path == entry or (entry.endswith("/") and path.startswith(entry)):
            return entry
    return None


def test_the_layers_on_the_page_are_the_layers_contract_in_pyproject() -> None:
    assert page_layers() == contract_layers()


def test_every_package_of_the_layout_table_exists_and_every_package_is_in_it() -> None:
    listed = set(re.findall(r"^\| `(\w+)/` \|", section("The layout"), re.M))
    packages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    assert listed == packages


def test_every_package_in_a_layer_is_one_the_layout_table_describes() -> None:
    listed = set(re.findall(r"^\| `(\w+)/` \|", section("The layout"), re.M))
    in_layers = {name.removeprefix("typed_elicit.") for layer in contract_layers() for name in layer}
    assert in_layers == listed


@pytest.mark.slow
def test_the_import_contracts_the_page_describes_hold() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_the_era_check_finder_sees_revision_comparisons() -> None:
    # the check below would pass vacuously if the finder saw nothing: show it sees each form
    assert era_checks("ok = version >= '2025-11-25'") == ["version >= '2025-11-25'"]
    assert era_checks("ok = call.era == LATEST") == ["call.era == LATEST"]
    assert era_checks("ok = v in PROTOCOL_VERSIONS") == ["v in PROTOCOL_VERSIONS"]
    assert era_checks("ok = v in ('2025-06-18', '2025-11-25')") == ["v in ('2025-06-18', '2025-11-25')"]
    assert era_checks("ok = call.era is None") == []
    assert era_checks("ok = name == 'page'") == []


def test_only_the_modules_the_page_names_check_the_era() -> None:
    checking = {
        str(path.relative_to(ROOT)): checks
        for path in sorted(PACKAGE.rglob("*.py"))
        if (checks := era_checks(path.read_text(encoding="utf-8")))
    }
    documented = documented_era_modules()
    outside = {path: checks for path, checks in checking.items() if allowed_by(path, documented) is None}
    assert outside == {}, "era checks outside the modules docs/architecture.md names"
    used = {allowed_by(path, documented) for path in checking} | set(era_contract_allows())
    assert sorted(documented - used - {"typed_elicit/_core/eras.py"}) == [], "names that check no era"


def era_contract_allows() -> list[str]:
    """The modules the forbidden contract on `typed_elicit._core.eras` lets import it, as page paths."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c["type"] == "forbidden" and c["forbidden_modules"] == ["typed_elicit._core.eras"]
    ]
    paths = []
    for edge in contract["ignore_imports"]:
        source, _, target = (part.strip() for part in edge.partition("->"))
        assert target == "typed_elicit._core.eras"
        path = source.replace(".", "/")
        paths.append(path.removesuffix("/*") + "/" if path.endswith("/*") else f"{path}.py")
    return paths


def test_the_era_contract_lets_exactly_the_modules_the_page_names_ask_the_era() -> None:
    comparing_only = {"typed_elicit/testing/_kit.py", "typed_elicit/testing/pytest_plugin.py"}
    assert set(era_contract_allows()) == documented_era_modules() - comparing_only - {
        "typed_elicit/_core/eras.py"
    }


def test_the_call_layer_asks_the_era_only_where_a_call_reads_it_and_picks_its_asker() -> None:
    calls = {path for path in era_contract_allows() if path.startswith("typed_elicit/_calls/")}
    assert calls == {
        "typed_elicit/_calls/call.py",
        "typed_elicit/_calls/askers.py",
        "typed_elicit/_calls/reach.py",
        "typed_elicit/_calls/push.py",
    }


def test_the_import_cost_the_page_states_is_checked_by_the_public_api_test() -> None:
    assert "`import typed_elicit` loads neither pages" in PAGE
    source = (ROOT / "tests" / "test_public_api.py").read_text(encoding="utf-8")
    assert "def test_importing_the_server_framework_loads_no_client_half" in source
    assert "tests/test_public_api.py" in section("The layers")


@pytest.mark.parametrize("package", ["_core", "_observe", "_calls"])
def test_the_layout_row_of_a_package_described_by_module_names_every_module_of_it(package: str) -> None:
    # `_forms` is described by role, not by file: its modules are being split
    (row,) = re.findall(rf"^\| `{package}/` \| (.*) \|$", section("The layout"), re.M)
    named = set(re.findall(r"`(\w+)`", row))
    modules = {path.stem for path in (PACKAGE / package).glob("*.py") if path.stem != "__init__"}
    assert sorted(modules - named) == []


def test_every_call_module_the_flow_names_exists() -> None:
    flow = section("One question, from `@form` to the wire and back")
    for module in (
        "askers",
        "refusal",
        "answer",
        "signals",
        "settle",
        "questions",
        "state",
        "arguments",
        "policy",
    ):
        assert f"`{module}" in flow
        assert (PACKAGE / "_calls" / f"{module}.py").is_file(), module
