"""Uploaded files: the typed value, its limits, and the check of size, type and leading bytes."""

from __future__ import annotations

import pytest

from typed_elicit._forms.page.files import (
    DEFAULT_MEDIA_TYPES,
    MAX_FILE_BYTES,
    FileLimits,
    UploadedFile,
    file_name,
    file_problem,
)

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
    for bad in ({"max_bytes": 0}, {"max_bytes": True}, {"media_types": ()}, {"media_types": ("PNG",)}):
        with pytest.raises(ValueError, match="FileLimits"):
            FileLimits(**bad)  # type: ignore[arg-type]


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
