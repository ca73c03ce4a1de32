"""Compiled gettext catalogs (`.mo` files), read with the standard library alone.

A catalog is a directory's `<locale>/LC_MESSAGES/<domain>.mo` (`de_AT` for `de-AT`), as gettext
and Babel lay them out. `read_mo` reads one into a `Catalog`: its messages (by `msgctxt` and
`msgid`, as gettext keys them) and its plural rule (the `Plural-Forms` header), read by the
standard library's `gettext.GNUTranslations`. `find_catalogs` lists which locales a directory
has a domain for. Nothing here needs Babel: `typed-elicit catalogs` (which does) writes and
checks the files.
"""

from __future__ import annotations

import gettext
import io
import re
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from typed_elicit._views.locales import normal_tag

DOMAIN: Final = "typed_elicit"
"""The gettext domain of the library's own words."""
LOCALE_DIR: Final = Path(__file__).resolve().parents[1] / "locale"
"""Where the shipped catalogs live (`typed_elicit/locale/<lang>/LC_MESSAGES/typed_elicit.mo`)."""
CONTEXT_SEPARATOR: Final = "\x04"
"""Between a message's context and its id, in a compiled catalog's keys (gettext's EOT)."""
PLURAL_SEPARATOR: Final = "\x00"
"""Between a message's singular and plural ids, and between its plural forms."""

_MAGIC: Final = (b"\xde\x12\x04\x95", b"\x95\x04\x12\xde")
_MAX_MO_BYTES: Final = 8_000_000


class CatalogError(ValueError):
    """A file that is not a compiled catalog this module can read (the caller says which file)."""


def english_plural(n: int) -> int:
    """English's plural rule (a catalog's without a `Plural-Forms` header): form 0 for one, 1 else."""
    return 0 if n == 1 else 1


class Catalog(gettext.GNUTranslations):
    """One compiled catalog, read by the standard library's gettext: its messages and plural rule.

    Decoded in the charset its header names, UTF-8 when it names none (gettext's own default is
    ASCII). Built by `read_mo`.
    """

    messages: dict[str, str]
    """Translations by key: `msgid`, or `msgctxt` + EOT + `msgid`; a plural's key holds its
    singular id (the forms are in `plurals`). Untranslated entries are left out."""
    plurals: dict[str, tuple[str, ...]]
    """A plural message's forms, by the same key."""
    plural: Callable[[int], int]
    """The form index for a count (the `Plural-Forms` rule; English's without one)."""
    nplurals: int
    _catalog: dict[str | tuple[str, int], str]  # what gettext's reader fills (typeshed leaves it out)
    _charset: str | None

    def _parse(self, fp: Any) -> None:
        self._charset = "utf-8"
        super()._parse(fp)
        self.messages = {}
        plurals: dict[str, tuple[str, ...]] = {}
        for key, text in self._catalog.items():
            if isinstance(key, tuple):
                plurals[key[0]] = (*plurals.get(key[0], ()), text)
            elif key and text:
                self.messages[key] = text
        self.plurals = {key: texts for key, texts in plurals.items() if any(texts)}
        found = re.search(r"nplurals\s*=\s*([0-9]+)", self.info().get("plural-forms", "nplurals=2"))
        if found is None or not 1 <= int(found[1]) <= 6:
            raise ValueError("its nplurals is missing or not 1 to 6")
        self.nplurals = int(found[1])

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
    """A compiled catalog from the bytes of a `.mo` file, as the standard library's gettext reads it.

    Raises:
        CatalogError: If the bytes are no `.mo` file (magic number, offsets, charset), or its
            `Plural-Forms` rule cannot be read.
    """
    if len(data) > _MAX_MO_BYTES:
        raise CatalogError(f"it is over {_MAX_MO_BYTES} bytes")
    if data[:4] not in _MAGIC:
        raise CatalogError("it is no compiled catalog (.mo): its magic number is wrong")
    try:
        return Catalog(io.BytesIO(data))
    except (OSError, struct.error, UnicodeError, LookupError, IndexError) as exc:
        raise CatalogError(f"it cannot be read ({type(exc).__name__}): compile it again") from None
    except ValueError as exc:  # gettext.c2py's (the rule is no C expression it takes), or nplurals
        raise CatalogError(f"its Plural-Forms header cannot be read: {exc}") from None


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
