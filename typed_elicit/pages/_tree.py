"""A submit of a page form with groups: its input names checked, its actions applied, its values read.

Input names are dotted paths the page itself wrote (`address.street`, `items.0.name`,
`items._n`, `gift._on`, `labels.0.key`). A submit is refused whole (`BadSubmit`, a plain 400
page) unless every name is one the tree can show: each part must be a field of its group, a
row index below its list's `max_rows` written without leading zeros, or one of the page's own
suffixes where the page writes it; a name may not repeat unless its field is a multi-select.
Checking a name costs its length, and a submit holds at most `MAX_SUBMIT_FIELDS` names, so a
hostile submit costs bounded work before anything is built.

Rows are added and removed without script: the `add:<path>` and `remove:<path>.<i>` actions
show the page again with the values kept (renumbered after a removal); `show:<path>` shows a
union's chosen fields.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from typed_elicit._forms.page.check import child_of, node_at
from typed_elicit._forms.page.files import UploadedFile
from typed_elicit._forms.page.tree import (
    MAX_PAGE_DEPTH,
    MAX_PAGE_INPUTS,
    Choice,
    FileField,
    Group,
    Leaf,
    Node,
    PageTree,
    Pairs,
    Rows,
)
from typed_elicit._views.words import said
from typed_elicit.pages._nodes import ON_SUFFIX, ROWS_SUFFIX, is_on, rows_shown
from typed_elicit.pages._reading import LEFT_OUT, read_leaf

MAX_SUBMIT_FIELDS: Final = MAX_PAGE_INPUTS + 64
"""The most name/value pairs one submit may hold (the page shows at most `MAX_PAGE_INPUTS` inputs)."""

MAX_NAME_LENGTH: Final = 512
"""The longest input name accepted, in characters."""

_PAGE_NAMES: Final = frozenset({"_csrf", "_action"})
_INDEX: Final = re.compile(r"0|[1-9][0-9]{0,3}")


class BadSubmit(Exception):
    """Internal: a submit whose names the page could not have written (refused with a 400 page)."""


def check_names(tree: PageTree, data: Mapping[str, list[str]]) -> None:
    """Refuse a submit holding a name the tree cannot show, or a repeated name of a one-value field.

    A name found once is remembered with the tree (`_names`): only names the tree can show are,
    so what a submit sends never grows the table beyond the page's own inputs.

    Raises:
        BadSubmit: Naming nothing the user sent.
    """
    if len(data) > MAX_SUBMIT_FIELDS:
        raise BadSubmit
    known = _names(tree)
    for name, values in data.items():
        many = known.get(name)
        if many is None:
            if name in _PAGE_NAMES:
                if len(values) > 1 and name == "_csrf":
                    raise BadSubmit
                continue
            many = _kind(tree, name)
            if many is None:
                raise BadSubmit
            if len(known) < _MAX_KNOWN:
                known[name] = many
        if len(values) > 1 and not many:
            raise BadSubmit


_KNOWN: dict[int, tuple[weakref.ref[PageTree], dict[str, bool]]] = {}
"""The input names found in lately checked trees, by tree (bounded: `_MAX_TREES` trees; none kept alive)."""

_MAX_TREES: Final = 64
_MAX_KNOWN: Final = 2 * MAX_SUBMIT_FIELDS
"""The most names remembered of one tree (a tree shows at most `MAX_PAGE_INPUTS` inputs)."""


def _names(tree: PageTree) -> dict[str, bool]:
    """The names of `tree` found so far: input name -> whether it may be sent more than once."""
    found = _KNOWN.get(id(tree))
    if found is not None and found[0]() is tree:
        return found[1]
    if found is None and len(_KNOWN) >= _MAX_TREES:
        del _KNOWN[next(iter(_KNOWN))]
    names: dict[str, bool] = {}
    _KNOWN[id(tree)] = (weakref.ref(tree), names)  # a tree gone and its id reused: found anew
    return names


def _kind(tree: PageTree, name: str) -> bool | None:
    """Whether `name`, an input of `tree`, may be sent more than once; None if `tree` has no such input.

    Only a multi-select's name may repeat; a page's own suffixes, a dict's key and value, a file,
    any other field are sent once.
    """
    if len(name) > MAX_NAME_LENGTH:
        return None
    parts = name.split(".")
    if len(parts) > 2 * MAX_PAGE_DEPTH + 4:
        return None
    node: Node = tree.root
    last = len(parts) - 1
    for i, part in enumerate(parts):
        if i == last and _suffix_of(node, part, tree):
            return False
        if isinstance(node, Pairs):
            fits = _INDEX.fullmatch(part) is not None and int(part) < node.max_rows
            return False if fits and i + 1 == last and parts[last] in ("key", "value") else None
        if isinstance(node, Rows) and (not _INDEX.fullmatch(part) or int(part) >= node.max_rows):
            return None
        found = child_of(node, part)
        if found is None:
            return None
        node = found
    if isinstance(node, Leaf):
        return node.spec.kind == "multi_choice"
    return False if isinstance(node, FileField) else None


def _suffix_of(node: Node, part: str, tree: PageTree) -> bool:
    """Whether `part` is one of the page's own inputs of `node`: a list's count, a box, a union's tag."""
    if isinstance(node, Rows | Pairs):
        return part == ROWS_SUFFIX
    if isinstance(node, Group):
        return part == ON_SUFFIX and node.optional and node is not tree.root
    if isinstance(node, Choice):
        return part == node.tag or (part == ON_SUFFIX and node.optional)
    return False


