"""Take the pictures of docs/accessibility.md: the page with groups and the app view, in German and Arabic.

Run from the repository root in the dev venv (Chromium and axe-core as the browser tests have
them): `.venv/bin/python docs/img/languages_shots.py`. It serves examples/ship_order.py on a
loopback port, opens its page in Chromium with the browser's language set to German, then to
Arabic (`Accept-Language`), submits one invalid try (a four-digit postcode) and takes the page;
then renders the `Trip` app view in the stand-in host of tests/apps/test_view_browser.py with
`hostContext.locale` `de-DE`, then `ar`, submits it empty and takes the view. It writes
`page-de.png`, `page-ar.png`, `app-view-de.png` and `app-view-ar.png` here and prints, for
each, the `lang` and `dir` the picture shows: a page still in English says `lang=en`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "img"
for path in (ROOT, ROOT / "examples"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import ship_order  # noqa: E402 - the paths above first

from tests.apps.test_render_languages import frame_of, hosted  # noqa: E402
from tests.apps.test_view_browser import Trip, request  # noqa: E402
from tests.axe import CHROMIUM  # noqa: E402
from tests.pages.test_render_accessibility import site  # noqa: E402

LANG_AND_DIR = "() => document.documentElement.lang + ' ' + (document.documentElement.dir || 'ltr')"
BOUND = 60.0


async def page_shots(playwright: Any) -> None:
    browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
    try:
        async with site(ship_order.build_server, browser) as served:
            for locale in ("de-DE", "ar"):
                context = await browser.new_context(locale=locale, viewport={"width": 720, "height": 900})
                page = await context.new_page()
                with anyio.fail_after(BOUND):
                    await page.goto(await served.ask(ship_order.Shipment, "ship_order"))
                    await page.locator('input[name="address.postcode"]').fill("6900")
                    async with page.expect_navigation():
                        await page.locator("button.primary").click()
                    name = f"page-{locale[:2]}.png"
                    await page.screenshot(path=str(OUT / name), full_page=True)
                    print(name, await page.evaluate(LANG_AND_DIR))
                await context.close()
    finally:
        await browser.close()


async def view_shots() -> None:
    for locale in ("de-DE", "ar"):
        async with hosted(Trip, {"locale": locale}, request(Trip)) as page:
            with anyio.fail_after(BOUND):
                frame = await frame_of(page)
                await frame.locator("#te-submit").click()
                await frame.locator("p.error").first.wait_for()
                name = f"app-view-{locale[:2]}.png"
                await page.locator("#view").screenshot(path=str(OUT / name))
                print(name, await frame.evaluate(LANG_AND_DIR))


async def main() -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        await page_shots(playwright)
    await view_shots()


if __name__ == "__main__":
    anyio.run(main)
