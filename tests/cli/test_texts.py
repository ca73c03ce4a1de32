"""`typed-elicit catalogs texts`: the developer's own texts of their forms, as a catalog template."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from typed_elicit._cli import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, main

FORMS = textwrap.dedent(
    '''
    from typing import Annotated, Literal

    from pydantic import BaseModel, ConfigDict, Field

    from typed_elicit import Titles, form


    class Address(BaseModel):
        model_config = ConfigDict(title="Delivery address")
        street: str = Field(title="Street", description="With the house number")


    @form(page=True)
    class Booking(BaseModel):
        """Book a table.

        Everything after the first paragraph is not the message.
        """

        name: str = Field(title="Your name", description="As on your card", pattern=r"^\\d{5}$")
        size: Annotated[Literal["s", "l"], Titles(s="Small", l="Large")] = "s"
        where: Address | None = None
        more: list[Address] = []


    @form
    class Plain(BaseModel):
        note: str = Field(description="As on your card")
    '''
)


@pytest.fixture
def module(tmp_path: Path) -> Path:
    path = tmp_path / "booking_forms.py"
    path.write_text(FORMS, encoding="utf-8")
    return path


def test_texts_writes_every_text_of_the_models_with_where_it_is_said(module: Path, tmp_path: Path) -> None:
    target = tmp_path / "locale" / "messages.pot"
    out = io.StringIO()
    assert main(["catalogs", "texts", str(module), "--out", str(target)], out) == EXIT_OK
    assert out.getvalue() == f"wrote {target}: 8 texts of 2 models in {module}\n"
    with target.open("rb") as f:
        pot = read_po(f)
    assert {m.id: m.auto_comments for m in pot if m.id} == {
        "Book a table.": ["Booking message"],
        "Your name": ["Booking.name title"],
        "As on your card": ["Booking.name description, Plain.note description"],
        "Small": ["Booking.size option"],
        "Large": ["Booking.size option"],
        "Delivery address": ["Booking.where title"],
        "Street": ["Booking.where.street title"],
        "With the house number": ["Booking.where.street description"],
    }  # never the automatic hint ("Must be 5 digits."), nor the library's "Please provide Plain."


def test_texts_prints_the_template_without_its_header_and_refuses_modules_without_models(
    module: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = io.StringIO()
    assert main(["catalogs", "texts", str(module)], out) == EXIT_OK
    assert 'msgid "Book a table."' in out.getvalue()
    assert "Project-Id-Version" not in out.getvalue()
    empty = tmp_path / "nothing_here.py"
    empty.write_text("x = 1\n", encoding="utf-8")
    assert main(["catalogs", "texts", str(empty)], io.StringIO()) == EXIT_PROBLEMS
    assert "no @form or @elicits model" in capsys.readouterr().err
    assert main(["catalogs", "texts"], io.StringIO()) == EXIT_USAGE
    assert "texts needs the modules" in capsys.readouterr().err
    assert main(["catalogs", "texts", str(tmp_path / "missing.py")], io.StringIO()) == EXIT_USAGE
