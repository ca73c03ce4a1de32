"""The words of one language: `Words`, and the server's choice of languages, `Languages`.

`words_for(locale)` is the library's words in a shipped language (`SHIPPED`): every message of
`MESSAGES` from the catalog, English where a catalog lacks one, with its numbers, sizes and
direction. `Languages` is one server's setting: which locales it offers, a fixed one, the
developer's overrides, catalogs and translate function for their own texts; `Languages.words`
gives the `Words` of a locale, and `choose` the locale of a page (a call's, the server's fixed
one, the browser's `Accept-Language`) or of an app view (its host's `hostContext.locale`).

Loaded on first use, never at `import typed_elicit`; cached per locale, and only for locales
the library ships or the server offers, so nothing a client sends grows a cache. A message a
catalog lacks, or gives with other placeholders than its English text, is shown in English;
a developer's text without a translation is shown as written: never an error.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from typed_elicit._forms.hints import listed
from typed_elicit._views.catalogs import (
    DOMAIN,
    LOCALE_DIR,
    Catalog,
    CatalogError,
    english_plural,
    find_catalogs,
    key_of,
    load,
)
from typed_elicit._views.locales import (
    SOURCE_LOCALE,
    Direction,
    best_match,
    direction,
    negotiate,
    normal_tag,
)
from typed_elicit._views.words import MESSAGES, Message, Said, checked_words, form_problem
from typed_elicit.errors import PageSetupError

logger = logging.getLogger("typed_elicit.i18n")

SHIPPED: Final = ("en", "de", "fr", "es", "ja", "ar")
"""The languages the library's words are translated into (`typed_elicit/locale`)."""

Forms = tuple[tuple[str, ...], Callable[[int], int]]
"""A plural message's forms and the rule that picks one for a count (`Plural-Forms`)."""

Translate = Callable[[str, str], "str | None"]
"""`translate(text, locale) -> str | None`: a developer's own text in `locale`, or None for as written."""


