"""Page forms with groups shaped at call time: `Choices()` options and defaults for the model's own fields.

`shaped(model, ..., page=True)` (`typed_elicit._forms.shaping`) shapes a page form with groups
as it shapes a flat one: from a flat `Layout`, here the model's own leaves
(`PageTree.layout`), by the same checks. This module tells what a group-like field takes
(nothing per question) and writes the shaped leaves back into the tree: the root group's
form, its leaves' specs, the tree's inputs and digest (which so covers the options and
defaults), and the defaults an answer that leaves a leaf out gets (`PageTree.fill`).

Only the model's own (top-level) fields take options and defaults per question: a
`Choices()` field inside a group is refused at class definition (`page_tree`), and a group,
list, choice of groups, key/value rows or file takes neither.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from typing import Any

from typed_elicit._forms.layout import newest_schema
from typed_elicit._forms.page.tree import Node, PageTree, tree_shape, tree_size
from typed_elicit._wire.parse import parse_requested_schema

_WHAT = {
    "group": "a group (a nested model)",
    "rows": "a list of rows",
    "pairs": "key/value rows (a dict)",
    "union": "a choice of groups (a union)",
    "file": "a file upload",
}


def node_problem(tree: PageTree, name: str, argument: str) -> str:
    """What `options=` or `defaults=` (`argument`) naming the model's non-leaf field `name` is told."""
    node = tree.root.by_key[tree.layout.groups[name]]
    what = _WHAT[node.kind]
    if argument == "options":
        return (
            f"is {what}, not a Choices() field, so it takes no options; offer options for the "
            "model's own Choices() fields only"
        )
    fix = (
        "ask without it (a browser cannot pre-fill a file)"
        if node.kind == "file"
        else "give the fields inside it defaults in the class (Field(default=...)), or leave it out"
    )
    return f"is {what}, which takes no default per question (the page fills it in); {fix} of defaults="


def carried_tree(tree: PageTree, carried: Mapping[str, Any]) -> PageTree:
    """The shaped tree whose `PageTree.carried` is `carried`, built on `tree`, the model's own.

    Raises:
        KeyError: If the model no longer has the carried leaves (another version of it).
        ValueError: If the carried schema is not one (also `RequestedSchemaError`).
        TypeError: If `carried` does not hold what `carried()` writes.
    """
    schema = carried["schema"]
    if set(schema["properties"]) != {child.key for child in tree.root.children if child.kind == "leaf"}:
        raise KeyError("the model's own fields changed")
    offered = {key: frozenset(values) for key, values in carried["offered"].items()}
    required = list(schema.get("required", []))
    return shape_tree(tree, dict(schema["properties"]), required, carried["fill"], offered)


def shape_tree(
    tree: PageTree,
    properties: dict[str, dict[str, Any]],
    required: list[str],
    fill: Mapping[str, Any],
    offered: Mapping[str, frozenset[str]],
) -> PageTree:
    """`tree` with its own leaves shaped: `properties` and `required` (from the shaping), `fill` its defaults.

    Args:
        tree: The model's tree, as reduced at class definition.
        properties: Wire name -> property of each of the model's own leaves, options and defaults written in.
        required: The wire names of the leaves still required (a leaf with a default is not).
        fill: Wire name -> wire default of each leaf given a default.
        offered: Wire name of each `Choices()` field -> the option values offered.

    Returns:
        A new tree (never cached): the page shows it and answers are checked against it.
    """
    schema = newest_schema(properties, required)
    form = parse_requested_schema(schema, cached=False)
    children: list[Node] = [
        dataclasses.replace(child, spec=form.by_name[child.key], prop=properties[child.key])
        if child.kind == "leaf"
        else child
        for child in tree.root.children
    ]
    root = dataclasses.replace(tree.root, children=tuple(children), form=form, schema=schema)
    return dataclasses.replace(
        tree,
        root=root,
        inputs=tree_size(root),
        shape=tree_shape(root),
        fill=types.MappingProxyType(dict(fill)),
        offered=types.MappingProxyType(dict(offered)),
    )
