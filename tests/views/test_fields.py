"""The shared field markup: one `FieldView` per field, rendered by the `field` macro of `fields.html`."""

from __future__ import annotations

from typing import Annotated

import jinja2
from pydantic import BaseModel, Field, SecretStr

from typed_elicit import form
from typed_elicit._forms.reduce import page_reduced, secret_fields
from typed_elicit._views.fields import TEMPLATES, field_views
from typed_elicit._views.words import PAGE_WORDS


@form(page=True)
class Signup(BaseModel):
    name: Annotated[str, Field(description="As on your card", max_length=40)]
    password: SecretStr
    age: Annotated[int, Field(ge=18)] = 30


def render(**kwargs: object) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True)
    macro = env.get_template("fields.html").module.field  # type: ignore[attr-defined]
    views = field_views(
        page_reduced(Signup).form,
        secret_fields(Signup),
        values=kwargs.get("values", {}),  # type: ignore[arg-type]
        errors=kwargs.get("errors", {}),  # type: ignore[arg-type]
        words=PAGE_WORDS,
    )
    return "\n".join(str(macro(view, "f0")) for view in views)


def test_each_field_gets_one_view_in_the_forms_order_with_its_input_kind() -> None:
    views = field_views(
        page_reduced(Signup).form, secret_fields(Signup), values={}, errors={}, words=PAGE_WORDS
    )
    assert [(v.id, v.name, v.input) for v in views] == [
        ("f0", "name", "text"),
        ("f1", "password", "password"),
        ("f2", "age", "number"),
    ]
    assert views[0].attrs["maxlength"] == "40"
    assert views[2].value == "30"
    assert views[2].attrs["min"] == "18"


def test_the_macro_renders_label_description_and_error_and_never_refills_a_secret() -> None:
    html = render(values={"name": ["Ada"], "password": ["hunter2"]}, errors={"name": "Fill this in"})
    assert '<label for="f0" dir="auto">name <span class="req"' in html
    assert "As on your card" in html
    assert '<p class="error" id="f0-error" dir="auto">Fill this in</p>' in html
    assert 'value="Ada"' in html
    assert "hunter2" not in html
    assert 'type="password" id="f1" name="password"' in html


class Address(BaseModel):
    street: str
    postcode: str
    country: str
    company: str
    email_address: str
    favourite: str


def test_autocomplete_tokens_are_inferred_from_each_fields_own_name() -> None:
    from typed_elicit._views.fields import autocomplete_for

    tokens = {name: autocomplete_for(name, False) for name in Address.model_fields}
    assert tokens == {
        "street": "street-address",
        "postcode": "postal-code",
        "country": "country-name",
        "company": "organization",
        "email_address": "email",
        "favourite": None,
    }
    assert autocomplete_for("api_key", True) == "off"  # a secret without a token is never remembered


def test_a_blank_fields_markup_is_the_same_as_one_written_out() -> None:
    from typed_elicit._views.fields import blank_view, field_html, field_view

    spec = page_reduced(Signup).form.fields[0]
    shared = field_view(spec, 7, False, {}, None, PAGE_WORDS, name="a.b")
    assert shared.template is not None  # the shared, cached blank view's copy
    written = field_html(shared, None)
    shared.template = None
    assert field_html(shared, None) == written
    assert blank_view(spec, False, PAGE_WORDS) is blank_view(spec, False, PAGE_WORDS)
