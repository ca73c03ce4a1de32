"""The one text sanitiser: server- or client-sent text made safe to print or to quote.

- `clean` for what a person reads (terminal forms, the CLI transcript): control
  characters become `?`, so no escape sequence reaches the terminal;
- `quoted` for what an error message shows of a value from the wire: shortened and
  ASCII-escaped, so a message never carries a long or non-ASCII value;
- `escaped` for texts an error keeps (problem paths and texts): unprintable characters
  escaped, cut to a limit;
- `has_control` for checks that refuse control characters outright (property names).

No prompt_toolkit needed, so the CLI runs without it.
"""

from __future__ import annotations

import re
from typing import Final

_CONTROL_CHARS: Final = "\x00-\x1f\x7f-\x9f"
_CONTROL: Final = re.compile(f"[{_CONTROL_CHARS}]")
_SHOWN_CONTROL: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # keeps tab and newline
_BLANKS: Final = re.compile(r"[\n\t]")
QUOTED_LENGTH: Final = 40
"""How many characters of a value `quoted` shows."""


def clean(text: str, *, one_line: bool = False) -> str:
    """Make server-sent text safe to print: control characters become `?`.

    Args:
        text: Text from the server.
        one_line: Also replace newlines and tabs (for titles and labels).

    Returns:
        The text without escape sequences or other control characters.
    """
    text = _SHOWN_CONTROL.sub("?", text)
    return _BLANKS.sub(" ", text) if one_line else text


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
    """`text` with unprintable characters escaped as `ascii()` does, cut to `limit` characters."""
    head = text[: limit + 1]  # never scan more of a huge text than is kept
    if not head.isprintable():
        head = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in head)
    if len(text) <= limit and len(head) <= limit:
        return head
    return head[: limit - 3] + "..."


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
