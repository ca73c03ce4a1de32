"""The form model both ends share: a requested schema, checked, as `FormSpec`.

The client half parses every request's `requestedSchema` (`typed_elicit._wire.parse`) and
validates its user's answer with the model built from it; the server parses the schemas
the reducer produces into the same `FormSpec` and checks every answer against it
(`check_content`) before the user's own model sees it. One parser, one set of wire rules
(`typed_elicit._wire.rules`), one `describe` (`typed_elicit._wire.describe`) for every
place that shows a field to a person.

This module owns the limits both ends hold to (`MAX_FIELDS`, `MAX_OPTIONS`, ...), the field
model (`Option`, `FieldSpec`, `FormSpec`), the pydantic types a field's value is validated
with (`check_value`, and the model a form builds), the server's check of an answer's content
against the form (`check_content`, `check_wire_value`), and how a problem's place is written
(`field_path`). It imports nothing from `mcp.client`, so a server never loads the client stack.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Annotated, Any, Final, Literal, TypeAlias, cast

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    create_model,
)

from typed_elicit._wire.rules import (
    check_date,
    check_datetime,
    check_email,
    check_text,
    check_uri,
    kind_of,
    wire_number,
)
from typed_elicit.errors import InvalidResponse

MAX_FIELDS: Final = 200
"""The most properties one form has: the server sends no more, the client refuses more."""
MAX_OPTIONS: Final = 1000
"""The most options one field offers: the server sends no more, the client refuses more."""
MAX_OPTION_LENGTH: Final = 1000
"""The longest option value or option title the server sends, in characters."""
MAX_QUESTION_SCHEMA_LENGTH: Final = 65_536
"""The longest requested schema the server sends, in characters (bytes) of its compact ASCII JSON."""
MAX_NAME_LENGTH: Final = 200
"""Longest accepted property name."""
MAX_TEXT_LENGTH: Final = 10_000
"""Longest accepted title, description, option value or option title, in characters."""
MAX_MESSAGE_LENGTH: Final = 65_536
"""Longest accepted request message (and URL-mode URL), in characters."""
MAX_SCHEMA_LENGTH: Final = 1_048_576
"""Longest accepted requested schema, in characters of its compact ASCII JSON."""
MAX_COUNT: Final = 2**31 - 1
"""Largest accepted `minLength`, `maxLength`, `minItems` or `maxItems`."""
CACHED_SCHEMA_LENGTH: Final = 8_192
"""Only schemas at most this long (as JSON) are kept in the parse cache."""
CACHED_FIELDS: Final = 16
"""Only schemas with at most this many properties are kept in the parse cache."""
CACHE_ENTRIES: Final = 64
"""How many parsed schemas the cache keeps (least recently used first out)."""

ContentValue: TypeAlias = str | int | float | bool | list[str]
"""One value of an accepted answer's `content`, as it travels on the wire."""

FieldKind: TypeAlias = Literal["string", "integer", "number", "boolean", "choice", "multi_choice"]
"""What a field asks for: free text, a number, a yes/no, one option, or several options."""

Format: TypeAlias = Literal["email", "uri", "date", "date-time"]


@dataclass(frozen=True)
class Option:
    """One choice of a single- or multi-select field."""

    value: str
    """What goes on the wire."""
    title: str
    """What the user sees; equals `value` for untitled enums."""


@dataclass(frozen=True)
class FieldSpec:
    """One property of a requested schema, checked and normalised."""

    name: str
    """The property name on the wire."""
    attr: str
    """The attribute name on the built model (differs from `name` when that is no identifier)."""
    kind: FieldKind
    required: bool
    title: str | None = None
    description: str | None = None
    has_default: bool = False
    default: ContentValue | None = None
    options: tuple[Option, ...] = ()
    min_length: int | None = None
    max_length: int | None = None
    format: Format | None = None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: float | None = None
    """Values must be greater than this (`exclusiveMinimum`)."""
    exclusive_maximum: float | None = None
    """Values must be less than this (`exclusiveMaximum`)."""
    min_items: int | None = None
    max_items: int | None = None

    @property
    def label(self) -> str:
        """The title if the server gave one, otherwise the property name."""
        return self.title or self.name


@dataclass(frozen=True)
class FormSpec:
    """A requested schema, checked, with the pydantic model built from it."""

    fields: tuple[FieldSpec, ...]
    model: type[BaseModel]
    title: str | None = None
    description: str | None = None

    @cached_property
    def by_name(self) -> Mapping[str, FieldSpec]:
        """The fields by wire name."""
        return {spec.name: spec for spec in self.fields}

    def instance(self, answer: Mapping[str, Any] | BaseModel) -> BaseModel:
        """Validate an answer and fill in the schema's defaults for omitted (or null) fields.

        Args:
            answer: Values keyed by wire name, or a model whose dump (by alias) gives them.

        Returns:
            An instance of `model`.

        Raises:
            InvalidResponse: The answer does not satisfy the schema.
        """
        # warnings=False: pydantic's serializer warnings quote the offending value.
        values: Mapping[str, Any] = (
            answer.model_dump(mode="json", by_alias=True, exclude_none=True, warnings=False)
            if isinstance(answer, BaseModel)
            else answer
        )
        try:  # null counts as left out, as on the server (the wire schema has no null)
            return self.model.model_validate({k: v for k, v in values.items() if v is not None})
        except ValidationError as exc:
            errors = [(str(err["loc"][0]) if err["loc"] else "", err["msg"]) for err in exc.errors()]
            raise InvalidResponse.not_the_form(errors, values) from None

    def content(self, answer: Mapping[str, Any] | BaseModel) -> dict[str, ContentValue]:
        """Validate an answer and return the `content` to send, defaults included.

        Args:
            answer: Values keyed by wire name, or a model instance.

        Returns:
            The wire content: every answered or defaulted field, by wire name.

        Raises:
            InvalidResponse: The answer does not satisfy the schema.
        """
        return self.instance(answer).model_dump(mode="json", by_alias=True, exclude_none=True)


