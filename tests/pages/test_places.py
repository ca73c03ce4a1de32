"""Where files are in a page answer: taken out before it is stored, put back in their place when read."""

from __future__ import annotations

import pytest

from typed_elicit.pages import UploadedFile
from typed_elicit.pages._places import from_json, inline, put_back, split_files

SCAN = UploadedFile("scan.png", "image/png", b"\x89PNG pixels")
RECEIPT = UploadedFile("r.pdf", "application/pdf", b"%PDF-1.7")


def test_files_are_taken_out_by_place_and_put_back_where_they_were() -> None:
    content = {"title": "t", "scan": SCAN, "rows": [{"receipt": RECEIPT, "amount": 3}, {"receipt": None}]}
    stripped, files = split_files(content)
    assert stripped == {
        "title": "t",
        "scan": None,
        "rows": [{"receipt": None, "amount": 3}, {"receipt": None}],
    }
    assert files == [(["scan"], SCAN), (["rows", 0, "receipt"], RECEIPT)]
    assert content["scan"] is SCAN  # the content given is left as it was
    assert put_back(stripped, files) == content


def test_a_place_the_content_no_longer_has_is_skipped() -> None:
    content = {"rows": [], "title": "t"}
    files = [(["rows", 2, "receipt"], RECEIPT), (["gone", "scan"], SCAN), (["title", "x"], SCAN)]
    assert put_back(content, files) == {"rows": [], "title": "t"}


def test_files_held_inline_come_back_whole() -> None:
    files = [(["scan"], SCAN), (["rows", 0, "receipt"], RECEIPT)]
    assert from_json(inline(files)) == files
    assert from_json(None) == []


@pytest.mark.parametrize(
    "entries",
    [
        "not a list",
        [1],
        [{"place": ["x"], "name": "a", "type": "t", "data": "@@"}],
        [{"place": ["extra"], "key": "page-file:abc:n:0"}],  # a reference to stored bytes (before 0.4)
    ],
)
def test_json_that_no_answer_wrote_is_refused(entries: object) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 (a ValueError is the contract; binascii's included)
        from_json(entries)
