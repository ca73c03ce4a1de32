"""What the reducer reads off a pydantic field, and how a per-field rule says no.

`strip_none` and `strip_annotated` unwrap `X | None` and `Annotated[X, ...]`, `flat` opens
`Field(...)` and grouped constraints inside the metadata, `type_name` shows an annotation in a
message. `FieldProblem` is what every rule (`fields`, `options`, `defaults`, `names`) raises
for one field; the reducer (`layout`) collects them into one `SchemaError`.
"""

from __future__ import annotations

import types
from collections.abc import Generator, Iterable
from typing import Annotated, Any, Union, cast, get_args, get_origin

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


_KEY_ORDER = ("type", "title", "description")


def ordered(prop: dict[str, Any]) -> dict[str, Any]:
    """`prop` with `type`, `title` and `description` first (the order every schema shows)."""
    head = {k: prop[k] for k in _KEY_ORDER if k in prop}
    return {**head, **{k: v for k, v in prop.items() if k not in head}}


def strip_none(annotation: Any) -> tuple[Any, bool]:
    """`X` and True for `X | None`, else the annotation and False.

    Raises:
        FieldProblem: For a union of several types (it cannot be elicited).
    """
    if get_origin(annotation) in (Union, types.UnionType):
        args = get_args(annotation)
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(rest) != len(args):
            return rest[0], True
        raise FieldProblem(
            f"a union of several types ({type_name(annotation)}) cannot be elicited; "
            "declare one type (or Literal options), or ask in separate fields"
        )
    return annotation, False


def strip_annotated(annotation: Any) -> tuple[Any, list[Any]]:
    """`X` and its metadata for `Annotated[X, ...]`, else the annotation and no metadata."""
    if get_origin(annotation) is Annotated:
        base, *meta = get_args(annotation)
        return base, list(meta)
    return annotation, []


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
