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