class Words(Said):
    """The words of one language: a read-only table of the library's messages, and their helpers.

    `words["submit"]` is a message's text (for a plural message, its form for most counts);
    `say` fills its placeholders, `count` chooses a plural form, `number` and `size` write a
    number and a byte size as the language does, `text` translates the developer's own texts.
    As a `Mapping` it is what `field_views(..., words=...)` and `said` take.
    """

    def __init__(
        self,
        locale: str,
        texts: Mapping[str, str],
        plurals: Mapping[str, Forms],
        own: Sequence[Catalog] = (),
        translate: Translate | None = None,
    ) -> None:
        """Words of `locale` (built by `words_for` and `Languages.words`, not by hand)."""
        self.locale = locale
        self.direction: Direction = direction(locale)
        self._texts = texts
        self._forms = plurals
        self._own = own
        self._translate = translate
        decimal, group = texts["decimal_sign"], texts["group_sign"]
        self._digits = None if (decimal, group) == (".", ",") else str.maketrans({".": decimal, ",": group})

    def __getitem__(self, key: str) -> str:
        return self._texts[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)

    def __repr__(self) -> str:
        return f"Words({self.locale!r})"

    def say(self, key: str, /, **values: object) -> str:
        """The message `key` with its placeholders filled (numbers written as the language does).

        Raises:
            KeyError: If `key` is no message, or a placeholder it holds is not given.
        """
        return self._filled(self._texts[key], values)

    def count(self, key: str, count: float, /, **values: object) -> str:
        """The plural message `key` in its form for `count`, `{count}` (and the rest) filled.

        The number that chooses the form is the message's counting placeholder (`{count}`, or
        `{limit}` for the constraint words); it is filled with `count` unless given.

        Raises:
            KeyError: If `key` is no message, or a placeholder it holds is not given.
        """
        filled = {MESSAGES[key].counts or "count": count, **values}
        found = self._forms.get(key)
        if found is None:  # not a plural message, or overridden with one text
            return self._filled(self._texts[key], filled)
        forms, plural = found
        return self._filled(forms[min(plural(int(abs(count))), len(forms) - 1)], filled)

    def said(self, key: str, limit: object = None) -> str:
        """A field's problem or hint with its limit: what `typed_elicit._views.words.said` says."""
        if limit is None:
            return self._texts[key].format(limit="")
        if key in self._forms and isinstance(limit, int | float) and not isinstance(limit, bool):
            return self.count(key, limit)
        return self._filled(self._texts[key], {"limit": limit})

    def number(self, value: object) -> str:
        """A number as the language writes it (`1,234.5`, `1.234,5`, `1 234,5`); anything else as text.

        Whole floats lose their `.0`; a float keeps all the digits Python shows of it (never
        rounded), in plain notation. A date is left as `YYYY-MM-DD`.
        """
        if type(value) is float:
            if not math.isfinite(value):
                return str(value)
            value = int(value) if value.is_integer() and abs(value) < 1e16 else Decimal(repr(value))
        if type(value) is int and -1000 < value < 1000:
            return str(value)
        if isinstance(value, Decimal):
            text = f"{value:,f}"
        elif isinstance(value, int) and not isinstance(value, bool):
            text = f"{int(value):,}"
        else:
            return str(value)
        return text if self._digits is None else text.translate(self._digits)

    def size(self, size: int) -> str:
        """A byte count as a person reads it, in decimal units: `2 MB`, `1.5 KB`, `12 bytes`."""
        for key, unit in (("gigabytes", 1_000_000_000), ("megabytes", 1_000_000), ("kilobytes", 1000)):
            if size >= unit:
                return self.say(key, size=round(size / unit, 1))
        return self.count("bytes", size)

    def listing(self, items: Sequence[str]) -> str:
        """Items as one list in the language's words: `a`, `a and b`, `a, b and c`."""
        return listed(list(items), self.say) if items else ""

    def text(self, text: str) -> str:
        """A developer's own text (a title, a description, an option's label) in this language.

        The server's translate function first, then its catalogs; without a translation, the
        text as written. A translate function that fails or returns no text is logged and
        passed over: never an error.
        """
        if not text:
            return text
        if self._translate is not None:
            try:
                got = self._translate(text, self.locale)
            except Exception as exc:  # the developer's code: a page must still show
                logger.warning(
                    "translate(text, %r) failed with %s; text shown as written",
                    self.locale,
                    type(exc).__name__,
                )
                got = None
            if isinstance(got, str) and got.strip():
                return got
        for catalog in self._own:
            found = catalog.messages.get(text)
            if found is not None:
                return found
        return text

    gettext = text

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        """A developer's own counted text from their catalogs (`%(num)s` or `{n}` is theirs to fill)."""
        for catalog in self._own:
            found = catalog.form(singular, n)
            if found is not None:
                return found
        return singular if n == 1 else plural

    def table(self, keys: Iterable[str]) -> dict[str, Any]:
        """The messages `keys` as JSON for a script: text by key; a plural's forms by CLDR category.

        A plural message is `{"one": ..., "other": ...}` (the language's categories, as the
        script's `Intl.PluralRules(locale).select(n)` names them).
        """
        categories = self._texts["plural_categories"].split()
        out: dict[str, Any] = {}
        for key in keys:
            found = self._forms.get(key)
            if found is None:
                out[key] = self._texts[key]
                continue
            forms, _ = found
            named = categories if len(forms) == len(categories) else ["one", "other"][-len(forms) :]
            out[key] = dict(zip(named, forms, strict=False))
        return out

    def _filled(self, text: str, values: Mapping[str, object]) -> str:
        return text.format_map({name: self.number(value) for name, value in values.items()})


def _resolved(
    locale: str, catalogs: Sequence[Catalog], overrides: Mapping[str, str] | None
) -> tuple[dict[str, str], dict[str, Forms]]:
    """Every message's text and plural forms for `locale`: overrides, then `catalogs` in order, then English.

    A translation with other placeholders than its English text is passed over (logged once
    per locale and key, when the catalogs are loaded).
    """
    texts: dict[str, str] = {}
    plurals: dict[str, Forms] = {}
    for key, message in MESSAGES.items():
        if overrides and key in overrides:
            texts[key] = overrides[key]
            continue
        ident = key_of(key, message.text)
        texts[key] = message.english
        if message.plural is not None:
            plurals[key] = ((message.text, message.plural), english_plural)
        for catalog in catalogs:
            if message.plural is None:
                found = catalog.messages.get(ident)
                if found is not None and _fits(locale, message, (found,)):
                    texts[key] = found
                    break
            else:
                forms = catalog.plurals.get(ident)
                if forms and len(forms) == catalog.nplurals and _fits(locale, message, forms):
                    plurals[key] = (forms, catalog.plural)
                    texts[key] = forms[-1]
                    break
    return texts, plurals


