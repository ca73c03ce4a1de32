"""A page with groups shaped at call time, in a real headless browser.

An `mcp.Client` over streamable HTTP (a real uvicorn server) calls `book_courier`
(examples/book_courier.py), which asks `ctx.elicit_page(Booking, options=..., defaults=...)`
with the carriers that serve France and the user's usual one. Debian's Chromium, driven by
Python Playwright, sees exactly the offered carriers with the usual one selected, picks another,
fills the pickup group, adds a parcel row, and submits a forged option first (an `<option>` the
page never offered, added to the select in the page): the page shows it again with "Choose one
of the options", the typed values kept; then an invalid weight, shown at its row's field; then
a valid form. The tool returns the typed nested model with the chosen carrier.

Needs `chromium` and the `playwright` package, as tests/pages/test_pages_browser.py says.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.pages.test_pages_browser import BROWSER_BOUND, CHROMIUM, _browser_or_skip, no_form, serving
from typed_elicit.client import UrlRequest, elicitation_handler
from typed_elicit.testing import connect

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))
import book_courier  # noqa: E402 - examples/ is put on the path first

FORGE = """select => {
    const forged = document.createElement("option");
    forged.value = "dhl";
    forged.textContent = "DHL Paket";
    select.appendChild(forged);
    select.value = "dhl";
}"""


async def click_and_wait(page: Any, name: str) -> None:
    async with page.expect_navigation():
        await page.get_by_role("button", name=name, exact=True).click()


@pytest.mark.anyio
@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_real_browser_picks_an_offered_carrier_on_a_page_with_groups_and_a_forged_one_is_refused(
    era: str,
) -> None:
    async_playwright = _browser_or_skip()
    seen: dict[str, Any] = {}

    async def drive(url: str, browser: Any) -> None:
        page = await browser.new_page(viewport={"width": 720, "height": 1200})
        await page.goto(url)
        carrier = page.locator('select[name="carrier"]')
        seen["offered"] = await carrier.locator("option").all_inner_texts()
        seen["values"] = await carrier.locator("option").evaluate_all("options => options.map(o => o.value)")
        seen["preselected"] = await carrier.input_value()
        await page.locator('input[name="pickup.street"]').fill("Rue 1")
        await page.locator('input[name="pickup.city"]').fill("Lyon")
        await page.locator('input[name="parcels.0.weight_kg"]').fill("2")
        await click_and_wait(page, "Add to Parcels")
        await page.locator('input[name="parcels.1.weight_kg"]').fill("1.5")
        await carrier.evaluate(FORGE)  # what a hostile or broken client could post
        await click_and_wait(page, "Submit")
        seen["forged_alert"] = await page.get_by_role("alert").inner_text()
        seen["forged_html"] = await page.content()
        seen["kept_street"] = await page.locator('input[name="pickup.street"]').input_value()
        await page.locator('select[name="carrier"]').select_option("colissimo")
        await page.locator('input[name="parcels.1.weight_kg"]').fill("40")  # over le=30: one invalid try
        await click_and_wait(page, "Submit")
        seen["weight_alert"] = await page.get_by_role("alert").inner_text()
        seen["kept_carrier"] = await page.locator('select[name="carrier"]').input_value()
        await page.locator('input[name="parcels.1.weight_kg"]').fill("1.5")
        await click_and_wait(page, "Submit")
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
                    serving(book_courier.build_server) as (endpoint, _),
                    connect(endpoint, era, elicitation_callback=handler) as client,
                ):
                    with anyio.fail_after(BROWSER_BOUND):
                        result = await client.call_tool("book_courier", {"user": "ada", "country": "fr"})
        finally:
            await browser.close()

    assert result.is_error is False, result
    assert result.content[0].text == "colissimo picks up 2 parcel(s), 3.5 kg, at Rue 1, Lyon"  # type: ignore[union-attr]
    # the offered carriers only, after the empty choice a field with a default has (it gets the default)
    assert seen["offered"][1:] == ["Colissimo", "UPS Standard"]
    assert seen["values"] == ["", "colissimo", "ups"]
    assert seen["preselected"] == "ups"  # the call's default
    assert "Carrier: Choose one of the options" in seen["forged_alert"]
    assert "DHL" not in seen["forged_html"]  # the forged option is not shown back
    assert seen["kept_street"] == "Rue 1"
    assert "Weight (kg)" in seen["weight_alert"]
    assert seen["kept_carrier"] == "colissimo"
    assert seen["done"] == "Thank you"
