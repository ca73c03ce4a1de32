"""`typed-elicit catalogs`: the shipped catalogs are whole and current; `check` finds each kind of defect."""

from __future__ import annotations

import io
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog as PoCatalog
from babel.messages.pofile import read_po, write_po

from typed_elicit._cli import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, main
from typed_elicit._cli import _catalogs as catalogs
from typed_elicit._cli._catalogs import check, compile_catalogs, extract, init, po_path
from typed_elicit._views.catalogs import DOMAIN, LOCALE_DIR, load, read_mo
from typed_elicit._views.i18n import SHIPPED
from typed_elicit._views.words import MESSAGES, Message


def test_the_shipped_catalogs_have_every_message_translated_with_its_placeholders_and_are_compiled() -> None:
    # Fails when a shipped catalog misses a message, has one too many, is fuzzy or untranslated,
    # has a placeholder that differs from the English text, plural forms or number signs that are
    # not CLDR's, clashing terminal keys, or a .mo older than its .po.
    assert check(LOCALE_DIR) == []
    assert sorted(catalogs.po_files(LOCALE_DIR)) == sorted(SHIPPED)


def test_the_shipped_template_is_the_one_extract_writes(tmp_path: Path) -> None:
    copy = shutil.copytree(LOCALE_DIR, tmp_path / "locale")
    assert extract(copy) == []  # nothing changes: the template and catalogs are current
    assert (copy / f"{DOMAIN}.pot").read_bytes() == (LOCALE_DIR / f"{DOMAIN}.pot").read_bytes()


@pytest.fixture
def shipped(tmp_path: Path) -> Path:
    """A copy of the shipped catalogs to break."""
    return Path(shutil.copytree(LOCALE_DIR, tmp_path / "locale"))


def edit(directory: Path, locale: str, change: Callable[[PoCatalog], None]) -> None:
    path = po_path(directory, locale)
    with path.open("rb") as f:
        po = read_po(f, locale=locale)
    change(po)
    buffer = io.BytesIO()
    write_po(buffer, po, width=100, no_location=True)
    path.write_bytes(buffer.getvalue())
    compile_catalogs(directory, [locale])


def entry(po: PoCatalog, key: str) -> object:
    return next(m for m in po if m.context == key)


def set_string(key: str, value: str | tuple[str, ...]) -> Callable[[PoCatalog], None]:
    def change(po: PoCatalog) -> None:
        entry(po, key).string = value  # type: ignore[attr-defined]

    return change


def remove(key: str) -> Callable[[PoCatalog], None]:
    def change(po: PoCatalog) -> None:
        message = entry(po, key)
        po.delete(message.id, context=key)  # type: ignore[attr-defined]

    return change


def add_extra(po: PoCatalog) -> None:
    po.add("Old words", "Alte Wörter", context="old_words")


def fuzzy(po: PoCatalog) -> None:
    entry(po, "submit").flags.add("fuzzy")  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("locale", "change", "problem"),
    [
        ("de", remove("cancel"), "'cancel' is missing"),
        ("de", add_extra, "'old_words' is no message"),
        ("de", set_string("add_to", "Zu {Label} hinzufügen"), r"'add_to': it holds \{Label\}"),
        (
            "fr",
            set_string("remove_row_of", "Supprimer la ligne {number}"),
            r"'remove_row_of': it lacks \{label\}",
        ),
        ("ja", set_string("ge", "{limit!r}以上"), "'ge': a placeholder carries a format"),
        ("es", set_string("submit", ""), "'submit' is not translated"),
        ("de", fuzzy, "'submit' is marked fuzzy"),
        ("ar", set_string("problems", ("a", "b", "{count}")), "'problems' is not translated"),
        ("ar", set_string("bytes", ("a", "b", "c", "d", "e", "f")), r"'bytes': it lacks \{count\}"),
        (
            "de",
            set_string("decimal_sign", "."),
            "'decimal_sign' is '.', and CLDR's decimal sign for de is ','",
        ),
        ("fr", set_string("group_sign", " "), "CLDR's group sign for fr is '\\\\u202f'"),
        ("ja", set_string("plural_categories", "one other"), "CLDR's for ja are 'other'"),
        ("de", set_string("key_cancel", "a"), "'term_answer' offers one key for two answers: j, a, a"),
        ("de", set_string("key_yes", "Ja"), "'key_yes' is 'Ja': a key is one lower-case letter"),
        ("fr", set_string("term_open_url", "Ouvrir ? oui / non / annuler"), "does not show 'key_yes'"),
    ],
)
def test_check_names_each_defect_of_a_catalog(
    shipped: Path, locale: str, change: Callable[[PoCatalog], None], problem: str
) -> None:
    edit(shipped, locale, change)
    problems = check(shipped)
    assert problems, "the defect went unnoticed"
    assert all(p.startswith(f"{locale}/LC_MESSAGES/{DOMAIN}.po: ") for p in problems), problems
    assert re.search(problem, problems[0]), problems


def test_check_finds_a_compiled_catalog_older_than_its_po(shipped: Path) -> None:
    path = po_path(shipped, "de")
    path.write_text(
        path.read_text(encoding="utf-8").replace('msgstr "Senden"', 'msgstr "Abschicken"'), "utf-8"
    )
    assert check(shipped) == [
        f"de/LC_MESSAGES/{DOMAIN}.po: {DOMAIN}.mo is older than its .po: run typed-elicit catalogs compile"
    ]
    compile_catalogs(shipped, ["de"])
    assert check(shipped) == []
    loaded = load(shipped, "de", DOMAIN)
    assert loaded is not None
    assert loaded.messages["submit\x04Submit"] == "Abschicken"


