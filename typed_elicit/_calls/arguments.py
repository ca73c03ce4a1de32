"""The checks on what a tool passes to `ElicitContext`, made before anything is sent.

Each refusal is an `ElicitArgumentError` naming the call the tool made, the argument,
what is wrong and the fix; a URL's credentials, query and fragment are never repeated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final, TypeAlias, TypeVar
from urllib.parse import SplitResult, urlsplit

from pydantic import BaseModel

from typed_elicit.errors import ElicitArgumentError

JSON: TypeAlias = str | int | float | bool | list[Any] | dict[str, Any] | None
"""A value that survives a JSON round trip unchanged (what `ctx.once` may return)."""

J = TypeVar("J", bound=JSON)


_LOCALE: Final = re.compile(r"[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8}){0,6}")


def check_locale(locale: object, call: str = "ctx.elicit_page") -> None:
    """Refuse a `locale=` that is no language tag (`de`, `pt-BR`, `zh-Hant-TW`).

    Raises:
        ElicitArgumentError: If `locale` is not None nor a BCP 47 language tag.
    """
    if locale is None:
        return
    if not isinstance(locale, str) or len(locale) > 35 or _LOCALE.fullmatch(locale) is None:
        got = (
            f"a {type(locale).__name__}" if not isinstance(locale, str) else "a text that is no language tag"
        )
        raise ElicitArgumentError(
            call,
            "locale",
            f"takes a BCP 47 language tag for locale, got {got}",
            'Give one such as "de", "pt-BR" or "zh-Hant", or None to let the page choose.',
        )


def check_question(model: object, message: object, call: str = "ctx.elicit") -> None:
    """Refuse a `ctx.elicit` (or `ctx.elicit_page`, ...) call whose model or message cannot make a question.

    Args:
        model: What the tool passed as the model.
        message: What the tool passed as the message.
        call: The call the tool made, for the message.

    Raises:
        ElicitArgumentError: If `model` is not a pydantic model class (with a hint when the
            arguments are in the SDK's order, message first), or `message` is not a string,
            or is empty or only whitespace.
    """
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        if isinstance(message, type) and issubclass(message, BaseModel):
            raise ElicitArgumentError(
                call,
                "model",
                f'takes the model first and the message second: {call}({message.__name__}, "...")',
                "The SDK's ctx.elicit(message, schema) has the other order.",
            )
        got = model.__name__ if isinstance(model, type) else type(model).__name__
        raise ElicitArgumentError(
            call,
            "model",
            f"needs a pydantic.BaseModel subclass to ask for, got {got}",
            "Pass the model class itself, e.g. ctx.elicit(Booking).",
        )
    if message is None:
        return
    if not isinstance(message, str):
        raise ElicitArgumentError(
            call,
            "message",
            f"needs the message for {model.__name__} as a string, got {type(message).__name__}",
            "Pass the text the user reads, or no message to use the model's @form(message=...) or docstring.",
        )
    if not message.strip():
        raise ElicitArgumentError(
            call,
            "message",
            f"got a blank message for {model.__name__}: the user would see an empty question",
            "Say what you are asking for, or pass no message to use the model's "
            "@form(message=...) or docstring.",
        )


_URL_SCHEMES: Final = ("https", "http")


def check_url_question(url: object, message: object, elicitation_id: object) -> None:
    """Refuse a `ctx.elicit_url` call that cannot make a question.

    The URL must be absolute `https` or `http` with a host, and carry no
    credentials, because clients display it in full.

    Raises:
        ElicitArgumentError: Naming the problem; credentials, query and
            fragment are never repeated in the message (the query carries the flow's token).
    """
    call = "ctx.elicit_url"
    if not isinstance(url, str):
        raise ElicitArgumentError(
            call, "url", f"needs the URL as a string, got {type(url).__name__}", "Pass the page's URL."
        )
    if any(c.isspace() or not c.isprintable() for c in url):
        raise ElicitArgumentError(
            call,
            "url",
            "refuses a URL containing whitespace or control characters (clients show the URL in full)",
            "Percent-encode them.",
        )
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for an invalid port
    except ValueError:  # its text may repeat the host part, credentials included
        raise ElicitArgumentError(
            call,
            "url",
            "got a malformed URL: its host or port cannot be read",
            "Check the brackets of an IPv6 address, the port number and the host's characters.",
        ) from None
    if "@" in parts.netloc:
        raise ElicitArgumentError(
            call,
            "url",
            f"refuses a URL with credentials in it ({shown(parts)}): clients show the full URL to the user",
            "Put a short-lived, single-use token in the query instead (mint it with ctx.once).",
        )
    if parts.scheme.lower() not in _URL_SCHEMES or not parts.hostname:
        raise ElicitArgumentError(
            call,
            "url",
            f"needs an absolute https:// (or http://) URL with a host, got {shown(parts)!r}",
            "Pass the full URL of the page, e.g. https://example.com/connect?flow=...",
        )
    if not isinstance(message, str) or not message.strip():
        raise ElicitArgumentError(
            call,
            "message",
            "needs a message telling the user why they should open the URL",
            "Say why, in words the user reads next to the URL.",
        )
    if elicitation_id is not None and not elicitation_id:
        raise ElicitArgumentError(
            call,
            "elicitation_id",
            "got an empty elicitation_id",
            "Pass a non-empty string, or None to mint one.",
        )


def shown(parts: SplitResult) -> str:
    """A URL fit for an error message: user info, query and fragment become `***`.

    A URL-mode URL carries its single-use token in the query; no message, log or
    traceback may repeat it.
    """
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"***@{netloc.rpartition('@')[2]}"
    return parts._replace(
        netloc=netloc, query="***" if parts.query else "", fragment="***" if parts.fragment else ""
    ).geturl()


def json_stable(key: str, value: J) -> J:
    """`value` after a JSON round trip, refused unless the trip leaves it unchanged (`ctx.once`).

    Raises:
        ElicitArgumentError: If `value` is not JSON data, or changes in the round trip.
    """
    try:
        copied = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ElicitArgumentError(
            f"ctx.once({key!r})",
            "fn",
            "must return JSON data (str, int, float, bool, None, list, dict), "
            f"got {type(value).__name__}: {exc}",
            'Return JSON data (for a model, .model_dump(mode="json")).',
        ) from None
    if copied != value or type(copied) is not type(value):
        raise ElicitArgumentError(
            f"ctx.once({key!r})",
            "fn",
            f"returned {type(value).__name__} data that changes in a JSON round trip "
            "(tuples, non-string keys)",
            "Return lists and string-keyed dicts.",
        )
    stable: J = copied
    return stable


def check_once(key: object, fn: object) -> None:
    """Refuse a `ctx.once` call without a key or a function.

    Raises:
        ElicitArgumentError: If `key` is not a non-empty string or `fn` is not callable.
    """
    if not isinstance(key, str) or not key:
        raise ElicitArgumentError(
            "ctx.once",
            "key",
            f"needs its key as a non-empty string, got {type(key).__name__ if key else repr(key)}",
            'Name the side effect, unique within the function: ctx.once("send_code", send).',
        )
    if not callable(fn):
        raise ElicitArgumentError(
            f"ctx.once({key!r})",
            "fn",
            f"needs a function to run once, got {type(fn).__name__}",
            "Pass a zero-argument function or coroutine function (a lambda for a value).",
        )


def check_elicitation_id(elicitation_id: object) -> None:
    """Refuse a `ctx.complete_url` call without the id of a URL question.

    Raises:
        ElicitArgumentError: If `elicitation_id` is not a non-empty string.
    """
    if not isinstance(elicitation_id, str) or not elicitation_id:
        raise ElicitArgumentError(
            "ctx.complete_url",
            "elicitation_id",
            f"needs the elicitation_id given to ctx.elicit_url, got {elicitation_id!r}",
            "Pass the id you gave ctx.elicit_url(elicitation_id=...).",
        )


def check_models(models: tuple[object, ...], call: str) -> None:
    """Refuse an `elicit_all` call without models, or with something that is no model class.

    Raises:
        ElicitArgumentError: Naming the problem.
    """
    if not models:
        raise ElicitArgumentError(
            call,
            "models",
            "needs at least one model to ask for, e.g. ctx.elicit_all(A, B)",
            "Pass the model classes to ask for, in the order you want the answers.",
        )
    for model in models:
        check_question(model, None, call)


def per_model(
    argument: str, given: Mapping[Any, Any] | None, models: tuple[type[BaseModel], ...], shape: str
) -> Mapping[type[BaseModel], Any]:
    """`ctx.elicit_all`'s `options=` or `defaults=`, checked to be keyed by the models it asks.

    Raises:
        ElicitArgumentError: If it is no mapping, is keyed by field name, or names a model not asked.
    """
    call = "ctx.elicit_all"
    if given is None:
        return {}
    example = f"{argument}={{{models[0].__name__}: {{'field': {shape}}}}}"
    if not isinstance(given, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ElicitArgumentError(
            call, argument, f"takes {argument}= as a mapping of model to its {argument}", f"Pass {example}."
        )
    names = [key for key in given if isinstance(key, str)]
    if names:
        owner = next((model for model in models if names[0] in model.model_fields), None)
        what = f"a field of {owner.__name__}" if owner is not None else "no model"
        right = f"{argument}={{{(owner or models[0]).__name__}: {{{names[0]!r}: {shape}}}}}"
        raise ElicitArgumentError(
            call,
            argument,
            f"takes {argument}= per model, not per field ({names[0]!r} is {what})",
            f"Pass {right}, one entry per model asked.",
        )
    stray = [key for key in given if key not in models]
    if stray:
        shown = ", ".join(getattr(key, "__name__", type(key).__name__) for key in stray)
        raise ElicitArgumentError(
            call,
            argument,
            f"got {argument}= for {shown}, which it does not ask for",
            f"Key {argument}= by the models passed to ctx.elicit_all, e.g. {example}.",
        )
    return given
