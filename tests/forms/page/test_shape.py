"""A page form with groups shaped at call time: options and defaults for the model's own fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

import pytest
from pydantic import BaseModel, Field, SecretStr

from typed_elicit import Choices, form
from typed_elicit._core.versions import LATEST_PROTOCOL_VERSION
from typed_elicit._forms.page.check import check_tree
from typed_elicit._forms.page.files import UploadedFile
from typed_elicit._forms.page.tree import MAX_PAGE_INPUTS
from typed_elicit._forms.reduce import OptionsArg, Reduced, check_page, page_reduced, shaped
from typed_elicit._forms.registry import tree_of
from typed_elicit._forms.validate import validate_answer
from typed_elicit.errors import InvalidResponse, OptionsError


class Address(BaseModel):
    street: str
    city: str = "Paris"


class Line(BaseModel):
    name: str


@form(page=True)
class Shipment(BaseModel):
    carrier: Annotated[str, Choices()]
    extras: Annotated[list[str], Choices()] = []
    note: str
    address: Address
    lines: list[Line] = []
    label: UploadedFile | None = None
    pin: SecretStr


OPTIONS = {"carrier": {"ups": "UPS", "dhl": "DHL"}, "extras": ["gift", "fast"]}


def ask(
    options: Mapping[str, OptionsArg] | None = None, defaults: Mapping[str, object] | None = None
) -> Reduced:
    return shaped(Shipment, LATEST_PROTOCOL_VERSION, options=options, defaults=defaults, page=True)


def test_a_top_level_choices_field_beside_groups_is_taken_at_class_definition_and_needs_options():
    check_page(Shipment)  # defined above: no SchemaError
    assert tree_of(Shipment).layout.choices == ("carrier", "extras")
    assert tree_of(Shipment).layout.groups == {"address": "address", "lines": "lines", "label": "label"}
    with pytest.raises(OptionsError) as caught:
        page_reduced(Shipment)
    assert caught.value.fields == ("carrier", "extras")
    assert "ctx.elicit_page" in caught.value.problems[0]


def test_the_shaped_tree_offers_the_options_and_prefills_the_defaults():
    record = ask(options=OPTIONS, defaults={"carrier": "dhl", "note": "x"})
    tree = record.tree
    assert tree is not None
    leaves = {child.key: child for child in tree.root.children if child.kind == "leaf"}
    carrier = leaves["carrier"].spec
    assert [(o.value, o.title) for o in carrier.options] == [("ups", "UPS"), ("dhl", "DHL")]
    assert carrier.default == "dhl"
    assert [o.value for o in leaves["extras"].spec.options] == ["gift", "fast"]
    assert leaves["note"].spec.default == "x"
    assert "carrier" not in tree.root.schema["required"]
    assert dict(tree.fill) == {"carrier": "dhl", "note": "x"}
    assert record.offered == {"carrier": frozenset({"ups", "dhl"}), "extras": frozenset({"gift", "fast"})}
    assert tree.inputs > 0
    assert {child.kind for child in tree.root.children} == {"leaf", "group", "rows", "file"}


def test_an_answer_gets_the_defaults_and_is_the_nested_model():
    record = ask(options=OPTIONS, defaults={"carrier": "dhl"})
    answer = {"note": "n", "address": {"street": "Main 1"}, "pin": "1", "extras": ["fast"]}
    shipment = validate_answer(Shipment, record, answer, keep=False)
    assert shipment.carrier == "dhl"
    assert shipment.extras == ["fast"]
    assert shipment.address.city == "Paris"


def test_an_option_not_offered_is_refused_by_the_tree_and_by_validate_answer():
    record = shaped(Shipment, LATEST_PROTOCOL_VERSION, options=OPTIONS, page=True)
    assert record.tree is not None
    for forged in ({"carrier": "fedex"}, {"carrier": "ups", "extras": ["caviar"]}):
        answer = {"note": "n", "address": {"street": "Main 1"}, "pin": "1", **forged}
        _, problems = check_tree(record.tree, answer)
        assert [path for path, _ in problems] == [next(iter(forged.keys() - {"carrier"}), "carrier")]
        with pytest.raises(InvalidResponse) as caught:
            validate_answer(Shipment, record, answer, keep=False)
        assert "fedex" not in str(caught.value)
        assert "caviar" not in str(caught.value)


def test_every_problem_of_the_options_and_defaults_is_one_options_error():
    with pytest.raises(OptionsError) as caught:
        ask(
            options={"carrier": ["ups"], "note": ["a"], "address": ["b"], "nope": ["c"]},
            defaults={"carrier": "dhl", "address": {}, "lines": [], "label": "f", "extras": ["x"]},
        )
    problems: dict[str, str] = {}
    for name, problem in zip(caught.value.fields, caught.value.problems, strict=True):
        problems[name] = problems.get(name, "") + problem  # `address` is told for both arguments
    assert set(problems) == {"carrier", "extras", "note", "address", "lines", "label", "nope"}
    assert "is not a Choices() field" in problems["note"]
    assert "is no field of Shipment" in problems["nope"]
    assert "is a group (a nested model), not a Choices() field" in problems["address"]
    assert "is a group (a nested model), which takes no default per question" in problems["address"]
    assert "ask without it (a browser cannot pre-fill a file)" in problems["label"]
    assert "give the fields inside it defaults in the class" in problems["lines"]
    assert "is a list of rows, which takes no default per question" in problems["lines"]
    assert "is a file upload, which takes no default" in problems["label"]
    assert "options={name: [...]}" in problems["extras"]  # a Choices() field without options
    assert "pass a default the field (and the offer) accepts" in problems["carrier"]


def test_a_choices_field_without_options_is_told_with_the_fix():
    with pytest.raises(OptionsError) as caught:
        ask(options={"carrier": ["ups"]})
    assert caught.value.fields == ("extras",)
    assert "options={name: [...]}" in caught.value.problems[0]


def test_the_digest_covers_the_options_and_defaults_and_is_stable():
    first = ask(options=OPTIONS)
    again = ask(options=OPTIONS)
    other = ask(options={**OPTIONS, "carrier": ["ups"]})
    defaulted = ask(options=OPTIONS, defaults={"note": "hi"})
    digests = {r.digest for r in (first, other, defaulted)}
    assert first.digest == again.digest
    assert len(digests) == 3


def test_a_page_form_with_groups_and_no_choices_takes_defaults_for_its_own_leaves():
    @form(page=True)
    class Plain(BaseModel):
        title: str
        address: Address

    base = page_reduced(Plain)
    record = shaped(Plain, LATEST_PROTOCOL_VERSION, defaults={"title": "Dr"}, page=True)
    assert record.digest != base.digest
    assert validate_answer(Plain, record, {"address": {"street": "s"}}, keep=False).title == "Dr"
    with pytest.raises(OptionsError, match="is a group"):
        shaped(Plain, LATEST_PROTOCOL_VERSION, defaults={"address": {}}, page=True)


def test_options_that_would_make_the_page_show_too_many_inputs_are_refused():
    class Row(BaseModel):
        cells: list[str] = Field(default_factory=list[str], max_length=18)

    @form(page=True)
    class Sheet(BaseModel):
        boxes: Annotated[list[str], Choices()] = []
        rows: list[Row] = Field(default_factory=list[Row], max_length=99)

    fits = shaped(Sheet, LATEST_PROTOCOL_VERSION, options={"boxes": ["a"]}, page=True)
    assert fits.tree is not None
    assert fits.tree.inputs <= MAX_PAGE_INPUTS
    with pytest.raises(OptionsError, match=rf"more than the {MAX_PAGE_INPUTS} a page may hold; offer fewer"):
        shaped(Sheet, LATEST_PROTOCOL_VERSION, options={"boxes": [f"o{i}" for i in range(100)]}, page=True)


def test_a_shaped_tree_and_the_tree_another_replica_carries_keep_each_leafs_declared_token():
    from typed_elicit._forms.page.shape import carried_tree
    from typed_elicit._forms.registry import tree_of

    @form(page=True)
    class Parcel(BaseModel):
        carrier: Annotated[str, Choices()]
        postcode: str = Field(json_schema_extra={"autocomplete": "shipping postal-code"})
        address: Address

    tree = shaped(Parcel, LATEST_PROTOCOL_VERSION, options={"carrier": ["ups"]}, page=True).tree
    assert tree is not None
    again = carried_tree(tree_of(Parcel), tree.carried())
    for each in (tree_of(Parcel), tree, again):
        tokens = {c.key: c.autocomplete for c in each.root.children if c.kind == "leaf"}
        assert tokens == {"carrier": None, "postcode": "shipping postal-code"}
