"""Options: `Literal` and `Enum` fields, `Titles`, multi-selects, and `Choices()` offered per question.

The wire rules of fields that offer options: values are strings, at most `MAX_OPTIONS`
(1,000) of at most `MAX_OPTION_LENGTH` characters; titled single choices travel as `oneOf`,
titled multi-selects as `items.anyOf`, untitled ones as `enum`. A `Choices()` field has
its property without options in the class (`choices_property`); each question adds the
options it offers (`with_options`), checked with work bounded by the limits.
"""

from __future__ import annotations

import enum
import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, cast

import annotated_types as at

from typed_elicit._forms.fieldinfo import FieldProblem, FieldShape, ordered, type_name, valid_text
from typed_elicit._wire.spec import (
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MAX_QUESTION_SCHEMA_LENGTH,
)


@dataclass(frozen=True, init=False)
class Titles:
    """Display titles for the options of a `Literal` or `Enum` field.

    Put it in the field's `Annotated[...]`; keys are option values (or `Enum`
    members), values are what the user sees. Every option needs a title, of at most
    `MAX_OPTION_LENGTH` (1,000) characters.

    Example:
        `size: Annotated[Literal["s", "l"], Titles(s="Small", l="Large")]`
    """

    titles: Mapping[str, str]
    legacy: bool

    def __init__(
        self, titles: Mapping[str | enum.Enum, str] | None = None, /, *, legacy: bool = False, **by_value: str
    ) -> None:
        """Collect titles from a mapping and/or keyword arguments.

        Args:
            titles: Option value (or `Enum` member) -> display title.
            legacy: Send the deprecated `enum` + `enumNames` form on every revision
                (single select only), for clients that know nothing newer. Without
                it, that form is sent on 2025-06-18 only. An option named `legacy`
                goes in the mapping.
            **by_value: The same as `titles`, for option values that are identifiers.
        """
        # At most one title past MAX_OPTIONS is kept from each source: enough for the
        # reducer to refuse too many (SchemaError), without reading a hostile mapping whole.
        given = islice((titles or {}).items(), MAX_OPTIONS + 1)
        merged = {str(key.value if isinstance(key, enum.Enum) else key): title for key, title in given}
        merged.update(islice(by_value.items(), MAX_OPTIONS + 1))
        object.__setattr__(self, "titles", types.MappingProxyType(merged))
        object.__setattr__(self, "legacy", legacy)


@dataclass(frozen=True)
class Choices:
    """Marks a text field whose options are given per question, not in the class.

    Put it in the field's `Annotated[...]`: `Annotated[str, Choices()]` asks for one
    option, `Annotated[list[str], Choices(), Field(min_length=1, max_length=3)]` for
    several (2025-11-25 and later). Every question about the model then names the
    options it offers, optionally with titles:
    `ctx.elicit(PickAccount, options={"account": ["acc-1", "acc-2"]})` or
    `options={"account": {"acc-1": "Checking", "acc-2": "Savings"}}`. The answer is
    validated against exactly the options offered, and on 2026-07-28 the options are
    part of the question's pinned digest (compute them inside `ctx.once` when they
    come from a side effect). A `Choices()` field takes no default in the class but
    `None` (or `[]` for several): give one per question with `defaults=`. Page forms
    (`@form(page=True)`) cannot have `Choices()` fields yet.

    Example:
        `account: Annotated[str, Choices()] = Field(description="The account to charge")`
    """


def has_choices(metadata: Sequence[Any]) -> bool:
    """Whether the metadata marks a `Choices()` field.

    Raises:
        FieldProblem: For the class `Choices` given uninstantiated.
    """
    if any(m is Choices for m in metadata):
        raise FieldProblem("Choices is a marker to instantiate: write Annotated[str, Choices()]")
    return any(isinstance(m, Choices) for m in metadata)


def choices_property(shape: FieldShape) -> tuple[dict[str, Any], bool]:
    """A `Choices()` field's property without its options (they are added per question).

    Raises:
        FieldProblem: If the field is neither `str` nor a list of `str`.
    """
    if shape.annotation is str:
        return {"type": "string"}, False
    if shape.item is not None and shape.item.annotation is str:
        return with_lengths({"type": "array", "items": {"type": "string"}}, shape.metadata), True
    raise FieldProblem(
        f"Choices() marks a str field (one option) or a list[str] field (several), not "
        f"{type_name(shape.annotation)}; declare it as one of those"
    )


def with_lengths(prop: dict[str, Any], metadata: Sequence[Any], unit: str = "Items") -> dict[str, Any]:
    """`prop` with the lengths of `metadata` as `minItems`/`maxItems` (`unit="Length"`: text's)."""
    for meta in metadata:
        if isinstance(meta, at.MinLen):
            prop[f"min{unit}"] = meta.min_length
        elif isinstance(meta, at.MaxLen):
            prop[f"max{unit}"] = meta.max_length
    return prop


