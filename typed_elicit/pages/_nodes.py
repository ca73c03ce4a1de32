"""Views of a page form: what the `node` macro of `templates/tree.html` shows (page-only view code).

`tree_views` walks a `PageTree` with a submit's values (by dotted input name) and errors (by
dotted path) and returns one `NodeView` per node: groups as fieldsets, rows with their add
and remove buttons, a union's choice, an optional group's box, a file input. Every leaf is a
`FieldView` made by the shared `field_view` (its name the dotted path), so a leaf looks and
reads as a flat form's field. A secret's or a file's value is never put back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from typed_elicit._core.text import strip_bidi
from typed_elicit._forms.page.tree import Group, Leaf, Node, PageTree, Pairs, Rows
from typed_elicit._views.fields import CHECKED, FieldView, field_view, sentences
from typed_elicit._views.words import said
from typed_elicit._wire.spec import FieldSpec
from typed_elicit.pages._problems import file_size_words

ROWS_SUFFIX: Final = "_n"
"""The last part of a list's hidden input that says how many rows it shows (`items._n`)."""
ON_SUFFIX: Final = "_on"
"""The last part of an optional group's box (`gift._on`)."""


@dataclass
class NodeView:
    """What the `node` macro shows of one node of a page form with groups."""

    kind: str
    """`leaf`, `file`, `group`, `rows`, `pairs` or `union`."""
    path: str
    id: str
    label: str
    description: str | None = None
    required: bool = False
    error: str | None = None
    field: FieldView | None = None
    """A leaf's field (the shared `field` macro shows it)."""
    children: list[NodeView] = dataclasses.field(default_factory=list["NodeView"])
    """A group's fields, or the chosen group's of a union."""
    rows: list[RowView] = dataclasses.field(default_factory=list["RowView"])
    count: int = 0
    can_add: bool = False
    can_remove: bool = False
    optional: bool = False
    on: bool = False
    """An optional group or union: whether its box is ticked."""
    choices: list[dict[str, object]] = dataclasses.field(default_factory=list[dict[str, object]])
    tag_name: str = ""
    hint: str | None = None
    accept: str = ""
    where: str = ""
    """The groups and rows above the node, as a person reads them (`Items, row 2`): for the error summary."""


@dataclass
class RowView:
    """One row of a list (its item's view) or of a dict (its key and value inputs)."""

    index: int
    path: str
    children: list[NodeView] = field(default_factory=list[NodeView])
    key: FieldView | None = None


class _Ids:
    """Ids `f0`, `f1`, ... in the page's order."""

    def __init__(self) -> None:
        self.n = 0

    def next(self) -> int:
        self.n += 1
        return self.n - 1


def rows_shown(node: Node, path: str, values: Mapping[str, list[str]]) -> int:
    """How many rows a list (or dict) at `path` shows: its hidden count, else its `min_rows`."""
    given = values.get(f"{path}.{ROWS_SUFFIX}")
    low = node.min_rows if isinstance(node, Rows) else 0
    high = node.max_rows if isinstance(node, Rows | Pairs) else 0
    if given and given[-1].isascii() and given[-1].isdigit() and len(given[-1]) <= 6:
        return max(low, min(int(given[-1]), high))
    return low


def is_on(path: str, values: Mapping[str, list[str]]) -> bool:
    """Whether the box of the optional group or union at `path` is ticked."""
    given = values.get(f"{path}.{ON_SUFFIX}") or [""]
    return given[-1].lower() in CHECKED


def tree_views(
    tree: PageTree,
    values: Mapping[str, list[str]],
    errors: Mapping[str, str],
    words: Mapping[str, str],
    *,
    files_again: bool = False,
) -> list[NodeView]:
    """What the template shows of each of the page's own fields, in order (ids `f0`, `f1`, ...).

    Args:
        tree: The page form's tree.
        values: What a submit held, by dotted input name (empty on a first show).
        errors: What to tell of each invalid field, list or group, by dotted path.
        words: The texts of hints (`PAGE_WORDS` with a server's overrides).
        files_again: Say at each file input that the file must be chosen again (a re-show).
    """
    maker = _Maker(values, errors, words, files_again)
    return maker.group_children(tree.root, "")


