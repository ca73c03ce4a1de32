"""Page forms: a model a web form can carry, reduced once to a `PageTree` whose leaves are `FieldSpec`s.

A page answer travels over HTTP, not over the elicitation wire, so a page form may hold more than
flat primitives: `Group` (a nested model, or an optional one: a box that adds it), `Rows` (a list
of models or of primitives, at most `MAX_PAGE_ROWS`), `Choice` (a discriminated union: which group
to fill), `Pairs` (a `dict[str, primitive]` as key/value rows), `FileField` (an `UploadedFile`) and
`Leaf` (every other field, reduced by a flat form's rules: `layout.leaf_property`). A `Choices()`
leaf is taken among the model's own fields only. Groups nest at most `MAX_PAGE_DEPTH` deep, a page
shows at most `MAX_PAGE_INPUTS` inputs and its files fit one submit; anything else is a
`SchemaError` naming every bad field by its dotted path (`address.street`, `items.0.name`), why,
and the fix. A flat page form is a tree of leaves.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final, Literal, TypeAlias, cast

import annotated_types as at
from pydantic import BaseModel, SecretBytes, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from typed_elicit._core.digests import schema_digest
from typed_elicit._forms.autofill import declared_token
from typed_elicit._forms.fieldinfo import FieldProblem, FieldShape, field_shape, shape_of
from typed_elicit._forms.fields import reduce_field
from typed_elicit._forms.layout import Layout, LeafProperty, leaf_property, model_problem, newest_schema
from typed_elicit._forms.names import item_noun, looks_secret, secret_fields, wire_name
from typed_elicit._forms.options import has_choices
from typed_elicit._forms.page.files import MAX_FILE_LIMIT, FileLimits, UploadedFile
from typed_elicit._wire.parse import parse_requested_schema
from typed_elicit._wire.spec import FieldSpec, FormSpec
from typed_elicit.errors import SchemaError

MAX_PAGE_DEPTH: Final = 4
"""How deep groups, rows and choices nest in one another below a page's own fields."""

MAX_PAGE_ROWS: Final = 100
"""The most rows one list (or dict) on a page holds; a list's own `max_length` may lower it."""

MAX_PAGE_INPUTS: Final = 2_000
"""The most inputs a page may show with every list full (checked when the class is defined)."""

_TREE_FIX: Final = "a page can ask for it: declare the model @form(page=True) and ask with ctx.elicit_page"


@dataclass(frozen=True)
class Leaf:
    """A field a person types or picks: `spec` is a flat form's field (its `name` is `key`)."""

    key: str
    spec: FieldSpec
    secret: bool
    prop: Mapping[str, Any] = field(default_factory=lambda: types.MappingProxyType({}))
    """Its property as a flat form's schema writes it (what `typed-elicit schema` shows)."""
    autocomplete: str | None = None
    """Its declared `autocomplete` token (`_forms.autofill`): a page's only, it never travels."""
    kind: Literal["leaf"] = "leaf"


@dataclass(frozen=True)
class _Boxed:
    """What every node but a leaf has: its wire name, label and description, whether an answer needs it."""

    key: str
    label: str
    description: str | None
    required: bool


@dataclass(frozen=True)
class FileField(_Boxed):
    """An `UploadedFile` field, with its limits."""

    limits: FileLimits
    kind: Literal["file"] = "file"


@dataclass(frozen=True)
class Group(_Boxed):
    """A nested model: its fields, in order; `optional` for `Sub | None = None` (a box adds it)."""

    optional: bool
    children: tuple[Node, ...]
    form: FormSpec
    """The group's own leaves as a flat form (how their values are checked)."""
    schema: dict[str, Any]
    """That form's schema (the flat schema of the group's own leaves)."""
    kind: Literal["group"] = "group"

    @cached_property
    def by_key(self) -> dict[str, Node]:
        """The group's children by wire name (made once: a page's every submit walks it)."""
        return {child.key: child for child in self.children}


