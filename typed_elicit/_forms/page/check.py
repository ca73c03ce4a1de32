"""The check of a page answer with groups against its `PageTree`, before the model sees it.

The nested counterpart of `spec.check_content`: the answer is walked with the tree, never
beyond it, and every count is checked before anything is read (a group holds no more keys
than it has fields, a list no more rows than its `max_rows`), so the work is bounded by the
tree, not by the answer. Each group's leaves are checked by `check_content` with the group's
flat form, so a leaf is checked exactly as a flat form's field. Problems are named by dotted
paths (`items.0.name`), the names of the page's inputs, and never hold a value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from typed_elicit._forms.page.files import UploadedFile, file_problem
from typed_elicit._forms.page.tree import Group, Node, PageTree
from typed_elicit._wire.rules import check_text, kind_of
from typed_elicit._wire.spec import FieldSpec, check_content, check_wire_value, not_offered, too_many_keys

Problems = list[tuple[str, str]]


def dotted(parts: Sequence[int | str]) -> str:
    """A place in a page answer as its input is named: `items.0.name` (`""`: the whole form)."""
    return ".".join(str(p) for p in parts)


def check_tree(tree: PageTree, content: Mapping[str, Any] | None) -> tuple[dict[str, Any], Problems]:
    """Check a page answer against `tree`: its shape, and each leaf by the wire rules of its kind.

    A tree shaped at call time fills a top-level leaf the answer leaves out with its default
    first (`PageTree.fill`), and its `Choices()` fields must hold options it offered
    (`PageTree.offered`), as `validate_answer` checks a flat form's.

    Returns:
        The values to validate (numbers parsed, nulls dropped) and one `(dotted path, problem)`
        pair per problem.
    """
    problems: Problems = []
    given: Mapping[str, Any] = content or {}
    if tree.fill and len(given) <= len(tree.root.children):  # else refused whole, uncounted
        # a page shaped at call time: a top-level leaf left out (or null) gets the call's default
        given = {**tree.fill, **{k: v for k, v in given.items() if v is not None}}
    cleaned = _group(tree.root, given, "", problems, tree.offered)
    problems.extend(not_offered(cleaned, tree.offered))
    return cleaned, problems


def _group(
    group: Group,
    value: object,
    path: str,
    problems: Problems,
    offered: Mapping[str, frozenset[str]] | None = None,
) -> dict[str, Any]:
    if type(value) is not dict and not isinstance(value, Mapping):  # a dict, the commonest, tested first
        problems.append((path.rstrip(".") or "(form)", f"expected an object, got {kind_of(value)}"))
        return {}
    given = cast("Mapping[object, Any]", value)
    children = group.by_key
    if len(given) > len(children):
        problems.append((path.rstrip(".") or "(answer)", too_many_keys(len(given), len(children))))
        return {}
    leaves: dict[str, Any] = {}
    cleaned: dict[str, Any] = {}
    for key, item in given.items():
        child = children.get(key) if isinstance(key, str) else None
        if child is None:
            problems.append((f"{path}{key}", "was not asked for (the form has no such field)"))
        elif child.kind == "leaf":
            leaves[child.key] = item
        elif item is not None:
            cleaned[child.key] = _node(child, item, path + child.key, problems)
    checked, leaf_problems = check_content(group.form, leaves, offered)
    if leaf_problems:
        problems.extend((f"{path}{key}", problem) for key, problem in leaf_problems)
    if cleaned:
        checked.update(cleaned)
    return checked


def _node(node: Node, value: object, path: str, problems: Problems) -> Any:
    if node.kind == "leaf":
        return _leaf(node.spec, value, path, problems)
    if node.kind == "group":
        return _group(node, value, f"{path}.", problems)
    if node.kind == "file":
        if not isinstance(value, UploadedFile):
            problems.append((path, f"expected an uploaded file, got {kind_of(value)}"))
            return None
        why = file_problem(node.limits, value.media_type, value.data)
        if why is not None:
            problems.append((path, why.replace("_", " ")))
        return value
    if node.kind == "rows":
        if not isinstance(value, list):
            problems.append((path, f"expected a list, got {kind_of(value)}"))
            return []
        rows = cast("list[object]", value)
        if len(rows) > node.max_rows:
            problems.append((path, f"holds {len(rows)} rows, more than the {node.max_rows} allowed"))
            return []
        item = node.item
        if item.kind == "leaf":
            return [_leaf(item.spec, row, f"{path}.{i}", problems) for i, row in enumerate(rows)]
        return [_group(item, row, f"{path}.{i}.", problems) for i, row in enumerate(rows)]
    if not isinstance(value, Mapping):  # key/value rows, or a choice of groups
        problems.append((path, f"expected an object, got {kind_of(value)}"))
        return {}
    if node.kind == "pairs":
        pairs = cast("Mapping[object, object]", value)
        if len(pairs) > node.max_rows:
            problems.append((path, f"holds {len(pairs)} keys, more than the {node.max_rows} allowed"))
            return {}
        out: dict[str, Any] = {}
        for i, (key, entry) in enumerate(pairs.items()):
            try:
                if not isinstance(key, str):
                    raise ValueError(f"expected a text key, got {kind_of(key)}")
                check_text(key)
            except ValueError as problem:
                problems.append((f"{path}.{i}", str(problem)))
                continue
            out[key] = _leaf(node.value.spec, entry, f"{path}.{i}.value", problems)
        return out
    chosen = cast("Mapping[str, object]", value)
    tag = chosen.get(node.tag)
    group = node.groups.get(tag) if isinstance(tag, str) else None
    if group is None:
        problems.append((f"{path}.{node.tag}", "is not one of the choices"))
        return {}
    rest = {k: v for k, v in chosen.items() if k != node.tag}
    return {node.tag: tag, **_group(group, rest, f"{path}.", problems)}


def _leaf(spec: FieldSpec, value: object, path: str, problems: Problems) -> Any:
    try:
        return check_wire_value(spec, value)
    except ValueError as problem:
        problems.append((path, str(problem)))
        return None


def node_at(tree: PageTree, path: str) -> Node | None:
    """The node at a dotted path of the page (a row's index steps into its item), or None."""
    node: Node = tree.root
    for part in path.split(".") if path else []:
        found = child_of(node, part)
        if found is None:
            return None
        node = found
    return node


def child_of(node: Node, part: str) -> Node | None:
    """The node one step below `node` named `part` (a row's index, or a field's name)."""
    if node.kind == "group":
        return node.by_key.get(part)
    if node.kind == "rows":
        # a row index as a page writes it: ASCII digits, at most four of them
        is_index = 0 < len(part) <= 4 and part.isascii() and part.isdigit()
        return node.item if is_index and int(part) < node.max_rows else None
    if node.kind == "union":
        return next((g.by_key[part] for g in node.groups.values() if part in g.by_key), None)
    return None
