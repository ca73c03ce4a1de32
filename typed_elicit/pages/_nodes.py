"""Views of a page form: what the `node` macro of `templates/tree.html` shows (page-only view code).

`tree_views` walks a `PageTree` with a submit's values (by dotted input name) and errors (by
dotted path) and returns one `NodeView` per node: groups as fieldsets, rows with their add
and remove buttons, a union's choice, an optional group's box, a file input. Every leaf is a
`FieldView` made by the shared `field_view` (its name the dotted path), so a leaf looks and
reads as a flat form's field. A secret's or a file's value is never put back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from markupsafe import Markup

from typed_elicit._forms.page.tree import Choice, Group, Leaf, Node, PageTree, Pairs, Rows
from typed_elicit._views.fields import (
    CHECKED,
    FieldView,
    blank_view,
    esc,
    field_html,
    field_view,
    plain,
    sentences,
)
from typed_elicit._views.words import PAGE_WORDS, own_text, said, say
from typed_elicit._wire.spec import FieldSpec
from typed_elicit.pages._problems import file_size_words

ROWS_SUFFIX: Final = "_n"
"""The last part of a list's hidden input that says how many rows it shows (`items._n`)."""
ON_SUFFIX: Final = "_on"
"""The last part of an optional group's box (`gift._on`)."""


@dataclass(slots=True)
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
    children: Sequence[NodeView] = ()
    """A group's fields, or the chosen group's of a union."""
    rows: Sequence[RowView] = ()
    count: int = 0
    can_add: bool = False
    can_remove: bool = False
    optional: bool = False
    on: bool = False
    """An optional group or union: whether its box is ticked."""
    choices: Sequence[dict[str, object]] = ()
    tag_name: str = ""
    hint: str | None = None
    accept: str = ""
    where: str = ""
    """The groups and rows above the node, as a person reads them (`Items, row 2`): for the error summary."""
    words: Mapping[str, str] = dataclasses.field(default_factory=lambda: PAGE_WORDS)
    """The words its markup says (`Words` of the page's language)."""
    shared: bool = False
    """A leaf whose `field` is its field's blank view, shared by every leaf of that field (the page's
    own renderer): its id, input name and label are the node's (`id`, `path`, `label`)."""

    def html(self, first_error: str | None = None) -> Markup:
        """The node's markup (what the `node` macro of `tree.html` shows); `first_error` gets `autofocus`."""
        return Markup(node_html(self, first_error))


@dataclass
class RowView:
    """One row of a list (its item's view) or of a dict (its key and value inputs)."""

    index: int
    path: str
    children: Sequence[NodeView] = ()
    key: FieldView | None = None
    heading: str = ""
    """The row's heading (`Contact 2`)."""


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
    share: bool = False,
) -> list[NodeView]:
    """What the template shows of each of the page's own fields, in order (ids `f0`, `f1`, ...).

    Args:
        tree: The page form's tree.
        values: What a submit held, by dotted input name (empty on a first show).
        errors: What to tell of each invalid field, list or group, by dotted path.
        words: The texts of hints (`PAGE_WORDS` with a server's overrides).
        files_again: Say at each file input that the file must be chosen again (a re-show).
        share: Give a leaf without a value or an error its field's shared blank view (`NodeView.shared`):
            for the page's own renderer, which reads a leaf's id, name and label from its node.
    """
    return _Maker(values, errors, words, files_again, share).group_children(tree.root, "")