@dataclass(frozen=True)
class Rows(_Boxed):
    """A list: rows of `item` (a leaf or a group), at least `min_rows`, at most `max_rows`."""

    item: Leaf | Group
    min_rows: int
    max_rows: int
    kind: Literal["rows"] = "rows"


@dataclass(frozen=True)
class Pairs(_Boxed):
    """A `dict[str, primitive]`: key/value rows, at most `max_rows`; `value` is the values' field."""

    value: Leaf
    max_rows: int
    kind: Literal["pairs"] = "pairs"


@dataclass(frozen=True)
class Choice(_Boxed):
    """A discriminated union of models: `tag` (the discriminator's wire name) picks one of `groups`."""

    optional: bool
    tag: str
    groups: dict[str, Group]
    """Tag value -> the group of that member's other fields."""
    kind: Literal["union"] = "union"


Node: TypeAlias = Leaf | FileField | Group | Rows | Pairs | Choice


@dataclass(frozen=True)
class PageTree:
    """A page form with groups, reduced: the root group and what bounds a submit of it."""

    root: Group
    inputs: int
    """The most inputs the page shows, every list full (at most `MAX_PAGE_INPUTS`)."""
    depth: int
    """How deep its groups nest (at most `MAX_PAGE_DEPTH`)."""
    files: bool
    """Whether it has file fields (its form is then sent as multipart)."""
    shape: dict[str, Any]
    """A JSON description of the tree: what its digest is made from."""
    layout: Layout
    """The model's own leaves as a flat form's `Layout` (its `Choices()` fields without options, its
    `groups` the other fields): what a page shaped at call time starts from (`_forms.page.shape`)."""
    fill: Mapping[str, Any] = field(default_factory=lambda: types.MappingProxyType({}))
    """Shaped at call time: wire name -> the default a top-level leaf left out of an answer gets."""
    offered: Mapping[str, frozenset[str]] = field(default_factory=lambda: types.MappingProxyType({}))
    """Shaped at call time: wire name of each top-level `Choices()` field -> the options offered."""

    @property
    def digest(self) -> str:
        """A short stable digest of the tree (what a 2026-07-28 answer is pinned to)."""
        return schema_digest(self.shape)

    @property
    def shaped(self) -> bool:
        """Whether a question shaped it at call time (options or defaults of its own fields)."""
        return bool(self.fill or self.offered)

    def carried(self) -> dict[str, Any]:
        """What a page's ticket carries of a tree shaped at call time: its own leaves as shaped (JSON).

        `page_shape.carried_tree` builds the same tree from it on any replica, shaping nothing again.
        """
        return {
            "schema": self.root.schema,
            "fill": dict(self.fill),
            "offered": {key: sorted(values) for key, values in self.offered.items()},
        }


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def is_tree_field(shape: FieldShape) -> bool:
    """Whether a field needs a page with groups (a model, list of rows, dict, file, union of several).

    A `Choices()` field is a flat field, whatever its type.
    """
    if has_choices(shape.metadata):
        return False
    if (
        shape.members
        or _is_model(shape.annotation)
        or shape.annotation is UploadedFile
        or shape.origin is dict
    ):
        return True
    return shape.origin is list and cast("FieldShape", shape.item).options is None


def page_tree(model: type[BaseModel]) -> PageTree:
    """Reduce a page form with groups to its `PageTree`, checking every field at every depth.

    Raises:
        SchemaError: Listing every field a web form cannot carry, by dotted path, with the fix.
    """
    builder = _Builder()
    root = builder.group(
        model, "", model.__name__, None, required=True, optional=False, depth=0, where=model.__name__
    )
    file_bytes, inputs = (0, 0) if root is None else (tree_size(root, files=True), tree_size(root))
    if file_bytes > MAX_FILE_LIMIT:
        builder.problems.append(
            f"{model.__name__}: its files may together hold up to {file_bytes} bytes with every "
            f"list full, more than the {MAX_FILE_LIMIT} one page submit takes besides its fields; lower "
            "their FileLimits(max_bytes=...), or the lists' max_length, or ask in steps"
        )
    if inputs > MAX_PAGE_INPUTS:
        builder.problems.append(
            f"{model.__name__}: its page shows up to {inputs} inputs with every list full, "
            f"more than the {MAX_PAGE_INPUTS} a page may hold; lower the lists' max_length "
            "(Field(max_length=...)) or ask in steps"
        )
    if builder.problems or root is None:
        raise SchemaError(model.__name__, builder.problems)
    assert builder.layout is not None  # the root group was built
    return PageTree(root, inputs, builder.deepest, builder.files, tree_shape(root), builder.layout)


