"""The shared field markup: one `FieldView` per field, rendered by the `field` macro of `fields.html`."""

from __future__ import annotations

from typing import Annotated

import jinja2
import pytest
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

    tokens = {name: autocomplete_for(name, "text") for name in Address.model_fields}
    assert tokens == {
        "street": "street-address",
        "postcode": "postal-code",
        "country": "country-name",
        "company": "organization",
        "email_address": "email",
        "favourite": None,
    }
    assert autocomplete_for("api_key", "password") == "off"  # a secret without a token is never remembered


@pytest.mark.parametrize(
    ("name", "token"),
    [
        ("zip_code", "postal-code"),  # was one-time-code: "code" matched first
        ("postalCode", "postal-code"),
        ("billing_postcode", "postal-code"),
        ("country_code", "country"),
        ("promo_code", None),
        ("area_code", None),
        ("verification_code", "one-time-code"),
        ("one_time_code", "one-time-code"),
        ("otpCode", "one-time-code"),
        ("code", "one-time-code"),
        ("first_name", "given-name"),  # was name
        ("last_name", "family-name"),
        ("product_name", None),  # was name: no person's name
        ("file_name", None),
        ("user_email", "email"),  # was username
        ("org_id", None),  # was organization
        ("login_code", None),  # was username
        ("new_password", "new-password"),
        ("mobile_number", "tel"),
    ],
)
def test_a_token_is_inferred_only_from_what_a_fields_name_ends_with_or_is_whole(
    name: str, token: str | None
) -> None:
    from typed_elicit._views.fields import autocomplete_for

    assert autocomplete_for(name, "text") == token


def test_a_token_is_inferred_only_where_it_fits_the_input() -> None:
    from typed_elicit._views.fields import autocomplete_for

    assert autocomplete_for("phone", "number") is None  # a number input takes no text token
    assert autocomplete_for("postcode", "number") is None
    assert autocomplete_for("email", "email") == "email"
    assert autocomplete_for("contact_name", "email") is None
    assert autocomplete_for("otp", "password") == "one-time-code"
    assert autocomplete_for("email", "password") == "off"  # a secret never takes an ordinary value's token


class Delivery(BaseModel):
    zip_code: str
    phone: int
    otp: SecretStr


def test_a_pages_inputs_carry_the_token_their_name_and_input_kind_give() -> None:
    fields = field_views(
        page_reduced(Delivery).form, secret_fields(Delivery), values={}, errors={}, words=PAGE_WORDS
    )
    html = {f.name: f.html() for f in fields}
    assert 'autocomplete="postal-code"' in html["zip_code"]
    assert "autocomplete" not in html["phone"]  # type="number": no text token
    assert 'type="password"' in html["otp"]
    assert 'autocomplete="one-time-code"' in html["otp"]


def test_a_blank_fields_markup_is_the_same_as_one_written_out() -> None:
    from typed_elicit._views.fields import blank_view, field_html, field_view

    spec = page_reduced(Signup).form.fields[0]
    shared = field_view(spec, 7, False, {}, None, PAGE_WORDS, name="a.b")
    assert shared.template is not None  # the shared, cached blank view's copy
    written = field_html(shared, None)
    shared.template = None
    assert field_html(shared, None) == written
    assert blank_view(spec, False, PAGE_WORDS) is blank_view(spec, False, PAGE_WORDS)


def test_a_declared_token_wins_over_the_one_its_name_implies_and_a_blank_is_kept_per_token() -> None:
    from typed_elicit._views.fields import field_view

    @form(page=True)
    class Parcel(BaseModel):
        postcode: str  # its name implies postal-code
        country: Annotated[str, Field(json_schema_extra={"autocomplete": "shipping country"})]

    form_spec = page_reduced(Parcel).form
    views = field_views(
        form_spec, frozenset(), values={}, errors={}, words=PAGE_WORDS, tokens={"postcode": "off"}
    )
    assert [v.attrs.get("autocomplete") for v in views] == [
        "off",
        "country-name",
    ]  # tokens name only postcode
    spec = form_spec.fields[0]
    inferred = field_view(spec, 0, False, {}, None, PAGE_WORDS)
    declared = field_view(spec, 0, False, {}, None, PAGE_WORDS, autocomplete="billing postal-code")
    assert 'autocomplete="postal-code"' in inferred.html()
    assert 'autocomplete="billing postal-code"' in declared.html()  # not the cached blank of the inferred one
    typed = field_view(spec, 0, False, {"postcode": ["75001"]}, None, PAGE_WORDS, autocomplete="off")
    assert 'autocomplete="off"' in typed.html()


def test_a_secret_field_keeps_off_unless_it_declares_a_password_token() -> None:
    from typed_elicit._views.fields import field_view

    @form(page=True)
    class Vault(BaseModel):
        api_key: SecretStr

    spec = page_reduced(Vault).form.fields[0]
    assert field_view(spec, 0, True, {}, None, PAGE_WORDS).attrs["autocomplete"] == "off"
    chosen = field_view(spec, 0, True, {}, None, PAGE_WORDS, autocomplete="new-password")
    assert chosen.attrs["autocomplete"] == "new-password"


def test_a_list_shows_its_token_too() -> None:
    from typing import Literal

    @form(page=True)
    class Where(BaseModel):
        country: Literal["fr", "de"]

    (view,) = field_views(page_reduced(Where).form, frozenset(), values={}, errors={}, words=PAGE_WORDS)
    assert '<select id="f0" name="country" required autocomplete="country-name">' in view.html()
