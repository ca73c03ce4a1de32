"""The app view is answered with key presses alone, in Chromium: no click, no pointer.

The view `render` makes runs in the stand-in host of tests/apps/test_view_browser.py. The
person presses Tab, types, picks an option with the arrow keys, ticks a box with Space and
sends with Enter; one invalid try first, after which the error summary has the focus and its
link (Enter) takes the person to the field. Where the focus is, is read from the view's
`document.activeElement` (reading is not acting).
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from tests.apps.test_render_accessibility import view_frame
from tests.apps.test_view_browser import BROWSER_BOUND, Trip, hosted, request, result_of
from tests.axe import browser_or_skip
from typed_elicit.apps import AppView

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

MAX_TABS = 30


async def tab_to(page: Any, frame: Any, selector: str, pressed: list[str]) -> None:
    for _ in range(MAX_TABS):
        if await frame.evaluate("(s) => Boolean(document.activeElement?.matches(s))", selector):
            return
        pressed.append("Tab")
        await page.keyboard.press("Tab")
    raise AssertionError(f"{selector} cannot be reached with Tab ({MAX_TABS} presses)")


async def type_into(page: Any, frame: Any, selector: str, text: str, pressed: list[str]) -> None:
    await tab_to(page, frame, selector, pressed)
    pressed.append("Control+A")
    await page.keyboard.press("Control+A")
    await page.keyboard.type(text)


async def test_a_person_answers_the_app_view_with_the_keyboard_only():
    browser_or_skip()
    pressed: list[str] = []
    async with hosted(Trip, AppView(), request(Trip)) as page:
        with anyio.fail_after(BROWSER_BOUND):
            frame = await view_frame(page)
            await type_into(page, frame, "#f0", "O", pressed)  # too short: one invalid try
            await type_into(page, frame, "#f1", "3", pressed)
            await type_into(page, frame, "#f2", "ada@example.com", pressed)
            pressed.append("Enter")
            await page.keyboard.press("Enter")
            await frame.locator("p.error").first.wait_for()
            focused_after_error = await frame.evaluate("document.activeElement.id")
            await tab_to(page, frame, '#te-summary a[href="#f0"]', pressed)
            pressed.append("Enter")
            await page.keyboard.press("Enter")  # the summary's link takes the person to the field
            focused_after_link = await frame.evaluate("document.activeElement.id")
            await type_into(page, frame, "#f0", "Oslo", pressed)
            await tab_to(page, frame, "#f3", pressed)
            pressed.append("ArrowDown")
            await page.keyboard.press("ArrowDown")  # slow -> fast
            await tab_to(page, frame, "#f4", pressed)
            pressed.append("Space")
            await page.keyboard.press(" ")
            await tab_to(page, frame, "#te-submit", pressed)
            pressed.append("Enter")
            await page.keyboard.press("Enter")
            result = await result_of(page)
    assert focused_after_error == "te-summary"  # the error summary takes the focus
    assert focused_after_link == "f0"
    assert result == {
        "action": "accept",
        "content": {"city": "Oslo", "nights": 3, "email": "ada@example.com", "pace": "fast", "insured": True},
    }
    assert set(pressed) <= {"Tab", "Enter", "Space", "ArrowDown", "Control+A"}


@pytest.mark.parametrize("key", ["Enter", " "])
async def test_decline_is_pressed_with_enter_or_space(key: str):
    browser_or_skip()
    pressed: list[str] = []
    async with hosted(Trip, AppView(), request(Trip)) as page:
        with anyio.fail_after(BROWSER_BOUND):
            frame = await view_frame(page)
            await tab_to(page, frame, "#te-decline", pressed)
            await page.keyboard.press(key)
            result = await result_of(page)
    assert result == {"action": "decline"}
