"""Compiled catalogs read with the standard library: messages, plural forms, where they live."""

from __future__ import annotations

import gettext
import struct
from pathlib import Path

import pytest

from typed_elicit._views.catalogs import (
    DOMAIN,
    LOCALE_DIR,
    CatalogError,
    find_catalogs,
    key_of,
    load,
    mo_path,
    read_mo,
)
from typed_elicit._views.words import MESSAGES


def mo(entries: dict[str, str], order: str = "<") -> bytes:
    """A `.mo` file holding `entries` (original -> translation), written as GNU msgfmt lays it out."""
    keys = sorted(entries)
    ids = b"".join(k.encode() + b"\0" for k in keys)
    strs = b"".join(entries[k].encode() + b"\0" for k in keys)
    start = 7 * 4 + 16 * len(keys)
    table_o, table_t, offset = [], [], 0
    for k in keys:
        table_o.append((len(k.encode()), start + offset))
        offset += len(k.encode()) + 1
    offset = 0
    for k in keys:
        table_t.append((len(entries[k].encode()), start + len(ids) + offset))
        offset += len(entries[k].encode()) + 1
    head = struct.pack(f"{order}7I", 0x950412DE, 0, len(keys), 28, 28 + 8 * len(keys), 0, 0)
    tables = b"".join(struct.pack(f"{order}2I", *pair) for pair in table_o + table_t)
    return head + tables + ids + strs


PROBLEMS = "Please correct {count} problem\x00Please correct {count} problems"
HEADER = "Language: fr\nPlural-Forms: nplurals=3; plural=(n == 0 || n == 1) ? 0 : n % 1000000 == 0 ? 1 : 2;\n"


@pytest.mark.parametrize("order", ["<", ">"])
def test_a_mo_file_is_read_with_contexts_plurals_and_its_plural_rule(order: str) -> None:
    entries = {
        "": HEADER,
        "submit\x04Submit": "Envoyer",
        f"problems\x04{PROBLEMS}": "un\x00millions\x00plusieurs",
        "untranslated\x04Left": "",
    }
    catalog = read_mo(mo(entries, order))
    assert catalog.messages == {"submit\x04Submit": "Envoyer"}
    key = key_of("problems", "Please correct {count} problem")
    assert [catalog.form(key, n) for n in (0, 1, 2, 1_000_000)] == ["un", "un", "plusieurs", "millions"]
    assert catalog.form("missing", 1) is None
    assert catalog.nplurals == 3


def test_it_reads_the_same_as_the_standard_librarys_gettext() -> None:
    path = mo_path(LOCALE_DIR, "ar", DOMAIN)
    ours = read_mo(path.read_bytes())
    with path.open("rb") as f:
        theirs = gettext.GNUTranslations(f)
    message = MESSAGES["problems"]
    for n in (0, 1, 2, 3, 11, 100, 102):
        expected = theirs.npgettext("problems", message.text, message.english, n)
        assert ours.form(key_of("problems", message.text), n) == expected
    assert ours.messages[key_of("submit", "Submit")] == theirs.pgettext("submit", "Submit")


def test_a_catalog_without_a_plural_rule_takes_englishs() -> None:
    catalog = read_mo(mo({"a\x00b": "x\x00y"}))
    assert (catalog.form("a", 1), catalog.form("a", 0), catalog.form("a", 7)) == ("x", "y", "y")


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "magic number"),
        (b"not a catalog at all, sorry", "magic number"),
        (mo({"a": "b"})[:40], "cut short|cannot be read"),
        (mo({"a": "b"}).replace(b"b\0", b"\xff\0"), "cannot be read"),
        (mo({"": "Plural-Forms: nplurals=x; plural=n;\n"}), "Plural-Forms"),
        (mo({"": "Plural-Forms: nplurals=2; plural=n +;\n"}), "Plural-Forms"),
        (mo({"": "Plural-Forms: nplurals=9; plural=n;\n"}), "not 1 to 6"),
        (b"\xde\x12\x04\x95" + b"\0" * 4_000_000 * 2 + b"\0" * 10, "over"),
    ],
)
def test_what_is_no_readable_catalog_is_refused(data: bytes, problem: str) -> None:
    with pytest.raises(CatalogError, match=problem):
        read_mo(data)


def test_catalogs_are_found_by_locale_and_domain(tmp_path: Path) -> None:
    for name in ("de_AT", "fr", "nonsense!"):
        path = tmp_path / name / "LC_MESSAGES" / "app.mo"
        path.parent.mkdir(parents=True)
        path.write_bytes(mo({"Hi": "Salut"}))
    (tmp_path / "es" / "LC_MESSAGES").mkdir(parents=True)
    assert find_catalogs(tmp_path, "app") == ("de-AT", "fr")
    assert find_catalogs(tmp_path / "nowhere", "app") == ()
    assert find_catalogs(LOCALE_DIR, DOMAIN) == ("ar", "de", "en", "es", "fr", "ja")
    assert mo_path(tmp_path, "de-AT", "app") == tmp_path / "de_AT" / "LC_MESSAGES" / "app.mo"
    loaded = load(tmp_path, "fr", "app")
    assert loaded is not None
    assert loaded.messages == {"Hi": "Salut"}
    assert load(tmp_path, "es", "app") is None


def test_a_catalog_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    path = mo_path(tmp_path, "de", "app")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"garbage")
    with pytest.raises(CatalogError, match=r"de/LC_MESSAGES/app\.mo: .*magic"):
        load(tmp_path, "de", "app")
