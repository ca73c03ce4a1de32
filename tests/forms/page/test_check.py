"""A page answer with groups, checked against its tree (bounded by the tree) and then the model."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from tests.forms.page.test_tree import Order
from typed_elicit._forms.page.check import check_tree, dotted, node_at
from typed_elicit._forms.page.files import UploadedFile
from typed_elicit._forms.reduce import page_reduced
from typed_elicit._forms.validate import validate_answer
from typed_elicit.errors import InvalidResponse

TREE = page_reduced(Order).tree
assert TREE is not None
TEXT = UploadedFile("notes.txt", "text/plain", b"hello")


def good() -> dict[str, object]:
    return {
        "name": "Ada",
        "address": {"street": "Main 1"},
        "items": [{"name": "tea", "qty": "2"}, {"name": "cake"}],
        "tags": ["a", "b"],
        "pet": {"kind": "dog", "breed": "collie"},
        "labels": {"x": 1},
        "doc": TEXT,
        "password": "s3cret",
    }


def test_a_whole_nested_answer_becomes_the_typed_model():
    order = validate_answer(Order, page_reduced(Order), good(), keep=False)
    assert order.address.city == "Paris"
    assert [i.qty for i in order.items] == [2, 1]
    assert order.pet.kind == "dog"
    assert order.pet.breed == "collie"
    assert order.doc is TEXT
    assert order.labels == {"x": 1}
    assert order.gift is None
    assert isinstance(order.password, SecretStr)


def test_problems_are_named_by_dotted_paths_and_never_hold_a_value():
    answer = good()
    answer["address"] = {"street": 7, "zip": "x"}
    answer["items"] = [{"name": "tea", "qty": "many"}]
    answer["pet"] = {"kind": "eel"}
    _, problems = check_tree(TREE, answer)
    assert dict(problems) == {
        "address.zip": "was not asked for (the form has no such field)",
        "address.street": "expected a string, got a number",
        "items.0.qty": dict(problems)["items.0.qty"],
        "pet.kind": "is not one of the choices",
    }
    assert "many" not in str(problems)
    assert "eel" not in str(problems)


def test_the_model_judges_last_and_its_errors_carry_dotted_paths():
    answer = good()
    answer["items"] = [{"name": "tea", "qty": 0}]
    with pytest.raises(InvalidResponse) as caught:
        validate_answer(Order, page_reduced(Order), answer)
    assert [path for path, _ in caught.value.errors] == ["items.0.qty"]


def test_counts_are_checked_before_anything_is_read():
    answer = good()
    answer["items"] = [{"name": "x"}] * 10_000
    answer["labels"] = {str(i): i for i in range(1000)}
    _, problems = check_tree(TREE, answer)
    assert ("items", "holds 10000 rows, more than the 5 allowed") in problems
    assert ("labels", "holds 1000 keys, more than the 100 allowed") in problems
    flood = {f"k{i}": 1 for i in range(50)}
    _, problems = check_tree(TREE, flood)
    assert problems == [("(answer)", "holds 50 keys, more than the 9 fields of the form")]


def test_a_file_field_takes_only_an_uploaded_file_that_fits_its_limits():
    answer = good()
    answer["doc"] = "bytes as text"
    _, problems = check_tree(TREE, answer)
    assert problems == [("doc", "expected an uploaded file, got a string")]
    answer["doc"] = UploadedFile("x.txt", "text/plain", b"x" * 1001)
    assert check_tree(TREE, answer)[1] == [("doc", "file size")]
    answer["doc"] = UploadedFile("x.png", "image/png", b"\x89PNG\r\n\x1a\n")
    assert check_tree(TREE, answer)[1] == [("doc", "file type")]


def test_an_input_name_finds_its_node_through_groups_rows_and_choices():
    assert node_at(TREE, "address.street").spec.name == "street"  # type: ignore[union-attr]
    assert node_at(TREE, "items.3.qty").spec.name == "qty"  # type: ignore[union-attr]
    assert node_at(TREE, "tags.0") is not None
    assert node_at(TREE, "pet.breed").spec.name == "breed"  # type: ignore[union-attr]
    assert node_at(TREE, "address").kind == "group"  # type: ignore[union-attr]
    assert node_at(TREE, "nope.x") is None
    assert dotted(["items", 0, "name"]) == "items.0.name"
