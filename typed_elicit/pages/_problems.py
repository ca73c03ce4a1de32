"""What a page tells a person of each place a submit got wrong: every problem at once, in plain words.

`page_problems` checks a read submit with the page form's tree (`check_tree`) and validates what
passes with the model, once; every problem found by either is told at its place (a field, a row,
a list, a group), by dotted path, in `PAGE_WORDS`. Pydantic's own wording never reaches a person:
each error's type and limit choose the words; a model's own validator message is shown on one
line, cut to `MAX_OWN_MESSAGE` characters. No message ever shows the user's value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, cast, get_args

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails
from pydantic_core.core_schema import ErrorType

from typed_elicit._core.text import escaped, strip_bidi
from typed_elicit._forms.page.check import check_tree, node_at
from typed_elicit._forms.page.tree import Choice, FileField, Leaf, Node, PageTree, Pairs
from typed_elicit._views.words import said, speaks
from typed_elicit._wire.spec import FieldSpec

MAX_OWN_MESSAGE: Final = 200
"""The longest a model validator's own message is shown on a page, in characters."""


def page_problems(
    model: type[BaseModel], tree: PageTree, content: Mapping[str, Any], words: Mapping[str, str]
) -> dict[str, str]:
    """What to tell of each place `content` gets wrong, by dotted path (`""`: the whole form); empty if none.

    A problem inside a group is told at its field (`address.street`), inside a row at the row's
    field (`items.1.qty`); one about a whole list at the list (`items`). A top-level `Choices()`
    field holding an option the page did not offer (a forged submit) is told to choose from the
    options shown. The model validates what the tree's check lets through, once, so a submit with
    five problems of both kinds hears of all five.
    """
    told = {  # a `Choices()` field holding an option the page did not offer (forged)
        key: said(words, "choices" if isinstance(content[key], list) else "choice")
        for key, allowed in tree.offered.items()
        if key in content and not _offered(content[key], allowed)
    }
    cleaned, problems = check_tree(tree, content)
    for path, problem in problems:  # a value no input of the page sends (a forged submit), or a file
        if problem.startswith("file "):
            node = node_at(tree, path)
            limit = file_size_words(node.limits.max_bytes, words) if isinstance(node, FileField) else None
            told.setdefault(path, said(words, problem.replace(" ", "_"), limit))
        else:
            told.setdefault(path, said(words, "invalid"))
    try:
        model.model_validate(cleaned)
    except ValidationError as exc:
        for error in exc.errors(include_url=False, include_input=False):
            path, node = _page_place(tree, error["loc"])
            if any(path == told_path or path.startswith(f"{told_path}.") for told_path in told if told_path):
                continue  # told already, by what the tree's check found there
            spec = node.spec if node is not None and node.kind == "leaf" else None
            text = _problem_words(error, spec, words)
            if node is not None and node.kind in ("rows", "pairs"):
                key = {"too_short": "min_rows", "too_long": "max_rows"}.get(error["type"])
                context = error.get("ctx") or {}
                if key is not None:
                    text = said(words, key, context.get("min_length", context.get("max_length")))
            told.setdefault(path, text)
    return told


def file_size_words(limit: int, words: Mapping[str, str] | None = None) -> str:
    """A byte count as a person reads it, in decimal units: `1 MB`, `2 KB`, `12 bytes` (in `words`)."""
    if speaks(words):
        return words.size(limit)
    from typed_elicit._views.i18n import words_for  # a plain table of English texts: English's

    return words_for("en").size(limit)


_PYDANTIC_WORDS: Final[Mapping[str, str]] = {
    "missing": "required",
    "string_too_short": "min_length",
    "string_too_long": "max_length",
    "too_short": "min_length",
    "too_long": "max_length",
    "string_pattern_mismatch": "pattern",
    "greater_than_equal": "ge",
    "greater_than": "gt",
    "less_than_equal": "le",
    "less_than": "lt",
    "multiple_of": "multiple_of",
    "int_parsing": "integer",
    "int_from_float": "integer",
    "int_type": "integer",
    "float_parsing": "number",
    "float_type": "number",
    "finite_number": "number",
    "literal_error": "choice",
    "enum": "choice",
    "bool_parsing": "boolean",
    "bool_type": "boolean",
    "date_type": "date",
    "date_parsing": "date",
    "date_from_datetime_parsing": "date",
    "date_from_datetime_inexact": "date",
    "datetime_type": "date_time",
    "datetime_parsing": "date_time",
    "datetime_from_date_parsing": "date_time",
    "datetime_object_invalid": "date_time",
    "timezone_naive": "date_time",
    "timezone_aware": "date_time",
}

"""Pydantic's error types, by the `PAGE_WORDS` key that says the same in plain words."""


_PYDANTIC_TYPES: Final = frozenset(get_args(ErrorType))
"""Every error type pydantic itself raises: its messages are never shown (a model's own are)."""


_LIMIT_CONTEXT: Final = ("min_length", "max_length", "ge", "gt", "le", "lt", "multiple_of")


_OWN_PREFIXES: Final = {"value_error": "Value error, ", "assertion_error": "Assertion failed, "}


def _page_place(tree: PageTree, loc: tuple[int | str, ...]) -> tuple[str, Node | None]:
    """Where a pydantic error's `loc` is on the page: its dotted path and node (a union's tag left out)."""
    node: Node | None = tree.root
    parts: list[str] = []
    for item in loc:
        here: Node | None = node
        if here is None or isinstance(here, Pairs | Leaf):
            break  # a dict's problems are told at the dict, a multi-select's at the field
        if isinstance(here, Choice) and isinstance(item, str) and item in here.groups:
            node = here.groups[item]  # pydantic names the chosen member by its tag
            continue
        parts.append(str(item))
        node = node_at(tree, ".".join(parts))
    return ".".join(parts), node


def _offered(value: object, allowed: frozenset[str]) -> bool:
    """Whether `value` (one option, or a list of them) holds only options in `allowed`."""
    items = cast("list[object]", value) if isinstance(value, list) else [value]
    return all(isinstance(item, str) and item in allowed for item in items)


def _problem_words(error: ErrorDetails, spec: FieldSpec | None, words: Mapping[str, str]) -> str:
    """One pydantic error in plain words: a `PAGE_WORDS` text, or the model's own message, bounded."""
    kind = error["type"]
    if kind in _OWN_PREFIXES:
        text = error["msg"].removeprefix(_OWN_PREFIXES[kind])
        return _own(text.splitlines()[0] if kind == "assertion_error" and text else text, words)
    key = _PYDANTIC_WORDS.get(kind)
    if key is None:
        if kind.startswith("url_"):
            key = "uri"
        elif kind in _PYDANTIC_TYPES:
            key = "invalid"
        else:  # a PydanticCustomError the model raised: its own words
            return _own(error["msg"], words)
    if spec is not None and spec.kind == "multi_choice":
        key = {"min_length": "min_items", "max_length": "max_items", "choice": "choices"}.get(key, key)
    elif spec is not None and spec.kind == "choice" and key == "required":
        key = "choice"
    elif spec is not None and spec.format in ("date", "date-time") and key in ("ge", "gt", "le", "lt"):
        key = f"date_{key}"
    context = error.get("ctx") or {}
    return said(words, key, next((context[k] for k in _LIMIT_CONTEXT if k in context), None))


def _own(text: str, words: Mapping[str, str]) -> str:
    """A model's own message as a page shows it: one line, no bidi controls, `MAX_OWN_MESSAGE` at most."""
    return escaped(" ".join(strip_bidi(text).split()), MAX_OWN_MESSAGE) or said(words, "invalid")
