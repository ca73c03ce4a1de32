"""`typed-elicit catalogs`: write, start, check and compile the catalogs of the library's words.

The messages come from one table, `typed_elicit._views.words.MESSAGES` (each keyed by its
`msgctxt`), so `extract` writes the template (`typed_elicit.pot`) from it and merges it into each
language's `.po` (Babel's `update`: a changed English text comes back marked fuzzy); `init` starts
a language; `check` lists every problem of every `.po` (a message missing, extra, untranslated or
fuzzy, a placeholder that differs from the English text, plural forms or number signs that are not
CLDR's, a terminal key that clashes, a `.mo` older than its `.po`); `compile` writes the `.mo`
files pages read. Needs Babel (`pip install 'typed-elicit[i18n]'`).
"""

from __future__ import annotations

import argparse
import importlib.util
import io
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

from typed_elicit._views.catalogs import DOMAIN, LOCALE_DIR, Catalog, CatalogError, read_mo
from typed_elicit._views.locales import normal_tag
from typed_elicit._views.words import MESSAGES, form_problem

from ._common import EXIT_OK, EXIT_PROBLEMS, UsageError
from ._texts import run_texts

if TYPE_CHECKING:
    from babel.core import Locale
    from babel.messages.catalog import Catalog as PoCatalog

_CATEGORIES: Final = ("zero", "one", "two", "few", "many", "other")
_MENUS: Final = {
    "term_answer": ("key_yes", "key_decline", "key_cancel"),
    "term_open_url": ("key_yes", "key_no", "key_cancel"),
}
"""The terminal's menus: the prompt and the keys it offers (each shown in square brackets)."""
_HELP: Final = """actions:
  extract        write DIR/typed_elicit.pot from the library's messages and merge it into
                 every DIR/<lang>/LC_MESSAGES/typed_elicit.po (a changed text comes back fuzzy)
  init LANG...   start the catalog of a new language from the messages (then translate it)
  check [LANG]   list every problem of the catalogs; exit code 1 if there is one
  compile [LANG] write each .mo from its .po (pages and views read the .mo)
  texts MODULE.. write the template of your own texts (form messages, titles, descriptions,
                 option titles) of the models in MODULE to --out (default: print it);
                 translate it with pybabel init/compile into your domain's catalogs

DIR is the shipped catalogs (typed_elicit/locale) unless --dir names your own, e.g. a
directory of catalogs that adds a language: Languages(catalogs=[DIR]) reads it."""


def add_catalogs(new: Callable[[str, str, str, str], argparse.ArgumentParser]) -> None:
    """Add `typed-elicit catalogs` to the command line."""
    parser = new(
        "catalogs",
        "write, check and compile the catalogs of the library's words",
        "The gettext catalogs of every word typed_elicit shows a person (pages, app views, the "
        "terminal). Needs Babel: pip install 'typed-elicit[i18n]'.",
        _HELP,
    )
    parser.add_argument("action", choices=("extract", "init", "check", "compile", "texts"))
    parser.add_argument(
        "names", nargs="*", metavar="LANG|MODULE", help="language tags (de, pt-BR), or modules for texts"
    )
    parser.add_argument("--dir", type=Path, default=LOCALE_DIR, help="the catalogs' directory")
    parser.add_argument("--out", type=Path, help="texts: the template to write (default: print it)")
    parser.set_defaults(run=run_catalogs)