def find_titles(metadata: Sequence[Any]) -> Titles | None:
    """The `Titles(...)` among a field's metadata, if any."""
    return next((m for m in metadata if isinstance(m, Titles)), None)


def string_options(values: list[object]) -> list[str]:
    """The options of a `Literal` or `Enum` type (`FieldShape.options`) as wire strings, checked.

    Raises:
        FieldProblem: For options that are no strings, none, too many or too long.
    """
    bad = [v for v in values if not isinstance(v, str)]
    if bad:
        raise FieldProblem(
            f"option values must be strings on the wire, got {', '.join(repr(v) for v in bad)}; "
            "use Literal of strings or a StrEnum (e.g. `class Size(StrEnum): SMALL = 's'`)"
        )
    if not values:
        raise FieldProblem("an Enum without members offers no choice; add members")
    if len(values) > MAX_OPTIONS:
        raise FieldProblem(
            f"{len(values)} options are more than the {MAX_OPTIONS} clients accept; ask in steps"
        )
    options = [str(v) for v in values]  # pydantic itself refuses options that are not valid text
    for option in options:
        check_option_length(option)
    return options


def check_option_length(value: str, title: str | None = None) -> None:
    """Refuse an option value or title over `MAX_OPTION_LENGTH` characters (a `len`, nothing read).

    Raises:
        FieldProblem: Naming the length and the limit.
    """
    if len(value) > MAX_OPTION_LENGTH:
        raise FieldProblem(
            f"offers an option of {len(value)} characters, more than {MAX_OPTION_LENGTH} allowed; "
            "shorten it (an option is a short value; say more in the title or the description)"
        )
    if title is not None and len(title) > MAX_OPTION_LENGTH:
        raise FieldProblem(
            f"titles an option with {len(title)} characters, more than {MAX_OPTION_LENGTH} allowed; "
            "shorten the title (say more in the field's description)"
        )