@dataclass
class _Maker:
    values: Mapping[str, list[str]]
    errors: Mapping[str, str]
    words: Mapping[str, str]
    again: bool
    share: bool
    blanks: dict[int, FieldView | None] = dataclasses.field(default_factory=dict[int, FieldView | None])
    n: int = 0
    """How many ids the page has given (`f0`, `f1`, ...)."""
    trail: list[str] = dataclasses.field(default_factory=list[str])
    where: str = ""
    """The groups and rows the maker is inside, as the error summary names them."""

    def group_children(self, group: Group, prefix: str, where: str | None = None) -> list[NodeView]:
        if where is None:
            return [self.node(child, f"{prefix}{child.key}") for child in group.children]
        above = self.where
        self.trail.append(where)
        self.where = " \u203a ".join(self.trail)
        children = [self.node(child, f"{prefix}{child.key}") for child in group.children]
        self.trail.pop()
        self.where = above
        return children

    def next_id(self) -> int:
        """The next id's number."""
        self.n += 1
        return self.n - 1

    def field_of(self, leaf: Leaf, path: str, label: str | None = None) -> FieldView:
        return field_view(
            leaf.spec,
            self.next_id(),
            leaf.secret,
            self.values,
            self.errors.get(path),
            self.words,
            name=path,
            label=label,
            autocomplete=leaf.autocomplete,
        )

    def own_node(self, view: FieldView, where: str = "") -> NodeView:
        """A leaf's node around its own field view."""
        return NodeView(
            "leaf",
            view.name,
            view.id,
            view.label,
            error=view.error,
            field=view,
            where=where,
            words=self.words,
        )

    def leaf_node(self, leaf: Leaf, path: str, label: str | None = None) -> NodeView:
        """A leaf's node: its field's shared blank view when it can be, else its own view."""
        if self.share and path not in self.values and path not in self.errors:
            blanks, key = self.blanks, id(leaf)
            if key in blanks:  # the rows of a list share their item's leaves: looked up once a page
                blank = blanks[key]
            else:
                blank = blanks[key] = blank_view(leaf.spec, leaf.secret, self.words, leaf.autocomplete)
            if blank is not None:
                self.n += 1  # not next_id(): a call per leaf shows in a big page's render
                return NodeView(
                    "leaf",
                    path,
                    f"f{self.n - 1}",
                    blank.label if label is None else label,
                    field=blank,
                    where=self.where,
                    words=self.words,
                    shared=True,
                )
        return self.own_node(self.field_of(leaf, path, label), self.where)

    def node(self, node: Node, path: str) -> NodeView:
        if node.kind == "leaf":
            return self.leaf_node(node, path)
        ident = f"f{self.next_id()}"
        base = NodeView(
            node.kind,
            path,
            ident,
            plain(own_text(self.words, node.label)),
            None if node.description is None else plain(own_text(self.words, node.description)),
            node.required,
            self.errors.get(path),
            where=self.where,
            words=self.words,
        )
        if node.kind == "file":
            base.accept = ",".join(node.limits.media_types)
            parts = [said(self.words, "file_limits", file_size_words(node.limits.max_bytes, self.words))]
            if self.again:
                parts.append(said(self.words, "file_again"))
            base.hint = sentences(parts)
            return base
        if isinstance(node, Group | Choice):
            base.optional = node.optional
            base.on = not node.optional or is_on(path, self.values)
        if node.kind == "group":
            base.children = self.group_children(node, f"{path}.", base.label)
            return base
        if node.kind == "union":
            base.tag_name = f"{path}.{node.tag}"
            given = self.values.get(base.tag_name)
            tags = list(node.groups)
            chosen = given[-1] if given and given[-1] in node.groups else tags[0]
            base.choices = [
                {
                    "value": t,
                    "title": plain(own_text(self.words, node.groups[t].label)),
                    "selected": t == chosen,
                }
                for t in tags
            ]
            base.error = base.error or self.errors.get(base.tag_name)
            base.children = self.group_children(node.groups[chosen], f"{path}.", base.label)
            return base
        count = rows_shown(node, path, self.values)
        base.count = count
        if node.kind == "rows" and node.min_rows > 0:  # rows must be given: marked as required
            base.required = True
        base.can_add = count < node.max_rows
        base.can_remove = count > (node.min_rows if node.kind == "rows" else 0)
        item = (
            base.label
            if node.kind == "pairs" or node.item.kind == "leaf"
            else plain(own_text(self.words, node.item.label))
        )
        rows: list[RowView] = []
        for i in range(count):
            row_path = f"{path}.{i}"
            row = RowView(i, row_path, heading=say(self.words, "item", label=item, number=i + 1))
            if node.kind == "pairs":
                row.key = self.field_of(_key_leaf(say(self.words, "key")), f"{row_path}.key")
                value = self.field_of(node.value, f"{row_path}.value", say(self.words, "value"))
                row.children = [self.own_node(value)]
            elif node.item.kind == "leaf":
                row.children = [self.leaf_node(node.item, row_path, row.heading)]
            else:
                where = say(self.words, "row_of", label=base.label, number=i + 1)
                row.children = self.group_children(node.item, f"{row_path}.", where)
            rows.append(row)
        base.rows = rows
        return base


@lru_cache(maxsize=32)
def _key_leaf(title: str) -> Leaf:
    """The field of a key of a dict's row, titled in the page's words (one per language)."""
    return Leaf("key", FieldSpec(name="key", attr="key", kind="string", required=True, title=title), False)


_REQ: Final = ' <span class="req" aria-hidden="true">*</span>'
_INVALID: Final = ' aria-invalid="true"'


def node_html(n: NodeView, first_error: str | None) -> str:
    """One node's markup: a leaf's field, a file input, a group's or union's fieldset, a list's rows.

    The one place a page node's markup is written: the `node` macro of `templates/tree.html`
    calls it (`n.html(first_error)`), and the page calls it directly. No script: rows are added
    and removed, and a union's fields shown, by submit buttons that show the page again.
    """
    out: list[str] = []
    write_node(n, first_error, out)
    return "".join(out)