def test_check_finds_a_missing_or_unreadable_compiled_catalog(shipped: Path) -> None:
    po_path(shipped, "ja").with_suffix(".mo").unlink()
    po_path(shipped, "es").with_suffix(".mo").write_bytes(b"junk")
    problems = check(shipped)
    assert problems == [
        f"es/LC_MESSAGES/{DOMAIN}.po: {DOMAIN}.mo cannot be read (it is no compiled catalog (.mo): its magic "
        "number is wrong): run typed-elicit catalogs compile",
        f"ja/LC_MESSAGES/{DOMAIN}.po: {DOMAIN}.mo is missing: run typed-elicit catalogs compile",
    ]


def test_check_finds_a_plural_rule_that_is_not_cldrs(shipped: Path) -> None:
    path = po_path(shipped, "fr")
    text = path.read_text(encoding="utf-8")
    start = text.index('"Plural-Forms:')
    end = text.index('"MIME-Version')
    path.write_text(
        text[:start] + '"Plural-Forms: nplurals=3; plural=(n != 1 ? 2 : 0);\\n"\n' + text[end:], "utf-8"
    )
    compile_catalogs(shipped, ["fr"])
    assert any("its Plural-Forms is not CLDR's" in problem for problem in check(shipped))


def test_a_new_message_reaches_every_catalog_untranslated_and_a_changed_one_comes_back_fuzzy(
    shipped: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    messages = dict(MESSAGES)
    messages["brand_new"] = Message(
        "brand_new", "A brand new text", section="the form, on pages and app views"
    )
    old = messages["submit"]
    messages["submit"] = Message("submit", "Submit it", section=old.section, note=old.note)
    monkeypatch.setattr(catalogs, "MESSAGES", messages)
    written = extract(shipped)
    assert shipped / f"{DOMAIN}.pot" in written
    assert set(written) - {shipped / f"{DOMAIN}.pot"} == {po_path(shipped, locale) for locale in SHIPPED}
    problems = check(shipped, ["de"])
    assert f"de/LC_MESSAGES/{DOMAIN}.po: 'brand_new' is not translated" in problems
    assert (
        f"de/LC_MESSAGES/{DOMAIN}.po: 'submit' is marked fuzzy: "
        "check its translation, then remove the fuzzy flag" in problems
    )


def test_init_starts_a_language_with_cldrs_plural_rule_and_every_message_to_translate(tmp_path: Path) -> None:
    path = init(tmp_path, "pl")
    with path.open("rb") as f:
        po = read_po(f)
    assert po.num_plurals == 3
    assert {m.context for m in po if m.id} == set(MESSAGES)
    problems = check(tmp_path)
    assert f"pl/LC_MESSAGES/{DOMAIN}.po: 'submit' is not translated" in problems
    assert (
        problems[-1]
        == f"pl/LC_MESSAGES/{DOMAIN}.po: {DOMAIN}.mo is missing: run typed-elicit catalogs compile"
    )
    compile_catalogs(tmp_path)
    assert read_mo(path.with_suffix(".mo").read_bytes()).messages == {}


def test_the_command_checks_compiles_and_refuses_what_it_cannot_do(
    shipped: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = io.StringIO()
    assert main(["catalogs", "check", "--dir", str(shipped)], out) == EXIT_OK
    assert out.getvalue() == f"0 problem(s) in the catalogs of {shipped}\n"
    edit(shipped, "de", remove("cancel"))
    assert main(["catalogs", "check", "de", "--dir", str(shipped)], out := io.StringIO()) == EXIT_PROBLEMS
    assert "'cancel' is missing" in out.getvalue()
    assert main(["catalogs", "compile", "ja", "--dir", str(shipped)], out := io.StringIO()) == EXIT_OK
    assert out.getvalue() == f"wrote {po_path(shipped, 'ja').with_suffix('.mo')}\n"
    assert main(["catalogs", "extract", "--dir", str(shipped)], out := io.StringIO()) == EXIT_OK
    assert main(["catalogs", "init", "--dir", str(tmp_path)], io.StringIO()) == EXIT_USAGE
    assert "init needs the language tag" in capsys.readouterr().err
    assert main(["catalogs", "init", "de", "--dir", str(shipped)], io.StringIO()) == EXIT_USAGE
    assert "exists already" in capsys.readouterr().err
    assert main(["catalogs", "init", "C", "--dir", str(tmp_path)], io.StringIO()) == EXIT_USAGE
    assert "'C' is no language tag" in capsys.readouterr().err
    assert main(["catalogs", "init", "qq", "--dir", str(tmp_path)], io.StringIO()) == EXIT_USAGE
    assert "no CLDR data for 'qq'" in capsys.readouterr().err
    assert (
        main(["catalogs", "check", "--dir", str(tmp_path / "empty")], out := io.StringIO()) == EXIT_PROBLEMS
    )
    assert "no catalogs" in out.getvalue()
    assert main(["catalogs", "check", "pt", "--dir", str(shipped)], out := io.StringIO()) == EXIT_PROBLEMS
    assert "no catalog of pt" in out.getvalue()
