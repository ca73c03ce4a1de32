"""axe-core's WCAG 2.0/2.1/2.2 A and AA rules report nothing on any page a person can see, in Chromium.

Every state of the pages is measured in Debian's Chromium (Playwright, `/usr/bin/chromium`),
served by a real uvicorn server: the flat page (examples/link_bank.py's `BankLogin`, and a
form with a list, checkboxes, a number and a box) empty, invalid and done; the page with
groups (examples/ship_order.py's `Shipment`) empty, with rows added, the union switched, a
file chosen and invalid; the plain pages a link can lead to (gone, closed, not found). Tickets
are opened on the server's page host directly, as `ctx.elicit_page` does. axe-core is pinned
by tests/axe (`install.sh`); violations are told by rule id and CSS target, never by value.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, EmailStr, Field

from tests.axe import CHROMIUM, axe_source, browser_or_skip, violations
from tests.pages.test_pages_browser import serving
from tests.pages.test_serve import page_outcome
from typed_elicit import Titles, form
from typed_elicit._calls.plugs import host_for
from typed_elicit._calls.state import PageRecord
from typed_elicit._core.results import ElicitResult
from typed_elicit._forms.reduce import page_reduced
from typed_elicit.pages._host import Pages

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))
import link_bank  # noqa: E402 - examples/ is put on the path first
import ship_order  # noqa: E402

pytestmark = [pytest.mark.anyio, pytest.mark.browser, pytest.mark.slow]

STEP_BOUND = 30.0
"""Seconds one state may take to reach and measure (a cold Chromium start is slow)."""
PDF = b"%PDF-1.7\n%%EOF\n"


@form(page=True, message="Tell us about your stay")
class Stay(BaseModel):
    """A flat form with every kind of input a page shows."""

    name: Annotated[str, Field(min_length=2, max_length=40, title="Full name")]
    nights: Annotated[int, Field(ge=1, le=30, title="Nights")] = 2
    room: Annotated[Literal["single", "double"], Titles(single="Single room", double="Double room")]
    extras: list[Literal["breakfast", "parking"]] = Field(default_factory=list, title="Extras")
    newsletter: bool = Field(False, title="Send me the newsletter")
    email: EmailStr | None = Field(None, title="Email")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop for the module, so one browser serves every state."""
    return "asyncio"


@dataclass
class Site:
    """One served example: its page host, and a browser page to look at it."""

    host: Pages
    browser: Any
    tickets: dict[str, PageRecord] = field(default_factory=dict[str, PageRecord])

    async def ask(self, model: type[BaseModel], function: str) -> str:
        """Open a page for `model` as `ctx.elicit_page` does; its URL."""
        ticket = self.host.mint(function, f"{function}:req-1", 600)
        await self.host.open(ticket, model, "Please answer", function, None, page_reduced(model))
        url = self.host.url(ticket)
        self.tickets[url] = ticket
        return url

    async def outcome(self, url: str, model: type[BaseModel]) -> ElicitResult[Any]:
        """What `ctx.elicit_page` makes of the page's answer (the model validated again)."""
        answer = await self.host.answer(self.tickets[url], None)
        assert answer is not None, "the page holds no answer"
        return page_outcome(model, answer)

    async def page(self, url: str) -> Any:
        page = await self.browser.new_page(viewport={"width": 1024, "height": 900})
        await page.goto(url)
        return page


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[tuple[Any, str]]:
    async_playwright = browser_or_skip()
    source = axe_source()
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched, source
        finally:
            await launched.close()


@asynccontextmanager
async def site(build: Callable[[str], MCPServer], browser: Any) -> AsyncIterator[Site]:
    built: list[MCPServer] = []

    def keep(origin: str) -> MCPServer:
        built.append(build(origin))
        return built[0]

    async with serving(keep) as _:
        host = host_for(built[0])
        assert isinstance(host, Pages)
        yield Site(host, browser)


async def submit(page: Any, name: str = "Submit") -> None:
    async with page.expect_navigation():
        await page.get_by_role("button", name=name, exact=True).click()