def check_value(spec: FieldSpec, value: object) -> ContentValue:
    """Validate one field's value on its own, as a form renderer does before moving on.

    Args:
        spec: The field.
        value: The value typed or chosen by the user.

    Returns:
        The value as it will travel on the wire.

    Raises:
        InvalidResponse: The value does not fit the field.
    """
    adapter = field_adapter(spec)
    try:
        return cast("ContentValue", adapter.dump_python(adapter.validate_python(value), mode="json"))
    except ValidationError as exc:
        errors = [(spec.name, err["msg"]) for err in exc.errors()]
        raise InvalidResponse.not_the_form(errors, {spec.name: value}) from None


def field_adapter(spec: FieldSpec) -> TypeAdapter[Any]:
    """The `TypeAdapter` that validates one value of the field."""
    return TypeAdapter(_field_type(spec, optional=False))


# --- value checks used by the built models -------------------------------------------------


FORMAT_CHECKS: Final[dict[Format, Callable[[str], str]]] = {
    "email": check_email,
    "uri": check_uri,
    "date": check_date,
    "date-time": check_datetime,
}


def _field_type(spec: FieldSpec, *, optional: bool) -> Any:
    """The annotation that validates one field's value."""
    t: Any
    if spec.kind == "string":
        t = Annotated[
            str,
            Field(strict=True, min_length=spec.min_length, max_length=spec.max_length),
            AfterValidator(check_text),
        ]
        if spec.format is not None:
            t = Annotated[t, AfterValidator(FORMAT_CHECKS[spec.format])]
    elif spec.kind in ("integer", "number"):
        base: Any = int if spec.kind == "integer" else int | float
        check = partial(wire_number, integer=spec.kind == "integer")  # the server's own rule
        bounds = Field(
            ge=spec.minimum,
            le=spec.maximum,
            gt=spec.exclusive_minimum,
            lt=spec.exclusive_maximum,
            allow_inf_nan=False,
        )
        t = Annotated[base, BeforeValidator(check), bounds]
    elif spec.kind == "boolean":
        t = Annotated[bool, Field(strict=True)]
    else:
        values = tuple(o.value for o in spec.options)
        if sum(map(len, values)) > LITERAL_TEXT_LENGTH:
            return _long_choice_type(spec, values, optional=optional)
        choice: Any = Literal[values]
        if spec.kind == "choice":
            t = choice
        else:
            t = Annotated[list[choice], Field(min_length=spec.min_items, max_length=spec.max_items)]
    return t | None if optional else t


LITERAL_TEXT_LENGTH: Final = 2_048
"""Option lists up to this many characters in all become a `Literal`; longer ones a checked `str`.

`typing` caches every `Literal[...]` (its last 128), so long option lists a server sent
would stay in memory; they are checked by membership instead, outside every cache.
"""


class _Uncached:
    """`Annotated` metadata that `typing` cannot hash, so it never caches the type; pydantic ignores it."""

    __hash__ = None  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]


def _long_choice_type(spec: FieldSpec, values: tuple[str, ...], *, optional: bool) -> Any:
    """A long option list's type: a `str` checked by membership, built outside typing's caches."""
    allowed = frozenset(values)

    def one_of(value: str | None) -> str | None:
        if value is not None and value not in allowed:
            raise ValueError(f"expected one of the {len(allowed)} options")
        return value

    one: Any = str | None if optional and spec.kind == "choice" else str
    item: Any = Annotated[one, Field(strict=True), AfterValidator(one_of), _Uncached()]
    if spec.kind == "choice":
        return item
    many: Any = list[item] | None if optional else list[item]
    return Annotated[many, Field(min_length=spec.min_items, max_length=spec.max_items), _Uncached()]


def build_model(title: str | None, fields: Sequence[FieldSpec]) -> type[BaseModel]:
    """The pydantic model that validates an answer to a form of `fields` (by wire name, nothing extra)."""
    definitions: dict[str, Any] = {}
    for spec in fields:
        info: dict[str, Any] = {"alias": spec.name, "title": spec.title, "description": spec.description}
        optional = not spec.has_default and not spec.required
        default = spec.default if spec.has_default else None if optional else ...
        definitions[spec.attr] = (_field_type(spec, optional=optional), Field(default, **info))
    name = re.sub(r"\W", "", (title or "").title()) or "RequestedForm"
    if not name.isidentifier():
        name = f"Form{name}"
    config = ConfigDict(extra="forbid", validate_by_name=False, validate_by_alias=True, title=title)
    return create_model(name, __config__=config, **definitions)