def _fits(locale: str, message: Message, forms: tuple[str, ...]) -> bool:
    """Whether a translation's placeholders are its message's (`form_problem`); logged when not."""
    problem = form_problem(message, forms)
    if problem is not None:
        logger.warning("the %s catalog's %r is shown in English: %s", locale, message.key, problem)
    return problem is None


# --- the shipped languages -------------------------------------------------------------------------

_SHIPPED_WORDS: dict[str, Words] = {}


def _chain(locale: str, directories: Sequence[Path], domain: str) -> list[Catalog]:
    """The catalogs of `locale` then of each more general tag (`de-AT`, `de`), each in `directories` order.

    Raises:
        CatalogError: If a catalog is there but cannot be read.
    """
    parts = locale.split("-")
    found: list[Catalog] = []
    for end in range(len(parts), 0, -1):
        for directory in directories:
            catalog = load(directory, "-".join(parts[:end]), domain)
            if catalog is not None:
                found.append(catalog)
    return found


@lru_cache(maxsize=64)
def _shipped(locale: str) -> tuple[Catalog, ...]:
    """The shipped catalogs of `locale` (an offered or shipped locale: a bounded set)."""
    return tuple(_chain(locale, [LOCALE_DIR], DOMAIN))


def words_for(locale: str | None) -> Words:
    """The library's words in a shipped language (`SHIPPED`); any other locale gets its nearest, else English.

    `de-DE` gets `de`; `pt` gets English. Kept once loaded, one `Words` per shipped language.
    """
    return _cached(_SHIPPED_WORDS, locale, SOURCE_LOCALE, SHIPPED, _shipped_words)


def _shipped_words(locale: str) -> Words:
    return Words(locale, *_resolved(locale, _shipped(locale), None))


def _cached(
    cache: dict[str, Words],
    locale: str | None,
    default: str,
    available: Sequence[str],
    make: Callable[[str], Words],
) -> Words:
    """The `Words` of the `available` locale nearest `locale` (else `default`), made once.

    Two threads asking at once may both make it; `setdefault` keeps one, which every caller gets.
    """
    words = cache.get(locale or default)
    if words is None:
        chosen = (best_match(locale, available) if locale else None) or default
        words = cache.get(chosen)
        if words is None:
            words = cache.setdefault(chosen, make(chosen))
    return words


# --- one server's languages ------------------------------------------------------------------------


