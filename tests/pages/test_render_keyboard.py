"""The richest page is completed with key presses alone, in Chromium: no click, no pointer.

examples/ship_order.py's `Shipment` (a nested group, rows, an optional group, a union and a
file), served by a real uvicorn server, is filled by a person who only presses Tab, Enter,
Space, the arrow keys and types: rows are added with Enter and Space and one removed with
Enter, the union is switched with the arrow keys, the optional group opened with Enter and
ticked with Space, the file chooser opened with Space; one invalid try, then the answer is
sent. Where the focus is, is read from `document.activeElement` (reading is not acting).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.axe import CHROMIUM, browser_or_skip
from tests.pages.test_render_accessibility import PDF, site
from typed_elicit import Accepted

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))
import ship_order  # noqa: E402 - examples/ is put on the path first

pytestmark = [pytest.mark.anyio, pytest.mark.browser, pytest.mark.slow]

FLOW_BOUND = 90.0
"""Seconds the whole keyboard run may take (a cold Chromium start is slow)."""
MAX_TABS = 80
"""The most Tab presses to reach one control: more means it cannot be reached by keyboard."""


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Any]:
    async_playwright = browser_or_skip()
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            await launched.close()


class Keys:
    """A person at a keyboard: Tab to a control, then type or press a key."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.pressed: list[str] = []
        # The file chooser is intercepted from the start: a listener added just before the key
        # press may reach the browser after it on a busy machine, and the native dialog opens instead.
        self.choosers: list[Any] = []
        self.chosen = anyio.Event()
        page.on("filechooser", self._chooser)

    def _chooser(self, chooser: Any) -> None:
        self.choosers.append(chooser)
        self.chosen.set()

    async def focused(self, selector: str) -> bool:
        return bool(
            await self.page.evaluate(
                "(s) => Boolean(document.activeElement && document.activeElement.matches(s))", selector
            )
        )

    async def press(self, key: str) -> None:
        self.pressed.append(key)
        await self.page.keyboard.press(" " if key == "Space" else key)  # Chromium opens a file chooser on " "

    async def tab_to(self, selector: str) -> None:
        """Press Tab (from where the focus is) until `selector` has the focus."""
        for _ in range(MAX_TABS):
            if await self.focused(selector):
                return
            await self.press("Tab")
        raise AssertionError(f"{selector} cannot be reached with Tab ({MAX_TABS} presses)")

    async def type_into(self, selector: str, text: str) -> None:
        await self.tab_to(selector)
        await self.press("Control+A")
        self.pressed.append("type")
        await self.page.keyboard.type(text)

    async def activate(self, selector: str, key: str = "Enter") -> None:
        """Press `key` on the button `selector`, which shows the page again."""
        await self.tab_to(selector)
        async with self.page.expect_navigation():
            await self.press(key)


async def fill_shipment_by_keyboard(keys: Keys, postcode: str) -> None:
    await keys.type_into('[name="recipient"]', "Ada")
    await keys.type_into('[name="address.street"]', "Rue 1")
    await keys.type_into('[name="address.city"]', "Lyon")
    await keys.type_into('[name="address.postcode"]', postcode)
    await keys.type_into('[name="lines.0.product"]', "Tea")
    await keys.type_into('[name="lines.0.quantity"]', "2")