# --- the server's check: an answer against the form ---------------------------------------------


def check_content(
    form: FormSpec, content: Mapping[str, Any] | None, offered: Mapping[str, frozenset[str]] | None = None
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Check an answer's `content` against the wire rules of each field's kind.

    The server's first check (`typed_elicit._forms.validate`), before the user's model sees the
    answer: a key the form does not have is a problem, a `null` counts as left out, and each
    value must have its field kind's wire type (`check_wire_value`). Constraints (lengths,
    bounds, options) are left to the model the schema was reduced from, which carries them all.
    Counts come first, so the work is bounded by the form, not by the answer: an answer with
    more keys than the form has fields is one problem, none of its keys read.

    Args:
        form: The form the client was shown.
        content: The answer's content, possibly None (counts as `{}`).
        offered: Per `Choices()` field, the options the question offered (what bounds a
            multi-select's length when `form` holds placeholder options).

    Returns:
        The values to validate (numbers parsed, nulls dropped) and one `(path, problem)`
        pair per problem; problems name the field and the kind of value, never the value.
    """
    fields = form.by_name
    cleaned: dict[str, Any] = {}
    problems: list[tuple[str, str]] = []
    if content is None:
        return cleaned, problems
    if len(content) > len(fields):
        problems.append(("(answer)", too_many_keys(len(content), len(fields))))
        return cleaned, problems
    for key, value in content.items():
        spec = fields.get(key)
        if spec is None:
            problems.append((str(key), "was not asked for (the form has no such field)"))
        elif value is not None:
            try:
                cleaned[key] = check_wire_value(spec, value, offered)
            except ValueError as problem:
                problems.append((key, str(problem)))
    return cleaned, problems


def too_many_keys(keys: int, fields: int) -> str:
    """The problem with an answer holding more keys than its form has fields (it names no key)."""
    return f"holds {keys} keys, more than the {fields} fields of the form"


def check_wire_value(
    spec: FieldSpec, value: object, offered: Mapping[str, frozenset[str]] | None = None
) -> ContentValue:
    """`value` if it has the wire type of `spec`'s kind (a number field's number parsed).

    The rules (`typed_elicit._wire.rules`): a boolean field takes only `true`/`false`; a number
    field what `wire_number` takes; a text or choice field only valid Unicode text, in the
    field's format when it has one; a multi-select only a list of such texts, with no more
    items than the field has options (the count `offered` gives for a `Choices()` field),
    checked before any item is read.

    One exception, for speed: an `email` field is left to the model. The reducer emits
    `format: email` only for `EmailStr` fields, whose validation calls the very function
    `check_email` calls (pydantic's `validate_email`), so checking here would run the
    costliest check twice for the same verdict.

    Raises:
        ValueError: Naming the problem and the kind of value, never the value.
    """
    kind = spec.kind  # the commonest kinds first: this runs for every field of every answer
    if kind == "string" or kind == "choice":
        if not isinstance(value, str):
            raise ValueError(f"expected a string, got {kind_of(value)}")
        check_text(value)
        if spec.format is not None and spec.format != "email":
            FORMAT_CHECKS[spec.format](value)
        return value
    if kind == "integer" or kind == "number":
        return wire_number(value, integer=kind == "integer")
    if kind == "boolean":
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, got {kind_of(value)}")
        return value
    if not isinstance(value, list):
        raise ValueError(f"expected a list of options, got {kind_of(value)}")
    items = cast("list[object]", value)
    allowed = offered.get(spec.name) if offered else None
    count = len(spec.options) if allowed is None else len(allowed)
    if len(items) > count:  # `maxItems` is the model's to judge (its words); this bounds the work
        raise ValueError(f"holds {len(items)} items, more than the {count} options offered")
    for item in items:
        if not isinstance(item, str):
            raise ValueError(f"expected a list of options, got a list holding {kind_of(item)}")
        check_text(item)
    return cast("list[str]", items)


def field_path(parts: Sequence[int | str]) -> str:
    """The one way a problem's place is written, on both ends: `properties.x.enum[0]`, `picks[1]`.

    Names are joined with `.`, list positions written `[i]`; the whole form is `(form)`.
    """
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(form)"


def not_offered(cleaned: Mapping[str, Any], offered: Mapping[str, frozenset[str]]) -> list[tuple[str, str]]:
    """One `(wire name, problem)` per `Choices()` field of `cleaned` holding an option not `offered`."""
    problems: list[tuple[str, str]] = []
    for key, allowed in offered.items():
        if key in cleaned:
            value = cleaned[key]
            if isinstance(value, list):
                if not all(item in allowed for item in cast("list[str]", value)):
                    problems.append((key, "holds an option that was not offered"))
            elif value not in allowed:
                problems.append((key, "is not one of the offered options"))
    return problems
