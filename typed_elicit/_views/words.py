"""The plain words a view says about a field: one table a server can override.

Every constraint an elicitable or page field can carry has an entry (`PAGE_WORDS`), shown as a
hint or as a problem; pydantic's own wording never reaches a person (`typed_elicit.pages` turns a
refused answer into these words). No text ever holds the user's value.
"""

from __future__ import annotations

import difflib
import string
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from typed_elicit._core.text import quoted
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


def shown(value: object) -> str:
    """A number (or date) as a person writes it: `5` for 5.0."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
