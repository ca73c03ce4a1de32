"""The views of a page form with groups: one `NodeView` per node, leaves made by the shared `field_view`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field, SecretStr
from starlette.testclient import TestClient

from tests.pages.test_serve import ORIGIN, Client
from typed_elicit import form
from typed_elicit._forms.page.files import FileLimits, UploadedFile
from typed_elicit._forms.page.tree import page_tree
from typed_elicit._views.words import PAGE_WORDS
from typed_elicit.pages import serve_pages
from typed_elicit.pages._nodes import NodeView, is_on, rows_shown, tree_views


class Part(BaseModel):
    name: str
    token: SecretStr


class Red(BaseModel):
    kind: Literal["red"]
    shade: int = 1


class Blue(BaseModel):
    kind: Literal["blue"]
    depth: str


class Kit(BaseModel):
    title: str = "Kit"
    parts: list[Part] = Field(default_factory=list[Part], min_length=1, max_length=3)
    colour: Annotated[Red | Blue, Field(discriminator="kind")] | None = None
    tags: dict[str, str] = Field(default_factory=dict[str, str])
    photo: Annotated[UploadedFile, FileLimits(max_bytes=2_000, media_types=("image/png",))]


TREE = page_tree(Kit)


def flat(nodes: list[NodeView]) -> list[NodeView]:
    out: list[NodeView] = []
    for node in nodes:
        out.append(node)
        out.extend(flat(node.children))
        for row in node.rows:
            out.extend(flat(row.children))
    return out


def test_a_first_show_has_the_rows_a_list_needs_and_leaves_named_by_dotted_paths():
    nodes = tree_views(TREE, {}, {}, PAGE_WORDS)
    by_path = {n.path: n for n in flat(nodes)}
    assert by_path["parts"].count == 1
    assert by_path["parts"].can_add
    assert {"title", "parts.0.name", "parts.0.token", "colour.shade", "photo"} <= set(by_path)
    field = by_path["parts.0.name"].field
    assert field is not None
    assert field.name == "parts.0.name"
    assert by_path["parts.0.token"].field is not None
    assert by_path["parts.0.token"].field.input == "password"
    assert by_path["title"].field is not None
    assert by_path["title"].field.value == "Kit"
    ids = [n.id for n in flat(nodes)]
    assert len(ids) == len(set(ids))


def test_values_choose_the_rows_the_union_member_and_the_optional_box():
    values = {"parts._n": ["3"], "colour._on": ["true"], "colour.kind": ["blue"], "parts.2.name": ["c"]}
    nodes = tree_views(TREE, values, {"parts.2.name": "Fill this in"}, PAGE_WORDS)
    by_path = {n.path: n for n in flat(nodes)}
    assert by_path["parts"].count == 3
    assert not by_path["parts"].can_add
    assert by_path["colour"].on
    assert "colour.depth" in by_path
    assert "colour.shade" not in by_path
    assert by_path["parts.2.name"].error == "Fill this in"


def test_a_row_count_is_clamped_to_the_list_and_a_box_reads_as_a_checkbox():
    parts = TREE.root.by_key["parts"]
    assert rows_shown(parts, "parts", {"parts._n": ["99999"]}) == 3
    assert rows_shown(parts, "parts", {"parts._n": ["-1"]}) == 1
    assert rows_shown(parts, "parts", {}) == 1
    assert is_on("colour", {"colour._on": ["on"]})
    assert not is_on("colour", {"colour._on": ["maybe"]})


def test_a_file_input_tells_its_limit_and_on_a_re_show_to_choose_the_file_again():
    first = {n.path: n for n in flat(tree_views(TREE, {}, {}, PAGE_WORDS))}["photo"]
    assert first.accept == "image/png"
    assert first.hint == "Files up to 2 KB."
    again = {n.path: n for n in flat(tree_views(TREE, {}, {}, PAGE_WORDS, files_again=True))}["photo"]
    assert again.hint is not None
    assert "Choose the file again" in again.hint


def test_each_row_of_a_list_has_a_heading_with_its_number_and_required_lists_their_mark() -> None:
    from typed_elicit.pages._nodes import node_html

    nodes = tree_views(TREE, {"parts._n": ["2"]}, {}, PAGE_WORDS)
    parts = next(n for n in nodes if n.path == "parts")
    assert [row.heading for row in parts.rows] == [
        "Part 1",
        "Part 2",
    ]  # the item's noun, not the list's label
    html = node_html(parts, None)
    assert '<h2 class="row-title" id="' in html
    assert ">Part 2</h2>" in html
    assert '<legend dir="auto">parts <span class="req" aria-hidden="true">*</span></legend>' in html


def test_a_row_is_headed_by_the_items_noun_in_the_catalogs_words_and_a_plain_list_by_its_label() -> None:
    from pydantic import ConfigDict

    from typed_elicit._views.i18n import Languages

    class PhoneNumber(BaseModel):
        number: str

    class Guest(BaseModel):
        model_config = ConfigDict(title="Guest")
        name: str

    class Booking(BaseModel):
        phones: list[PhoneNumber] = Field(min_length=1)
        guests: list[Guest] = Field(min_length=1)
        notes: list[str] = Field(min_length=1, title="Notes")

    words = Languages().words("ja")
    nodes = {n.path: n for n in tree_views(page_tree(Booking), {}, {}, words)}
    headings = [nodes[path].rows[0].heading for path in ("phones", "guests", "notes")]
    assert headings == [
        words.say("item", label="Phone number", number=1),
        words.say("item", label="Guest", number=1),
        words.say("item", label="Notes", number=1),
    ]


@pytest.fixture(params=["built-in", "own-template"])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Client]:
    """The page's own renderer (blank views shared), and a server's own template (every field made)."""
    server = MCPServer("nodes-test")
    if request.param == "built-in":
        serve_pages(server, ORIGIN)
    else:
        (tmp_path / "mine.html").write_text("{{ body }}")
        serve_pages(server, ORIGIN, templates_dir=tmp_path, template="mine.html")
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        yield Client(server, http)


@form(page=True)
class Delivery(BaseModel):
    where: str = Field(json_schema_extra={"autocomplete": "shipping postal-code"})
    postcode: str
    code: SecretStr = Field(json_schema_extra={"autocomplete": "one-time-code"})


class Recipient(BaseModel):
    mail: str = Field(json_schema_extra={"autocomplete": "work email"})


@form(page=True)
class Gift(BaseModel):
    where: str = Field(json_schema_extra={"autocomplete": "shipping postal-code"})
    recipients: list[Recipient] = Field(min_length=1)


def autocompletes(html: str) -> dict[str, str]:
    found = re.findall(r'<input type="[a-z]+" id="f\d+" name="([^"]+)"[^>]* autocomplete="([^"]+)"', html)
    return dict(found)


def test_a_declared_token_shows_on_a_flat_page_and_on_a_page_with_groups(client: Client) -> None:
    flat_page = client.http.get(client.path(client.open(Delivery))).text
    assert autocompletes(flat_page) == {
        "where": "shipping postal-code",  # declared, though its name implies nothing
        "postcode": "postal-code",  # inferred from its name
        "code": "one-time-code",
    }
    ticket = client.open(Gift)
    grouped = client.http.get(client.path(ticket)).text
    assert autocompletes(grouped) == {"where": "shipping postal-code", "recipients.0.mail": "work email"}
    again = client.submit(ticket, {"recipients._n": "2", "where": "75001"}, action="add:recipients")
    assert autocompletes(again.text)["recipients.1.mail"] == "work email"


class Household(BaseModel):
    country: Literal["fr", "de"] = Field(json_schema_extra={"autocomplete": "shipping country"})


@form(page=True)
class Move(BaseModel):
    """Every place a declared token shows: a flat field, a secret, a list, a group's rows."""

    where: str = Field(json_schema_extra={"autocomplete": "shipping postal-code"})
    code: SecretStr = Field(json_schema_extra={"autocomplete": "one-time-code"})
    recipients: list[Recipient] = Field(min_length=2)
    homes: list[Household] = Field(min_length=1)


