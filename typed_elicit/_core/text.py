r"""The one text sanitiser: server- or client-sent text made safe to print or to quote.

- `clean` for what a person reads (terminal forms, the CLI transcript): control
  characters become `?`, so no escape sequence reaches the terminal, and every other
  unprintable character is shown escaped (`\u202e`), so bidi controls cannot reorder
  what the person reads;
- `quoted` for what an error message shows of a value from the wire: shortened and
  ASCII-escaped, so a message never carries a long or non-ASCII value;
- `escaped` for texts an error keeps (problem paths and texts): unprintable characters
  escaped, cut to a limit;
- `has_control` for checks that refuse control characters outright (property names);
- `in_words` for the kind of a field as the terminal and the CLI name it to a person.

No prompt_toolkit needed, so the CLI runs without it.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

_CONTROL_CHARS: Final = "\x00-\x1f\x7f-\x9f"
_CONTROL: Final = re.compile(f"[{_CONTROL_CHARS}]")
_BLANKS: Final = re.compile(r"[\n\t]")
_KEPT: Final = frozenset("\n\t\u200c\u200d")
"""Unprintable characters `clean` keeps: newline and tab, and the zero-width (non-)joiners that
emoji sequences and Persian or Indic words need (neither reorders text nor breaks a line)."""
QUOTED_LENGTH: Final = 40
"""How many characters of a value `quoted` shows."""


def clean(text: str, *, one_line: bool = False) -> str:
    r"""Make server-sent text safe to print: control characters become `?`, other unprintables escapes.

    A control character (C0, DEL, C1; tab and newline kept) becomes `?`, so no escape
    sequence reaches the terminal. Every other character Python does not print
    (`str.isprintable`) is shown as its escape, `\u202e`, as `escaped` shows it: the
    bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and marks
    (U+200E, U+200F, U+061C) that would make the terminal show the text in another order
    than it reads, the line and paragraph separators (U+2028, U+2029) that break a line
    where no newline shows, and the invisible format characters (zero-width space, word
    joiner, BOM, tag characters, ...), private-use and unassigned code points. Spaces
    (no-break ones too) and the zero-width joiner and non-joiner stay as they are.

    Args:
        text: Text from the server.
        one_line: Also replace newlines and tabs (for titles and labels).

    Returns:
        The text without escape sequences, bidi controls or invisible characters.
    """
    if not text.isprintable():
        text = "".join(char if char.isprintable() else _shown(char) for char in text)
    return _BLANKS.sub(" ", text) if one_line else text


def _shown(char: str) -> str:
    """How `clean` shows one unprintable character."""
    if char in _KEPT or unicodedata.category(char) == "Zs":
        return char
    return "?" if _CONTROL.match(char) else _escape(char)


def _escape(char: str) -> str:
    r"""`\u202e` for U+202E: the escape `ascii()` writes."""
    return ascii(char)[1:-1]


def quoted(text: str, limit: int = QUOTED_LENGTH) -> str:
    """A string from the wire as an error message may show it: `ascii()` of at most `limit` characters.

    A longer string is cut and marked `...` inside the quotes.
    """
    shown = ascii(text[:limit])
    return shown if len(text) <= limit else f"{shown[:-1]}...{shown[-1]}"


def has_control(text: str) -> bool:
    """Whether `text` holds a control character (C0, DEL or C1; tab and newline included)."""
    return _CONTROL.search(text) is not None


def escaped(text: str, limit: int) -> str:
    """`text` with unprintable characters escaped as `ascii()` does, cut to `limit` characters.

    Stricter than `clean`: every character `str.isprintable` refuses is escaped, bidi
    controls, joiners and no-break spaces included.
    """
    head = text[: limit + 1]  # never scan more of a huge text than is kept
    if not head.isprintable():
        head = "".join(c if c.isprintable() else _escape(c) for c in head)
    if len(text) <= limit and len(head) <= limit:
        return head
    return head[: limit - 3] + "..."


_FORMAT_WORDS: Final = {"uri": "URL", "date-time": "date and time"}


def in_words(person_kind: str) -> str:
    """A field's kind as a person reads it: `describe(spec).person_kind`, format names in words.

    `describe` names a text field with a format by the format (`email`, `date`, `uri`,
    `date-time`); the last two are the wire's names, shown as `URL` and `date and time`.
    """
    return _FORMAT_WORDS.get(person_kind, person_kind)


_BIDI_CONTROLS: Final = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
"""The bidirectional formatting characters: embeddings and overrides (U+202A-U+202E), isolates
(U+2066-U+2069) and the marks (LRM U+200E, RLM U+200F, ALM U+061C)."""


def strip_bidi(text: str) -> str:
    r"""`text` without bidirectional formatting characters, so it reads in the order it was written.

    An override such as U+202E (right-to-left override) makes `Pay \u202e0001$` show as
    `Pay $1000`: whoever wrote the text chooses what a person reads. Removing the controls
    shows the characters in their real order; a right-to-left text still reads right to left
    wherever its container takes its direction from its first strong letter (`dir="auto"`).
    """
    return _BIDI_CONTROLS.sub("", text)
