"""The whole page flow in a real headless browser, against a real uvicorn server.

An `mcp.Client` over streamable HTTP calls a tool that asks `ctx.elicit_page(BankLogin)`;
its URL handler hands the URL to Debian's Chromium (driven by Python Playwright, pointed
at `/usr/bin/chromium`: no browser is downloaded), which fills the form, submits one
invalid try, sees the errors, corrects them and submits; the tool returns the typed data.
The secret never appears in the client's traffic (every byte of `/mcp` both ways), in any
log record, or in any HTML the server sent.

Needs `chromium` (`apt-get install chromium`) and the `playwright` Python package (the
`dev` extra). Without them the test is skipped, except under CI (`CI=true`), where it fails
saying what to install. `UPDATE_SCREENSHOTS=1` writes the screenshots into `docs/img/`.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
import uvicorn
from mcp.server.mcpserver import MCPServer

from tests.conftest import _Uvicorn
from typed_elicit.client import FormRequest, UrlRequest, elicitation_handler
from typed_elicit.testing import connect

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))
import link_bank  # noqa: E402 - examples/ is put on the path first

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SECRET = "Tr0ub4dor&3-never-logged"
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
BROWSER_BOUND = 60.0
"""Seconds the whole browser flow may take before the test fails (a cold Chromium start is slow)."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGI = Callable[[Scope, Receive, Send], Awaitable[None]]


def _browser_or_skip() -> Any:
    missing = []
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        missing.append(f"Chromium at {CHROMIUM} (apt-get install -y chromium)")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        missing.append("the playwright package (pip install -e '.[dev]')")
        async_playwright = None
    if missing:
        message = "the browser test needs " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(message + "; .ci/run installs Chromium, the dev extra installs playwright")
        pytest.skip(message)
    return async_playwright


class Recorder:
    """ASGI middleware keeping every body byte of `/mcp`, both ways: the MCP client's whole traffic."""

    def __init__(self, app: ASGI) -> None:
        self.app = app
        self.traffic = bytearray()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not str(scope["path"]).startswith("/mcp"):
            await self.app(scope, receive, send)
            return

        async def received() -> Message:
            message = await receive()
            self.traffic += message.get("body", b"")
            return message

        async def sent(message: Message) -> None:
            if message["type"] == "http.response.body":
                self.traffic += message.get("body", b"")
            await send(message)

        await self.app(scope, received, sent)


@asynccontextmanager
async def serving(era_server: Callable[[str], MCPServer]) -> AsyncIterator[tuple[str, Recorder]]:
    """Serve the server `era_server(public_url)` builds on a loopback port; yields (MCP URL, recorder)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        origin = f"http://127.0.0.1:{sock.getsockname()[1]}"
        server = era_server(origin)
        recorder = Recorder(server.streamable_http_app())
        config = uvicorn.Config(recorder, log_level="info", lifespan="on", timeout_graceful_shutdown=2)
        http = _Uvicorn(config)
        async with anyio.create_task_group() as group:
            group.start_soon(http.serve, [sock])
            with anyio.fail_after(10):
                await http.ready.wait()
            try:
                yield f"{origin}/mcp", recorder
            finally:
                http.should_exit = True


async def no_form(request: FormRequest) -> Any:
    raise AssertionError("a page question never sends a form")


@pytest.mark.anyio
@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_real_browser_fills_the_page_and_the_tool_gets_the_typed_login(
    era: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    async_playwright = _browser_or_skip()
    caplog.set_level(logging.DEBUG)
    seen: dict[str, Any] = {"html": [], "csp_errors": []}

    async def drive(url: str, browser: Any) -> None:
        page = await browser.new_page(viewport={"width": 720, "height": 900})
        page.on("console", lambda msg: seen["csp_errors"].append(msg.text) if "Policy" in msg.text else None)
        first = await page.goto(url)
        assert first is not None
        seen["headers"] = await first.all_headers()
        await page.screenshot(path=str(tmp_path / "pages-default.png"))
        await page.locator('input[name="username"]').fill("ada")
        await page.locator('input[name="password"]').fill(SECRET)
        await page.locator('input[name="otp"]').fill("12ab")  # not six digits: one invalid try
        async with page.expect_navigation():
            await page.get_by_role("button", name="Submit").click()
        seen["html"].append(await page.content())
        seen["alert"] = await page.get_by_role("alert").inner_text()
        seen["focused"] = await page.evaluate("document.activeElement && document.activeElement.id")
        seen["kept"] = await page.locator('input[name="username"]').input_value()
        seen["password_after_error"] = await page.locator('input[name="password"]').input_value()
        await page.screenshot(path=str(tmp_path / "pages-error.png"))
        await page.locator('input[name="password"]').fill(SECRET)
        await page.locator('input[name="otp"]').fill("123456")
        async with page.expect_navigation():
            await page.get_by_role("button", name="Submit").click()
        seen["html"].append(await page.content())
        seen["done"] = await page.locator("h1").inner_text()

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            async with anyio.create_task_group() as group:

                async def open_url(request: UrlRequest) -> str:
                    seen["url"] = request.url
                    group.start_soon(drive, request.url, browser)  # the user's browser, out of band
                    return "accept"  # consent

                handler = elicitation_handler(no_form, url=open_url)
                async with (
                    serving(link_bank.build_server) as (endpoint, recorder),
                    connect(endpoint, era, elicitation_callback=handler) as client,
                ):
                    with anyio.fail_after(BROWSER_BOUND):
                        result = await client.call_tool("link_bank", {})
        finally:
            await browser.close()

    assert result.is_error is False, result
    assert result.content[0].text == "Linked the account of ada (one-time code accepted)"  # type: ignore[union-attr]
    assert "One-time code: Enter it in the expected format" in seen["alert"]  # plain words, not pydantic's
    assert "should" not in seen["alert"]
    assert seen["focused"] == "error-summary"  # the error summary has the focus (autofocus, no script)
    assert seen["kept"] == "ada"
    assert seen["password_after_error"] == ""
    assert seen["done"] == "Thank you"
    assert seen["csp_errors"] == []  # the strict CSP lets the page's own style through and nothing else
    assert "no-store" in seen["headers"]["cache-control"]
    assert SECRET not in recorder.traffic.decode("utf-8", "replace")
    assert "123456" not in recorder.traffic.decode("utf-8", "replace")
    assert all(SECRET not in html for html in seen["html"])
    assert all(SECRET not in record.getMessage() for record in caplog.records)
    assert link_bank.LINKED["ada"] == len(SECRET)
    if os.environ.get("UPDATE_SCREENSHOTS") and era == "2026-07-28":
        for name in ("pages-default.png", "pages-error.png"):
            shutil.copyfile(tmp_path / name, DOCS_IMG / name)