async def measured(page: Any, source: str, state: str, seen: dict[str, list[str]]) -> None:
    seen[state] = await violations(page, source)


async def test_the_harness_reports_a_field_without_a_label_by_rule_and_target(browser: tuple[Any, str]):
    launched, source = browser
    page = await launched.new_page()
    with anyio.fail_after(STEP_BOUND):
        await page.set_content('<!doctype html><html lang="en"><title>t</title><input id="x"></html>')
        found = await violations(page, source)
    await page.close()
    assert found == ["label at #x"]  # the instrument can fail: a count of 0 below means something


@pytest.mark.parametrize(
    ("model", "bad", "good"),
    [
        (
            link_bank.BankLogin,
            {"username": "ada", "password": "pw-1", "otp": "12ab"},
            {"password": "pw-1", "otp": "123456"},
        ),
        (Stay, {"name": "A", "nights": "40"}, {"name": "Ada", "nights": "3", "room": "double"}),
    ],
    ids=["bank-login", "every-input"],
)
async def test_a_flat_page_has_no_violation_empty_invalid_or_done(
    browser: tuple[Any, str], model: type[BaseModel], bad: dict[str, str], good: dict[str, str]
):
    launched, source = browser
    seen: dict[str, list[str]] = {}
    async with site(link_bank.build_server, launched) as served:
        with anyio.fail_after(STEP_BOUND):
            url = await served.ask(model, "link_bank")
            page = await served.page(url)
            await measured(page, source, "empty", seen)
            for name, value in bad.items():
                await page.locator(f'[name="{name}"]').fill(value)
            await submit(page)
            assert await page.get_by_role("alert").count() == 1
            await measured(page, source, "invalid", seen)
            for name, value in good.items():
                box = page.locator(f'[name="{name}"]')
                if await box.evaluate("node => node.tagName") == "SELECT":
                    await box.select_option(value)
                else:
                    await box.fill(value)
            await submit(page)
            assert await page.locator("h1").inner_text() == "Thank you"
            await measured(page, source, "done", seen)
            await page.close()
    assert seen == {"empty": [], "invalid": [], "done": []}


async def test_a_page_with_groups_has_no_violation_in_any_state(browser: tuple[Any, str]):
    launched, source = browser
    seen: dict[str, list[str]] = {}
    async with site(ship_order.build_server, launched) as served:
        with anyio.fail_after(STEP_BOUND * 2):
            page = await served.page(await served.ask(ship_order.Shipment, "ship_order"))
            await measured(page, source, "empty", seen)
            await page.locator('input[name="lines.0.product"]').fill("Tea")
            await submit(page, "Add to Items")
            await submit(page, "Add to Items")
            assert await page.locator('input[name="lines.2.product"]').count() == 1
            await measured(page, source, "rows added", seen)
            await page.locator('select[name="delivery.kind"]').select_option("pickup")
            await submit(page, "Show its fields")
            assert await page.locator('input[name="delivery.point"]').count() == 1
            await measured(page, source, "union switched", seen)
            files = [{"name": "customs.pdf", "mimeType": "application/pdf", "buffer": PDF}]
            await page.set_input_files('input[name="customs"]', files=files)
            await measured(page, source, "file chosen", seen)
            await page.locator('input[name="address.postcode"]').fill("6900")
            await submit(page)
            assert await page.get_by_role("alert").count() == 1
            await measured(page, source, "invalid", seen)
            await page.close()
    states = ("empty", "rows added", "union switched", "file chosen", "invalid")
    assert seen == {state: [] for state in states}