class _Maker:
    def __init__(
        self,
        values: Mapping[str, list[str]],
        errors: Mapping[str, str],
        words: Mapping[str, str],
        again: bool,
    ) -> None:
        self.values = values
        self.errors = errors
        self.words = words
        self.again = again
        self.ids = _Ids()
        self.trail: list[str] = []

    def group_children(self, group: Group, prefix: str, where: str | None = None) -> list[NodeView]:
        if where is not None:
            self.trail.append(where)
        try:
            return [self.node(child, f"{prefix}{child.key}") for child in group.children]
        finally:
            if where is not None:
                self.trail.pop()

    def leaf(self, leaf: Leaf, path: str) -> FieldView:
        spec = dataclasses.replace(leaf.spec, name=path)
        view = field_view(spec, self.ids.next(), leaf.secret, self.values, self.errors.get(path), self.words)
        view.label = strip_bidi(leaf.spec.label)  # the field's own title or name, not its path
        return view

    def node(self, node: Node, path: str) -> NodeView:
        if node.kind == "leaf":
            view = self.leaf(node, path)
            return NodeView("leaf", path, view.id, view.label, error=view.error, field=view, where=self.where)
        ident = f"f{self.ids.next()}"
        base = NodeView(
            node.kind,
            path,
            ident,
            strip_bidi(node.label),
            None if node.description is None else strip_bidi(node.description),
            node.required,
            self.errors.get(path),
            where=self.where,
        )
        if node.kind == "file":
            base.accept = ",".join(node.limits.media_types)
            parts = [said(self.words, "file_limits", file_size_words(node.limits.max_bytes))]
            if self.again:
                parts.append(said(self.words, "file_again"))
            base.hint = sentences(parts)
            return base
        if node.kind == "group":
            base.optional = node.optional
            base.on = not node.optional or is_on(path, self.values)
            base.children = self.group_children(node, f"{path}.", base.label)
            return base
        if node.kind == "union":
            base.optional = node.optional
            base.on = not node.optional or is_on(path, self.values)
            base.tag_name = f"{path}.{node.tag}"
            given = self.values.get(base.tag_name)
            tags = list(node.groups)
            chosen = given[-1] if given and given[-1] in node.groups else tags[0]
            base.choices = [
                {"value": t, "title": strip_bidi(node.groups[t].label), "selected": t == chosen} for t in tags
            ]
            base.error = base.error or self.errors.get(base.tag_name)
            base.children = self.group_children(node.groups[chosen], f"{path}.", base.label)
            return base
        count = rows_shown(node, path, self.values)
        base.count = count
        base.can_add = count < node.max_rows
        base.can_remove = count > (node.min_rows if node.kind == "rows" else 0)
        for i in range(count):
            row_path = f"{path}.{i}"
            row = RowView(i, row_path)
            if node.kind == "pairs":
                key_spec = FieldSpec(
                    name=f"{row_path}.key", attr="key", kind="string", required=True, title="Key"
                )
                row.key = field_view(
                    key_spec,
                    self.ids.next(),
                    False,
                    self.values,
                    self.errors.get(f"{row_path}.key"),
                    self.words,
                )
                value = self.leaf(node.value, f"{row_path}.value")
                value.label = "Value"
                row.children = [
                    NodeView("leaf", value.name, value.id, value.label, error=value.error, field=value)
                ]
            elif node.item.kind == "leaf":
                view = self.leaf(node.item, row_path)
                view.label = f"{strip_bidi(node.label)} {i + 1}"
                row.children = [
                    NodeView(
                        "leaf", row_path, view.id, view.label, error=view.error, field=view, where=self.where
                    )
                ]
            else:
                row.children = self.group_children(node.item, f"{row_path}.", f"{base.label}, row {i + 1}")
            base.rows.append(row)
        return base

    @property
    def where(self) -> str:
        """The groups and rows the maker is inside, as the error summary names them."""
        return " \u203a ".join(self.trail)
