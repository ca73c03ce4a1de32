"""The view's own script in a real headless Chromium, with a fake host on the other end of postMessage.

The host page here is a minimal stand-in for an MCP Apps host (the full proof with the
official `AppBridge` is `tests/apps/test_apps_browser*.py`): it puts the view in a sandboxed
iframe (`allow-scripts` only), answers `ui/initialize` with `hostCapabilities.elicitation`,
forwards one `elicitation/create` request (as the draft says a host does) and records every
message the view sends. Playwright then fills the view like a person.

Needs `chromium` and the `playwright` package; skipped without them unless `CI=true`.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import pytest
from pydantic import BaseModel, EmailStr, Field

from typed_elicit import Choices, form, reduce_schema
from typed_elicit.apps import AppView
from typed_elicit.apps._render import render

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
BROWSER_BOUND = 60.0


@form(app=True)
class Trip(BaseModel):
    """Plan the trip."""

    city: str = Field(min_length=2, max_length=30, description="Where to")
    nights: int = Field(ge=1, le=14)
    email: EmailStr
    pace: Literal["slow", "fast"] = "slow"
    insured: bool = False


@form(app=AppView(search_over=5, title="Warehouses"))
class Pick(BaseModel):
    warehouse: Annotated[str, Choices()]


HOST = """<!doctype html><html><body><iframe id="view" sandbox="allow-scripts"
 style="width: 640px; height: 900px; border: 0"></iframe><script>