async def run_catalogs(args: argparse.Namespace, out: TextIO) -> int:
    """Run one action of `typed-elicit catalogs`; returns the exit code.

    Raises:
        UsageError: If Babel is missing, a tag is no language tag, `init` or `texts` has no
            names, a catalog to start exists already, or a module of `texts` cannot be imported.
    """
    if importlib.util.find_spec("babel") is None:  # pragma: no cover - Babel is in the dev extra
        raise UsageError("catalogs needs Babel: pip install 'typed-elicit[i18n]'")
    action, directory = args.action, args.dir
    if action == "texts":
        if not args.names:
            raise UsageError("texts needs the modules of your models, e.g. texts myapp.forms")
        return run_texts(args.names, args.out, out)
    tags = [_tag(tag) for tag in args.names]
    if action == "extract":
        written = extract(directory)
    elif action == "init":
        if not tags:
            raise UsageError("init needs the language tag of each catalog to start, e.g. init it")
        written = [init(directory, tag) for tag in tags]
    elif action == "compile":
        written = compile_catalogs(directory, tags or None)
    else:
        problems = check(directory, tags or None)
        out.writelines(f"{problem}\n" for problem in problems)
        out.write(f"{len(problems)} problem(s) in the catalogs of {directory}\n")
        return EXIT_PROBLEMS if problems else EXIT_OK
    out.writelines(f"wrote {path}\n" for path in written)
    if not written:
        out.write(f"the catalogs of {directory} are up to date\n")
    return EXIT_OK


def _tag(tag: str) -> str:
    normal = normal_tag(tag)
    if normal is None:
        raise UsageError(f"{tag!r} is no language tag: write it like de, pt-BR or zh-Hant")
    return normal


def po_path(directory: Path, locale: str) -> Path:
    """Where `directory` keeps the library's `.po` for `locale`."""
    return directory / locale.replace("-", "_") / "LC_MESSAGES" / f"{DOMAIN}.po"


def po_files(directory: Path) -> dict[str, Path]:
    """The library's `.po` files in `directory`, by locale."""
    found: dict[str, Path] = {}
    for path in sorted(directory.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        tag = normal_tag(path.parents[1].name)
        if tag is not None:
            found[tag] = path
    return found


# --- extract, init, compile -----------------------------------------------------------------------


def template(creation: datetime | None = None) -> PoCatalog:
    """The catalog template: every message of `MESSAGES`, its key the context, where it shows a comment."""
    from babel.messages.catalog import Catalog as PoCatalog

    pot = PoCatalog(
        domain=DOMAIN,
        project="typed-elicit",
        header_comment="# The words typed_elicit shows a person. Written by `typed-elicit catalogs extract`\n"
        "# from typed_elicit/_views/words.py: edit the messages there, not here.",
        creation_date=creation or datetime.now(timezone.utc),
        fuzzy=False,
    )
    for key, message in MESSAGES.items():
        comments = [f"{message.section}: {message.note}" if message.note else message.section]
        ident = message.text if message.plural is None else (message.text, message.plural)
        pot.add(ident, auto_comments=comments, context=key)
    return pot


def _read(path: Path, locale: str | None = None) -> PoCatalog:
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        return read_po(f, locale=locale, domain=DOMAIN)


def _write(path: Path, catalog: PoCatalog) -> bool:
    """Write `catalog` to `path` unless it holds that already; whether it wrote."""
    from babel.messages.pofile import write_po

    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, no_location=True)
    if path.exists() and path.read_bytes() == buffer.getvalue():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())
    return True


def _same_messages(a: PoCatalog, b: PoCatalog) -> bool:
    def rows(c: PoCatalog) -> list[tuple[object, ...]]:
        return [(m.context, m.id, " ".join(m.auto_comments)) for m in c if m.id]  # comments get wrapped

    return rows(a) == rows(b)


def extract(directory: Path) -> list[Path]:
    """Write `typed_elicit.pot` from `MESSAGES` and merge it into every `.po` of `directory`.

    The template keeps its creation date while its messages stay the same, so running it
    twice changes nothing.

    Returns:
        The files written (those that changed).
    """
    pot_path = directory / f"{DOMAIN}.pot"
    pot = template()
    if pot_path.exists():
        old = _read(pot_path)
        if _same_messages(old, pot) and isinstance(old.creation_date, datetime):
            pot = template(old.creation_date)
    written = [pot_path] if _write(pot_path, pot) else []
    for locale, path in po_files(directory).items():
        po = _read(path, locale.replace("-", "_"))
        po.update(pot, update_creation_date=False)
        if _write(path, po):
            written.append(path)
    return written