@pytest.mark.anyio
@pytest.mark.browser
@pytest.mark.slow
async def test_axe_reports_no_violation_on_a_page_of_declared_tokens() -> None:
    from tests.axe import CHROMIUM, axe_source, browser_or_skip, violations
    from tests.pages.test_pages_browser import serving
    from typed_elicit._calls.plugs import host_for
    from typed_elicit._forms.reduce import page_reduced
    from typed_elicit.pages._host import Pages

    async_playwright = browser_or_skip()
    servers: list[MCPServer] = []

    def build(origin: str) -> MCPServer:
        servers.append(MCPServer("tokens"))
        serve_pages(servers[0], origin)
        return servers[0]

    async with serving(build), async_playwright() as playwright:
        host = host_for(servers[0])
        assert isinstance(host, Pages)
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            with anyio.fail_after(30):
                ticket = host.mint("move", "move:req-1", 600)
                await host.open(ticket, Move, "Please answer", "move", None, page_reduced(Move))
                page = await launched.new_page()
                await page.goto(host.url(ticket))
                shown = await page.locator("[autocomplete]").evaluate_all(
                    "nodes => nodes.map(n => n.getAttribute('autocomplete'))"
                )
                found = await violations(page, axe_source())
        finally:
            await launched.close()
    assert shown == [
        "shipping postal-code",
        "one-time-code",
        "work email",
        "work email",
        "shipping country",
    ]
    assert found == []  # the instrument can fail: tests/pages/test_render_accessibility.py shows it
