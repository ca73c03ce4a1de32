"""examples/pick_file.py and split_bill.py on every era: offers shaped per call, side effects listed once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_types import ElicitRequestFormParams, ElicitResult, TextContent

from tests.calls.test_context_examples import example
from tests.conftest import BOUND
from typed_elicit.testing import ScriptedUser, accept, decline, send_raw

pytestmark = pytest.mark.anyio


@pytest.fixture(params=("2025-11-25", "2026-07-28"))
def modern_era(request: pytest.FixtureRequest) -> str:
    """Each era with multi-select and non-boolean defaults."""
    return str(request.param)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    (tmp_path / "c.md").write_text("not offered\n")
    return tmp_path


async def open_file(connect: Any, era: str, folder: Path, *replies: Any) -> tuple[str, list[Any]]:
    module = example("pick_file")
    module.LISTINGS.clear()
    scripted = ScriptedUser(*replies)
    async with connect(module.server, era, scripted) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("open_file", {"directory": str(folder)})
    assert not result.is_error
    assert isinstance(result.content[0], TextContent)
    assert [str(folder)] == module.LISTINGS  # listed once per call, also when the body re-runs
    return result.content[0].text, scripted.questions


async def test_the_matching_files_are_offered_by_name_and_the_chosen_one_is_read(connect, era, folder):
    text, asked = await open_file(connect, era, folder, accept(path=str(folder / "b.txt")))
    assert text == "b.txt: beta"
    prop = asked[0].requested_schema["properties"]["path"]
    paths = [str(folder / "a.txt"), str(folder / "b.txt")]
    if era == "2025-06-18":
        assert (prop["enum"], prop["enumNames"]) == (paths, ["a.txt", "b.txt"])
    else:
        assert prop["oneOf"] == [{"const": p, "title": Path(p).name} for p in paths]


async def test_a_file_that_was_not_offered_cannot_be_opened(connect, era, folder):
    text, asked = await open_file(
        connect,
        era,
        folder,
        send_raw({"path": str(folder / "c.md")}),
        send_raw({"path": str(folder / "a.txt")}),
    )
    assert text == "a.txt: alpha"
    assert "path: is not one of the offered options" in asked[1].message


async def test_a_file_created_during_the_question_does_not_change_the_offer(connect, era, folder):
    async def create_then_answer(params: ElicitRequestFormParams) -> ElicitResult:
        (folder / "new.txt").write_text("late\n")  # the re-run (2026-07-28) must not list again
        return accept(path=str(folder / "a.txt"))

    text, _ = await open_file(connect, era, folder, create_then_answer)
    assert text == "a.txt: alpha"


async def test_an_empty_directory_asks_nothing(connect, era, tmp_path):
    module = example("pick_file")
    scripted = ScriptedUser()
    async with connect(module.server, era, scripted) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("open_file", {"directory": str(tmp_path)})
    assert isinstance(result.content[0], TextContent)
    assert result.content[0].text == f"No file in {tmp_path} matches *.txt"
    assert scripted.questions == []


async def test_declining_opens_nothing(connect, era, folder):
    text, _ = await open_file(connect, era, folder, decline())
    assert text == "Nothing opened"


async def test_split_bill_prefills_the_computed_share_and_offers_the_friends(connect, era):
    module = example("split_bill")
    scripted = ScriptedUser(accept(friends=["bo", "cy"], round_up=True))
    async with connect(module.server, era, scripted) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("split_bill", {"total": 3050})
    assert isinstance(result.content[0], TextContent)
    if era == "2025-06-18":  # no multi-select, no non-bool defaults: refused before asking
        assert result.is_error
        assert "multi-select fields need protocol 2025-11-25" in result.content[0].text
        return
    assert (result.is_error, result.content[0].text) == (False, "Bo, Cy pay 1600 each")
    properties = scripted.questions[0].requested_schema["properties"]
    assert properties["share"]["default"] == 1525
    assert properties["friends"]["default"] == ["ann"]
    assert properties["friends"]["items"]["anyOf"][1] == {"const": "bo", "title": "Bo"}
    # multiple_of cannot travel: it is told in words after the field's own description
    assert properties["share"]["description"] == "Each person's share, in cents. Must be a multiple of 5."


@pytest.mark.parametrize(("total", "half"), [(0, 5), (3, 5), (3002, 1500), (3050, 1525)])
async def test_split_bill_suggests_a_share_its_field_accepts_for_any_total(connect, modern_era, total, half):
    module = example("split_bill")
    scripted = ScriptedUser(accept(friends=["ann"]))
    async with connect(module.server, modern_era, scripted) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("split_bill", {"total": total})
    assert isinstance(result.content[0], TextContent)
    assert (result.is_error, result.content[0].text) == (False, f"Ann pay {half} each")
