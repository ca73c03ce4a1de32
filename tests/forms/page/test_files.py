"""Uploaded files: the typed value, its limits, and the check of size, type and leading bytes."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import create_model

from typed_elicit import form
from typed_elicit._forms.page.files import (
    DEFAULT_MEDIA_TYPES,
    MAX_FILE_BYTES,
    MAX_FILE_LIMIT,
    FileLimits,
    UploadedFile,
    file_name,
    file_problem,
)
from typed_elicit.errors import ElicitArgumentError, SchemaError

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 20
PDF = b"%PDF-1.7\n..."


def test_an_uploaded_file_never_shows_its_bytes():
    upload = UploadedFile("scan.pdf", "application/pdf", PDF)
    assert repr(upload) == "UploadedFile(name='scan.pdf', media_type='application/pdf', size=12)"
    assert str(upload) == repr(upload)
    assert b"PDF" not in repr(upload).encode()
    with pytest.raises(AttributeError):
        upload.name = "other"  # type: ignore[misc]


def test_limits_default_and_are_checked_when_declared():
    assert FileLimits() == FileLimits(MAX_FILE_BYTES, DEFAULT_MEDIA_TYPES)
    bad_ones = (
        {"max_bytes": 0},
        {"max_bytes": True},
        {"max_bytes": MAX_FILE_LIMIT + 1},  # over what one page submit takes: never silently accepted
        {"media_types": ()},
        {"media_types": ("PNG",)},
    )
    for bad in bad_ones:
        with pytest.raises(ElicitArgumentError, match=r"^FileLimits ") as refused:
            FileLimits(**bad)  # type: ignore[arg-type]
        assert refused.value.argument == next(iter(bad))
    assert FileLimits(max_bytes=MAX_FILE_LIMIT).max_bytes == MAX_FILE_LIMIT


def test_files_that_together_exceed_one_submit_are_refused_when_the_form_is_declared():
    big = Annotated[UploadedFile, FileLimits(max_bytes=20_000_000)]
    with pytest.raises(SchemaError, match="its files may together hold up to 40000000 bytes"):
        form(page=True)(create_model("TwoScans", a=(big, ...), b=(big, ...)))


def test_file_limits_on_a_field_that_is_no_file_is_refused_naming_it():
    with pytest.raises(SchemaError, match=r"Pdf\.title: FileLimits applies to an UploadedFile field only"):
        form(page=True)(create_model("Pdf", title=(Annotated[str, FileLimits()], ...)))
    with pytest.raises(
        SchemaError, match=r"Note\.text: FileLimits applies to an UploadedFile field of a page"
    ):
        form(create_model("Note", text=(Annotated[str, FileLimits()], ...)))


def test_an_uploaded_file_in_a_plain_form_is_told_to_ask_it_on_a_page():
    with pytest.raises(SchemaError, match=r"an UploadedFile is asked on a page, never in a form: declare"):
        form(create_model("Scan", scan=(UploadedFile, ...)))


@pytest.mark.parametrize(
    ("media_type", "data", "problem"),
    [
        ("image/png", PNG, None),
        ("application/pdf", PDF, None),
        ("text/plain", b"plain words", None),
        ("image/png", PDF, "file_mislabelled"),
        ("text/plain", PNG, "file_mislabelled"),
        ("text/plain", b"\xff\xfe\x00bad", "file_mislabelled"),
        ("image/webp", b"RIFF\x00\x00\x00\x00WEBPVP8 ", None),
        ("image/webp", b"RIFF\x00\x00\x00\x00WAVE", "file_mislabelled"),
        ("application/zip", b"PK\x03\x04", "file_type"),
        ("image/png", PNG + b"\x00" * 100, "file_size"),
    ],
)
def test_a_file_must_fit_its_size_its_types_and_start_as_its_type_does(
    media_type: str, data: bytes, problem: str | None
):
    limits = FileLimits(max_bytes=64)
    assert file_problem(limits, media_type, data) == problem


def test_a_browser_file_name_keeps_only_its_last_part_without_controls():
    assert file_name("C:\\Users\\me\\report.pdf") == "report.pdf"
    assert file_name("../../etc/passwd") == "passwd"
    assert file_name("a\x00b\u202ec.txt") == "abc.txt"
    assert file_name("/") == "file"
    assert len(file_name("x" * 1000)) == 255


def test_a_model_holding_a_file_dumps_it_without_its_bytes_and_takes_only_an_uploaded_file():
    from pydantic import BaseModel, ValidationError

    class Holder(BaseModel):
        scan: UploadedFile

    held = Holder(scan=UploadedFile("a.txt", "text/plain", b"secret-bytes"))
    assert held.model_dump() == {"scan": {"name": "a.txt", "media_type": "text/plain", "size": 12}}
    assert "secret-bytes" not in held.model_dump_json()
    assert "secret-bytes" not in repr(held)
    with pytest.raises(ValidationError):
        Holder.model_validate({"scan": {"name": "a.txt", "media_type": "text/plain", "data": b"forged"}})