def init(directory: Path, locale: str) -> Path:
    """Start the `.po` of `locale` in `directory` from `MESSAGES`: untranslated, with CLDR's plural rule.

    Raises:
        UsageError: If it exists already, or Babel has no CLDR data for `locale`.
    """
    from babel.core import Locale, UnknownLocaleError
    from babel.messages.catalog import Catalog as PoCatalog

    path = po_path(directory, locale)
    if path.exists():
        raise UsageError(f"{path} exists already: run extract to bring it up to date")
    try:
        cldr = Locale.parse(locale.replace("-", "_"))
    except (UnknownLocaleError, ValueError):
        raise UsageError(f"Babel has no CLDR data for {locale!r}: choose a tag it knows") from None
    po = PoCatalog(locale=cldr, domain=DOMAIN, project="typed-elicit", fuzzy=False)
    po.update(template(), no_fuzzy_matching=True)
    _write(path, po)
    return path


def compiled(path: Path, locale: str) -> bytes:
    """The `.mo` bytes of the `.po` at `path` (fuzzy and untranslated entries left out)."""
    from babel.messages.mofile import write_mo

    buffer = io.BytesIO()
    write_mo(buffer, _read(path, locale.replace("-", "_")), use_fuzzy=False)
    return buffer.getvalue()


def compile_catalogs(directory: Path, locales: Sequence[str] | None = None) -> list[Path]:
    """Write the `.mo` of each `.po` of `directory` (or of `locales` only).

    Returns:
        The files written.
    """
    written: list[Path] = []
    for locale, path in po_files(directory).items():
        if locales is None or locale in locales:
            target = path.with_suffix(".mo")
            target.write_bytes(compiled(path, locale))
            written.append(target)
    return written


# --- check ----------------------------------------------------------------------------------------


def check(directory: Path, locales: Sequence[str] | None = None) -> list[str]:
    """Every problem of the catalogs of `directory` (or of `locales` only), one line each; empty if none."""
    found = po_files(directory)
    problems = [f"{directory}: no catalog of {tag}" for tag in locales or () if tag not in found]
    if not found:
        problems.append(f"{directory}: no catalogs ({{lang}}/LC_MESSAGES/{DOMAIN}.po)")
    for locale, path in found.items():
        if locales is None or locale in locales:
            where = path.relative_to(directory)
            problems.extend(f"{where}: {problem}" for problem in check_po(path, locale))
    return problems


def check_po(path: Path, locale: str) -> list[str]:
    """Every problem of the `.po` of `locale` at `path`."""
    from babel.core import Locale, UnknownLocaleError

    po = _read(path, locale.replace("-", "_"))
    try:
        cldr = Locale.parse(locale.replace("-", "_"))
    except (UnknownLocaleError, ValueError):
        return [f"Babel has no CLDR data for {locale!r}, so its plural rule and numbers cannot be checked"]
    problems = list(_messages(po))
    problems.extend(_plural_rule(po, locale))
    translated = {m.context: m.string for m in po if m.id and m.context in MESSAGES and not m.fuzzy}
    problems.extend(_cldr(translated, cldr))
    problems.extend(_menus(translated))
    problems.extend(_stale(path, locale))
    return problems