class _Builder:
    """One reduction of a tree: the problems found so far, and what the tree holds."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.deepest = 0
        self.files = False
        self.layout: Layout | None = None
        """The root group's own leaves as a flat `Layout` (set when the root is built)."""

    def group(
        self,
        model: type[BaseModel],
        key: str,
        label: str,
        description: str | None,
        *,
        required: bool,
        optional: bool,
        depth: int,
        where: str,
        skip: str | None = None,
    ) -> Group | None:
        """The group of `model`'s fields (but `skip`, a union member's tag); None if a field is bad."""
        self.deepest = max(self.deepest, depth)
        before = len(self.problems)
        whole = model_problem(model, where)
        if whole is not None:
            self._add(whole)
        if not model.__pydantic_complete__:
            return None
        secret = secret_fields(model)
        leaves: list[LeafProperty] = []
        planned: list[Node | str | None] = []  # a node (None: a bad one), or a leaf's wire name
        nodes: dict[str, str] = {}
        tokens: dict[str, str | None] = {}
        for field_name, info in model.model_fields.items():
            if field_name == skip:
                continue
            at_field = f"{where}.{field_name}"
            try:
                shape = field_shape(info)
                if is_tree_field(shape):
                    nodes[field_name] = wire_name(field_name, info)
                    planned.append(self.node(field_name, info, shape, depth, at_field))
                    continue
                if any(isinstance(m, FileLimits) for m in shape.metadata):
                    raise FieldProblem(_MISPLACED_LIMITS)
                leaf = leaf_property(model, field_name, info, shape, page=True)
                if leaf.choices and depth:
                    raise FieldProblem(
                        "a Choices() field inside a group cannot take options per question; move it to the "
                        f"model's own fields ({where.split('.', 1)[0].split('[', 1)[0]}), or declare its "
                        "options in the class with Literal[...] or a StrEnum"
                    )
            except FieldProblem as problem:
                self._add(f"{at_field}: {problem}")
                continue
            leaves.append(leaf)
            tokens[leaf.key] = declared_token(info.json_schema_extra)
            planned.append(leaf.key)
        if len(self.problems) > before:
            return None
        own = Layout.of(leaves, 1 << 20, nodes)
        if not depth:
            self.layout = own
        properties = own.with_placeholders()  # until a question offers options (only the root has Choices())
        schema = newest_schema(properties, own.required)
        form = parse_requested_schema(schema, cached=False)
        children = tuple(
            Leaf(item, form.by_name[item], item in secret, properties[item], tokens[item])
            if isinstance(item, str)
            else item
            for item in planned
            if item is not None
        )
        return Group(key, label, description, required, optional, children, form, schema)

    def _add(self, problem: str) -> None:
        """Record a problem once (a model met twice in a tree is told about once per place)."""
        if problem not in self.problems:
            self.problems.append(problem)

    def node(
        self, field_name: str, info: FieldInfo, shape: FieldShape, depth: int, where: str
    ) -> Node | None:
        """The node of one field that needs a group, rows, a choice, pairs or a file.

        Raises:
            FieldProblem: Saying why a web form cannot carry the field, with the fix.
        """
        key = wire_name(field_name, info)
        label = info.title or field_name
        description = info.description
        has_default = info.default is not PydanticUndefined or info.default_factory is not None
        annotation, metadata, optional = shape.annotation, shape.metadata, shape.nullable
        if optional and not (info.default is None or info.default_factory is not None):
            raise FieldProblem("an optional group needs the default None; write `X | None = None`")
        if depth + 1 > MAX_PAGE_DEPTH:
            raise FieldProblem(
                f"it nests deeper than the {MAX_PAGE_DEPTH} levels a page shows; flatten a level "
                "(a self-referencing model nests without end) or ask in steps"
            )
        if shape.members:  # also Annotated[A | B, Field(discriminator=...)] | None
            return self.union(shape, key, label, description, depth, where)
        required = info.is_required()
        if annotation is UploadedFile:
            self.files = True
            limits = next((m for m in metadata if isinstance(m, FileLimits)), FileLimits())
            return FileField(key, label, description, required, limits)
        if any(isinstance(m, FileLimits) for m in metadata):
            raise FieldProblem(_MISPLACED_LIMITS)
        if _is_model(annotation):
            if has_default and not optional:
                raise FieldProblem(
                    "a group takes no default (a page fills it in); give its fields defaults instead, "
                    "or make it optional with `X | None = None`"
                )
            return self.group(
                annotation, key, label, description, required=required, optional=optional, depth=depth + 1,
                where=where,
            )  # fmt: skip
        low = next((m.min_length for m in metadata if isinstance(m, at.MinLen)), 0)
        high = next((m.max_length for m in metadata if isinstance(m, at.MaxLen)), None)
        if high is not None and high > MAX_PAGE_ROWS:
            raise FieldProblem(
                f"max_length={high} allows more rows than the {MAX_PAGE_ROWS} a page holds; "
                f"lower it to {MAX_PAGE_ROWS} or less"
            )
        rows = MAX_PAGE_ROWS if high is None else high
        if low > rows:
            raise FieldProblem(f"min_length={low} asks for more rows than the {rows} allowed; lower it")
        if has_default and not _empty_default(info):
            raise FieldProblem(
                "a list's or dict's default must be empty ([], {} or a default_factory); drop it"
            )
        if shape.origin is dict:
            args = shape.parameters
            if len(args) != 2 or shape_of(args[0]).annotation is not str or is_tree_field(shape_of(args[1])):
                raise FieldProblem(
                    "only dict[str, X] with a plain X (text, number, yes/no, date, option) becomes key/value "
                    "rows; declare one, or a list of a model with a key field"
                )
            value = self.item_leaf(args[1], key, field_name, where)
            return Pairs(key, label, description, required, value, rows)
        arg = shape.parameters[0]  # what is left of a tree field (`is_tree_field`): a list[X]
        item_annotation = cast("FieldShape", shape.item).annotation
        item: Leaf | Group | None
        if _is_model(item_annotation):
            item = self.group(
                item_annotation, key, item_noun(item_annotation), None, required=True, optional=False,
                depth=depth + 1, where=where,
            )  # fmt: skip
        elif is_tree_field(shape_of(arg)):
            raise FieldProblem("a list's rows hold a model or a plain value, not a list, dict, union or file")
        else:
            item = self.item_leaf(arg, key, field_name, where)
        return None if item is None else Rows(key, label, description, required, item, low, rows)

    def union(
        self, shape: FieldShape, key: str, label: str, description: str | None, depth: int, where: str
    ) -> Choice | None:
        """The choice of a discriminated union of models.

        Raises:
            FieldProblem: For a union that is not of models, or has no discriminator.
        """
        discriminator = shape.discriminator
        if not all(_is_model(m) for m in shape.members) or not isinstance(discriminator, str):
            raise FieldProblem(
                "a union becomes a choice on a page only as a discriminated union of models: "
                'Annotated[A | B, Field(discriminator="kind")], each model with kind: Literal["..."]; '
                "declare one type otherwise"
            )
        groups: dict[str, Group] = {}
        tag_key = discriminator
        failed = False
        for member in shape.members:
            tag_info = member.model_fields[discriminator]
            tag_key = wire_name(discriminator, tag_info)
            tags = field_shape(tag_info).options or []
            if not tags or not all(isinstance(t, str) for t in tags):
                raise FieldProblem(
                    f"{member.__name__}.{discriminator} must be a Literal of text tags for a page"
                )
            group = self.group(
                member, key, member.model_config.get("title") or member.__name__, member.__doc__,
                required=True, optional=False, depth=depth + 1, where=f"{where}[{member.__name__}]",
                skip=discriminator,
            )  # fmt: skip
            failed = failed or group is None
            groups.update({str(tag): group for tag in tags if group is not None})
        if failed:
            return None
        return Choice(key, label, description, not shape.nullable, shape.nullable, tag_key, groups)

    def item_leaf(self, annotation: Any, key: str, field_name: str, where: str) -> Leaf:
        """The leaf of a list's (or dict's values') plain item, reduced as a field of that type.

        Raises:
            FieldProblem: If the item cannot be a field.
        """
        info = FieldInfo.from_annotation(annotation)
        shape = field_shape(info)
        prop, _, is_choices = reduce_field(field_name, key, info, shape, page=True)
        if is_choices:
            raise FieldProblem(
                "a list's items cannot take options per question (Choices()); declare their options "
                "in the class with Literal[...] or a StrEnum"
            )
        form = parse_requested_schema(
            {"type": "object", "properties": {key: prop}, "required": [key]}, cached=False
        )
        secret = shape.annotation in (SecretStr, SecretBytes) or looks_secret(field_name)
        return Leaf(key, form.by_name[key], secret, prop, declared_token(info.json_schema_extra))


