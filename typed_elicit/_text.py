"""Server-sent text made safe to print (no prompt_toolkit needed, so the CLI runs without it)."""

from __future__ import annotations

import re

__all__ = ["clean"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str, *, one_line: bool = False) -> str:
    """Make server-sent text safe to print: control characters become `?`.

    Args:
        text: Text from the server.
        one_line: Also replace newlines and tabs (for titles and labels).

    Returns:
        The text without escape sequences or other control characters.
    """
    text = _CONTROL.sub("?", text)
    return re.sub(r"[\n\t]", " ", text) if one_line else text
