"""A declared `autocomplete` token: checked when the model is declared, never on the wire."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field, SecretStr

from typed_elicit import form, reduce_schema
from typed_elicit._forms.autofill import declared_tokens, is_token, nearest_token
from typed_elicit._forms.page.tree import page_tree
from typed_elicit.errors import SchemaError


def test_a_declared_token_is_read_by_wire_name_and_never_travels_on_the_wire() -> None:
    @form
    class Address(BaseModel):
        code: str = Field(alias="zip", json_schema_extra={"autocomplete": "postal-code"})
        town: str = Field(json_schema_extra={"autocomplete": "address-level2", "hint": "As on a letter"})
        note: str = ""

    schema = reduce_schema(Address)
    assert set(schema["properties"]) == {"zip", "town", "note"}
    assert all("autocomplete" not in prop for prop in schema["properties"].values())
    assert schema["properties"]["town"]["description"] == "As on a letter"
    assert declared_tokens(Address) == {"zip": "postal-code", "town": "address-level2"}


@pytest.mark.parametrize(
    "token",
    [
        "off",
        "on",
        "postal-code",
        "shipping postal-code",
        "section-home billing street-address",
        "work email",
        "mobile tel",
        "username webauthn",
        "section-a shipping home tel-extension webauthn",
    ],
)
def test_the_html_autofill_grammar_is_admitted(token: str) -> None:
    assert is_token(token.split())


@pytest.mark.parametrize(
    "token",
    ["postcode", "off name", "work postal-code", "billing shipping name", "section- name", "name on", ""],
)
def test_what_the_html_autofill_grammar_does_not_admit_is_not_a_token(token: str) -> None:
    assert not is_token(token.split())


def test_an_unknown_token_is_refused_naming_the_field_the_token_and_the_nearest_one() -> None:
    with pytest.raises(SchemaError) as caught:

        @form
        class Signup(BaseModel):
            postcode: str = Field(json_schema_extra={"autocomplete": "postcode"})
            mail: str = Field(json_schema_extra={"autocomplete": "e-mail"})
            spaced: str = Field(json_schema_extra={"autocomplete": "work  email"})

    text = str(caught.value)
    assert "Signup.postcode: the autocomplete token 'postcode' is not one of the HTML standard's" in text
    assert "the nearest is 'postal-code'" in text
    assert "Signup.mail: the autocomplete token 'e-mail'" in text
    assert "the nearest is 'email'" in text
    assert "Signup.spaced: the autocomplete token 'work  email'" in text
    assert nearest_token("zzzzzzzz") is None


def test_a_token_that_is_no_text_is_refused() -> None:
    class M(BaseModel):
        x: str = Field(json_schema_extra={"autocomplete": True})

    with pytest.raises(SchemaError, match=r"M\.x: .*takes an HTML autofill token .* not a bool"):
        reduce_schema(M)


def test_checkboxes_take_no_token() -> None:
    class M(BaseModel):
        agree: bool = Field(json_schema_extra={"autocomplete": "on"})
        sizes: list[Literal["s", "m"]] = Field(default_factory=list, json_schema_extra={"autocomplete": "on"})
        size: Literal["s", "m"] = Field("s", json_schema_extra={"autocomplete": "off"})  # a list: allowed

    with pytest.raises(SchemaError) as caught:
        reduce_schema(M)
    assert [p.split(":")[0] for p in caught.value.problems] == ["M.agree", "M.sizes"]
    assert "shown as checkboxes, which take no autocomplete token" in caught.value.problems[0]


def test_a_secret_field_takes_only_the_tokens_that_keep_a_secret_out_of_ordinary_autofill() -> None:
    class Login(BaseModel):
        password: SecretStr = Field(json_schema_extra={"autocomplete": "new-password"})
        pin_code: Annotated[str, Field(json_schema_extra={"autocomplete": "one-time-code"})]
        card_number: str = Field(json_schema_extra={"autocomplete": "cc-number"})

    tree = page_tree(Login)
    assert [c.autocomplete for c in tree.root.children if c.kind == "leaf"] == [
        "new-password",
        "one-time-code",
        "cc-number",
    ]

    class Leaky(BaseModel):
        api_key: SecretStr = Field(json_schema_extra={"autocomplete": "email"})

    with pytest.raises(SchemaError, match=r"Leaky\.api_key: a secret field .* not 'email'; declare one"):
        page_tree(Leaky)
