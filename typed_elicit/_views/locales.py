"""Which language a person reads: language tags, `Accept-Language`, the environment, the direction.

A locale here is a BCP 47 language tag as `normal_tag` writes it (`de`, `de-AT`, `pt-BR`,
`zh-Hant-TW`). `negotiate` chooses one of the available locales from an `Accept-Language` header
the way Django's `LocaleMiddleware` does (q-values, then a range's more general tags, then another
region of the same language), `best_match` from one tag (an app view's `hostContext.locale`, a
call's or the terminal's `LANG`), `direction` tells right-to-left languages. Everything a client
sends is bounded before it is read: a header is cut to `MAX_HEADER` characters and
`MAX_RANGES` ranges, a tag to `MAX_TAG`; nothing here keeps what it read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Final, Literal

SOURCE_LOCALE: Final = "en"
"""The language the library's words are written in, and every fallback's end."""

MAX_HEADER: Final = 1024
"""The most characters of an `Accept-Language` header read (a browser sends well under 200)."""
MAX_RANGES: Final = 32
"""The most language ranges of one header considered."""
MAX_TAG: Final = 35
"""The longest language tag read (RFC 5646 advises 35 characters)."""

_TAG: Final = re.compile(r"[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*")
_Q: Final = re.compile(r"\s*[qQ]\s*=\s*(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)\s*")

_RTL_LANGUAGES: Final = frozenset(
    {
        "ar",
        "arc",
        "ckb",
        "dv",
        "fa",
        "he",
        "iw",
        "ks",
        "ku-Arab",
        "nqo",
        "pa-Arab",
        "ps",
        "sd",
        "syr",
        "ug",
        "ur",
        "yi",
    }
)
_RTL_SCRIPTS: Final = frozenset({"Adlm", "Arab", "Hebr", "Nkoo", "Rohg", "Syrc", "Thaa"})

Direction = Literal["ltr", "rtl"]


def normal_tag(tag: str) -> str | None:
    """`tag` as a BCP 47 tag in its usual case (`de-AT`, `zh-Hant-TW`), or None if it is none.

    Accepts `_` for `-` (a gettext or POSIX locale, `de_AT`); drops a POSIX encoding or modifier
    (`de_AT.UTF-8@euro`). `C`, `POSIX`, `*` and anything longer than `MAX_TAG` are no tag.
    """
    tag = tag.strip().partition(".")[0].partition("@")[0]
    if len(tag) > MAX_TAG or not _TAG.fullmatch(tag) or tag.upper() in ("C", "POSIX"):
        return None
    parts = tag.replace("_", "-").split("-")
    language = parts[0].lower()
    if len(language) < 2:
        return None  # `i-...` and `x-...` tags: grandfathered or private, never a catalog's
    out = [language]
    for part in parts[1:]:
        if len(part) == 4 and part.isalpha():
            out.append(part.title())  # a script
        elif (len(part) == 2 and part.isalpha()) or (len(part) == 3 and part.isdigit()):
            out.append(part.upper())  # a region
        else:
            out.append(part.lower())
    return "-".join(out)


def direction(locale: str) -> Direction:
    """`rtl` for a language written right to left (Arabic, Hebrew, Persian, Urdu, ...), else `ltr`.

    A script subtag decides when there is one (`az-Arab` is right to left, `pa-Guru` is not).
    """
    parts = locale.split("-")
    scripts = [p for p in parts[1:] if len(p) == 4 and p.isalpha()]
    if scripts:
        return "rtl" if scripts[0].title() in _RTL_SCRIPTS else "ltr"
    return "rtl" if parts[0].lower() in _RTL_LANGUAGES else "ltr"


def parse_accept_language(header: str) -> list[tuple[str, float]]:
    """The language ranges of an `Accept-Language` header with their q-values, best first.

    Reads at most `MAX_HEADER` characters and `MAX_RANGES` ranges; a range that is no tag, or
    whose q-value is malformed, is skipped; `q=0` ("not this one") is left out. Equal q-values
    keep the header's order. `*` is kept as `*`.
    """
    ranges: list[tuple[str, float]] = []
    for part in header[:MAX_HEADER].split(",")[:MAX_RANGES]:
        name, _, params = part.partition(";")
        name = name.strip()
        quality = 1.0
        if params:
            q = _Q.fullmatch(params)
            if q is None:
                continue
            quality = float(q.group(1))
        tag = "*" if name == "*" else normal_tag(name)
        if tag is not None and quality > 0:
            ranges.append((tag, quality))
    ranges.sort(key=lambda pair: -pair[1])  # stable: equal q-values keep the header's order
    return ranges


def best_match(tag: str | None, available: Sequence[str]) -> str | None:
    """The available locale that serves `tag` best, or None.

    Tries the tag itself, then each more general tag (`zh-Hant-TW`, `zh-Hant`, `zh`), then any
    available locale of the same language (`de-AT` serves `de-CH`). Case and `_` do not matter.
    """
    normal = None if tag is None else normal_tag(tag)
    if normal is None:
        return None
    return _best(normal, tuple(available))


@lru_cache(maxsize=256)
def _best(tag: str, available: tuple[str, ...]) -> str | None:
    # Cached by a normal tag (at most MAX_TAG characters) and the few available locales: bounded.
    known = {locale.lower(): locale for locale in available}
    parts = tag.split("-")
    for end in range(len(parts), 0, -1):
        hit = known.get("-".join(parts[:end]).lower())
        if hit is not None:
            return hit
    language = parts[0].lower()
    return next((locale for locale in available if locale.partition("-")[0].lower() == language), None)


def negotiate(accept_language: str | None, available: Iterable[str], default: str = SOURCE_LOCALE) -> str:
    """The available locale an `Accept-Language` header asks for, else `default`.

    Ranges are tried best q-value first (`best_match` for each); `*` takes `default`. A missing,
    empty or malformed header gives `default`.

    Args:
        accept_language: The header's value, as the client sent it (bounded here).
        available: The locales that can be shown (`de`, `pt-BR`, ...).
        default: What to show when no range matches (it need not be in `available`).

    Returns:
        One of `available`, or `default`.
    """
    if not accept_language:
        return default
    return _negotiated(accept_language[:MAX_HEADER], tuple(available), default)


@lru_cache(maxsize=512)
def _negotiated(header: str, available: tuple[str, ...], default: str) -> str:
    # Cached by header (at most MAX_HEADER characters), bounded to 512 entries: a client that
    # sends a new header each time only makes the oldest entries go.
    for tag, _ in parse_accept_language(header):
        if tag == "*":
            return default
        hit = _best(tag, available)
        if hit is not None:
            return hit
    return default


_ENVIRONMENT: Final = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def environment_locale(environ: Mapping[str, str]) -> str | None:
    """The locale a terminal's environment asks for, as gettext reads it, or None (`C`, unset).

    The first set variable of `LANGUAGE` (a `:`-separated list: its first tag), `LC_ALL`,
    `LC_MESSAGES`, `LANG`; `de_DE.UTF-8` is `de-DE`. `C` and `POSIX` ask for no language.
    """
    for name in _ENVIRONMENT:
        value = environ.get(name, "")
        if value:
            return normal_tag(value.split(":")[0])
    return None
