"""An opt-in `logging.Filter` that keeps answer values out of the SDK's transport DEBUG records.

The `mcp` SDK's HTTP transports, and sse-starlette under the streamable HTTP one, write
every JSON-RPC message they send or receive at DEBUG (see docs/security.md for which
logger writes what). Those messages carry answer values in two places: the `content` of
an elicitation result (the answers themselves), and the `default`s of a requested schema
(a re-ask pre-fills the fields the last answer got right). typed_elicit never configures a
third-party logger; this filter is for an application that turns DEBUG on for them.

`HideAnswerValues` rewrites such a record in place, never drops it: each JSON-RPC payload
it can read (JSON, a bytes literal holding JSON, or the Python repr the SDK's f-strings
print) is parsed, its answer values are replaced by `***`, and it is written back in the
same syntax; a payload that shows an answer but cannot be read back is replaced whole.
Any other record passes through untouched (the same `msg` and `args` objects).
"""

from __future__ import annotations

import ast
import json
import logging
import re
from typing import Any, ClassVar

HIDDEN = "***"
"""What a hidden value becomes."""
UNREADABLE = "[a payload with answer values, hidden by HideAnswerValues]"
"""What a payload that shows answer values but cannot be parsed back becomes."""

_MARKERS = ("elicitation/create", "requestedSchema", "inputRequests", "inputResponses")
"""Words of a question (its defaults) or of a 2026-07-28 round (plain substring tests: fast on long text)."""
_ACCEPTED = re.compile(r"action[\"']\s*:\s*[\"']accept")
"""An accepted answer (`"action": "accept"`, JSON or Python repr); searched only where "action" occurs."""
_START = re.compile(r"\{|(?<![\w'\"])b(?=['\"])")
"""Where a payload may begin: an object, or a bytes literal (`b'...'`, the repr of a streamed chunk)."""
_TOKEN = re.compile(r"[{}]|\"[^\"\\]*(?:\\.[^\"\\]*)*\"|'[^'\\]*(?:\\.[^'\\]*)*'", re.S)
"""Braces and quoted strings (JSON's or Python's), so that braces inside strings are not counted."""
_ACTIONS = ("accept", "decline", "cancel")
"""An object with one of these as its `action` is an elicitation result: its `content` is the answer."""
_NESTING = 400
"""Deeper payloads are not parsed (json and ast recurse): they are hidden whole if they show an answer."""


class HideAnswerValues(logging.Filter):
    """Hide answer values in the DEBUG records of the SDK's transports, keeping the records.

    Attach it to the loggers that write messages (`hide_answer_values()` does, to every
    logger in `LOGGERS`), or to a handler with `handler.addFilter(HideAnswerValues())`,
    which then sees every record that reaches that handler. Opt-in: typed_elicit
    attaches it nowhere by itself.

    What it hides, in any JSON-RPC message of a record's text: each value of an
    elicitation result's `content` (its keys, the field names, stay), and each `default`
    of a `requestedSchema`'s properties, wherever they appear (a push-era request, a
    2026-07-28 `inputRequests` or `inputResponses`). A record it changes gets the
    rewritten text as its `msg` and no `args`. The filter never drops a record and never
    raises: a record it cannot format is left for its handler to report.
    """

    LOGGERS: ClassVar[tuple[str, ...]] = (
        "sse_starlette.sse",
        "mcp.server.sse",
        "mcp.client.streamable_http",
        "mcp.client.sse",
    )
    """The loggers that write whole messages at DEBUG (mcp 2.3, sse-starlette 3.7)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite `record` with its answer values hidden, if it shows any.

        Args:
            record: The record a logger or handler is about to emit.

        Returns:
            True: the record is always kept.
        """
        try:
            text = record.getMessage()
        except Exception:  # a broken record: its handler reports it, as without the filter
            return True
        if not _shows_answer(text):
            return True
        try:
            hidden = _hide_in_text(text)
        except Exception:  # fail closed: no answer value leaves through a bug of ours
            hidden = UNREADABLE
        if hidden != text:
            record.msg = hidden
            record.args = ()
        return True


