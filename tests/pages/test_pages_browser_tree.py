"""A page with groups, rows, an optional group, a choice and a file, in a real headless browser.

An `mcp.Client` over streamable HTTP (a real uvicorn server) calls `ship_order`
(examples/ship_order.py), which asks `ctx.elicit_page(Shipment)`; Debian's Chromium, driven
by Python Playwright, fills the nested address, adds four item rows by clicking and removes
one, opens the optional group, switches the delivery choice, attaches a PDF with
`set_input_files`, submits one invalid try (a bad postcode inside the address group), sees the
error at its field and the file input asking for the file again, fixes it and submits. The tool
returns the typed nested model. The file's bytes never appear in the `/mcp` traffic or a log.

Needs `chromium` and the `playwright` package, as tests/pages/test_pages_browser.py says;
`UPDATE_SCREENSHOTS=1` writes `docs/img/page-tree.png` (the page after the invalid try).
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.pages.test_pages_browser import (
    BROWSER_BOUND,
    CHROMIUM,
    DOCS_IMG,
    _browser_or_skip,
    no_form,
    serving,
)
from typed_elicit.client import UrlRequest, elicitation_handler
from typed_elicit.testing import connect

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))
import ship_order  # noqa: E402 - examples/ is put on the path first

MARKER = b"customs-bytes-7f3a9c"
PDF = b"%PDF-1.7\n" + MARKER + b"\n%%EOF\n"


async def click_and_wait(page: Any, name: str) -> None:
    async with page.expect_navigation():
        await page.get_by_role("button", name=name, exact=True).click()


@pytest.mark.anyio
@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_real_browser_fills_a_page_with_groups_rows_a_choice_and_a_file(
    era: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    async_playwright = _browser_or_skip()
    caplog.set_level(logging.DEBUG)
    seen: dict[str, Any] = {"html": [], "csp_errors": []}

    async def drive(url: str, browser: Any) -> None:
        page = await browser.new_page(viewport={"width": 720, "height": 1400})
        page.on("console", lambda msg: seen["csp_errors"].append(msg.text) if "Policy" in msg.text else None)
        await page.goto(url)
        await page.screenshot(path=str(tmp_path / "page-tree-first.png"), full_page=True)
        await page.locator('input[name="recipient"]').fill("Ada")
        await page.locator('input[name="address.street"]').fill("Rue 1")
        await page.locator('input[name="address.city"]').fill("Lyon")
        await page.locator('input[name="address.postcode"]').fill("6900")  # four digits: one invalid try
        await page.locator('input[name="lines.0.product"]').fill("Tea")
        await page.locator('input[name="lines.0.quantity"]').fill("2")
        for index, product in ((1, "Cake"), (2, "Spam"), (3, "Jam")):
            await click_and_wait(page, "Add to Items")
            await page.locator(f'input[name="lines.{index}.product"]').fill(product)
        await click_and_wait(page, "Remove row 3 of Items")  # Spam goes; Jam moves up
        seen["rows"] = [
            await page.locator(f'input[name="lines.{i}.product"]').input_value() for i in range(3)
        ]
        seen["fourth"] = await page.locator('input[name="lines.3.product"]').count()
        await page.locator('select[name="delivery.kind"]').select_option("pickup")
        await click_and_wait(page, "Show its fields")
        await page.locator('input[name="delivery.point"]').fill("PX-42")
        await page.locator("fieldset", has_text="Send the invoice elsewhere").get_by_text("Fill in").click()
        await page.get_by_label("Include this in the answer").check()  # the <details> opened
        await page.locator('input[name="gift_note.street"]').fill("Quai 2")
        await page.locator('input[name="gift_note.city"]').fill("Nice")
        await page.locator('input[name="gift_note.postcode"]').fill("06000")
        files = [{"name": "customs.pdf", "mimeType": "application/pdf", "buffer": PDF}]
        await page.set_input_files('input[name="customs"]', files=files)
        await click_and_wait(page, "Submit")
        seen["html"].append(await page.content())
        seen["alert"] = await page.get_by_role("alert").inner_text()
        seen["kept"] = await page.locator('input[name="lines.2.product"]').input_value()
        seen["file_after_error"] = await page.locator('input[name="customs"]').input_value()
        await page.screenshot(path=str(tmp_path / "page-tree.png"), full_page=True)  # the one in the docs
        await page.locator('input[name="address.postcode"]').fill("69001")
        await page.set_input_files('input[name="customs"]', files=files)
        await click_and_wait(page, "Submit")
        seen["html"].append(await page.content())
        seen["done"] = await page.locator("h1").inner_text()

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            async with anyio.create_task_group() as group:

                async def open_url(request: UrlRequest) -> str:
                    group.start_soon(drive, request.url, browser)  # the user's browser, out of band
                    return "accept"

                handler = elicitation_handler(no_form, url=open_url)
                async with (
                    serving(ship_order.build_server) as (endpoint, recorder),
                    connect(endpoint, era, elicitation_callback=handler) as client,
                ):
                    with anyio.fail_after(BROWSER_BOUND):
                        result = await client.call_tool("ship_order", {})
        finally:
            await browser.close()

    assert result.is_error is False, result
    assert result.content[0].text == (  # type: ignore[union-attr]
        "Shipping 2 x Tea, 1 x Cake, 1 x Jam to Ada, Lyon by pickup; "
        f"customs form customs.pdf ({len(PDF)} bytes)"
    )
    shipment = ship_order.SHIPPED[-1]
    assert shipment.customs.data == PDF
    assert shipment.gift_note is not None
    assert shipment.gift_note.city == "Nice"
    assert isinstance(shipment.delivery, ship_order.Pickup)
    assert shipment.delivery.point == "PX-42"
    assert seen["rows"] == ["Tea", "Cake", "Jam"]
    assert seen["fourth"] == 0
    assert "Delivery address \u203a Postcode: Enter it in the expected format" in seen["alert"]
    assert seen["kept"] == "Jam"
    assert seen["file_after_error"] == ""
    assert "Choose the file again" in seen["html"][0]
    assert seen["done"] == "Thank you"
    assert seen["csp_errors"] == []
    assert MARKER.decode() not in recorder.traffic.decode("utf-8", "replace")
    assert all(MARKER.decode() not in html for html in seen["html"])
    assert all(MARKER.decode() not in record.getMessage() for record in caplog.records)
    if os.environ.get("UPDATE_SCREENSHOTS") and era == "2026-07-28":
        shutil.copyfile(tmp_path / "page-tree.png", DOCS_IMG / "page-tree.png")
