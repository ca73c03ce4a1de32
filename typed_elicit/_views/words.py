"""What a page says about an invalid answer: one table of plain words a server can override.

Every constraint an elicitable or page field can carry has an entry (`PAGE_WORDS`); pydantic's
own wording never reaches a person. A model's own validator message is shown on one line, cut to
`MAX_OWN_MESSAGE` characters. No message ever shows the user's value.
"""

from __future__ import annotations

import difflib
import string
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final, cast, get_args

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails
from pydantic_core.core_schema import ErrorType

from typed_elicit._core.text import escaped, quoted, strip_bidi
from typed_elicit._forms.page_check import check_tree, node_at
from typed_elicit._forms.page_tree import Choice, Node, PageTree, Pairs
from typed_elicit._forms.spec import FieldSpec, FormSpec, check_content
from typed_elicit.errors import PageSetupError

PAGE_WORDS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "required": "Fill this in",
        "min_length": "Enter at least {limit} characters",
        "max_length": "Enter at most {limit} characters",
        "pattern": "Enter it in the expected format",
        "integer": "Enter a whole number",
        "number": "Enter a number",
        "ge": "Enter {limit} or more",
        "gt": "Enter a number more than {limit}",
        "le": "Enter {limit} or less",
        "lt": "Enter a number less than {limit}",
        "multiple_of": "Enter a multiple of {limit}",
        "email": "Enter an email address, like name@example.com",
        "uri": "Enter a full web address, like https://example.com",
        "date": "Enter a date as YYYY-MM-DD, like 2026-07-28",
        "date_time": "Enter a date and time with its offset, like 2026-07-28T09:30:00Z",
        "date_ge": "Enter {limit} or a later date",
        "date_gt": "Enter a date after {limit}",
        "date_le": "Enter {limit} or an earlier date",
        "date_lt": "Enter a date before {limit}",
        "choice": "Choose one of the options",
        "choices": "Choose only from the options shown",
        "min_items": "Choose at least {limit}",
        "max_items": "Choose at most {limit}",
        "boolean": "Tick the box or leave it empty",
        "invalid": "Check this value",
        "secret_again": "Enter it again: what you typed is never sent back to your browser",
        "min_rows": "Add at least {limit}",
        "max_rows": "Add at most {limit}",
        "file_limits": "Files up to {limit}",
        "file_size": "Choose a smaller file: at most {limit}",
        "file_type": "Choose a file of one of the types allowed",
        "file_mislabelled": "This file's contents do not match its type; choose another file",
        "file_again": "Choose the file again: a browser cannot keep a chosen file when a page is shown again",
        "duplicate_key": "This key is given twice; give each key once",
    }
)

"""Every text a page says about a field's constraints, by kind: its problems and its hints.

`{limit}` is the constraint's number (or date) as a person writes it; no text ever holds the
user's value. A model's own validator message (`ValueError("...")` in a validator) is shown as
the model wrote it instead, cut to `MAX_OWN_MESSAGE` characters. `serve_pages(words=...)`
overrides any of them (docs/pages.md lists the table).
"""


MAX_OWN_MESSAGE: Final = 200
"""The longest a model validator's own message is shown on a page, in characters."""


_LIMITED: Final = frozenset(key for key, text in PAGE_WORDS.items() if "{limit}" in text)


def page_words(override: Mapping[str, str] | None) -> Mapping[str, str]:
    """`PAGE_WORDS` with `override` applied, each override checked.

    Raises:
        PageSetupError: If a key is not one of `PAGE_WORDS`, or a text is empty, no text, or
            holds a placeholder other than `{limit}` (where the default has one).
    """
    if not override:
        return PAGE_WORDS
    words = dict(PAGE_WORDS)
    for key, text in override.items():
        if key not in PAGE_WORDS:
            near = difflib.get_close_matches(str(key), list(PAGE_WORDS), n=1)
            advice = f"did you mean {near[0]!r}? " if near else ""
            raise PageSetupError.words(
                f"it has no key {quoted(str(key))}: {advice}the keys are {', '.join(PAGE_WORDS)} "
                "(see the default table in docs/pages.md)"
            )
        if not isinstance(text, str):  # pyright: ignore[reportUnnecessaryIsInstance] - callers may pass anything
            raise PageSetupError.words(f"{key!r} must be a text, got {type(text).__name__}")
        if not text.strip():
            raise PageSetupError.words(f"{key!r} is empty: give the words a person should read")
        _check_words(key, text)
        words[key] = text
    return MappingProxyType(words)


def _check_words(key: str, text: str) -> None:
    """Refuse a text whose placeholders `str.format` could not fill with `limit` alone.

    Raises:
        PageSetupError: Naming the key and the placeholder it may hold.
    """
    takes = "{limit} (the limit, as a person writes it)" if key in _LIMITED else "no placeholder"
    escape = "write a brace as {{ or }}"
    try:
        names = [
            (name, spec, conv) for _, name, spec, conv in string.Formatter().parse(text) if name is not None
        ]
    except ValueError:
        raise PageSetupError.words(f"{key!r} is no valid text: it takes {takes}; {escape}") from None
    for name, spec, conv in names:
        if key not in _LIMITED or name != "limit" or spec or conv:
            raise PageSetupError.words(f"{key!r} takes {takes}; {escape}")


