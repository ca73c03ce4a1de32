"""axe-core in the browser tests: the WCAG A and AA rules run inside a Chromium page or frame.

`tests/axe/install.sh` pins axe-core with `npm ci` (package.json + package-lock.json here);
`axe_source()` runs it when npm is here (a no-op once installed) and reads `axe.min.js`.
`violations(target, source)` evaluates axe in a Playwright `Page` or `Frame` (through the
DevTools protocol, so the page's own strict CSP is left as it is: nothing is added to the
page) and returns each violation as `rule-id at selector`: rule ids and CSS targets only, never
an element's HTML or a field's value. `browser_or_skip()` gives Playwright, or skips (fails
under `CI=true`) naming what is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Final

import pytest

HERE: Final = Path(__file__).resolve().parent
INSTALL: Final = HERE / "install.sh"
SCRIPT: Final = HERE / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM: Final = os.environ.get("CHROMIUM", "/usr/bin/chromium")

WCAG_TAGS: Final = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa")
"""The rules run: WCAG 2.0, 2.1 and 2.2, levels A and AA (axe-core's tags)."""

_RUN: Final = """async (tags) => {
  const result = await window.axe.run(document, {runOnly: {type: "tag", values: tags},
                                                 resultTypes: ["violations"]});
  return {
    ran: result.passes.length + result.violations.length + result.incomplete.length,
    violations: result.violations.flatMap((rule) =>
      rule.nodes.map((node) => rule.id + " at " + node.target.join(" > "))),
  };
}"""


def _install(script: Path) -> None:
    """Run an install script when npm is here (idempotent: well under a second once installed)."""
    if shutil.which("npm") is None:
        return
    done = subprocess.run([str(script)], capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        pytest.fail(f"{script.relative_to(HERE.parent.parent)} failed:\n{done.stderr[-2000:]}")


def playwright_or_skip(test: str, script: Path, installed: Path, install: str) -> Any:
    """Playwright's `async_playwright` once `script` put `installed` in place; else skip (CI: fail).

    `test` names the test in the message, `install` says how to get what `script` installs.
    """
    _install(script)
    missing = []
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        missing.append(f"Chromium at {CHROMIUM} (apt-get install -y chromium)")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        missing.append("the playwright package (pip install -e '.[dev]')")
        async_playwright = None
    if not installed.is_file():
        missing.append(install)
    if missing:
        message = f"{test} needs " + " and ".join(missing)
        if os.environ.get("CI"):
            ran = script.relative_to(HERE.parent.parent)
            pytest.fail(f"{message}; .ci/run installs Chromium and runs {ran}")
        pytest.skip(message)
    return async_playwright


def browser_or_skip() -> Any:
    """Playwright's `async_playwright`, axe-core installed; else skip (CI: fail) saying what is missing."""
    return playwright_or_skip(
        "the accessibility test", INSTALL, SCRIPT, "axe-core (apt-get install -y npm; tests/axe/install.sh)"
    )


def axe_source() -> str:
    """axe.min.js, as pinned (call `browser_or_skip()` first)."""
    return SCRIPT.read_text(encoding="utf-8")


async def violations(target: Any, source: str) -> list[str]:
    """axe's WCAG A/AA violations in `target` (a Playwright Page or Frame) as `rule-id at selector`.

    Raises:
        AssertionError: If axe ran no rule at all (it did not load: a count of 0 would mean nothing).
    """
    if not await target.evaluate("typeof window.axe === 'object'"):
        await target.evaluate(source)
    found = await target.evaluate(_RUN, list(WCAG_TAGS))
    assert found["ran"] > 0, "axe-core ran no rule: it did not load in the page"
    return list(found["violations"])