async def test_a_person_completes_the_page_with_groups_using_the_keyboard_only(browser: Any):
    seen: dict[str, Any] = {}
    async with site(ship_order.build_server, browser) as served:
        with anyio.fail_after(FLOW_BOUND):
            url = await served.ask(ship_order.Shipment, "ship_order")
            page = await served.page(url)
            keys = Keys(page)
            await fill_shipment_by_keyboard(keys, "6900")  # four digits: one invalid try
            await keys.activate('button[value="add:lines"]', "Enter")
            await keys.type_into('[name="lines.1.product"]', "Cake")
            await keys.activate('button[value="add:lines"]', "Space")
            await keys.type_into('[name="lines.2.product"]', "Spam")
            await keys.activate('button[value="remove:lines.2"]', "Enter")
            seen["rows"] = await page.locator('input[name^="lines."][name$=".product"]').count()
            await keys.tab_to('select[name="delivery.kind"]')
            for _ in range(3):
                if await page.locator('select[name="delivery.kind"]').input_value() == "pickup":
                    break
                await keys.press("ArrowDown")
            await keys.activate('button[value="show:delivery"]', "Enter")
            await keys.type_into('[name="delivery.point"]', "PX-42")
            await keys.tab_to("summary")
            await keys.press("Enter")  # opens the optional group
            await keys.tab_to('[name="gift_note._on"]')
            await keys.press("Space")
            await keys.type_into('[name="gift_note.street"]', "Quai 2")
            await keys.type_into('[name="gift_note.city"]', "Nice")
            await keys.type_into('[name="gift_note.postcode"]', "06000")
            await choose_file(keys)
            await keys.activate("button.primary", "Enter")  # the invalid try
            seen["alert"] = await page.get_by_role("alert").inner_text()
            postcode = await page.locator('[name="address.postcode"]').get_attribute("id")
            seen["links"] = await page.get_by_role("alert").locator(f'a[href="#{postcode}"]').count()
            await keys.type_into('[name="address.postcode"]', "69001")
            await choose_file(keys)  # a browser cannot keep a chosen file
            await keys.activate("button.primary", "Enter")
            seen["done"] = await page.locator("h1").inner_text()
            seen["keys"] = set(keys.pressed)
            outcome = await served.outcome(url, ship_order.Shipment)
            await page.close()
    assert isinstance(outcome, Accepted)
    shipment = outcome.data
    assert seen["rows"] == 2
    assert "Postcode" in seen["alert"]
    assert seen["links"] == 1  # the error summary links to the field
    assert seen["done"] == "Thank you"
    assert [(line.product, line.quantity) for line in shipment.lines] == [("Tea", 2), ("Cake", 1)]
    assert isinstance(shipment.delivery, ship_order.Pickup)
    assert shipment.delivery.point == "PX-42"
    assert shipment.gift_note is not None
    assert shipment.gift_note.city == "Nice"
    assert shipment.customs.data == PDF
    assert shipment.address.postcode == "69001"
    assert seen["keys"] <= {"Tab", "Enter", "Space", "ArrowDown", "Control+A", "type"}


async def choose_file(keys: Keys) -> None:
    """Space on the file input opens the chooser; the person picks the PDF there."""
    await keys.tab_to('input[type="file"]')
    keys.chosen = anyio.Event()
    await keys.press("Space")
    await keys.chosen.wait()  # bounded by the test's FLOW_BOUND
    files = [{"name": "customs.pdf", "mimeType": "application/pdf", "buffer": PDF}]
    await keys.choosers.pop().set_files(files)


async def test_after_an_invalid_submit_the_error_summary_has_the_focus(browser: Any):
    async with site(ship_order.build_server, browser) as served:
        with anyio.fail_after(FLOW_BOUND):
            page = await served.page(await served.ask(ship_order.Shipment, "ship_order"))
            keys = Keys(page)
            await fill_shipment_by_keyboard(keys, "6900")
            await keys.activate("button.primary", "Enter")
            # `autofocus` is applied at the page's next rendering step, which a busy machine delays:
            # wait for it (bounded by the flow's bound), never read the focus once.
            in_summary = "() => document.activeElement?.matches('[role=alert], [role=alert] *') ?? false"
            focused = await page.wait_for_function(in_summary)
            assert await focused.json_value()
            await page.close()


async def test_every_control_of_the_page_is_reached_by_tab_in_order(browser: Any):
    """No control is skipped by Tab: each enabled field and button, except the hidden default submit."""
    async with site(ship_order.build_server, browser) as served:
        with anyio.fail_after(FLOW_BOUND):
            page = await served.page(await served.ask(ship_order.Shipment, "ship_order"))
            wanted = await page.evaluate(
                """() => Array.from(document.querySelectorAll(
                  'main input:not([type=hidden]), main select, main button, main summary, main a[href]'))
                  .filter((n) => n.tabIndex >= 0 && n.checkVisibility())
                  .map((n) => n.id || n.name + '|' + (n.value || n.textContent))"""
            )
            reached: list[str] = []
            for _ in range(len(wanted) + 5):
                await page.keyboard.press("Tab")
                reached.append(
                    await page.evaluate(
                        "() => { const n = document.activeElement;"
                        " return n.id || n.name + '|' + (n.value || n.textContent); }"
                    )
                )
            await page.close()
    assert [r for r in reached if r in wanted][: len(wanted)] == wanted
