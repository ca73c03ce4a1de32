"""What the reducer reads off a pydantic field, and how a per-field rule says no.

`FieldShape` is a field's annotation unwrapped once (`field_shape`, `shape_of`): `X | None`,
`Annotated[X, ...]` and `Field(...)` or grouped constraints inside the metadata come apart here
and nowhere else, for the reducer (`fields`, `options`, `defaults`, `names`, `hints`) and the page
tree alike, which reads a dict's or list's type arguments from it too (`FieldShape.parameters`).
`type_name` shows an annotation in a message. `FieldProblem` is what every rule raises for one
field; the reducer (`layout`) collects them into one `SchemaError`.
"""

from __future__ import annotations

import enum
import types
from collections.abc import Generator, Iterable
from functools import cached_property
from typing import Annotated, Any, Literal, Union, cast, get_args, get_origin

import annotated_types as at
from pydantic.fields import FieldInfo

from typed_elicit._wire.rules import check_text


class FieldProblem(Exception):
    """Internal: why one field cannot be elicited, with the fix."""


_GROUPED_MARKER = "__is_annotated_types_grouped_metadata__"


def flat(metadata: Iterable[Any]) -> Generator[Any, None, None]:
    """Every constraint object, with `Field(...)` inside `Annotated` and grouped metadata opened.

    Grouped metadata is what `isinstance(meta, at.GroupedMetadata)` says it is, as pydantic
    reads it; that check (a runtime protocol's) is slow, so an object without the protocol's
    marker attribute (every grouped metadata has it) is not put to it.
    """
    for meta in metadata:
        if isinstance(meta, FieldInfo):
            yield from flat(meta.metadata)
        elif hasattr(meta, _GROUPED_MARKER) and isinstance(meta, at.GroupedMetadata):
            yield from flat(cast("Iterable[Any]", meta))
        else:
            yield meta


class FieldShape:
    """A field's annotation unwrapped once: what every rule of the reducer and of the page tree reads.

    Made once per field and never changed. A plain class: a dataclass here costs
    `import typed_elicit` about 3 M instructions.

    Attributes:
        annotation: The bare type, `None` and `Annotated` taken off; a union of several
            types as written.
        nullable: Whether `None` is allowed (`X | None`).
        metadata: Every constraint, opened (`flat`): the field's own, then those inside
            `Annotated`.
        members: The bare types of a union of several types (`None` left out); empty for one type.
        discriminator: A union's discriminator: the field's own, or a
            `Field(discriminator=...)` inside `Annotated`.
    """

    def __init__(
        self,
        annotation: Any,
        nullable: bool,
        metadata: tuple[Any, ...] = (),
        members: tuple[Any, ...] = (),
        discriminator: object = None,
    ) -> None:
        self.annotation = annotation
        self.nullable = nullable
        self.metadata = metadata
        self.members = members
        self.discriminator = discriminator

    def _parts(self) -> tuple[Any, ...]:
        return (self.annotation, self.nullable, self.metadata, self.members, self.discriminator)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FieldShape) and self._parts() == other._parts()

    def __hash__(self) -> int:
        return hash(self._parts())

    def __repr__(self) -> str:
        return "FieldShape({})".format(", ".join(map(repr, self._parts())))

    @property
    def origin(self) -> Any:
        """`get_origin` of the bare type (`list` for `list[str]`)."""
        return get_origin(self.annotation)

    @cached_property
    def parameters(self) -> tuple[Any, ...]:
        """The bare type's arguments as written (for `dict[str, Annotated[int, ...]]`, both as given)."""
        return get_args(self.annotation)

    @cached_property
    def item(self) -> FieldShape | None:
        """A list's (set's) items, `Annotated` taken off (a union stays whole); None for no list."""
        if self.origin not in (list, set, frozenset):
            return None
        arg, inner = _annotated(self.parameters[0] if self.parameters else Any)
        return FieldShape(arg, False, tuple(flat(inner)))

    @cached_property
    def options(self) -> list[object] | None:
        """The raw options of a `Literal` or `Enum` type, else None."""
        return option_values(self.annotation)


def _annotated(annotation: Any) -> tuple[Any, list[Any]]:
    """`X` and its metadata for `Annotated[X, ...]`, else the annotation and no metadata."""
    if get_origin(annotation) is Annotated:
        base, *meta = get_args(annotation)
        return base, meta
    return annotation, []


def field_shape(info: FieldInfo) -> FieldShape:
    """The shape of a pydantic field: its annotation, its metadata and its discriminator."""
    return shape_of(info.annotation, info.metadata, info.discriminator)


def shape_of(annotation: Any, metadata: Iterable[Any] = (), discriminator: object = None) -> FieldShape:
    """`annotation` unwrapped: every `Annotated` and `| None` taken off, down to one type or a union."""
    found = list(flat(metadata))
    nullable = False
    while True:
        if get_origin(annotation) is Annotated:
            annotation, inner = _annotated(annotation)
            found.extend(flat(inner))
            if discriminator is None:
                discriminator = next((m.discriminator for m in inner if isinstance(m, FieldInfo)), None)
        elif get_origin(annotation) in (Union, types.UnionType):
            args = get_args(annotation)
            rest = [a for a in args if a is not type(None)]
            nullable = nullable or len(rest) != len(args)
            if len(rest) > 1:
                members = tuple(_annotated(a)[0] for a in rest)
                return FieldShape(annotation, nullable, tuple(found), members, discriminator)
            annotation = rest[0]
        else:
            return FieldShape(annotation, nullable, tuple(found), (), discriminator)


def option_values(annotation: Any) -> list[object] | None:
    """The raw options of a `Literal` or `Enum` annotation, else None."""
    if get_origin(annotation) is Literal:
        # A str-Enum member travels as its value, which pydantic accepts for it.
        return [
            a.value if isinstance(a, enum.Enum) and isinstance(a, str) else a for a in get_args(annotation)
        ]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [member.value for member in annotation]
    return None


_KEY_ORDER = ("type", "title", "description")


def ordered(prop: dict[str, Any]) -> dict[str, Any]:
    """`prop` with `type`, `title` and `description` first (the order every schema shows)."""
    head = {k: prop[k] for k in _KEY_ORDER if k in prop}
    return {**head, **{k: v for k, v in prop.items() if k not in head}}


def valid_text(value: str, what: str) -> None:
    """Refuse text that is not valid Unicode (a lone surrogate), naming `what` it is.

    Raises:
        FieldProblem: If `value` holds a lone surrogate.
    """
    try:
        check_text(value)
    except ValueError:
        raise FieldProblem(
            f"the {what} {value[:40]!r} is not valid Unicode text (a lone surrogate); fix it"
        ) from None


def type_name(annotation: Any) -> str:
    """An annotation as a message shows it: `str`, `list[int]`, `dict[str, int]`."""
    if isinstance(annotation, type) and get_origin(annotation) is None:
        return annotation.__name__
    return repr(annotation).replace("typing.", "")
