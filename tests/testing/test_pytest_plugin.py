"""The pytest plugin: each test once per era, the era marker, and the documented run of the example tests."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from typed_elicit import PROTOCOL_VERSIONS

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[2]

PLUGIN_TEST = """
import anyio
import pytest

from tests.client_servers import typed


@pytest.mark.anyio
async def test_book(elicit_connect, scripted_user, elicit_protocol):
    scripted_user.accept(name="Ada")
    with anyio.fail_after(10):
        async with elicit_connect(typed) as client:
            assert client.protocol_version == elicit_protocol
            result = await client.call_tool("book", {})
    assert result.content[0].text.startswith("booked 1 for Ada")
    scripted_user.assert_done()


@pytest.mark.anyio
@pytest.mark.elicit_protocols("2026-07-28")
async def test_only_newest(elicit_connect, elicit_protocol):
    assert elicit_protocol == "2026-07-28"

"""


def plugin_args() -> list[str]:
    """`-p typed_elicit.testing.pytest_plugin` unless the installed entry point already loads it."""
    installed = any(ep.value == "typed_elicit.testing.pytest_plugin" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "typed_elicit.testing.pytest_plugin"]


def documented_command() -> str:
    """The command docs/testing.md gives for running the example test file."""
    (command,) = re.findall(
        r"^```bash\n(pytest [^\n]*)\n```$", (ROOT / "docs" / "testing.md").read_text(), re.M
    )
    return str(command)


@pytest.mark.slow
def test_the_documented_command_runs_the_example_tests_from_a_checkout() -> None:
    # Exactly as written in the docs, from the repository root, with this environment's pytest;
    # without CI's own PYTEST_ADDOPTS (coverage of the whole suite), which a reader does not set.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTEST_ADDOPTS", None)

    done = subprocess.run(
        shlex.split(documented_command()),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
        env=env,
    )

    assert documented_command() == "pytest examples/test_user_tools.py"
    assert done.returncode == 0, done.stdout + done.stderr
    assert "9 passed" in done.stdout


@pytest.mark.slow
def test_the_example_tests_pass_in_a_project_of_their_own(tmp_path: Path) -> None:
    # An installed typed_elicit in someone else's project: no configuration of ours applies.
    shutil.copy(ROOT / "examples" / "test_user_tools.py", tmp_path)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugin_args()]

    done = subprocess.run(
        [*command, "test_user_tools.py"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "9 passed" in done.stdout


def test_the_plugin_runs_a_test_once_per_era_and_honours_the_marker(pytester: pytest.Pytester) -> None:
    pytester.syspathinsert(ROOT)
    pytester.makepyfile(test_plugin_use=PLUGIN_TEST)

    outcome = pytester.runpytest(*plugin_args(), "-v")

    outcome.assert_outcomes(passed=4)
    ran = sorted(line.split(" ")[0] for line in outcome.outlines if "::test_book[" in line)
    assert ran == [f"test_plugin_use.py::test_book[asyncio-{era}]" for era in sorted(PROTOCOL_VERSIONS)]


def test_the_plugin_rejects_an_unknown_era_in_the_marker(pytester: pytest.Pytester) -> None:
    pytester.syspathinsert(ROOT)
    pytester.makepyfile(
        test_bad_marker="""
import pytest

@pytest.mark.elicit_protocols("1999-01-01")
def test_bad_marker(elicit_protocol):
    pass
"""
    )

    outcome = pytester.runpytest(*plugin_args())

    assert "1999-01-01" in outcome.stdout.str()
    assert outcome.ret != 0
