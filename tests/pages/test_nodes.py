"""The views of a page form with groups: one `NodeView` per node, leaves made by the shared `field_view`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, SecretStr

from typed_elicit._forms.page.files import FileLimits, UploadedFile
from typed_elicit._forms.page.tree import page_tree
from typed_elicit._views.words import PAGE_WORDS
from typed_elicit.pages._nodes import NodeView, is_on, rows_shown, tree_views


class Part(BaseModel):
    name: str
    token: SecretStr


class Red(BaseModel):
    kind: Literal["red"]
    shade: int = 1


class Blue(BaseModel):
    kind: Literal["blue"]
    depth: str


class Kit(BaseModel):
    title: str = "Kit"
    parts: list[Part] = Field(default_factory=list[Part], min_length=1, max_length=3)
    colour: Annotated[Red | Blue, Field(discriminator="kind")] | None = None
    tags: dict[str, str] = Field(default_factory=dict[str, str])
    photo: Annotated[UploadedFile, FileLimits(max_bytes=2_000, media_types=("image/png",))]


TREE = page_tree(Kit)


def flat(nodes: list[NodeView]) -> list[NodeView]:
    out: list[NodeView] = []
    for node in nodes:
        out.append(node)
        out.extend(flat(node.children))
        for row in node.rows:
            out.extend(flat(row.children))
    return out


def test_a_first_show_has_the_rows_a_list_needs_and_leaves_named_by_dotted_paths():
    nodes = tree_views(TREE, {}, {}, PAGE_WORDS)
    by_path = {n.path: n for n in flat(nodes)}
    assert by_path["parts"].count == 1
    assert by_path["parts"].can_add
    assert {"title", "parts.0.name", "parts.0.token", "colour.shade", "photo"} <= set(by_path)
    field = by_path["parts.0.name"].field
    assert field is not None
    assert field.name == "parts.0.name"
    assert by_path["parts.0.token"].field is not None
    assert by_path["parts.0.token"].field.input == "password"
    assert by_path["title"].field is not None
    assert by_path["title"].field.value == "Kit"
    ids = [n.id for n in flat(nodes)]
    assert len(ids) == len(set(ids))


def test_values_choose_the_rows_the_union_member_and_the_optional_box():
    values = {"parts._n": ["3"], "colour._on": ["true"], "colour.kind": ["blue"], "parts.2.name": ["c"]}
    nodes = tree_views(TREE, values, {"parts.2.name": "Fill this in"}, PAGE_WORDS)
    by_path = {n.path: n for n in flat(nodes)}
    assert by_path["parts"].count == 3
    assert not by_path["parts"].can_add
    assert by_path["colour"].on
    assert "colour.depth" in by_path
    assert "colour.shade" not in by_path
    assert by_path["parts.2.name"].error == "Fill this in"


def test_a_row_count_is_clamped_to_the_list_and_a_box_reads_as_a_checkbox():
    parts = TREE.root.by_key["parts"]
    assert rows_shown(parts, "parts", {"parts._n": ["99999"]}) == 3
    assert rows_shown(parts, "parts", {"parts._n": ["-1"]}) == 1
    assert rows_shown(parts, "parts", {}) == 1
    assert is_on("colour", {"colour._on": ["on"]})
    assert not is_on("colour", {"colour._on": ["maybe"]})


def test_a_file_input_tells_its_limit_and_on_a_re_show_to_choose_the_file_again():
    first = {n.path: n for n in flat(tree_views(TREE, {}, {}, PAGE_WORDS))}["photo"]
    assert first.accept == "image/png"
    assert first.hint == "Files up to 2 KB."
    again = {n.path: n for n in flat(tree_views(TREE, {}, {}, PAGE_WORDS, files_again=True))}["photo"]
    assert again.hint is not None
    assert "Choose the file again" in again.hint


def test_each_row_of_a_list_has_a_heading_with_its_number_and_required_lists_their_mark() -> None:
    from typed_elicit.pages._nodes import node_html

    nodes = tree_views(TREE, {"parts._n": ["2"]}, {}, PAGE_WORDS)
    parts = next(n for n in nodes if n.path == "parts")
    assert [row.heading for row in parts.rows] == ["parts 1", "parts 2"]
    html = node_html(parts, None)
    assert '<h2 class="row-title" id="' in html
    assert ">parts 2</h2>" in html
    assert '<legend dir="auto">parts <span class="req" aria-hidden="true">*</span></legend>' in html