def _empty_default(info: FieldInfo) -> bool:
    if info.default_factory is not None:
        try:
            made: object = info.default_factory()  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]
        except TypeError:
            return False
        return made in ([], {}, None)
    return info.default in ([], {}, None)


_MISPLACED_LIMITS: Final = (
    "FileLimits applies to an UploadedFile field only; declare the field as "
    "Annotated[UploadedFile, FileLimits(...)], or remove FileLimits"
)


def tree_size(node: Node, *, files: bool = False) -> int:
    """How many inputs `node` shows at most, or (`files`) the bytes of files it holds, every list full."""
    box = 0 if files else 1  # a group, a list, key/value rows and a choice are one input more
    if node.kind == "leaf":
        return 0 if files else (max(1, len(node.spec.options)) if node.spec.kind == "multi_choice" else 1)
    if node.kind == "file":
        return node.limits.max_bytes if files else 1
    if node.kind == "group":
        return box + sum(tree_size(child, files=files) for child in node.children)
    if node.kind == "rows":
        return box + node.max_rows * tree_size(node.item, files=files)
    if node.kind == "pairs":
        return box + node.max_rows * 2 * box
    return box + max((tree_size(group, files=files) for group in node.groups.values()), default=0)


def tree_shape(node: Node) -> dict[str, Any]:
    """A JSON description of `node` (what the tree's digest is made from)."""
    if node.kind == "leaf":
        return {"leaf": node.spec.name, "kind": node.spec.kind, "secret": node.secret}
    if node.kind == "file":
        return {"file": node.key, "max": node.limits.max_bytes, "types": list(node.limits.media_types)}
    if node.kind == "group":
        return {"group": node.key, "optional": node.optional, "form": node.schema,
                "children": [tree_shape(c) for c in node.children]}  # fmt: skip
    if node.kind == "rows":
        return {"rows": node.key, "min": node.min_rows, "max": node.max_rows,
                "item": tree_shape(node.item)}  # fmt: skip
    if node.kind == "pairs":
        return {"pairs": node.key, "max": node.max_rows, "value": tree_shape(node.value)}
    return {
        "union": node.key,
        "tag": node.tag,
        "groups": {t: tree_shape(g) for t, g in node.groups.items()},
    }
