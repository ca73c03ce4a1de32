"""Page forms with groups: the shapes `@form(page=True)` takes at class definition, and its refusals."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field, SecretStr

from typed_elicit import Choices, form
from typed_elicit._forms.page.files import FileLimits, UploadedFile
from typed_elicit._forms.page.tree import (
    MAX_PAGE_DEPTH,
    MAX_PAGE_INPUTS,
    MAX_PAGE_ROWS,
    Group,
    Leaf,
    Rows,
    page_tree,
)
from typed_elicit._forms.reduce import page_reduced, reduce_schema
from typed_elicit.errors import SchemaError


class Address(BaseModel):
    street: str
    city: str = "Paris"


class Item(BaseModel):
    name: str
    qty: int = Field(1, ge=1)


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = 9


class Dog(BaseModel):
    kind: Literal["dog"]
    breed: str


@form(page=True)
class Order(BaseModel):
    """An order."""

    name: str
    address: Address
    items: list[Item] = Field(default_factory=list, max_length=5)
    tags: list[str] = []
    gift: Address | None = None
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]
    labels: dict[str, int] = {}
    doc: Annotated[UploadedFile, FileLimits(max_bytes=1000, media_types=("text/plain",))]
    password: SecretStr


def test_a_page_form_takes_groups_rows_choices_pairs_and_files_and_reduces_them_to_a_tree():
    tree = page_reduced(Order).tree
    assert tree is not None
    kinds = {child.key: child.kind for child in tree.root.children}
    assert kinds == {
        "name": "leaf",
        "address": "group",
        "items": "rows",
        "tags": "rows",
        "gift": "group",
        "pet": "union",
        "labels": "pairs",
        "doc": "file",
        "password": "leaf",
    }
    by_key = tree.root.by_key
    assert by_key["items"].kind == "rows"
    assert by_key["items"].max_rows == 5
    assert by_key["tags"].kind == "rows"
    assert by_key["tags"].max_rows == MAX_PAGE_ROWS
    assert by_key["gift"].kind == "group"
    assert by_key["gift"].optional
    assert by_key["pet"].kind == "union"
    assert set(by_key["pet"].groups) == {"cat", "dog"}
    assert "kind" not in by_key["pet"].groups["dog"].by_key  # the tag is the choice, not a field
    assert by_key["password"].kind == "leaf"
    assert by_key["password"].secret
    assert tree.files
    assert tree.depth == 1


def test_leaves_keep_the_flat_rules_their_formats_bounds_and_defaults():
    tree = page_tree(Order)
    address = tree.root.by_key["address"]
    assert address.kind == "group"
    city = address.form.by_name["city"]
    assert city.has_default
    assert city.default == "Paris"
    assert not city.required
    item = tree.root.by_key["items"]
    assert item.kind == "rows"
    assert item.item.kind == "group"
    assert item.item.form.by_name["qty"].minimum == 1


def test_a_flat_page_form_is_a_tree_of_its_leaves_with_the_same_schema():
    @form(page=True)
    class Login(BaseModel):
        user: str
        password: SecretStr

    record = page_reduced(Login)
    assert record.tree is not None
    assert [(child.kind, child.key) for child in record.tree.root.children] == [
        ("leaf", "user"),
        ("leaf", "password"),
    ]
    assert record.schema == {
        "type": "object",
        "properties": {"user": {"type": "string"}, "password": {"type": "string"}},
        "required": ["user", "password"],
    }


def test_the_digest_follows_the_tree():
    class A(BaseModel):
        inner: Address

    class B(BaseModel):
        inner: Item

    assert page_tree(A).digest != page_tree(B).digest
    assert page_tree(A).digest == page_tree(A).digest


def test_what_no_web_form_carries_is_refused_with_every_dotted_path_and_its_fix():
    class Deep(BaseModel):
        pair: tuple[int, int]
        blob: bytes

    class Bare(BaseModel):
        x: int

    with pytest.raises(SchemaError) as caught:

        @form(page=True)
        class Bad(BaseModel):
            deep: Deep
            either: int | str
            loose: Cat | Dog
            keyed: dict[int, str]
            nested: list[list[str]]
            huge: list[Item] = Field(default_factory=list, max_length=500)
            required_optional: Address | None
            filled: list[str] = ["a"]

    problems = caught.value.problems
    assert problems[0].startswith("Bad.deep.pair: tuple[int, int] cannot be asked on a page; use list[X]")
    assert problems[1].startswith("Bad.deep.blob: bytes cannot be asked on a page; declare an UploadedFile")
    assert "Bad.either: a union becomes a choice on a page only as a discriminated union" in problems[2]
    assert "Bad.loose: a union becomes a choice" in problems[3]
    assert "Bad.keyed: only dict[str, X] with a plain X" in problems[4]
    assert "Bad.nested: a list's rows hold a model or a plain value" in problems[5]
    assert f"Bad.huge: max_length=500 allows more rows than the {MAX_PAGE_ROWS} a page holds" in problems[6]
    assert "Bad.required_optional: an optional group needs the default None" in problems[7]
    assert "Bad.filled: a list's or dict's default must be empty" in problems[8]
    assert len(problems) == 9


def test_a_self_referencing_model_is_refused_at_the_depth_limit_once():
    class Node(BaseModel):
        label: str
        kids: list[Node] = []

    with pytest.raises(SchemaError) as caught:

        @form(page=True)
        class Tree(BaseModel):
            root: Node

    assert len(caught.value.problems) == 1
    (problem,) = caught.value.problems
    assert problem.startswith("Tree.root.kids.kids.kids.kids: it nests deeper than the")
    assert f"{MAX_PAGE_DEPTH} levels" in problem


def test_a_page_that_would_show_too_many_inputs_is_refused_with_the_lists_to_shorten():
    class Row(BaseModel):
        cells: list[str] = []

    with pytest.raises(
        SchemaError, match=rf"more than the {MAX_PAGE_INPUTS} a page may hold; lower the lists"
    ):

        @form(page=True)
        class Sheet(BaseModel):
            rows: list[Row] = []


def test_a_choices_field_inside_a_group_is_refused_naming_its_path_and_the_fix():
    class Region(BaseModel):
        region: Annotated[str, Choices()]

    with pytest.raises(SchemaError) as caught:

        @form(page=True)
        class Grouped(BaseModel):
            where: Region
            rows: list[Region] = []

    message = str(caught.value)
    assert "Grouped.where.region: a Choices() field inside a group cannot take options" in message
    assert "Grouped.rows.region" in message
    assert "move it to the model's own fields (Grouped)" in message
    assert "Literal[...] or a StrEnum" in message


def test_form_mode_says_a_page_can_ask_for_what_it_refuses():
    with pytest.raises(SchemaError) as caught:

        @form
        class Booking(BaseModel):
            address: Address
            rows: list[str]
            extra: dict[str, int]
            upload: bytes

    text = str(caught.value)
    assert text.count("declare the model @form(page=True) and ask with ctx.elicit_page") == 4
    assert "Booking.address: nested model Address cannot be elicited in form mode" in text
    with pytest.raises(SchemaError):
        reduce_schema(Order)


def test_optional_unions_constrained_items_and_option_values_fit():
    class Fits(BaseModel):
        pet: Annotated[Cat | Dog, Field(discriminator="kind")] | None = None
        codes: list[Annotated[str, Field(max_length=3)]] = []
        marks: dict[str, Literal["a", "b"]] = {}

    tree = page_tree(Fits)
    pet, codes, marks = tree.root.children
    assert pet.kind == "union"
    assert pet.optional
    assert not pet.required
    assert codes.kind == "rows"
    assert codes.item.kind == "leaf"
    assert codes.item.spec.max_length == 3
    assert marks.kind == "pairs"
    assert marks.value.spec.kind == "choice"


def test_a_leaf_carries_its_declared_token_at_every_depth_and_in_rows_of_plain_values():
    from pydantic import EmailStr

    class Home(BaseModel):
        line: str = Field(json_schema_extra={"autocomplete": "address-line1"})
        city: str

    @form(page=True)
    class Guest(BaseModel):
        name: str = Field(json_schema_extra={"autocomplete": "given-name"})
        home: Home
        mails: list[Annotated[EmailStr, Field(json_schema_extra={"autocomplete": "work email"})]] = []

    tree = page_tree(Guest)
    name, home, mails = tree.root.children
    assert isinstance(name, Leaf)
    assert name.autocomplete == "given-name"
    assert isinstance(home, Group)
    assert [(c.key, c.autocomplete) for c in home.children if isinstance(c, Leaf)] == [
        ("line", "address-line1"),
        ("city", None),
    ]
    assert isinstance(mails, Rows)
    assert isinstance(mails.item, Leaf)
    assert mails.item.autocomplete == "work email"

    class PlainHome(BaseModel):
        line: str
        city: str

    class PlainGuest(BaseModel):
        name: str
        home: PlainHome
        mails: list[EmailStr] = []

    assert tree.digest == page_tree(PlainGuest).digest  # shown, never part of what an answer is pinned to


def test_a_row_of_a_list_of_models_is_labelled_by_the_item_model_not_the_list():
    tree = page_reduced(Order).tree
    assert tree is not None
    items = tree.root.by_key["items"]
    assert isinstance(items, Rows)
    assert isinstance(items.item, Group)
    assert (items.label, items.item.label) == ("items", "Item")