def hide_answer_values() -> HideAnswerValues:
    """Attach one `HideAnswerValues` to every logger in `HideAnswerValues.LOGGERS`.

    Nothing else about those loggers changes (level, handlers, propagation). Calling it
    again attaches nothing more and returns the filter already attached. Remove it with
    `logging.getLogger(name).removeFilter(the_filter)` for each name.

    Returns:
        The attached filter.
    """
    loggers = [logging.getLogger(name) for name in HideAnswerValues.LOGGERS]
    attached = next(
        (f for logger in loggers for f in logger.filters if isinstance(f, HideAnswerValues)),
        None,
    )
    hider = attached or HideAnswerValues()
    for logger in loggers:
        logger.addFilter(hider)  # once: addFilter adds a filter it holds already no more
    return hider


def _shows_answer(text: str) -> bool:
    """Whether `text` may carry answer values: a question, a 2026-07-28 round, or an accepted answer."""
    return any(word in text for word in _MARKERS) or ("action" in text and _ACCEPTED.search(text) is not None)


def _hide_in_text(text: str) -> str:
    """`text` with the answer values of every payload in it hidden."""
    out: list[str] = []
    position = 0
    while (start := _START.search(text, position)) is not None:
        at = start.start()
        out.append(text[position:at])
        if text[at] == "{":
            end, depth = _object_end(text, at)
            hide = _hide_object if depth <= _NESTING else _unreadable
        else:
            end = _literal_end(text, at + 1)
            hide = _hide_bytes_literal
        if end is None:  # cut off: nothing after this point can be parsed
            rest = text[at:]
            out.append(UNREADABLE if _shows_answer(rest) else rest)
            return "".join(out)
        piece = text[at:end]
        out.append(hide(piece) if _shows_answer(piece) else piece)
        position = end
    out.append(text[position:])
    return "".join(out)


def _object_end(text: str, start: int) -> tuple[int | None, int]:
    """The index just after the brace that closes the one at `start` (None: never closed), and the depth."""
    depth = deepest = 0
    for token in _TOKEN.finditer(text, start):
        if token[0] == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif token[0] == "}":
            depth -= 1
            if depth == 0:
                return token.end(), deepest
    return None, deepest


def _literal_end(text: str, quote: int) -> int | None:
    """The index just after the string literal whose opening quote is at `quote`, or None."""
    token = _TOKEN.match(text, quote)
    return token.end() if token is not None and token[0] not in "{}" else None


def _hide_object(piece: str) -> str:
    """A JSON object or a Python dict display, answer values hidden, in its own syntax."""
    try:
        value = json.loads(piece)
        as_json = True
    except ValueError:
        try:
            value = ast.literal_eval(piece)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return UNREADABLE
        as_json = False
    hidden = _hide(value)
    if hidden == value:
        return piece
    if as_json:
        return json.dumps(hidden, ensure_ascii=False, separators=(",", ":"))
    return repr(hidden)


def _hide_bytes_literal(piece: str) -> str:
    """A bytes literal holding UTF-8 text (an SSE chunk, a request body), its payloads hidden."""
    try:
        text: str = ast.literal_eval(piece).decode("utf-8")  # `b` and one quoted literal: always bytes
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return UNREADABLE
    hidden = _hide_in_text(text)
    return piece if hidden == text else repr(hidden.encode("utf-8"))


def _unreadable(piece: str) -> str:
    """Too deep to parse safely: hidden whole (it shows a question or an answer)."""
    return UNREADABLE


def _hide(value: Any) -> Any:
    """`value` with every answer value in it hidden (equal to `value` when there was none)."""
    if isinstance(value, list):
        return [_hide(item) for item in value]  # pyright: ignore[reportUnknownVariableType]
    if not isinstance(value, dict):
        return value
    fields: dict[Any, Any] = value  # pyright: ignore[reportUnknownVariableType]
    answered = fields.get("action") in _ACTIONS
    out: dict[Any, Any] = {}
    for key, item in fields.items():
        if key == "content" and answered:
            out[key] = {name: HIDDEN for name in item} if isinstance(item, dict) else HIDDEN  # pyright: ignore[reportUnknownVariableType]
        elif key == "requestedSchema" and isinstance(item, dict):
            out[key] = _hide_defaults(item)  # pyright: ignore[reportUnknownArgumentType]
        else:
            out[key] = _hide(item)
    return out


def _hide_defaults(schema: dict[Any, Any]) -> dict[Any, Any]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    shown: dict[Any, Any] = {
        name: {**prop, "default": HIDDEN} if isinstance(prop, dict) and "default" in prop else prop
        for name, prop in properties.items()  # pyright: ignore[reportUnknownVariableType]
    }
    return {**schema, "properties": shown}
