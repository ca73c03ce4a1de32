"""The app view speaks its host's language: `hostContext.locale` chooses the words, Arabic is right to left.

The view `render` makes runs in Chromium in the stand-in host of tests/apps/test_view_browser.py,
whose `ui/initialize` answer here carries a `hostContext.locale`. What the view shows (its text,
title, placeholders, accessible names, problems and status) is searched for every English
library word it could say; the server's `Languages` fixes or narrows the languages.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from tests.apps.test_view_browser import BROWSER_BOUND, HOST, Trip, request, result_of
from tests.axe import CHROMIUM, axe_source, browser_or_skip, violations
from typed_elicit._views.i18n import Languages, words_for
from typed_elicit._views.words import MESSAGES
from typed_elicit.apps import AppView
from typed_elicit.apps._render import _WORDS, render

pytestmark = [pytest.mark.anyio]

LANG_AND_DIR = "[document.documentElement.lang, document.documentElement.dir]"
NUMBERS = {"decimal_sign", "group_sign", "plural_categories"}

SHOWN = """() => {
  const named = Array.from(document.querySelectorAll("[placeholder], [aria-label], option"))
    .map((n) => [n.getAttribute("placeholder"), n.getAttribute("aria-label"), n.textContent].join(" "));
  return [document.title, document.body.innerText, ...named].join("\\n");
}"""


def english_patterns(locale: str) -> list[tuple[str, re.Pattern[str]]]:
    """Each English word of the view that `locale` says otherwise, as a pattern (placeholders: any text)."""
    english, other = words_for("en"), words_for(locale)
    found = []
    for key in sorted({*_WORDS, "default_message"} - NUMBERS):
        message = MESSAGES[key]
        for text in {message.text, message.english}:
            if english[key] == other[key]:
                continue
            parts = re.split(r"\{[a-z_]+\}", text)
            found.append((key, re.compile(".+?".join(re.escape(p) for p in parts))))
    return found


@asynccontextmanager
async def hosted(
    model: type[BaseModel], context: dict[str, Any], *requests: Any, languages: Languages | None = None
) -> AsyncIterator[Any]:
    async_playwright = browser_or_skip()
    html = render(model, AppView(), "test", languages)
    host = HOST.replace("hostContext: {}", "hostContext: window.__context")
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.set_content(host)
            await page.evaluate(
                "([html, asks, context]) => { window.__context = context; window.__start(html, asks); }",
                [html, list(requests), context],
            )
            yield page
        finally:
            await browser.close()


async def frame_of(page: Any) -> Any:
    await page.frame_locator("#view").locator("#te-fields:not([disabled])").wait_for()
    handle = await page.locator("#view").element_handle()
    return await handle.content_frame()


def english_in(text: str, locale: str) -> list[str]:
    return sorted({key for key, pattern in english_patterns(locale) if pattern.search(text)})


def test_the_english_patterns_find_the_english_words():  # the search below can fail
    shown = "Submit\nDecline\nEnter at least 2 characters\nChoose...\nPlease provide Trip."
    assert english_in(shown, "de") == ["choose", "decline", "default_message", "min_length", "submit"]


@pytest.mark.browser
async def test_a_view_whose_host_says_de_de_shows_no_english_library_word():
    seen: dict[str, Any] = {}
    async with hosted(Trip, {"locale": "de-DE"}, request(Trip)) as page:
        with anyio.fail_after(BROWSER_BOUND):
            frame = await frame_of(page)
            seen["lang"] = await frame.evaluate(
                "[document.documentElement.lang, document.documentElement.dir]"
            )
            seen["empty"] = await frame.evaluate(SHOWN)
            await frame.locator("#f0").fill("O")
            await frame.locator("#f1").fill("20")
            await frame.locator("#f2").fill("x")
            await frame.locator("#te-submit").click()
            await frame.locator("p.error").first.wait_for()
            seen["problems"] = await frame.locator("p.error").all_inner_texts()
            seen["summary"] = await frame.locator("#te-summary h2").inner_text()
            seen["links"] = await frame.locator("#te-summary a").all_inner_texts()
            seen["invalid"] = await frame.evaluate(SHOWN)
            await frame.locator("#te-decline").click()
            await result_of(page)
            seen["declined"] = await frame.evaluate(SHOWN)
    german = words_for("de")
    assert seen["lang"] == ["de", "ltr"]
    assert seen["problems"] == [german.said("min_length", 2), german.said("le", 14), german.said("email")]
    assert seen["summary"] == german.count("problems", 3)
    assert seen["links"] == [
        german.say("problem_at", label=n, problem=p)
        for n, p in zip(("city", "nights", "email"), seen["problems"], strict=True)
    ]
    assert {state: english_in(seen[state], "de") for state in ("empty", "invalid", "declined")} == {
        "empty": [],
        "invalid": [],
        "declined": [],
    }
    assert german["submit"] in seen["empty"]
    assert german["declined"] in seen["declined"]


@pytest.mark.browser
async def test_a_view_in_arabic_is_right_to_left_and_says_arabic_words():
    async with hosted(Trip, {"locale": "ar-EG"}, request(Trip)) as page:
        with anyio.fail_after(BROWSER_BOUND):
            frame = await frame_of(page)
            lang = await frame.evaluate(LANG_AND_DIR)
            submit = await frame.locator("#te-submit").inner_text()
            shown = await frame.evaluate(SHOWN)
            found = await violations(frame, axe_source())
    assert found == []  # axe's WCAG A/AA rules, right to left too
    assert lang == ["ar", "rtl"]
    assert submit == words_for("ar")["submit"]
    assert english_in(shown, "ar") == []


@pytest.mark.browser
@pytest.mark.parametrize(
    ("languages", "context", "expected"),
    [
        (Languages(locale="fr"), {"locale": "de-DE"}, "fr"),  # the server's fixed locale wins
        (None, {"locale": "pt-BR"}, "en"),  # not offered: the default
        (None, {}, "en"),  # the host says nothing
        (Languages(default="es"), {"locale": "sw"}, "es"),
        (Languages(available=["en", "ja"]), {"locale": "de"}, "en"),
    ],
    ids=["fixed", "not-offered", "unsaid", "server-default", "narrowed"],
)
async def test_the_view_chooses_its_language_as_the_server_s_languages_say(
    languages: Languages | None, context: dict[str, Any], expected: str
):
    async with hosted(Trip, context, request(Trip), languages=languages) as page:
        with anyio.fail_after(BROWSER_BOUND):
            frame = await frame_of(page)
            lang = await frame.evaluate("document.documentElement.lang")
            submit = await frame.locator("#te-submit").inner_text()
    assert (lang, submit) == (expected, words_for(expected)["submit"])


def test_a_view_carries_the_words_of_the_offered_languages_only():
    def offered(languages: Languages | None) -> list[str]:
        html = render(Trip, AppView(), "1.0", languages)
        found = re.search(r'id="te-data">(.*?)</script>', html, re.S)
        assert found is not None
        return sorted(json.loads(found.group(1))["languages"]["offered"])

    assert offered(None) == ["ar", "de", "en", "es", "fr", "ja"]
    assert offered(Languages(available=["en", "de"])) == ["de", "en"]


def test_a_view_with_a_fixed_locale_is_rendered_in_it_before_its_script_runs():
    html = render(Trip, AppView(), "1.0", Languages(locale="ar"))
    assert '<html lang="ar" dir="rtl">' in html
    assert f">{words_for('ar')['submit']}</button>" in html


def test_the_developer_s_own_texts_reach_the_view_translated_by_the_server():
    def translate(text: str, locale: str) -> str | None:
        return {"Where to": "Wohin", "city": "Stadt"}.get(text) if locale == "de" else None

    html = render(Trip, AppView(), "1.0", Languages(translate=translate))
    found = re.search(r'id="te-data">(.*?)</script>', html, re.S)
    assert found is not None
    fields = json.loads(found.group(1))["languages"]["offered"]["de"]["fields"]
    assert fields["f0"][:2] == ["Stadt", "Wohin"]


@pytest.mark.browser
async def test_a_host_that_changes_its_locale_changes_the_view_s_words():
    async with hosted(Trip, {"locale": "de"}, request(Trip)) as page:
        with anyio.fail_after(BROWSER_BOUND):
            frame = await frame_of(page)
            before = await frame.locator("#te-submit").inner_text()
            await page.evaluate(
                "() => post({method: 'ui/notifications/host-context-changed', params: {locale: 'fr-CA'}})"
            )
            await frame.locator("#te-submit", has_text=words_for("fr")["submit"]).wait_for()
            lang = await frame.evaluate(LANG_AND_DIR)
    assert (before, lang) == (words_for("de")["submit"], ["fr", "ltr"])
