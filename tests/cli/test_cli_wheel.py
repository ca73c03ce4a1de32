"""`typed-elicit demo` from a built wheel installed in a fresh venv, run outside the checkout.

The venv borrows the dependencies (mcp, pydantic, ...) of the test's own environment
through a `.pth` line, so nothing but the build backend is fetched; typed_elicit itself
comes only from the wheel. About 10 s; marked slow.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from typed_elicit._views.i18n import SHIPPED

pytestmark = pytest.mark.slow  # builds a wheel and a venv

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120


def _run(*argv: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_the_demo_runs_from_an_installed_wheel_outside_the_checkout(tmp_path: Path) -> None:
    wheels, home, elsewhere = tmp_path / "wheels", tmp_path / "venv", tmp_path / "elsewhere"
    elsewhere.mkdir()
    built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", wheels, ROOT, cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("typed_elicit-*.whl")
    assert "typed_elicit/_cli/examples/deployment_wizard.py" in zipfile.ZipFile(wheel).namelist()
    # the templates are package data (pages, the shared field markup, the app view)
    assert {
        "typed_elicit/pages/templates/page.html",
        "typed_elicit/pages/templates/message.html",
        "typed_elicit/_views/templates/fields.html",
        "typed_elicit/pages/templates/tree.html",
        "typed_elicit/apps/templates/view.html",
        "typed_elicit/apps/templates/view.js",
        "typed_elicit/apps/templates/view.css",
    } <= set(zipfile.ZipFile(wheel).namelist())
    # so are the catalogs of the library's words, compiled and not
    catalogs = {
        f"typed_elicit/locale/{lang}/LC_MESSAGES/typed_elicit.{ext}"
        for lang in SHIPPED
        for ext in ("po", "mo")
    }
    assert catalogs | {"typed_elicit/locale/typed_elicit.pot"} <= set(zipfile.ZipFile(wheel).namelist())

    venv.EnvBuilder(with_pip=False).create(home)
    python = home / "bin" / "python"
    site = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=elsewhere)
    (Path(site.stdout.strip()) / "_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = _run(
        sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index", wheel,
        cwd=elsewhere,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr

    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = _run(python, "-c", "import typed_elicit; print(typed_elicit.__file__)", cwd=elsewhere, env=env)
    assert Path(where.stdout.strip()).is_relative_to(home), where.stdout + where.stderr
    german = "from typed_elicit._views.i18n import words_for; print(words_for('de-DE').count('problems', 2))"
    said = _run(python, "-c", german, cwd=elsewhere, env=env)
    assert said.stdout.strip() == "Bitte korrigieren Sie 2 Probleme", said.stderr
    done = _run(home / "bin" / "typed-elicit", "demo", cwd=elsewhere, env=env)

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("demo: deployment_wizard.py (server 'deployment-wizard'), protocol 2026-07-28")
    assert "<- deployment-wizard asks: Select deployment environment" in lines
    assert '-> accept {"environment": "staging"}' in lines
    assert lines[-1] == "<= Deployed demo to staging (1 cores, 1GB, auto_scale=False)"
