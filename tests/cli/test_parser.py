"""The command line: every command's help, its exit codes, the version, and usage errors."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import subprocess

import pytest

from tests.cli.running import CLI
from typed_elicit._cli import (
    EXIT_OK,
    EXIT_USAGE,
    package_version,
)

pytestmark = pytest.mark.slow  # most tests run the command in a subprocess or a terminal


@pytest.mark.parametrize("command", [[], ["demo"], ["schema"], ["check"], ["call"]])
def test_every_subcommand_has_help_that_documents_the_exit_codes(command: list[str]) -> None:
    done = subprocess.run([*CLI, *command, "--help"], capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == EXIT_OK
    assert "usage: typed-elicit" in done.stdout
    assert "3    the server could not be reached" in done.stdout


def test_version_prints_the_installed_package_version() -> None:
    done = subprocess.run([*CLI, "--version"], capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == EXIT_OK
    assert done.stdout == f"typed-elicit {importlib.metadata.version('typed-elicit')}\n"


def test_version_says_so_when_the_package_is_importable_but_not_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_installed(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)

    assert package_version() == "(version unknown: typed-elicit is not installed, only importable)"


@pytest.mark.parametrize("command", ["demo", "call"])
def test_the_help_of_demo_and_call_documents_the_answer_syntax_for_every_kind(command: str) -> None:
    done = subprocess.run([*CLI, command, "--help"], capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == EXIT_OK
    assert '--answer extras=wifi,bag  or  --answer \'extras=["wifi","bag"]\'' in done.stdout
    assert "--answer cpu_cores=4  --answer auto_scale=true" in done.stdout
    assert "takes the option's value, not its title" in done.stdout


def test_a_missing_subcommand_is_a_usage_error() -> None:
    done = subprocess.run(CLI, capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == EXIT_USAGE
    assert "required: COMMAND" in done.stderr