window.__sent = []; window.__result = null;
const view = document.getElementById("view");
function post(m) { view.contentWindow.postMessage(Object.assign({jsonrpc: "2.0"}, m), "*"); }
window.addEventListener("message", (event) => {
  if (event.source !== view.contentWindow) return;
  const m = event.data; window.__sent.push(m);
  if (m.method === "ui/initialize") {
    post({id: m.id, result: {protocolVersion: "2026-01-26", hostInfo: {name: "fake", version: "1"},
          hostCapabilities: {elicitation: {}}, hostContext: {}}});
  } else if (m.method === "ui/notifications/initialized") {
    for (const request of window.__requests) post(request);
  } else if (m.id === 77 || m.id === 78) {
    window.__result = window.__result || {}; window.__result[m.id] = m.result || m.error;
  }
});
window.__start = (html, requests) => { window.__requests = requests; view.srcdoc = html; };
</script></body></html>"""


def _playwright_or_skip() -> Any:
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


def request(
    model: type[BaseModel], *, meta: dict[str, Any] | None = None, ident: int = 77, **shape: Any
) -> Any:
    params: dict[str, Any] = {
        "mode": "form",
        "message": f"About the {model.__name__}",
        "requestedSchema": reduce_schema(model, **shape),
        "_meta": {"ui": {"resourceUri": "ui://typed-elicit/test"}, **(meta or {})},
    }
    return {"id": ident, "method": "elicitation/create", "params": params}


@asynccontextmanager
async def hosted(model: type[BaseModel], view: AppView, *requests: Any) -> AsyncIterator[Any]:
    async_playwright = _playwright_or_skip()
    html = render(model, view, "test")
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            errors: list[str] = []
            page.on(
                "console", lambda msg: errors.append(msg.text) if msg.type in ("error", "warning") else None
            )
            await page.set_content(HOST)
            await page.evaluate(
                "([html, requests]) => window.__start(html, requests)", [html, list(requests)]
            )
            page.errors = errors
            yield page
        finally:
            await browser.close()


async def result_of(page: Any, ident: int = 77) -> Any:
    with anyio.fail_after(BROWSER_BOUND):
        while True:
            done = await page.evaluate(f"window.__result && window.__result[{ident}]")
            if done is not None:
                return done
            await anyio.sleep(0.05)


async def test_a_person_fixes_what_the_view_refuses_and_the_host_gets_the_standard_result():
    async with hosted(Trip, AppView(), request(Trip)) as page:
        frame = page.frame_locator("#view")
        await frame.locator("#f0").fill("O")
        await frame.locator("#f1").fill("20")
        await frame.locator("#f2").fill("not-an-address")
        await frame.get_by_role("button", name="Submit").click()
        await frame.locator("p.error").first.wait_for()
        problems = await frame.locator("p.error").all_inner_texts()
        assert problems == [
            "Enter at least 2 characters",
            "Enter 14 or less",
            "Enter an email address, like name@example.com",
        ]
        assert await page.evaluate("window.__result") is None  # nothing sent for an invalid form
        assert await frame.locator("#f0").get_attribute("aria-describedby") == "f0-desc f0-error"
        assert await frame.locator("#f0").get_attribute("aria-invalid") == "true"
        await frame.locator("#f0").fill("Oslo")
        await frame.locator("#f1").fill("3")
        await frame.locator("#f2").fill("ada@example.com")
        await frame.locator("#f3").select_option("fast")
        await frame.locator("#f4").check()
        await frame.get_by_role("button", name="Submit").click()
        result = await result_of(page)
        sent = await page.evaluate("window.__sent")
        assert page.errors == []
    assert result == {
        "action": "accept",
        "content": {"city": "Oslo", "nights": 3, "email": "ada@example.com", "pace": "fast", "insured": True},
    }
    init = sent[0]
    assert init["method"] == "ui/initialize"
    assert init["params"]["appCapabilities"] == {"elicitation": {}}
    assert init["params"]["protocolVersion"] == "2026-01-26"
    assert sent[1]["method"] == "ui/notifications/initialized"
    assert any(m.get("method") == "ui/notifications/size-changed" for m in sent)
    methods = {m.get("method") for m in sent} - {None}
    assert methods == {"ui/initialize", "ui/notifications/initialized", "ui/notifications/size-changed"}


@pytest.mark.parametrize("button", ["Decline", "Cancel"])
async def test_decline_and_cancel_answer_with_their_action_and_no_content(button):
    async with hosted(Trip, AppView(), request(Trip)) as page:
        await page.frame_locator("#view").get_by_role("button", name=button).click()
        result = await result_of(page)
    assert result == {"action": button.lower()}


async def test_a_long_call_time_list_gets_a_search_box_and_the_preview_shows_as_text():
    options = {f"w{i}": f"Warehouse {i:02d}" for i in range(40)}
    preview = {"text": "<b>not markup</b>", "columns": ["Item", "Qty"], "rows": [["Tent", "2"]]}
    ask = request(
        Pick,
        options={"warehouse": options},
        meta={"io.github.typed-elicit/view": {"search": ["warehouse"], "preview": preview}},
    )
    async with hosted(Pick, AppView(search_over=5), ask) as page:
        frame = page.frame_locator("#view")
        assert await frame.locator("#te-preview p").inner_text() == "<b>not markup</b>"
        assert await frame.locator("#te-preview td").all_inner_texts() == ["Tent", "2"]
        await frame.get_by_role("searchbox").fill("Warehouse 17")
        visible = await frame.locator("#f0 option:not([hidden])").all_inner_texts()
        assert visible == ["Warehouse 17"]  # a list box has no "Choose..." row
        await frame.locator("#f0").select_option("w17")
        await frame.get_by_role("button", name="Submit").click()
        result = await result_of(page)
    assert result == {"action": "accept", "content": {"warehouse": "w17"}}


async def test_the_view_answers_one_question_and_refuses_a_second():
    async with hosted(Trip, AppView(), request(Trip), request(Trip, ident=78)) as page:
        second = await result_of(page, 78)
    assert second["code"] == -32600


async def test_a_question_the_view_was_not_made_for_is_refused_so_the_host_falls_back():
    async with hosted(Trip, AppView(), request(Pick, options={"warehouse": ["a", "b"]})) as page:
        refused = await result_of(page)
    assert refused["code"] == -32603
    assert "cannot show" in refused["message"]


def test_the_requests_are_json():  # the fixtures above are plain JSON (what a host forwards)
    assert json.loads(json.dumps(request(Trip)))["params"]["requestedSchema"]["required"]
