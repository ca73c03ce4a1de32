"""`AppView` and `Preview`: what can be set, checked when it is made."""

from __future__ import annotations

import base64

import pytest

from typed_elicit.apps import AppView, AppViewError, Preview
from typed_elicit.errors import PageSetupError


@pytest.mark.parametrize("css", [{"accent": "red"}, {"--accent": "red; background: url(x)"}])
def test_css_that_cannot_be_used_is_refused_by_the_brand_pages_and_views_share(css):
    with pytest.raises(PageSetupError) as caught:
        AppView(css=css)
    assert caught.value.setting == "css"


@pytest.mark.parametrize(
    ("setting", "options"),
    [
        ("logo_url", {"logo_url": "https://cdn.example.com/logo.png"}),
        ("logo_url", {"logo_url": "data:image/png;base64,***"}),
        ("logo_url", {"logo_url": "data:image/png;base64," + base64.b64encode(b"x" * 70_000).decode()}),
        ("html", {"html": "<p>a</p>", "template": "<p>b</p>"}),
        ("template", {"template": "no markup"}),
        ("search_over", {"search_over": 1}),
    ],
)
def test_a_setting_that_cannot_be_used_is_refused_when_made(setting, options):
    with pytest.raises(AppViewError) as caught:
        AppView(**options)
    assert caught.value.setting == setting


def test_a_logo_is_a_small_data_url_since_a_view_loads_nothing():
    logo = "data:image/svg+xml;base64," + base64.b64encode(b"<svg/>").decode()
    assert AppView(logo_url=logo).logo_url == logo


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"text": "x" * 2001},
        {"columns": [str(i) for i in range(9)]},
        {"columns": ["a"], "rows": [["1", "2"]]},
        {"rows": [["1"]], "text": "t"},
        {"columns": ["a"], "rows": [["x" * 201]]},
        {"columns": ["a"], "rows": [["1"]] * 51},
    ],
)
def test_a_preview_that_is_empty_or_too_large_is_refused(options):
    with pytest.raises(AppViewError) as caught:
        Preview(**options)
    assert caught.value.setting == "preview"


def test_a_preview_travels_as_text_cells():
    shown = Preview(text="Ships today", columns=["Item", "Qty", "Gift"], rows=[["Tent", 2, None]])
    assert shown.wire() == {
        "text": "Ships today",
        "columns": ["Item", "Qty", "Gift"],
        "rows": [["Tent", "2", ""]],
    }
