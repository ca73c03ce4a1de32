"""Every code example in the docs is a file that this test runs; README examples run too."""

from __future__ import annotations

import re
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_types import TextContent

from typed_elicit import PROTOCOL_VERSIONS, ProtocolVersion
from typed_elicit.testing import Answer, ScriptedUser, accept, cancel, connect, decline

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md"))
PEER_SERVERS = ROOT / "tests" / "peers" / "servers"
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
SNIPPET = re.compile(r'^--8<-- "([^":]+)(?::[\w-]+)?"$')


def python_blocks(path: Path) -> list[str]:
    return FENCE.findall(path.read_text(encoding="utf-8"))


def included_files() -> list[Path]:
    files: set[Path] = set()
    for page in DOCS:
        for block in python_blocks(page):
            for line in block.strip().splitlines():
                match = SNIPPET.match(line.strip())
                assert match, f"{page.name}: python examples must be snippet includes of files, got {line!r}"
                files.add(ROOT / match[1])
    return sorted(files)


def test_docs_python_examples_are_included_files_under_examples_docs_or_peer_servers() -> None:
    for file in included_files():
        assert file.is_file(), f"{file} is included by the docs but does not exist"
        assert file.relative_to(ROOT).parts[0] in {"examples", "docs"} or file.parent == PEER_SERVERS


@pytest.mark.parametrize("file", included_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_included_docs_example_runs(file: Path) -> None:
    runpy.run_path(str(file), run_name="docs_example")


def run_readme_example() -> dict[str, Any]:
    (block,) = python_blocks(ROOT / "README.md")
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    exec(compile(block, "README.md", "exec", dont_inherit=True), namespace)
    return namespace


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (accept(env="prod", replicas=3), "deployed web to prod x3"),
        (accept(env="stg"), "deployed web to stg x2"),
        (decline(), "not deployed: declined"),
        (cancel(), "not deployed: cancelled"),
    ],
)
async def test_the_readme_tool_answers_as_the_readme_says_on_every_era(
    era: ProtocolVersion, answer: Answer, expected: str
) -> None:
    example = run_readme_example()
    user = ScriptedUser(answer)
    with anyio.fail_after(10):
        async with connect(example["server"], era, elicitation_callback=user) as client:
            result = await client.call_tool("deploy", {"app": "web"})
    assert not result.is_error
    assert [c.text for c in result.content if isinstance(c, TextContent)] == [expected]
    (question,) = user.questions
    assert question.message == "Where should we deploy?"
    user.assert_done()


def test_declaring_models_example_prints_each_modern_schema() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "declaring_models.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert out.startswith("2025-11-25 {")
    assert '"enumNames"' not in out
    assert "2026-07-28 {" in out


def test_no_tracked_text_file_holds_a_merge_conflict_marker():
    root = Path(__file__).resolve().parent.parent
    files = subprocess.run(
        ["git", "ls-files", "*.md", "*.py", "*.toml", "*.yml", "*.html", "*.sh"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    markers = ("<<<<<<< ", ">>>>>>> ")
    found = [
        name
        for name in files
        if (root / name).exists()
        and any(line.startswith(markers) for line in (root / name).read_text(encoding="utf-8").splitlines())
    ]
    assert found == []
