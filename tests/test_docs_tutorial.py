"""The tutorial (docs/tutorial.md) works as written, step by step, in order.

Each command the page shows with its output is run in `examples/tutorial/` (where the
page's files are), as a reader runs it in their folder, and must print exactly that output;
the test file of step 5 must pass on every era.
"""

from __future__ import annotations

import html
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "tutorial.md"
FOLDER = ROOT / "examples" / "tutorial"
COMMAND_AND_OUTPUT = re.compile(r"^```bash\n([^\n]+)\n```\n\n```text\n(.*?)^```", re.S | re.M)
STEPS = ("step1_server.py", "step2_server.py", "step3_test_order.py")


def shown_runs() -> list[tuple[str, str]]:
    """Every (command, output) pair of the page, in the order a reader meets them."""
    return [(command, output) for command, output in COMMAND_AND_OUTPUT.findall(PAGE.read_text("utf-8"))]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A reader's empty folder with the tutorial's files copied in, outside this repository."""
    copy = tmp_path_factory.mktemp("my_coffee_tool")
    for name in STEPS:
        shutil.copy(FOLDER / name, copy / name)
    return copy


def run(command: str, cwd: Path = FOLDER) -> subprocess.CompletedProcess[str]:
    """Run a command of the page in a folder holding the tutorial's files, with this venv's tools on PATH."""
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    argv = shlex.split(command)
    if argv[0] == "pytest":  # the reader's pytest, as a project of their own would run it
        argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *argv[1:]]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_the_page_includes_the_tutorial_files_in_step_order() -> None:
    included = re.findall(r'--8<-- "examples/tutorial/([\w.]+)"', PAGE.read_text("utf-8"))
    assert included == list(STEPS)
    assert sorted(path.name for path in FOLDER.glob("*.py")) == sorted(STEPS)


def test_the_page_shows_the_demo_the_stdio_call_and_the_test_run_in_that_order() -> None:
    commands = [command.split()[:2] for command, _ in shown_runs()]
    assert commands == [
        ["typed-elicit", "demo"],
        ["typed-elicit", "demo"],
        ["typed-elicit", "call"],
        ["pytest", "-q"],
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("index", "command", "output"),
    [(index, command, output) for index, (command, output) in enumerate(shown_runs())],
    ids=lambda value: str(value) if isinstance(value, int) else "",
)
def test_each_command_of_the_tutorial_prints_what_the_page_shows_in_a_folder_of_its_own(
    index: int, command: str, output: str, folder: Path
) -> None:
    done = run(command, folder)

    assert done.returncode == 0, done.stdout + done.stderr
    if command.startswith("pytest"):
        # pytest's own summary line ends with a duration, which the page leaves out
        assert done.stdout.splitlines()[0] == output.splitlines()[0]
        assert re.search(r"^9 passed in ", done.stdout, re.M), done.stdout
    else:
        assert done.stdout == output, f"step {index}: {command}"


@pytest.mark.slow
def test_the_terminal_picture_ends_with_what_the_tool_does_for_those_answers() -> None:
    picture = (ROOT / "docs" / "img" / "terminal-form.svg").read_text(encoding="utf-8")
    lines = [html.unescape(re.sub(r"<[^>]+>", "", line)).rstrip() for line in picture.splitlines()]
    done = run(
        "typed-elicit demo step1_server.py --scripted --arg name=Ada --answer size=large --answer sugar=1"
    )

    assert done.returncode == 0, done.stderr
    said = [line for line in done.stdout.splitlines() if line.startswith(("=>", "->", "<="))]
    assert said == [line for line in lines if line.startswith(("=>", "->", "<="))]
