"""`typed-elicit schema` of a page form with groups shows the whole page (issue 27, item 9)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from typed_elicit._cli import main

MODEL = """
from typing import Annotated, Literal

from pydantic import BaseModel, Field, SecretStr

from typed_elicit import form
from typed_elicit.pages import FileLimits, UploadedFile


class Address(BaseModel):
    street: str
    postcode: Annotated[str, Field(pattern=r"^\\d{5}$")]


class Contact(BaseModel):
    name: str
    phone: str | None = None


class Card(BaseModel):
    kind: Literal["card"]
    holder: str


class Invoice(BaseModel):
    kind: Literal["invoice"]
    vat_id: str


@form(page=True)
class Vendor(BaseModel):
    name: str
    address: Address
    contacts: list[Contact] = Field(default_factory=list, max_length=3)
    tags: dict[str, int] = Field(default_factory=dict)
    payment: Annotated[Card | Invoice, Field(discriminator="kind")]
    w9: Annotated[UploadedFile, FileLimits(max_bytes=1_000_000, media_types=("application/pdf",))]
    gift: Address | None = None
    bank_password: SecretStr
"""


def test_schema_of_a_page_form_with_groups_shows_every_group_row_union_and_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "vendor.py").write_text(MODEL)
    out = io.StringIO()

    code = main(["schema", f"{tmp_path / 'vendor.py'}:Vendor"], out=out)

    assert code == 0
    schema = json.loads(out.getvalue())
    shown = schema["properties"]
    assert list(shown) == ["name", "address", "contacts", "tags", "payment", "w9", "gift", "bank_password"]
    postcode = shown["address"]["properties"]["postcode"]
    assert postcode == {"type": "string", "description": "Must be 5 digits."}
    assert shown["contacts"]["type"] == "array"
    assert shown["contacts"]["maxItems"] == 3
    assert shown["contacts"]["items"]["required"] == ["name"]
    assert shown["tags"]["additionalProperties"] == {"type": "integer"}
    assert shown["tags"]["maxProperties"] == 100
    tags = [member["properties"]["kind"] for member in shown["payment"]["oneOf"]]
    assert tags == [{"const": "card"}, {"const": "invoice"}]
    assert shown["payment"]["discriminator"] == {"propertyName": "kind"}
    assert shown["w9"]["format"] == "binary"
    assert shown["w9"]["x-typed-elicit-file"] == {"maxBytes": 1_000_000, "mediaTypes": ["application/pdf"]}
    assert shown["bank_password"]["writeOnly"] is True
    assert schema["required"] == ["name", "address", "payment", "w9", "bank_password"]  # gift is optional
    note = capsys.readouterr().err
    assert "secret fields (password inputs, never echoed): bank_password" in note