def _messages(po: PoCatalog) -> Iterator[str]:
    entries = {m.context: m for m in po if m.id}
    for key, message in MESSAGES.items():
        entry = entries.get(key)
        ident = message.text if message.plural is None else (message.text, message.plural)
        if entry is None:
            yield f"{key!r} is missing: run typed-elicit catalogs extract, then translate it"
        elif entry.id != ident:
            yield f"{key!r} translates another English text: run typed-elicit catalogs extract"
        elif entry.fuzzy:
            yield f"{key!r} is marked fuzzy: check its translation, then remove the fuzzy flag"
        else:
            string = entry.string or ""
            forms = (string,) if isinstance(string, str) else tuple(string)
            if not all(forms):  # Babel gives a plural as many forms as the catalog's rule has
                yield f"{key!r} is not translated"
            elif (problem := form_problem(message, forms)) is not None:
                yield f"{key!r}: {problem}"
    for context, entry in entries.items():
        if context not in MESSAGES:
            name = context if context is not None else str(entry.id)
            yield f"{name!r} is no message of typed_elicit: run typed-elicit catalogs extract"


def _plural_rule(po: PoCatalog, locale: str) -> Iterator[str]:
    import gettext

    from babel.messages.catalog import Catalog as PoCatalog
    from babel.messages.plurals import get_plural

    expected = get_plural(locale.replace("-", "_"))
    ours = gettext.c2py(po.plural_expr)
    cldr = gettext.c2py(expected.plural_expr)
    if po.num_plurals != expected.num_plurals or any(ours(n) != cldr(n) for n in _SAMPLES):
        yield f"its Plural-Forms is not CLDR's: use {PoCatalog(locale=locale.replace('-', '_')).plural_forms}"


_SAMPLES: Final = (*range(0, 1001), 1_000_000, 2_000_000, 10**9)


def _cldr(translated: Mapping[str | None, object], cldr: Locale) -> Iterator[str]:
    symbols = cldr.number_symbols["latn"]
    for key, name in (("decimal_sign", "decimal"), ("group_sign", "group")):
        given = translated.get(key)
        if given is not None and given != symbols[name]:
            yield f"{key!r} is {given!r}, and CLDR's {name} sign for {cldr} is {symbols[name]!r}"
    categories = " ".join(c for c in _CATEGORIES if c in cldr.plural_form.tags or c == "other")
    given = translated.get("plural_categories")
    if given is not None and given != categories:
        yield f"'plural_categories' is {given!r}, and CLDR's for {cldr} are {categories!r}"


def _menus(translated: Mapping[str | None, object]) -> Iterator[str]:
    keys = {key for menu in _MENUS.values() for key in menu}
    letters = {key: letter for key in sorted(keys) if isinstance(letter := translated.get(key), str)}
    for key, letter in letters.items():
        if len(letter) != 1 or not letter.isalpha() or letter != letter.lower():
            yield f"{key!r} is {letter!r}: a key is one lower-case letter"
    for menu, offered in _MENUS.items():
        prompt = translated.get(menu)
        if not isinstance(prompt, str) or not all(key in letters for key in offered):
            continue
        for key in offered:
            if f"[{letters[key]}]" not in prompt.lower():
                yield f"{menu!r} does not show {key!r} ({letters[key]!r}) in square brackets"
        if len({letters[key] for key in offered}) != len(offered):
            yield f"{menu!r} offers one key for two answers: {', '.join(letters[key] for key in offered)}"


def _stale(path: Path, locale: str) -> Iterator[str]:
    mo = path.with_suffix(".mo")
    if not mo.exists():
        yield f"{mo.name} is missing: run typed-elicit catalogs compile"
        return
    try:
        shipped = read_mo(mo.read_bytes())
    except CatalogError as exc:
        yield f"{mo.name} cannot be read ({exc}): run typed-elicit catalogs compile"
        return
    if not same_catalogs(shipped, read_mo(compiled(path, locale))):
        yield f"{mo.name} is older than its .po: run typed-elicit catalogs compile"


def same_catalogs(a: Catalog, b: Catalog) -> bool:
    """Whether two compiled catalogs hold the same messages and plural rule."""
    return (
        a.messages == b.messages
        and a.plurals == b.plurals
        and a.nplurals == b.nplurals
        and all(a.plural(n) == b.plural(n) for n in range(200))
    )
