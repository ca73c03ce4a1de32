"""Compiled gettext catalogs (`.mo` files), read with the standard library alone.

A catalog is a directory's `<locale>/LC_MESSAGES/<domain>.mo` (`de_AT` for `de-AT`), as gettext
and Babel lay them out. `read_mo` reads one into a `Catalog`: its messages (by `msgctxt` and
`msgid`, as gettext keys them) and its plural rule (the `Plural-Forms` header, compiled by
`gettext.c2py`). `find_catalogs` lists which locales a directory has a domain for. Nothing here
needs Babel: `typed-elicit catalogs` (which does) writes and checks the files.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from typed_elicit._views.locales import normal_tag

DOMAIN: Final = "typed_elicit"
"""The gettext domain of the library's own words."""
LOCALE_DIR: Final = Path(__file__).resolve().parents[1] / "locale"
"""Where the shipped catalogs live (`typed_elicit/locale/<lang>/LC_MESSAGES/typed_elicit.mo`)."""
CONTEXT_SEPARATOR: Final = "\x04"
"""Between a message's context and its id, in a compiled catalog's keys (gettext's EOT)."""
PLURAL_SEPARATOR: Final = "\x00"
"""Between a message's singular and plural ids, and between its plural forms."""

_MAGIC: Final = {b"\xde\x12\x04\x95": "<", b"\x95\x04\x12\xde": ">"}
_MAX_MO_BYTES: Final = 8_000_000


class CatalogError(ValueError):
    """A file that is not a compiled catalog this module can read (the caller says which file)."""


def english_plural(n: int) -> int:
    """English's plural rule (a catalog's without a `Plural-Forms` header): form 0 for one, 1 else."""
    return 0 if n == 1 else 1


@dataclass(frozen=True)
class Catalog:
    """One compiled catalog: its messages and how it chooses a plural form."""

    messages: Mapping[str, str]
    """Translations by key: `msgid`, or `msgctxt` + EOT + `msgid`; a plural's key holds its
    singular id (the forms are in `plurals`). Untranslated entries are left out."""
    plurals: Mapping[str, tuple[str, ...]] = field(default_factory=dict[str, tuple[str, ...]])
    """A plural message's forms, by the same key."""
    plural: Callable[[int], int] = english_plural
    """The form index for a count (the `Plural-Forms` rule; English's without one)."""
    nplurals: int = 2

    def form(self, key: str, count: int) -> str | None:
        """The form of plural message `key` for `count`, or None if this catalog lacks it."""
        forms = self.plurals.get(key)
        if not forms:
            return None
        return forms[min(max(self.plural(count), 0), len(forms) - 1)]


def key_of(context: str | None, msgid: str) -> str:
    """How a compiled catalog keys a message: `msgid`, or its context + EOT + `msgid`."""
    return msgid if context is None else f"{context}{CONTEXT_SEPARATOR}{msgid}"


def read_mo(data: bytes) -> Catalog:
    """A compiled catalog from the bytes of a `.mo` file.

    Raises:
        CatalogError: If the bytes are no `.mo` file (magic number, offsets, UTF-8), or its
            `Plural-Forms` rule cannot be read.
    """
    if len(data) > _MAX_MO_BYTES:
        raise CatalogError(f"it is over {_MAX_MO_BYTES} bytes")
    order = _MAGIC.get(data[:4])
    if order is None or len(data) < 20:
        raise CatalogError("it is no compiled catalog (.mo): its magic number is wrong")
    _, count, originals, translations = struct.unpack(f"{order}4I", data[4:20])
    raw: dict[str, str] = {}
    try:
        for i in range(count):
            olen, ooff = struct.unpack(f"{order}2I", data[originals + 8 * i : originals + 8 * i + 8])
            tlen, toff = struct.unpack(f"{order}2I", data[translations + 8 * i : translations + 8 * i + 8])
            if ooff + olen > len(data) or toff + tlen > len(data):
                raise CatalogError("it is cut short: an entry points past its end")
            raw[data[ooff : ooff + olen].decode("utf-8")] = data[toff : toff + tlen].decode("utf-8")
    except (struct.error, UnicodeDecodeError) as exc:
        raise CatalogError(f"it cannot be read ({type(exc).__name__}): compile it again") from None
    header = None
    for line in raw.pop("", "").splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip().lower() == "plural-forms":
            header = value.strip()
    plural, nplurals = _plural_rule(header)
    messages: dict[str, str] = {}
    plurals: dict[str, tuple[str, ...]] = {}
    for original, translation in raw.items():
        singular = original.partition(PLURAL_SEPARATOR)[0]
        if PLURAL_SEPARATOR in original:
            forms = tuple(translation.split(PLURAL_SEPARATOR))
            if any(forms):
                plurals[singular] = forms
        elif translation:
            messages[singular] = translation
    return Catalog(messages, plurals, plural, nplurals)


def _plural_rule(header: str | None) -> tuple[Callable[[int], int], int]:
    """The form index function and count of a `Plural-Forms` header (`nplurals=2; plural=(n != 1);`).

    Raises:
        CatalogError: If the header is malformed.
    """
    if header is None:
        return english_plural, 2
    import gettext  # the standard library's parser of the C expression

    parts: dict[str, str] = {}
    for part in header.split(";"):
        name, _, value = part.partition("=")
        parts[name.strip()] = value
    try:
        nplurals = int(parts["nplurals"])
        rule = gettext.c2py(parts["plural"].strip())
    except (KeyError, ValueError) as exc:
        raise CatalogError(f"its Plural-Forms header cannot be read ({type(exc).__name__})") from None
    if not 1 <= nplurals <= 6:
        raise CatalogError(f"its Plural-Forms header has nplurals={nplurals}, not 1 to 6")
    return rule, nplurals


def mo_path(directory: Path, locale: str, domain: str) -> Path:
    """Where `directory` keeps the compiled catalog of `domain` for `locale` (`de_AT` for `de-AT`)."""
    return directory / locale.replace("-", "_") / "LC_MESSAGES" / f"{domain}.mo"


def find_catalogs(directory: Path, domain: str) -> tuple[str, ...]:
    """The locales `directory` has a compiled catalog of `domain` for, sorted (normal tags)."""
    if not directory.is_dir():
        return ()
    found = {
        tag
        for child in directory.iterdir()
        if (tag := normal_tag(child.name)) is not None and mo_path(directory, child.name, domain).is_file()
    }
    return tuple(sorted(found))


def load(directory: Path, locale: str, domain: str) -> Catalog | None:
    """The compiled catalog of `domain` for exactly `locale` in `directory`, or None if it has none.

    Raises:
        CatalogError: If the file is there but cannot be read (the message names it).
    """
    path = mo_path(directory, locale, domain)
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        return read_mo(data)
    except CatalogError as exc:
        raise CatalogError(f"{path}: {exc}") from None
