"""A field's name on the wire, and the names that say it holds a secret."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from typed_elicit import PROTOCOL_VERSIONS, reduce_schema
from typed_elicit.errors import SchemaError


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_aliases_are_the_wire_names(version: str) -> None:
    class M(BaseModel):
        first_name: str = Field(alias="firstName")
        last: str = Field(validation_alias="lastName")

    schema = reduce_schema(M, protocol_version=version)
    assert list(schema["properties"]) == ["firstName", "lastName"]
    assert schema["required"] == ["firstName", "lastName"]


@pytest.mark.parametrize(
    "name", ["password", "api_key", "apiKey", "token", "card_number", "db_secret", "pin"]
)
def test_fields_named_like_secrets_are_rejected_pointing_to_url_mode(name: str) -> None:
    model = type("Login", (BaseModel,), {"__annotations__": {name: str}})
    with pytest.raises(SchemaError, match=rf"Login\.{name}: the name suggests a secret.*URL mode"):
        reduce_schema(model)


def test_alias_named_like_a_secret_is_rejected() -> None:
    class M(BaseModel):
        value: str = Field(alias="accessToken")

    with pytest.raises(SchemaError, match=r"M\.value: the name suggests a secret"):
        reduce_schema(M)


NEWLY_SECRET = [
    "credit_card",
    "creditCardNumber",
    "ssn",
    "SSN",
    "otp",
    "totp_code",
    "pwd",
    "user_pwd",
    "iban",
    "cvv",
    "cvv2",
    "pin",
    "PIN",
    "pin_code",
    "one_time_code",
    "oneTimeCode",
    "card_number",
    "security_code",
    "verification_code",
    "passcode",
    "private_key",
    "privateKey",
    "client_secret",
    "auth_token",
    "social_security_number",
]


@pytest.mark.parametrize("name", NEWLY_SECRET)
def test_payment_and_one_time_code_names_are_secrets_too(name: str) -> None:
    model = type("Checkout", (BaseModel,), {"__annotations__": {name: str}})
    with pytest.raises(
        SchemaError, match=rf"Checkout\.{name}: the name suggests a secret.*URL mode"
    ) as caught:
        reduce_schema(model)
    assert "form mode MUST NOT collect passwords, API keys, tokens or payment data" in str(caught.value)


@pytest.mark.parametrize(
    "name",
    [
        "max_tokens",
        "pinned",
        "shipping",
        "secretary_name",
        "keyboard",
        "pineapple",
        "spin",
        "topping",
        "toppings",
        "spinner_speed",
        "session_id",
        "one_time_fee",
        "zip_code",
        "country_code",
        "otpauth_app_name",
        "ibanez_guitar",
        "passenger_count",
        "opinion",
    ],
)
def test_ordinary_names_that_contain_secret_words_are_allowed(name: str) -> None:
    model = type("Plain", (BaseModel,), {"__annotations__": {name: str}})
    assert list(reduce_schema(model)["properties"]) == [name]


def test_alias_choices_are_rejected_for_want_of_one_wire_name() -> None:
    from pydantic import AliasChoices

    class M(BaseModel):
        x: str = Field(validation_alias=AliasChoices("a", "b"))

    with pytest.raises(SchemaError, match=r"M\.x: AliasPath/AliasChoices.*plain `alias=`"):
        reduce_schema(M)


def test_a_row_of_a_list_of_models_is_called_by_the_items_title_else_its_class_name_in_words() -> None:
    from typing import Generic, TypeVar

    from pydantic import ConfigDict

    from typed_elicit._forms.names import item_noun

    class Contact(BaseModel):
        name: str

    class PhoneNumber(BaseModel):
        number: str

    class HTTPHeader(BaseModel):
        value: str

    class line_item(BaseModel):
        sku: str

    T = TypeVar("T")

    class Entry(BaseModel, Generic[T]):
        value: T

    class Titled(BaseModel):
        model_config = ConfigDict(title="guest of honour")
        name: str

    models = (Contact, PhoneNumber, HTTPHeader, line_item, Entry[int], Titled)
    assert [item_noun(m) for m in models] == [
        "Contact",
        "Phone number",
        "HTTP header",
        "Line item",
        "Entry",
        "guest of honour",  # the developer's own text, as written (a catalog may translate it)
    ]
