"""The view's HTML: the shared field markup, its own script and style only, nothing from the network."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Annotated

import pytest
from pydantic import BaseModel, Field

from typed_elicit import Choices, form
from typed_elicit._forms.reduce import form_message
from typed_elicit._views.fields import field_views
from typed_elicit._views.words import PAGE_WORDS
from typed_elicit.apps import AppView
from typed_elicit.apps._render import csp, render, view_form

PNG = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()


@form(app=True)
class Order(BaseModel):
    """Confirm the order."""

    item: str = Field(min_length=1, max_length=40, description="What to buy")
    quantity: int = Field(ge=1, le=9)
    gift: bool = False


@form(app=True)
class Route(BaseModel):
    depot: Annotated[str, Choices()]
    stops: Annotated[list[str], Choices(), Field(min_length=2, max_length=3)]


def scripts(html: str) -> list[str]:
    return re.findall(r"<script(?![^>]*application/json)[^>]*>(.*?)</script>", html, re.S)


def sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_the_view_allows_by_hash_only_its_one_inline_script_and_style():
    html = render(Order, AppView(), "1.0")
    (script,) = scripts(html)
    (style,) = re.findall(r"<style>(.*?)</style>", html, re.S)
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert policy is not None
    text = policy.group(1).replace("&#39;", "'")
    assert text == csp(script, style, logo=False)
    assert f"script-src {sha(script)};" in text
    assert f"style-src {sha(style)};" in text
    assert "unsafe-inline" not in text
    assert "default-src 'none'" in text
    assert "connect-src 'none'" in text


def test_the_view_names_no_url_and_carries_no_handler_attribute_or_style_attribute():
    html = render(Order, AppView(), "1.0")
    markup = re.sub(r'<script type="application/json" id="te-data">.*?</script>', "", html, flags=re.S)
    assert re.findall(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", markup) == []
    # the only web address anywhere is the example the "uri" hint gives people (in each language)
    assert set(re.findall(r"https?://[a-z0-9.-]+", html)) == {"https://example.com"}
    assert re.search(r"\s(?:src|href)=", html) is None
    assert re.search(r"\son[a-z]+=", html) is None
    assert re.search(r"\sstyle=", html) is None
    assert "fetch(" not in html
    assert "XMLHttpRequest" not in html
    assert "tools/call" not in html


def test_the_fields_are_the_shared_markup_the_pages_use():
    html = render(Order, AppView(), "1.0")
    from jinja2 import Environment, FileSystemLoader

    from typed_elicit._views.fields import TEMPLATES

    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=True)
    macro = env.get_template("fields.html").module.field  # type: ignore[attr-defined]
    for view in field_views(view_form(Order), frozenset(), values={}, errors={}, words=PAGE_WORDS):
        assert str(macro(view, None)) in html


def test_a_brand_shows_its_title_logo_and_colours_and_the_csp_allows_data_images_only():
    html = render(Order, AppView(title="Acme", logo_url=PNG, css={"--accent": "#0b5fff"}), "1.0")
    assert '<span class="brand" dir="auto">Acme</span>' in html
    assert f'<img src="{PNG}" alt="">' in html
    assert ":root { --accent: #0b5fff; }" in html
    assert "img-src data:;" in html


def test_call_time_choice_fields_are_drawn_with_placeholders_the_script_replaces():
    form_ = view_form(Route)
    assert [f.name for f in form_.fields] == ["depot", "stops"]
    html = render(Route, AppView(), "1.0")
    assert 'name="stops"' in html
    assert 'id="f0"' in html


def test_the_authors_own_html_is_served_as_it_is_and_a_template_gets_the_same_context():
    assert render(Order, AppView(html="<!doctype html><p>mine</p>"), "1.0") == "<!doctype html><p>mine</p>"
    template = (
        '{% from "fields.html" import field %}<title>{{ brand.title }}</title>'
        "{% for f in fields %}{{ field(f, none) }}{% endfor %}<script>{{ script }}</script>"
    )
    html = render(Order, AppView(title="Orders", template=template), "1.0")
    assert html.startswith("<title>Orders</title>")
    assert 'name="quantity"' in html
    assert len(scripts(html)) == 1


@pytest.mark.parametrize("version", ["0.3.0", "1.2.3"])
def test_the_view_tells_the_host_its_name_and_version(version):
    html = render(Order, AppView(), version)
    assert f'"app":{{"name":"typed-elicit-view","version":"{version}"}}' in html


def test_without_a_title_the_view_has_no_header_and_the_message_names_the_page():
    html = render(Order, AppView(), "1.0")
    assert "<header>" not in html
    assert 'class="brand"' not in html
    assert f"<title>{form_message(Order)}</title>" in html


def test_the_view_shows_a_fields_declared_token_and_the_one_its_name_implies() -> None:
    @form(app=True)
    class Shipping(BaseModel):
        where: str = Field(alias="zip", json_schema_extra={"autocomplete": "shipping postal-code"})
        email: str
        note: str = ""

    html = render(Shipping, AppView(), "1.0")
    tags = re.findall(r'<input type="text" [^>]*>', html)
    names = [re.search(r' name="([^"]+)"', tag) for tag in tags]
    tokens = [re.search(r' autocomplete="([^"]+)"', tag) for tag in tags]
    inputs = {n.group(1): t.group(1) if t else "" for n, t in zip(names, tokens, strict=True) if n}
    assert inputs == {"zip": "shipping postal-code", "email": "email", "note": ""}