def said(words: Mapping[str, str], key: str, limit: object = None) -> str:
    """The words for `key`, with `limit` in them as a person writes it."""
    return words[key].format(limit="" if limit is None else shown(limit))


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


def model_problems(
    model: type[BaseModel],
    form: FormSpec,
    content: Mapping[str, Any],
    words: Mapping[str, str],
    offered: Mapping[str, frozenset[str]] | None = None,
) -> dict[str, str]:
    """What to tell the user of each field `model` refuses in `content`, by wire name (`""`: the whole form).

    `content` is what `_read_fields` made of the submit, which `validate_form` refused; the
    model is asked again here for its errors' types and limits, never their wording. A
    `Choices()` field holding an option the page did not offer (`offered`, a forged submit)
    is told to choose from the options shown. Never empty, so a refused answer is never taken.
    """
    unoffered = _unoffered(content, offered or {}, words)
    if unoffered:
        return unoffered
    cleaned, problems = check_content(form, content)
    try:
        if not problems:
            model.model_validate(cleaned)
    except ValidationError as exc:
        told: dict[str, str] = {}
        for error in exc.errors(include_url=False, include_input=False):
            name = str(error["loc"][0]) if error["loc"] else ""
            told.setdefault(name, _problem_words(error, form.by_name.get(name), words))
        return told
    # `_read_fields` makes only wire values and the model refused them (told above): a safe net only.
    return {name: said(words, "invalid") for name, _ in problems} or {"": said(words, "invalid")}


def tree_problems(
    model: type[BaseModel], tree: PageTree, content: Mapping[str, Any], words: Mapping[str, str]
) -> dict[str, str]:
    """`model_problems` for a page form with groups: what to tell of each refused place, by dotted path.

    A problem inside a group is told at its field (`address.street`), inside a row at the row's
    field (`items.1.qty`); one about a whole list at the list (`items`). A top-level `Choices()`
    field holding an option the page did not offer is told to choose from the options shown. Never empty.
    """
    unoffered = _unoffered(content, tree.offered, words)
    if unoffered:
        return unoffered
    cleaned, problems = check_tree(tree, content)
    told: dict[str, str] = {}
    if not problems:
        try:
            model.model_validate(cleaned)
        except ValidationError as exc:
            for error in exc.errors(include_url=False, include_input=False):
                path, node = _page_place(tree, error["loc"])
                spec = node.spec if node is not None and node.kind == "leaf" else None
                words_for = _problem_words(error, spec, words)
                if node is not None and node.kind in ("rows", "pairs"):
                    key = {"too_short": "min_rows", "too_long": "max_rows"}.get(error["type"])
                    context = error.get("ctx") or {}
                    if key is not None:
                        words_for = said(words, key, context.get("min_length", context.get("max_length")))
                told.setdefault(path, words_for)
            return told or {"": said(words, "invalid")}
    for path, problem in problems:  # a value no input of the page sends (a forged submit), or a file
        if problem.startswith("file "):
            node = node_at(tree, path)
            limit = (
                file_size_words(node.limits.max_bytes) if node is not None and node.kind == "file" else None
            )
            told.setdefault(path, said(words, problem.replace(" ", "_"), limit))
        else:
            told.setdefault(path, said(words, "invalid"))
    return told or {"": said(words, "invalid")}


def file_size_words(limit: int) -> str:
    """A byte count as a person reads it, in decimal units: `1 MB`, `2 KB`, `12 bytes`."""
    for unit, size in (("MB", 1_000_000), ("KB", 1000)):
        if limit >= size:
            return f"{shown(round(limit / size, 1))} {unit}"
    return f"{limit} bytes"


def _page_place(tree: PageTree, loc: tuple[int | str, ...]) -> tuple[str, Node | None]:
    """Where a pydantic error's `loc` is on the page: its dotted path and node (a union's tag left out)."""
    node: Node | None = tree.root
    parts: list[str] = []
    for item in loc:
        here: Node | None = node
        if here is None or isinstance(here, Pairs):
            break  # a dict's problems are told at the dict as a whole
        if isinstance(here, Choice) and isinstance(item, str) and item in here.groups:
            node = here.groups[item]  # pydantic names the chosen member by its tag
            continue
        parts.append(str(item))
        node = node_at(tree, ".".join(parts))
    return ".".join(parts), node


def _unoffered(
    content: Mapping[str, Any], offered: Mapping[str, frozenset[str]], words: Mapping[str, str]
) -> dict[str, str]:
    """What to tell of each `Choices()` field of `content` holding an option not `offered` (forged)."""
    return {
        key: said(words, "choices" if isinstance(content[key], list) else "choice")
        for key, allowed in offered.items()
        if key in content and not _offered(content[key], allowed)
    }


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


def shown(value: object) -> str:
    """A number (or date) as a person writes it: `5` for 5.0."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