def _titled(options: list[str], titles: Titles) -> list[dict[str, str]]:
    if len(titles.titles) > MAX_OPTIONS:  # Titles keeps one past the limit: never read whole
        raise FieldProblem(
            f"Titles(...) names more than {MAX_OPTIONS} options, more than any field may offer; "
            "title each option of the field once"
        )
    offered = set(options)
    missing = [o for o in options if o not in titles.titles]
    extra = [k for k in titles.titles if k not in offered]
    if missing or extra:
        parts: list[str] = []
        if missing:
            parts.append(f"no title for {_listed(missing)}")
        if extra:
            parts.append(f"titles for unknown options {_listed(extra)}")
        raise FieldProblem(f"Titles(...) must name every option exactly once: {'; '.join(parts)}")
    for option in options:
        title = titles.titles[option]
        if not isinstance(title, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise FieldProblem(f"Titles(...) must map options to strings, got {title!r}; give text")
        check_option_length(option, title)
        valid_text(title, "title")
    return [{"const": o, "title": titles.titles[o]} for o in options]


def _listed(values: list[str]) -> str:
    """The first ten values, quoted, then how many more."""
    shown = ", ".join(repr(v[:40]) for v in values[:10])
    return f"{shown} and {len(values) - 10} more" if len(values) > 10 else shown


def options_property(values: list[object], titles: Titles | None) -> dict[str, Any]:
    """A single choice's property (`FieldShape.options`): `enum`, titled `oneOf`, or `enum` + `enumNames`.

    Raises:
        FieldProblem: If the options or their titles break a rule.
    """
    options = string_options(values)
    if titles is None:
        return {"type": "string", "enum": options}
    titled = _titled(options, titles)
    if titles.legacy:
        return {"type": "string", "enum": options, "enumNames": [o["title"] for o in titled]}
    return {"type": "string", "oneOf": titled}


def multi_select_property(shape: FieldShape, titles: Titles | None) -> dict[str, Any]:
    """A multi-select's property (`type: array`, options in `items`, lengths as `minItems`/`maxItems`).

    Raises:
        FieldProblem: For a list of anything but options, or options or titles that break a rule.
    """
    item = cast("FieldShape", shape.item)
    titles = titles or find_titles(item.metadata)
    if titles is not None and titles.legacy:
        raise FieldProblem(
            "Titles(legacy=True) has no multi-select form (enumNames titles single choices only); "
            "drop legacy=True"
        )
    if item.options is None:
        raise FieldProblem(
            f"free-form lists ({type_name(shape.annotation)}) cannot be elicited, only multi-select "
            "options; use list[Literal[...]] or list[SomeStrEnum], or ask for one str and split it "
            "(a page can ask for rows of a list: declare the model @form(page=True) and ask with "
            "ctx.elicit_page)"
        )
    options = string_options(item.options)
    items: dict[str, Any] = (
        {"type": "string", "enum": options} if titles is None else {"anyOf": _titled(options, titles)}
    )
    return with_lengths({"type": "array", "items": items}, shape.metadata)


def not_an_option(value: str, options: list[str]) -> str:
    """Why `value` is refused: it is not one of `options` (the first ten shown)."""
    return f"offers {value!r}, which is not one of the options {_listed(options)}"


def offered_values(prop: Mapping[str, Any]) -> list[str]:
    """The option values of a property (a multi-select's are in `items`); [] when it has none."""
    offer = holder(prop)
    titled = offer.get("anyOf" if prop["type"] == "array" else "oneOf")
    return [o["const"] for o in titled] if titled is not None else list(offer.get("enum", ()))


def holder(prop: Mapping[str, Any]) -> Mapping[str, Any]:
    """Where a choice property keeps its options: itself, or a multi-select's `items`."""
    return cast("Mapping[str, Any]", prop["items"]) if prop["type"] == "array" else prop


def has_options(prop: Mapping[str, Any]) -> bool:
    """Whether a choice property carries its options (a `Choices()` field's does once offered)."""
    offer = holder(prop)
    return "enum" in offer or "oneOf" in offer or "anyOf" in offer


def with_options(
    prop: Mapping[str, Any], given: object, room: int, limit: int = MAX_QUESTION_SCHEMA_LENGTH
) -> tuple[dict[str, Any], int, int]:
    """`prop` with the offered options: `enum` for plain values, titled `oneOf`/`anyOf` for titles.

    Counts and lengths are checked before anything is read (`len`), and the options are
    read only until their JSON passes `room` bytes (what is left of `limit`, the schema's
    limit the message names), so a hostile offer costs work bounded by the limits, not by
    its size.

    Returns:
        The property, and at least and at most how many bytes of JSON the options add.

    Raises:
        FieldProblem: Naming the first problem of the offer.
    """
    if isinstance(given, str) or not isinstance(given, Sequence | Mapping):
        raise FieldProblem(
            f"its options must be a list of values or a mapping of value to title, not "
            f"{type(given).__name__}; wrap a single option in a list"
        )
    offer = cast("Sequence[object] | Mapping[object, object]", given)
    count = len(offer)
    if not count:
        raise FieldProblem("offers no options, so no answer could be valid; offer at least one")
    if count > MAX_OPTIONS:
        raise FieldProblem(f"offers {count} options, more than the {MAX_OPTIONS} clients accept; offer fewer")
    pairs: Iterable[tuple[object, object]]
    if isinstance(offer, Mapping):
        titled, pairs = True, offer.items()
    else:
        titled, pairs = False, ((v, None) for v in offer)
    entries: dict[str, str | None] = {}  # value -> title
    least = most = 40  # the keys around them ("enum":[...], "items":{"anyOf":[...]}) at most
    for value, title in islice(pairs, MAX_OPTIONS + 1):  # a sequence may understate its length
        if len(entries) == MAX_OPTIONS:
            raise FieldProblem(
                f"offers at least {MAX_OPTIONS + 1} options, more than the {MAX_OPTIONS} clients accept; "
                "offer fewer"
            )
        if not isinstance(value, str) or (title is not None and not isinstance(title, str)):
            raise FieldProblem(
                f"its options must be strings (and titles strings), got a {type(value).__name__}"
                f"{'' if title is None else ' titled by a ' + type(title).__name__}; convert them with str()"
            )
        check_option_length(value, title)
        text = len(value) + (0 if title is None else len(title))
        least += text + (3 if title is None else 24)  # "v", or {"const":"v","title":"t"},
        most += 12 * text + (3 if title is None else 24)  # 12: the longest ASCII escape of a character
        if least > room:
            raise FieldProblem(
                f"its options take more than the {limit} bytes of JSON a question's "
                "schema may have (with the rest of the form); offer fewer or shorter options "
                "(or ask in steps)"
            )
        valid_text(value, "option")
        if title is not None:
            valid_text(title, "title")
        if value in entries:
            raise FieldProblem(f"offers {value[:40]!r} more than once; offer each option once")
        entries[value] = title
    values = list(entries)
    out = dict(prop)
    if prop["type"] == "array":
        out["items"] = (
            {"anyOf": [{"const": v, "title": t} for v, t in entries.items()]}
            if titled
            else {"type": "string", "enum": values}
        )
        if out.get("minItems", 0) > len(values):
            raise FieldProblem(
                f"offers {len(values)} options, fewer than its min_length={out['minItems']} selections; "
                "offer more options or lower min_length"
            )
    elif titled:
        out["oneOf"] = [{"const": v, "title": t} for v, t in entries.items()]
    else:
        out["enum"] = values
    return ordered(out), least, most