def _node(n: NodeView, first_error: str | None, out: list[str]) -> None:
    words = n.words
    ident = n.id
    error = f'<p class="error" id="{ident}-error" dir="auto">{esc(n.error)}</p>' if n.error else ""
    invalid = " invalid" if n.error else ""
    label = esc(n.label)
    desc = f'<p class="desc" id="{ident}-desc" dir="auto">{esc(n.description)}</p>' if n.description else ""
    if n.kind == "file":
        parts = (("desc", n.description), ("hint", n.hint), ("error", n.error))
        ids = " ".join(f"{ident}-{part}" for part, on in parts if on)
        hint = f'<p class="hint" id="{ident}-hint" dir="auto">{esc(n.hint)}</p>' if n.hint else ""
        out.append(
            f'<div class="field{invalid}"><label for="{ident}" dir="auto">{label}'
            f"{_REQ if n.required else ''}</label>{desc}{hint}"
            f'<input type="file" id="{ident}" name="{esc(n.path)}" accept="{esc(n.accept)}"'
            f'{" required" if n.required else ""} aria-describedby="{ids}"'
            f"{_INVALID if n.error else ''}{' autofocus' if ident == first_error else ''}>"
            f"{error}</div>"
        )
        return
    path = esc(n.path)
    if n.kind in ("group", "union"):
        optional = f' <span class="opt">{esc(say(words, "optional"))}</span>' if n.optional else ""
        mark = _REQ if n.required else optional
        out.append(
            f'<fieldset class="group{invalid}" id="{ident}"><legend dir="auto">{label}{mark}</legend>'
            f"{desc}{error}"
        )
        if n.optional:
            out.append(
                f"<details{' open' if n.on or n.error else ''}>"
                f"<summary>{esc(say(words, 'fill_in'))}</summary>"
                f'<label class="check" for="{ident}-on">'
                f'<input type="checkbox" id="{ident}-on" name="{path}._on" '
                f'value="true"{" checked" if n.on else ""}> {esc(say(words, "include"))}</label>'
            )
        if n.kind == "union":
            out.append(
                f'<div class="field choice"><label for="{ident}-tag" dir="auto">'
                f"{esc(say(words, 'kind'))}</label>"
                f'<div class="inline"><select id="{ident}-tag" name="{esc(n.tag_name)}">'
            )
            out.extend(
                f'<option value="{esc(str(o["value"]))}"{" selected" if o["selected"] else ""} dir="auto">'
                f"{esc(str(o['title']))}</option>"
                for o in n.choices
            )
            out.append(
                f'</select><button type="submit" name="_action" value="show:{path}" formnovalidate>'
                f"{esc(say(words, 'show_fields'))}</button></div></div>"
            )
        for child in n.children:
            write_node(child, first_error, out)
        out.append("</details></fieldset>" if n.optional else "</fieldset>")
        return
    out.append(
        f'<fieldset class="rows{invalid}" id="{ident}">'
        f'<legend dir="auto">{label}{_REQ if n.required else ""}</legend>'
        f'{desc}{error}<input type="hidden" name="{path}._n" value="{n.count}">'
    )
    for r in n.rows:
        out.append(
            f'<div class="row" id="{ident}-{r.index}" role="group" aria-labelledby="{ident}-{r.index}-h">'
        )
        out.append(f'<h2 class="row-title" id="{ident}-{r.index}-h" dir="auto">{esc(r.heading)}</h2>')
        if r.key is not None:
            out.append(field_html(r.key, first_error))
        for child in r.children:
            write_node(child, first_error, out)
        if n.can_remove:
            number = r.index + 1
            out.append(
                f'<button type="submit" class="remove" name="_action" value="remove:{esc(r.path)}" '
                "formnovalidate "
                f'aria-label="{esc(say(words, "remove_row_of", number=number, label=n.label))}">'
                f"{esc(say(words, 'remove_row', number=number))}</button>"
            )
        out.append("</div>")
    if n.can_add:
        out.append(
            f'<button type="submit" class="add" name="_action" value="add:{path}" formnovalidate>'
            f"{esc(say(words, 'add_to', label=n.label))}</button>"
        )
    out.append("</fieldset>")


def write_node(n: NodeView, first_error: str | None, out: list[str]) -> None:
    """Append `n`'s markup to `out` (what `node_html` returns, without a string per node)."""
    field = n.field
    if n.shared and field is not None and field.template is not None and n.id != first_error:
        label = field.label_html if n.label is field.label else esc(n.label)  # the commonest node, inline
        out.append(field.template.format(n.id, esc(n.path), label))
    elif n.kind != "leaf":
        _node(n, first_error, out)
    else:
        assert field is not None
        if n.shared:  # its field's blank view: the id, name and label are the node's
            field = dataclasses.replace(field, id=n.id, name=n.path, label=n.label, template=None)
        out.append(field_html(field, first_error))
