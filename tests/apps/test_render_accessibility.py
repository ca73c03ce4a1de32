"""axe-core's WCAG 2.0/2.1/2.2 A and AA rules report nothing in the app view, empty, invalid or sent.

The view `render` makes runs in Chromium inside the sandboxed frame of the stand-in host of
tests/apps/test_view_browser.py, which forwards one `elicitation/create`; axe-core (pinned by
tests/axe) is evaluated inside the view's own frame. Violations are told by rule id and CSS
target, never by value.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from tests.apps.test_render import Route
from tests.apps.test_view_browser import BROWSER_BOUND, Pick, Trip, hosted, request, result_of
from tests.axe import axe_source, browser_or_skip, violations
from typed_elicit.apps import AppView

pytestmark = [pytest.mark.anyio, pytest.mark.browser]


async def view_frame(page: Any) -> Any:
    """The view's frame, once its question is shown (its fields are enabled)."""
    frame = page.frame_locator("#view")
    await frame.locator("#te-fields:not([disabled])").wait_for()
    handle = await page.locator("#view").element_handle()
    return await handle.content_frame()


async def test_the_app_view_has_no_violation_empty_invalid_or_sent():
    browser_or_skip()
    source = axe_source()
    seen: dict[str, list[str]] = {}
    async with hosted(Trip, AppView(), request(Trip)) as page:
        with anyio.fail_after(BROWSER_BOUND):
            frame = await view_frame(page)
            seen["empty"] = await violations(frame, source)
            await frame.locator("#f0").fill("O")
            await frame.locator("#f2").fill("not-an-address")
            await frame.get_by_role("button", name="Submit").click()
            await frame.locator("p.error").first.wait_for()
            seen["invalid"] = await violations(frame, source)
            await frame.locator("#f0").fill("Oslo")
            await frame.locator("#f1").fill("3")
            await frame.locator("#f2").fill("ada@example.com")
            await frame.get_by_role("button", name="Submit").click()
            assert (await result_of(page))["action"] == "accept"
            seen["sent"] = await violations(frame, source)
    assert seen == {"empty": [], "invalid": [], "sent": []}


async def test_the_app_view_with_a_searched_list_and_a_preview_has_no_violation():
    browser_or_skip()
    source = axe_source()
    options = {f"w{i}": f"Warehouse {i:02d}" for i in range(20)}
    preview = {"text": "Moves 2 tents", "columns": ["Item", "Qty"], "rows": [["Tent", "2"]]}
    ask = request(
        Pick,
        options={"warehouse": options},
        meta={"io.github.typed-elicit/view": {"search": ["warehouse"], "preview": preview}},
    )
    async with hosted(Pick, AppView(search_over=5), ask) as page:
        with anyio.fail_after(BROWSER_BOUND):
            frame = await view_frame(page)
            found = await violations(frame, source)
    assert found == []


@pytest.mark.parametrize("width", [320, 640], ids=["320px", "200pct-zoom"])
async def test_the_app_view_does_not_scroll_sideways_in_a_narrow_frame(width: int):
    """WCAG 1.4.10: the view's frame 320 CSS px wide (a 1280 px window at 400%), or 640 (at 200%)."""
    browser_or_skip()
    seen: dict[str, bool] = {}
    sideways = "() => document.scrollingElement.scrollWidth <= window.innerWidth"
    async with hosted(Trip, AppView(title="Trips of a rather long title"), request(Trip)) as page:
        with anyio.fail_after(BROWSER_BOUND):
            await page.evaluate("(w) => { document.getElementById('view').style.width = w + 'px'; }", width)
            frame = await view_frame(page)
            assert await frame.evaluate("window.innerWidth") == width
            seen["empty"] = await frame.evaluate(sideways)
            await frame.get_by_role("button", name="Submit").click()
            await frame.locator("p.error").first.wait_for()
            seen["invalid"] = await frame.evaluate(sideways)
    assert seen == {"empty": True, "invalid": True}


async def test_the_app_view_with_call_time_checkboxes_has_no_violation_empty_or_invalid():
    browser_or_skip()
    source = axe_source()
    seen: dict[str, list[str]] = {}
    options = {"depot": ["north", "south"], "stops": ["a", "b", "c", "d"]}
    async with hosted(Route, AppView(), request(Route, options=options)) as page:
        with anyio.fail_after(BROWSER_BOUND):
            frame = await view_frame(page)
            seen["empty"] = await violations(frame, source)
            await frame.locator("input[type=checkbox]").first.check()
            await frame.get_by_role("button", name="Submit").click()
            await frame.locator("p.error").first.wait_for()
            seen["invalid"] = await violations(frame, source)
    assert seen == {"empty": [], "invalid": []}