def apply_action(tree: PageTree, data: dict[str, list[str]], action: str) -> dict[str, list[str]] | None:
    """The values after an `add:`, `remove:` or `show:` action, or None if `action` is none of these.

    Raises:
        BadSubmit: For an action on a path that is no list (or union) of the page.
    """
    verb, _, path = action.partition(":")
    if verb not in ("add", "remove", "show"):
        return None
    rows_path, _, index = path.rpartition(".") if verb == "remove" else (path, "", "")
    node = node_at(tree, rows_path)
    if verb == "show":
        if node is None or node.kind != "union":
            raise BadSubmit
        return data
    if not isinstance(node, Rows | Pairs):
        raise BadSubmit
    count = rows_shown(node, rows_path, data)
    if verb == "add":
        return {**data, f"{rows_path}.{ROWS_SUFFIX}": [str(min(count + 1, node.max_rows))]}
    if not _INDEX.fullmatch(index) or int(index) >= count:
        raise BadSubmit
    gone = int(index)
    prefix = f"{rows_path}."
    moved: dict[str, list[str]] = {}
    for name, values in data.items():
        if not name.startswith(prefix):
            moved[name] = values
            continue
        head, dot, rest = name[len(prefix) :].partition(".")
        if not _INDEX.fullmatch(head) or int(head) < gone:
            moved[name] = values
        elif int(head) > gone:
            moved[f"{prefix}{int(head) - 1}{dot}{rest}"] = values
    moved[f"{rows_path}.{ROWS_SUFFIX}"] = [str(count - 1)]
    return moved


def read_tree(
    tree: PageTree,
    data: Mapping[str, list[str]],
    files: Mapping[str, UploadedFile],
    words: Mapping[str, str],
) -> tuple[dict[str, Any], dict[str, str]]:
    """The nested wire content of a checked submit, and what to tell of each input not holding its kind.

    Only what the page shows is read: the rows its lists show, the fields of the union's
    chosen member, an optional group only when its box is ticked.
    """
    errors: dict[str, str] = {}
    content = _Reader(data, files, words, errors).group(tree.root, "")
    return content, errors


@dataclass
class _Reader:
    data: Mapping[str, list[str]]
    files: Mapping[str, UploadedFile]
    words: Mapping[str, str]
    errors: dict[str, str]

    def group(self, group: Group, prefix: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for child in group.children:
            value = self.node(child, f"{prefix}{child.key}")
            if value is not LEFT_OUT:
                out[child.key] = value
        return out

    def leaf(self, node: Node, path: str) -> Any:
        assert node.kind == "leaf"
        value, problem = read_leaf(node.spec, self.data.get(path, []), self.words)
        if problem is not None:
            self.errors[path] = problem
        return value

    def node(self, node: Node, path: str) -> Any:
        if node.kind == "leaf":
            return self.leaf(node, path)
        if node.kind == "file":
            return self.files.get(path, LEFT_OUT)
        if isinstance(node, Group | Choice) and node.optional and not is_on(path, self.data):
            return LEFT_OUT
        if node.kind == "group":
            return self.group(node, f"{path}.")
        if node.kind == "union":
            given = self.data.get(f"{path}.{node.tag}", [])
            if given and given[-1] not in node.groups:  # a choice the page never offered: forged
                self.errors[f"{path}.{node.tag}"] = said(self.words, "choice")
                return LEFT_OUT
            tag = given[-1] if given else next(iter(node.groups))
            return {node.tag: tag, **self.group(node.groups[tag], f"{path}.")}
        count = rows_shown(node, path, self.data)
        if node.kind == "pairs":
            pairs: dict[str, Any] = {}
            for i in range(count):
                key = (self.data.get(f"{path}.{i}.key") or [""])[-1]
                value = self.leaf(node.value, f"{path}.{i}.value")
                if key == "":
                    continue  # an empty row is left out
                if key in pairs:
                    self.errors[f"{path}.{i}.key"] = said(self.words, "duplicate_key")
                elif value is not LEFT_OUT:
                    pairs[key] = value
            return pairs
        rows: list[Any] = []
        for i in range(count):
            if node.item.kind == "leaf":
                value = self.leaf(node.item, f"{path}.{i}")
                if value is not LEFT_OUT:
                    rows.append(value)
            else:
                rows.append(self.group(node.item, f"{path}.{i}."))
        return rows


def kept_values(tree: PageTree, data: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """What a re-show puts back: every value but a secret's (only that one was typed, for the hint)."""
    kept: dict[str, list[str]] = {}
    for name, values in data.items():
        if name in _PAGE_NAMES:
            continue
        node = _leaf_node(tree, name)
        if node is not None and node.kind == "leaf" and node.secret:
            if any(values):
                kept[name] = ["*"]
            continue
        kept[name] = values
    return kept


def _leaf_node(tree: PageTree, name: str) -> Node | None:
    head, _, last = name.rpartition(".")
    rows, _, index = head.rpartition(".")
    if last in ("key", "value") and _INDEX.fullmatch(index):
        parent = node_at(tree, rows)
        if parent is not None and parent.kind == "pairs":
            return parent.value if last == "value" else None
    return node_at(tree, name)