async def test_the_plain_pages_a_link_leads_to_have_no_violation(browser: tuple[Any, str]):
    launched, source = browser
    seen: dict[str, list[str]] = {}
    async with site(link_bank.build_server, launched) as served:
        with anyio.fail_after(STEP_BOUND):
            url = await served.ask(link_bank.BankLogin, "link_bank")
            page = await served.page(url)
            await submit(page, "Decline")
            await measured(page, source, "nothing sent", seen)
            first = await page.goto(url)
            assert first is not None
            assert first.status == 410
            await measured(page, source, "gone", seen)
            ticket = served.host.mint("link_bank", "link_bank:req-2", 600)
            await served.host.open(
                ticket, link_bank.BankLogin, "m", "link_bank", None, page_reduced(link_bank.BankLogin)
            )
            await served.host.close(ticket, answered=False)
            closed = await page.goto(served.host.url(ticket))
            assert closed is not None
            assert "closed" in (await page.locator("h1").inner_text()).lower()
            await measured(page, source, "closed", seen)
            missing = await page.goto(url.rsplit("/", 1)[0] + "/" + "A" * 43)
            assert missing is not None
            assert missing.status == 404
            await measured(page, source, "not found", seen)
            await page.close()
    assert seen == {"nothing sent": [], "gone": [], "closed": [], "not found": []}


NO_SIDEWAYS_SCROLL = "() => document.scrollingElement.scrollWidth <= window.innerWidth"


@pytest.mark.parametrize(
    ("which", "width"),
    [
        pytest.param("groups", 320, id="groups-320px"),
        pytest.param("groups", 640, id="groups-200pct-zoom"),
        pytest.param("flat", 320, id="flat-320px"),
        pytest.param("flat", 640, id="flat-200pct-zoom"),
    ],
)
async def test_no_page_scrolls_sideways_in_a_narrow_window_or_at_200_percent_zoom(
    browser: tuple[Any, str], which: str, width: int
):
    """WCAG 1.4.10: 320 CSS px is a 1280 px window at 400%; 640 CSS px the same window at 200%."""
    launched, _ = browser
    seen: dict[str, bool] = {}
    async with site(ship_order.build_server, launched) as served:
        with anyio.fail_after(STEP_BOUND * 2):
            page = await launched.new_page(viewport={"width": width, "height": 700})
            if which == "groups":
                await page.goto(await served.ask(ship_order.Shipment, "ship_order"))
                seen["empty"] = await page.evaluate(NO_SIDEWAYS_SCROLL)
                await page.locator('select[name="delivery.kind"]').select_option("pickup")
                await submit(page, "Show its fields")
                await submit(page, "Add to Items")
                seen["rows and union"] = await page.evaluate(NO_SIDEWAYS_SCROLL)
                await page.locator('input[name="address.postcode"]').fill("6900")
            else:
                await page.goto(await served.ask(Stay, "ship_order"))
                seen["empty"] = await page.evaluate(NO_SIDEWAYS_SCROLL)
                seen["rows and union"] = True  # a flat page has none
            await submit(page)
            seen["invalid"] = await page.evaluate(NO_SIDEWAYS_SCROLL)
            await submit(page, "Decline")
            seen["nothing sent"] = await page.evaluate(NO_SIDEWAYS_SCROLL)
            await page.close()
    assert seen == {"empty": True, "rows and union": True, "invalid": True, "nothing sent": True}


@pytest.mark.parametrize("width", [320, 640], ids=["320px", "200pct-zoom"])
async def test_an_arabic_page_is_right_to_left_and_scrolls_no_way_sideways(
    browser: tuple[Any, str], width: int
):
    """Right to left, nothing may stick out on the left either (a hidden control moved far left did)."""
    launched, _ = browser
    seen: dict[str, object] = {}
    async with site(ship_order.build_server, launched) as served:
        with anyio.fail_after(STEP_BOUND * 2):
            page = await launched.new_page(
                viewport={"width": width, "height": 700}, extra_http_headers={"Accept-Language": "ar"}
            )
            await page.goto(await served.ask(ship_order.Shipment, "ship_order"))
            seen["dir"] = await page.evaluate("() => document.documentElement.dir")
            seen["empty"] = await page.evaluate(NO_SIDEWAYS_SCROLL)
            await page.locator("button.primary").press("Enter")
            await page.wait_for_load_state()
            seen["invalid"] = await page.evaluate(NO_SIDEWAYS_SCROLL)
            await page.close()
    assert seen == {"dir": "rtl", "empty": True, "invalid": True}