class Languages:
    """The languages one server's pages and app views speak, and the developer's own words in them.

    Args:
        locale: Show every page and view in this locale (a call may still give its own);
            None (the default) chooses per person: `Accept-Language` on pages, the host's
            `hostContext.locale` in app views.
        default: The locale when nothing a person sends matches one offered (`en`).
        available: The locales offered (default: the shipped ones and those `catalogs` hold
            the library's words for). A locale without the library's words shows them in English.
        words: Texts that replace the library's messages, per locale:
            `{"en": {"submit": "Send"}, "de": {"submit": "Senden"}}`. A key is a message key
            (`typed_elicit._views.words.MESSAGES`); a text holds only its message's
            placeholders; a counted message (`min_length`) reworded so has one text for every
            count. A locale without overrides shows the catalogs' words. `serve_pages(words=...)`
            is `{default: words}`.
        catalogs: Directories of compiled catalogs (`<dir>/<lang>/LC_MESSAGES/<domain>.mo`):
            `domain`'s translate the developer's own texts; `typed_elicit.mo` ones add a
            language to the library's words or reword some (they come before the shipped ones).
        domain: The gettext domain of the developer's own catalogs (Babel's default, `messages`).
        translate: `translate(text, locale) -> str | None` for the developer's own texts, asked
            before the catalogs; None (or an empty text) means "as written".

    Raises:
        PageSetupError: If a locale is no language tag, `default` or `locale` is not offered,
            a `catalogs` entry is no directory or holds a catalog that cannot be read, or a
            `words` override has an unknown key or a bad text.
    """

    def __init__(
        self,
        *,
        locale: str | None = None,
        default: str = SOURCE_LOCALE,
        available: Iterable[str] | None = None,
        words: Mapping[str, Mapping[str, str]] | None = None,
        catalogs: Iterable[str | Path] = (),
        domain: str = "messages",
        translate: Translate | None = None,
    ) -> None:
        self._directories = [_directory(entry) for entry in catalogs]
        ours = {tag for directory in self._directories for tag in find_catalogs(directory, DOMAIN)}
        offered = [_tag(tag, "available") for tag in available] if available is not None else None
        self.available: tuple[str, ...] = tuple(
            dict.fromkeys(offered if offered is not None else [*SHIPPED, *sorted(ours)])
        )
        if not self.available:
            raise PageSetupError("available", "Languages available is empty: offer at least one locale")
        self.default = _tag(default, "default", self.available)
        self.locale = None if locale is None else _tag(locale, "locale", self.available)
        self._overrides: dict[str, dict[str, str]] = {}
        for tag, table in (words or {}).items():
            normal = _tag(tag, "words", self.available)
            self._overrides[normal] = checked_words(table, MESSAGES, "docs/howto/languages.md")
        self.domain = domain
        self._translate = translate
        self._own = {tag: self._load(tag, domain) for tag in self.available}
        self._library = {tag: self._load(tag, DOMAIN) for tag in self.available}
        self._words: dict[str, Words] = {}

    def _load(self, locale: str, domain: str) -> list[Catalog]:
        """The developer's catalogs of `domain` for `locale`, most specific first (read at setup).

        Raises:
            PageSetupError: If one cannot be read.
        """
        try:
            return _chain(locale, self._directories, domain)
        except CatalogError as exc:
            raise PageSetupError(
                "catalogs",
                f"Languages catalogs cannot be used: {exc}. Compile the .po file again "
                "(typed-elicit catalogs compile DIR, or pybabel compile)",
            ) from None

    def choose(
        self, *, call: str | None = None, accept_language: str | None = None, host: str | None = None
    ) -> str:
        """The locale to show: a call's, else the server's fixed one, else the person's, else `default`.

        Args:
            call: The locale a call asked for (`ctx.elicit_page(..., locale=...)`), if any.
            accept_language: A page request's `Accept-Language` header (bounded when read).
            host: An app view's `hostContext.locale` (a BCP 47 tag such as `de-DE`).

        Returns:
            One of `available`: the nearest to what was asked (`de-DE` gets `de`).
        """
        if call is not None:
            chosen = best_match(call, self.available)
            if chosen is not None:
                return chosen
        if self.locale is not None:
            return self.locale
        if host is not None:
            return best_match(host, self.available) or self.default
        return negotiate(accept_language, self.available, self.default)

    def words(self, locale: str | None = None) -> Words:
        """The `Words` of `locale` (its nearest offered one, else `default`), loaded once per locale."""
        return _cached(self._words, locale, self.default, self.available, self._made)

    def _made(self, locale: str) -> Words:
        catalogs = [*self._library[locale], *_shipped(locale)]
        texts, plurals = _resolved(locale, catalogs, self._overrides.get(locale))
        return Words(locale, texts, plurals, self._own[locale], self._translate)

    def directions(self) -> dict[str, Direction]:
        """Each offered locale's direction (`rtl` for Arabic, ...)."""
        return {tag: direction(tag) for tag in self.available}


def _tag(tag: object, setting: str, available: Sequence[str] = ()) -> str:
    """`tag` as a normal locale tag; with `available`, the offered locale that serves it (`de` for `de-DE`).

    Raises:
        PageSetupError: If it is no language tag, or no locale of `available` serves it.
    """
    normal = normal_tag(tag) if isinstance(tag, str) else None
    if normal is None:
        raise PageSetupError(
            setting,
            f"Languages {setting} takes BCP 47 language tags such as 'de', 'pt-BR' or 'zh-Hant', got {tag!r}",
        )
    if not available:
        return normal
    hit = best_match(normal, available)
    if hit is None:
        raise PageSetupError(
            setting,
            f"Languages {setting} {normal!r} is not offered: the locales offered are {', '.join(available)}; "
            "add it to available (and give its catalogs), or choose one of those",
        )
    return hit


def _directory(entry: str | Path) -> Path:
    """A `catalogs` entry as a directory.

    Raises:
        PageSetupError: If it is no directory.
    """
    path = Path(entry)
    if not path.is_dir():
        raise PageSetupError(
            "catalogs",
            f"Languages catalogs takes directories of compiled catalogs (<dir>/<lang>/LC_MESSAGES/"
            f"<domain>.mo); {str(path)!r} is no directory",
        )
    return path
