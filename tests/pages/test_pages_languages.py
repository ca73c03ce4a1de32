"""Pages in the person's language: negotiated from `Accept-Language` with no configuration, fixed per
server (`serve_pages(languages=Languages(...))`) or per call (`elicit_page(locale=...)`, carried in the
ticket); `lang` and `dir` on the page; numbers and sizes as the language writes them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from typing import Annotated, Any, cast

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field
from starlette.testclient import TestClient

from tests.conftest import BOUND
from tests.pages.test_serve import ORIGIN, Client
from tests.pages.test_tree import Order
from typed_elicit import form
from typed_elicit._calls.state import PageRecord
from typed_elicit._forms.reduce import page_reduced
from typed_elicit._views.i18n import words_for
from typed_elicit._views.words import MESSAGES
from typed_elicit.errors import PageSetupError
from typed_elicit.pages import FileLimits, Languages, UploadedFile, serve_pages

_SHOWN_ON_PAGES = (
    "a field's problem or hint, on pages and app views",
    "the form, on pages and app views",
    "a plain page: after a form is sent, or when it cannot be used",
    "an automatic hint: a rule of a field the form cannot show, told in a sentence",
)


def visible(html: str) -> str:
    """What a person reads of a page: its text and the words of its buttons and inputs' labels."""
    text = re.sub(r"<style.*?</style>", " ", html, flags=re.S)
    labels = " ".join(re.findall(r'aria-label="([^"]*)"', text))
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text)) + " " + labels


def english_left(text: str, locale: str) -> list[str]:
    """The library's English words a page in `locale` still shows (those its catalog translates)."""
    words = words_for(locale)
    left = []
    for key, message in MESSAGES.items():
        if message.section not in _SHOWN_ON_PAGES or key == "default_message":
            continue
        if words[key] == message.english:  # the same in both languages (none today, but allowed)
            continue
        for english in {message.text, message.english}:
            for piece in re.split(r"\{[a-z_]+\}", english):
                piece = piece.strip(" .,:;!?()")
                if len(piece) >= 4 and re.search(r"[A-Za-z]{3}", piece) and piece in text:
                    left.append(f"{key}: {piece!r}")
    return left


@pytest.fixture
def server() -> MCPServer:
    server = MCPServer("language-pages")
    serve_pages(server, ORIGIN)
    return server


@pytest.fixture
def client(server: MCPServer) -> Iterator[Client]:
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        yield Client(server, http)


def open_page(client: Client, model: type[BaseModel], locale: str | None = None) -> PageRecord:
    """A page opened as `elicit_page(model, locale=...)` opens it."""
    page = client.host.mint("link_bank", "link_bank:req-1", 60.0)

    async def opened() -> None:
        with anyio.fail_after(BOUND):
            await client.host.open(
                page, model, "Please answer", "link_bank", None, page_reduced(model), locale=locale
            )

    client.http.portal.call(opened)  # type: ignore[union-attr]
    return page


def html_tag(html: str) -> str:
    found = re.search(r"<html [^>]*>", html)
    assert found is not None
    return found.group(0)


def test_a_page_asked_for_in_german_shows_no_english_library_word(client: Client):
    page = client.open(Order)
    path = client.path(page)
    german = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}
    first = client.http.get(path, headers=german)
    assert html_tag(first.text) == '<html lang="de" dir="ltr">'
    invalid = client.http.post(
        path,
        data={
            "lines._n": "1",
            "notes._n": "1",
            "labels._n": "1",
            "_csrf": client.csrf(first.text),
            "_action": "accept",
        },
        headers={**german, "Origin": ORIGIN},
    )
    assert invalid.status_code == 422
    assert "Bitte korrigieren Sie 5 Probleme" in invalid.text
    gone = client.http.get(path.replace(page.id, "A" * 43), headers=german)
    assert gone.status_code == 404
    for shown in (first.text, invalid.text, gone.text):
        assert english_left(visible(shown), "de") == []
    assert (
        english_left(visible(client.http.get(path).text), "de") != []
    )  # the check can fail: English is caught


def test_an_arabic_page_is_right_to_left_in_arabic(client: Client):
    html = client.http.get(client.path(client.open(Order)), headers={"Accept-Language": "ar-EG"}).text
    assert html_tag(html) == '<html lang="ar" dir="rtl">'
    assert words_for("ar")["submit"] in html
    assert english_left(visible(html), "ar") == []


def test_a_page_in_a_language_not_offered_is_in_english_left_to_right(client: Client):
    html = client.http.get(client.path(client.open(Order)), headers={"Accept-Language": "pt-BR"}).text
    assert html_tag(html) == '<html lang="en" dir="ltr">'
    assert ">Submit</button>" in html


