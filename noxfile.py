"""Every Python typed_elicit claims, and the lowest dependencies it allows: the fast loop in each (issue 29).

`nox` (the dev extra has it) lists the sessions; `.ci/run` runs `tests-3.12`, `tests-3.13` and
`lowest` (3.10, the lowest Python, with the lowest dependencies; 3.11 is the README's whole-suite
run, with coverage and the newest dependencies): every Python claimed runs once. Each session makes
its own environment with uv from an interpreter the machine has (pyenv's are put on PATH below),
installs the package with the dev extra, and runs the fast loop:
`pytest -n 2 -m "not slow and not browser"`: the whole suite but the tests that build the docs, start
subprocess servers or drive a browser, on two workers, each with its own Redis database
(tests/conftest.py). Extra arguments go to pytest: `nox -s tests-3.12 -- tests/forms`.

`lowest` runs on the lowest Python claimed and resolves every direct dependency to the lowest
version pyproject.toml allows
(`uv pip install --resolution lowest-direct`, as the mcp SDK's own CI does): a floor that is too low
fails there.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nox

PYTHONS = ["3.10", "3.11", "3.12", "3.13"]
"""The Pythons pyproject.toml claims (its classifiers; tests/test_release.py checks they agree)."""
FAST_LOOP = ["-n", "2", "-m", "not slow and not browser", "-p", "no:cacheprovider"]
"""The fast loop's pytest arguments."""

nox.options.default_venv_backend = "uv"
nox.options.sessions = ["tests", "lowest"]
nox.options.error_on_missing_interpreters = True


def _pyenv_on_path() -> None:
    """Put each pyenv-installed Python's `bin` on PATH, so `python3.10` is found without a shim."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = [p / "bin" for p in sorted(root.glob("3.*")) if re.fullmatch(r"3\.\d+\.\d+", p.name)]
    os.environ["PATH"] = os.pathsep.join([*map(str, found), os.environ.get("PATH", "")])


_pyenv_on_path()


def _fast_loop(session: nox.Session) -> None:
    session.run("python", "-m", "pytest", *FAST_LOOP, *session.posargs)


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The fast loop on one Python, dependencies at their newest."""
    session.install("-e", ".[dev]")
    _fast_loop(session)


@nox.session(python=PYTHONS[0])
def lowest(session: nox.Session) -> None:
    """The fast loop on the lowest Python with every direct dependency at the lowest version allowed."""
    session.install("--resolution", "lowest-direct", "-e", ".[dev]")
    session.run("uv", "pip", "list", silent=False, external=True)
    _fast_loop(session)