def test_the_calls_locale_wins_over_the_browsers_and_is_carried_in_the_ticket(client: Client):
    page = open_page(client, Order, locale="fr-CA")
    html = client.http.get(client.path(page), headers={"Accept-Language": "de"}).text
    assert html_tag(html) == '<html lang="fr" dir="ltr">'
    assert f">{words_for('fr')['submit']}</button>" in html


def test_a_servers_fixed_locale_wins_over_the_browsers_but_not_over_the_calls():
    server = MCPServer("fixed-language")
    serve_pages(server, ORIGIN, languages=Languages(locale="es"))
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        client = Client(server, http)
        spanish = http.get(client.path(client.open(Order)), headers={"Accept-Language": "de"}).text
        japanese = http.get(
            client.path(open_page(client, Order, locale="ja")), headers={"Accept-Language": "de"}
        ).text
    assert html_tag(spanish) == '<html lang="es" dir="ltr">'
    assert html_tag(japanese) == '<html lang="ja" dir="ltr">'


def test_the_developers_own_texts_go_through_the_servers_translate_function():
    def translate(text: str, locale: str) -> str | None:
        return {("Please answer", "de"): "Bitte antworten", ("address", "de"): "Adresse"}.get((text, locale))

    server = MCPServer("translated")
    serve_pages(server, ORIGIN, languages=Languages(translate=translate))
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        client = Client(server, http)
        html = http.get(client.path(client.open(Order)), headers={"Accept-Language": "de"}).text
    assert '<h1 id="page-message" dir="auto">Bitte antworten</h1>' in html
    assert '<legend dir="auto">Adresse <span class="req"' in html


class Scan(BaseModel):
    scan: Annotated[UploadedFile, FileLimits(max_bytes=1_500_000, media_types=("application/pdf",))]
    name: Annotated[str, Field(min_length=3)]


def test_sizes_and_counts_are_written_as_the_language_writes_them(client: Client):
    page = client.open(Scan)
    german = {"Accept-Language": "de"}
    html = client.http.get(client.path(page), headers=german).text
    assert "1,5 MB" in html  # German's decimal comma
    english = client.http.get(client.path(client.open(Scan))).text
    assert "1.5 MB" in english


class Name(BaseModel):
    name: Annotated[str, Field(min_length=3)]


def test_a_servers_words_still_reword_its_english_pages_and_only_those():
    server = MCPServer("reworded")
    serve_pages(server, ORIGIN, words={"required": "This one is needed"})
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        client = Client(server, http)
        english = client.submit(client.open(Name), {"name": ""})
        http.headers["Accept-Language"] = "de"
        german = client.submit(client.open(Name), {"name": ""})
    assert english.status_code == german.status_code == 422
    assert "This one is needed" in english.text
    assert "This one is needed" not in german.text
    assert words_for("de")["required"] in german.text


def test_words_and_languages_together_are_refused_with_where_the_words_go():
    with pytest.raises(PageSetupError, match=r"Languages\(words="):
        serve_pages(MCPServer("both"), ORIGIN, words={"required": "Needed"}, languages=Languages())


def test_a_page_question_opens_its_page_with_the_locale_its_call_gave():
    from typed_elicit._calls.page_question import PageQuestion

    seen: dict[str, object] = {}

    class Host:
        async def open(self, *args: object, locale: str | None = None) -> None:
            seen["locale"] = locale

    record = PageRecord(id="a" * 43, expires_at=0.0, elicitation_id="e", request="r")
    question = PageQuestion("q0", "m", Order, page_reduced(Order), record, cast("Any", Host()), locale="de")

    async def main() -> None:
        with anyio.fail_after(BOUND):
            await question.open("link_bank")

    anyio.run(main)
    assert seen == {"locale": "de"}


@form(page=True)
class Arrival(BaseModel):
    postcode: str = Field(pattern=r"^\d{5}$")
    day: date = Field(gt=date(2026, 1, 1), le=date(2026, 12, 31), description="Ihr Ankunftstag")
    budget: float = Field(gt=0.5, lt=1000.25)


def test_a_german_page_tells_the_automatic_hints_in_german(client: Client):
    """The hints the reducer adds at class definition (a pattern, date and float bounds) follow the page."""
    html = client.http.get(client.path(client.open(Arrival)), headers={"Accept-Language": "de"}).text
    shown = visible(html)
    assert "Muss aus 5 Ziffern bestehen." in shown
    assert "Ihr Ankunftstag. Muss nach dem 2026-01-01 und am oder vor dem 2026-12-31 sein." in shown
    assert "Muss größer als 0,5 und kleiner als 1.000,25 sein." in shown
    assert english_left(shown, "de") == []
    english = visible(client.http.get(client.path(client.open(Arrival))).text)
    assert "Must be 5 digits." in english  # the check can fail: an English page says it in English
