"""Questions shaped at call time (issue 13): options, titles, defaults and re-ask pre-fill, on every era."""

from __future__ import annotations

import json
from typing import Annotated, Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import ElicitRequestFormParams, ElicitResult, TextContent
from pydantic import BaseModel, Field

import typed_elicit._forms.reduce as reducer_module
from tests.conftest import BOUND
from tests.counting import CountingMapping, CountingSequence
from typed_elicit import Accepted, Choices, ElicitContext, elicits
from typed_elicit._forms.registry import known
from typed_elicit.testing import ScriptedUser, accept, decline, send_raw

pytestmark = pytest.mark.anyio


@pytest.fixture(params=("2025-11-25", "2026-07-28"))
def modern_era(request: pytest.FixtureRequest) -> str:
    """Each era with multi-select and non-boolean defaults."""
    return str(request.param)


class PickAccount(BaseModel):
    """Which account?"""

    account: Annotated[str, Choices()]


class Charge(BaseModel):
    account: Annotated[str, Choices()]
    amount: int = Field(ge=1, le=1000)
    note: str = Field(default="", max_length=20)


class Tags(BaseModel):
    tags: Annotated[list[str], Choices(), Field(min_length=1, max_length=2)]


class Confirm(BaseModel):
    confirm: bool


OFFERED: dict[str, Any] = {"options": ["acc-1", "acc-2"]}
"""What the `pick` tool offers; a test may change it between rounds."""


def build() -> MCPServer:
    server = MCPServer("call-time")

    @server.tool()
    @elicits
    async def pick(ctx: ElicitContext) -> str:
        result = await ctx.elicit(PickAccount, options={"account": OFFERED["options"]}, retries=1)
        return result.data.account if isinstance(result, Accepted) else type(result).__name__

    @server.tool()
    @elicits
    async def charge(ctx: ElicitContext) -> str:
        result = await ctx.elicit(
            Charge,
            "Charge which account?",
            options={"account": {"acc-1": "Checking", "acc-2": "Savings"}},
            defaults={"account": "acc-2", "amount": 40},
            retries=1,
        )
        return result.data.model_dump_json() if isinstance(result, Accepted) else type(result).__name__

    @server.tool()
    @elicits
    async def tag(ctx: ElicitContext) -> str:
        result = await ctx.elicit(Tags, "Tags?", options={"tags": ["a", "b", "c"]}, defaults={"tags": ["b"]})
        return ",".join(result.data.tags) if isinstance(result, Accepted) else type(result).__name__

    @server.tool()
    @elicits
    async def confirm(ctx: ElicitContext) -> str:
        result = await ctx.elicit(Confirm, "Sure?", defaults={"confirm": True})
        return str(result.data.confirm) if isinstance(result, Accepted) else type(result).__name__

    @server.tool()
    @elicits
    async def unoptioned(ctx: ElicitContext) -> str:
        await ctx.elicit(PickAccount)
        return "asked"

    return server


server = build()


async def call(client: Any, name: str) -> tuple[bool, str]:
    with anyio.fail_after(BOUND):
        result = await client.call_tool(name, {})
    block = result.content[0]
    assert isinstance(block, TextContent)
    return bool(result.is_error), block.text


@pytest.fixture(autouse=True)
def reset_offer() -> None:
    OFFERED["options"] = ["acc-1", "acc-2"]


async def test_a_choices_field_offers_exactly_the_options_given_on_every_era(connect, era):
    scripted = ScriptedUser(accept(account="acc-2"))
    async with connect(server, era, scripted) as client:
        assert await call(client, "pick") == (False, "acc-2")
    assert scripted.questions[0].requested_schema == {
        "type": "object",
        "properties": {"account": {"type": "string", "enum": ["acc-1", "acc-2"]}},
        "required": ["account"],
    }
    assert scripted.questions[0].message == "Which account?"


async def test_an_answer_outside_the_offered_options_is_asked_again_naming_only_that_field(connect, era):
    scripted = ScriptedUser(send_raw({"account": "acc-3"}), send_raw({"account": "acc-1"}))
    async with connect(server, era, scripted) as client:
        assert await call(client, "pick") == (False, "acc-1")
    again = scripted.questions[1].message
    assert "account: is not one of the offered options" in again
    assert "acc-3" not in again


async def test_an_answer_outside_the_offered_options_is_refused_when_retries_run_out(connect, era):
    scripted = ScriptedUser(send_raw({"account": "x"}), send_raw({"account": "y"}))
    async with connect(server, era, scripted) as client:
        is_error, text = await call(client, "pick")
    assert is_error
    assert "is not one of the offered options" in text
    assert "'x'" not in text
    assert "'y'" not in text


async def test_titled_options_and_defaults_travel_in_the_shape_of_each_era(connect, era):
    scripted = ScriptedUser(accept(account="acc-1", amount=7))
    async with connect(server, era, scripted) as client:
        is_error, text = await call(client, "charge")
    if era == "2025-06-18":  # no defaults but booleans on the wire: refused before anything is sent
        assert is_error
        assert "Charge.account: protocol 2025-06-18 carries defaults for yes/no fields only" in text
        assert "Charge.amount:" in text
        assert scripted.questions == []
        return
    assert (is_error, json.loads(text)) == (False, {"account": "acc-1", "amount": 7, "note": ""})
    assert scripted.questions[0].requested_schema["properties"]["account"] == {
        "type": "string",
        "oneOf": [{"const": "acc-1", "title": "Checking"}, {"const": "acc-2", "title": "Savings"}],
        "default": "acc-2",
    }
    assert scripted.questions[0].requested_schema["properties"]["amount"]["default"] == 40
    assert "required" not in scripted.questions[0].requested_schema  # every field has a default now


async def test_a_left_out_field_gets_its_call_time_default(connect, modern_era):
    scripted = ScriptedUser(accept())  # the raw accept leaves every field out
    async with connect(server, modern_era, scripted) as client:
        assert await call(client, "charge") == (False, '{"account":"acc-2","amount":40,"note":""}')


async def test_a_bool_default_travels_on_every_era(connect, era):
    scripted = ScriptedUser(accept())
    async with connect(server, era, scripted) as client:
        assert await call(client, "confirm") == (False, "True")
    assert scripted.questions[0].requested_schema["properties"]["confirm"] == {
        "type": "boolean",
        "default": True,
    }


async def test_multi_select_with_call_time_options_keeps_its_item_bounds(connect, era):
    scripted = ScriptedUser(accept(tags=["a", "c"]))
    async with connect(server, era, scripted) as client:
        is_error, text = await call(client, "tag")
    if era == "2025-06-18":
        assert is_error
        assert "multi-select fields need protocol 2025-11-25" in text
        return
    assert (is_error, text) == (False, "a,c")
    assert scripted.questions[0].requested_schema["properties"]["tags"] == {
        "type": "array",
        "items": {"type": "string", "enum": ["a", "b", "c"]},
        "minItems": 1,
        "maxItems": 2,
        "default": ["b"],
    }


@pytest.mark.parametrize(
    ("tags", "problem"),
    [(["a", "z"], "holds an option that was not offered"), (["a", "b", "c"], "at most 2 items")],
)
async def test_a_multi_select_answer_outside_the_offer_or_its_bounds_is_refused(
    connect, modern_era, tags, problem
):
    scripted = ScriptedUser(send_raw({"tags": tags}))
    async with connect(server, modern_era, scripted) as client:
        is_error, text = await call(client, "tag")
    assert is_error
    assert problem in text


async def test_a_choices_field_asked_without_options_fails_before_anything_is_sent(connect, era):
    scripted = ScriptedUser()
    async with connect(server, era, scripted) as client:
        is_error, text = await call(client, "unoptioned")
    assert is_error
    assert "PickAccount.account: is a Choices() field, so each question must offer its options" in text
    assert scripted.questions == []


async def test_a_replay_offering_other_options_is_a_replay_mismatch():
    from typed_elicit import testing as kit

    async def answer_then_change(params: ElicitRequestFormParams) -> ElicitResult:
        OFFERED["options"] = ["acc-1", "acc-9"]  # what the tool will offer when it runs again
        return ElicitResult(action="accept", content={"account": "acc-1"})

    scripted = ScriptedUser(answer_then_change)
    async with kit.connect(server, "2026-07-28", elicitation_callback=scripted) as client:
        is_error, text = await call(client, "pick")
    assert is_error
    assert text.startswith("Error executing tool pick: ReplayMismatch: question #1 of this call was")


async def test_a_replay_offering_the_same_options_takes_the_answer():
    from typed_elicit import testing as kit

    scripted = ScriptedUser(accept(account="acc-1"))
    async with kit.connect(server, "2026-07-28", elicitation_callback=scripted) as client:
        assert await call(client, "pick") == (False, "acc-1")


async def test_a_reask_prefills_the_fields_that_were_valid(connect, era):
    scripted = ScriptedUser(
        send_raw({"account": "acc-1", "amount": 5000, "note": "hello"}),
        send_raw({"account": "acc-1", "amount": 5}),
    )
    async with connect(server, era, scripted) as client:
        is_error, text = await call(client, "charge")
    if era == "2025-06-18":
        assert is_error  # its non-bool defaults cannot travel (see the test above)
        return
    assert (is_error, json.loads(text)) == (False, {"account": "acc-1", "amount": 5, "note": ""})
    first, again = (q.requested_schema["properties"] for q in scripted.questions)
    assert first["note"].get("default") == ""
    assert again["account"]["default"] == "acc-1"  # valid: pre-filled with what the user chose
    assert again["note"]["default"] == "hello"
    assert again["amount"]["default"] == 40  # invalid: keeps the question's own default
    message = scripted.questions[1].message
    assert "amount:" in message
    assert "account:" not in message
    assert "note:" not in message


async def test_a_reask_prefills_booleans_on_every_era(connect, era):
    class Pair(BaseModel):
        ok: bool
        count: int = Field(ge=0)

    pair_server = MCPServer("pair")

    @pair_server.tool()
    @elicits
    async def ask(ctx: ElicitContext) -> str:
        result = await ctx.elicit(Pair, "Pair?", retries=1)
        return result.data.model_dump_json() if isinstance(result, Accepted) else "no"

    scripted = ScriptedUser(send_raw({"ok": False, "count": -1}), send_raw({"ok": False, "count": 2}))
    async with connect(pair_server, era, scripted) as client:
        assert await call(client, "ask") == (False, '{"ok":false,"count":2}')
    again = scripted.questions[1].requested_schema
    assert again["properties"]["ok"] == {"type": "boolean", "default": False}
    assert again["properties"]["count"].get("default") is None
    assert again["required"] == ["ok", "count"]  # a pre-fill shows; it never fills in on arrival


async def test_a_reask_prefills_a_multi_select_choice_of_several_offered_options(connect, modern_era):
    class Picks(BaseModel):
        tags: Annotated[list[str], Choices(), Field(min_length=1)]
        count: int = Field(ge=0)

    picks_server = MCPServer("picks")

    @picks_server.tool()
    @elicits
    async def ask(ctx: ElicitContext) -> str:
        result = await ctx.elicit(Picks, "Picks?", options={"tags": ["a", "b", "c"]}, retries=1)
        return result.data.model_dump_json() if isinstance(result, Accepted) else "no"

    scripted = ScriptedUser(
        send_raw({"tags": ["a", "c"], "count": -1}), send_raw({"tags": ["a", "c"], "count": 2})
    )
    async with connect(picks_server, modern_era, scripted) as client:
        assert await call(client, "ask") == (False, '{"tags":["a","c"],"count":2}')
    assert scripted.questions[1].requested_schema["properties"]["tags"]["default"] == ["a", "c"]


async def test_a_reask_after_a_problem_across_fields_prefills_nothing(connect, modern_era):
    scripted = ScriptedUser(send_raw({"account": "acc-1", "amount": 5, "zzz": 1}), decline())
    async with connect(server, modern_era, scripted) as client:
        assert await call(client, "charge") == (False, "Declined")
    assert scripted.questions[1].requested_schema == scripted.questions[0].requested_schema


async def test_no_per_question_record_is_kept():
    first = reducer_module.shaped(PickAccount, "2026-07-28", options={"account": ["a"]})
    second = reducer_module.shaped(PickAccount, "2026-07-28", options={"account": ["a"]})
    assert first is not second
    assert first.digest == second.digest
    entry = known(PickAccount)
    assert entry is None or not entry.records  # no per-revision record, nor one per question
    other = reducer_module.shaped(PickAccount, "2026-07-28", options={"account": ["b"]})
    assert other.digest != first.digest
    titled = reducer_module.shaped(PickAccount, "2026-07-28", options={"account": {"a": "A"}})
    assert titled.digest != first.digest
    defaulted = reducer_module.shaped(
        PickAccount, "2026-07-28", options={"account": ["a"]}, defaults={"account": "a"}
    )
    assert defaulted.digest != first.digest


async def test_an_elicit_decline_is_unaffected_by_options(connect, era):
    async with connect(server, era, ScriptedUser(decline())) as client:
        assert await call(client, "pick") == (False, "Declined")


async def test_elicits_listing_a_choices_model_checks_it_at_import_and_refuses_old_eras_before_the_body(
    connect, era
):
    listed = MCPServer("listed")
    ran: list[str] = []

    @listed.tool()
    @elicits(PickAccount, Tags)
    async def both(ctx: ElicitContext) -> str:
        ran.append(era)
        first = await ctx.elicit(PickAccount, options={"account": ["a"]})
        second = await ctx.elicit(Tags, options={"tags": ["t"]})
        assert isinstance(first, Accepted)
        assert isinstance(second, Accepted)
        return first.data.account + second.data.tags[0]

    scripted = ScriptedUser(accept(account="a"), accept(tags=["t"]))
    async with connect(listed, era, scripted) as client:
        is_error, text = await call(client, "both")
    if era == "2025-06-18":
        assert is_error
        assert "Tags.tags: multi-select fields need protocol 2025-11-25" in text
        assert ran == []
    else:
        assert (is_error, text) == (False, "at")


async def test_the_defaults_policy_takes_the_questions_own_defaults_when_the_client_cannot_be_asked(
    connect, era
):
    quiet = MCPServer("quiet")

    @quiet.tool()
    @elicits(on_unsupported="defaults")
    async def ask(ctx: ElicitContext) -> str:
        result = await ctx.elicit(Confirm, "Sure?", defaults={"confirm": True})
        return str(result.data.confirm) if isinstance(result, Accepted) else type(result).__name__

    async with connect(quiet, era) as client:  # no elicitation capability
        assert await call(client, "ask") == (False, "True")


async def test_the_fallback_relays_the_offered_options_and_checks_the_answer_against_them(connect, era):
    from typed_elicit import install_fallback
    from typed_elicit.fallback._companion import META_KEY

    relayed = MCPServer("relayed")
    install_fallback(relayed)

    @relayed.tool()
    @elicits(on_unsupported="fallback")
    async def pick(ctx: ElicitContext) -> str:
        result = await ctx.elicit(PickAccount, options={"account": {"acc-1": "Checking"}}, retries=1)
        return result.data.account if isinstance(result, Accepted) else type(result).__name__

    async with connect(relayed, era) as client:  # no elicitation capability: asked through the model
        with anyio.fail_after(BOUND):
            first = await client.call_tool("pick", {})
            token = first.meta[META_KEY]["token"]
            assert '- account: one of: "acc-1" (Checking), required' in first.content[0].text
            wrong = await client.call_tool(
                "send_elicitation_result", {"token": token, "action": "accept", "content": {"account": "x"}}
            )
            assert "account: is not one of the offered options" in wrong.content[0].text
            token = wrong.meta[META_KEY]["token"]
            done = await client.call_tool(
                "send_elicitation_result",
                {"token": token, "action": "accept", "content": {"account": "acc-1"}},
            )
    assert (done.is_error, done.content[0].text) == (False, "acc-1")


async def test_hooks_see_the_questions_own_schema_on_a_reask_never_the_prefilled_answer(connect, era):
    from typed_elicit.hooks import QuestionEvent

    seen: list[QuestionEvent] = []

    class Watch:
        async def on_question(self, event: QuestionEvent) -> None:
            seen.append(event)

        async def on_answer(self, event: Any) -> None:
            return None

    class Named(BaseModel):
        name: str = Field(max_length=10)
        ok: bool

    watched = MCPServer("watched")

    @watched.tool()
    @elicits(hooks=[Watch()], retries=1)
    async def ask(ctx: ElicitContext) -> str:
        result = await ctx.elicit(Named, "Name?")
        return result.data.name if isinstance(result, Accepted) else "no"

    scripted = ScriptedUser(
        send_raw({"name": "Secretive", "ok": "nope"}), send_raw({"name": "Secretive", "ok": True})
    )
    async with connect(watched, era, scripted) as client:
        assert await call(client, "ask") == (False, "Secretive")
    if era != "2025-06-18":
        assert scripted.questions[1].requested_schema["properties"]["name"]["default"] == "Secretive"
    assert seen
    assert all("Secretive" not in json.dumps(event.schema) for event in seen)


def build_all() -> MCPServer:
    both = MCPServer("both")

    @both.tool()
    @elicits
    async def ask_both(ctx: ElicitContext, bad: bool = False) -> str:
        account, confirm = await ctx.elicit_all(
            PickAccount,
            Confirm,
            options={PickAccount: {"account": [] if bad else ["acc-1", "acc-2"]}},
            defaults={Confirm: {"confirm": True}},
        )
        assert isinstance(account, Accepted)
        assert isinstance(confirm, Accepted)
        return f"{account.data.account} {confirm.data.confirm}"

    @both.tool()
    @elicits
    async def stray(ctx: ElicitContext) -> str:
        await ctx.elicit_all(Confirm, options={PickAccount: {"account": ["a"]}})
        return "asked"

    return both


async def test_elicit_all_shapes_each_question_with_its_models_options_and_defaults(connect, era):
    scripted = ScriptedUser(accept(account="acc-2"), accept())
    async with connect(build_all(), era, scripted) as client:
        assert await call(client, "ask_both") == (False, "acc-2 True")
    schemas = {tuple(q.requested_schema["properties"]): q.requested_schema for q in scripted.questions}
    assert schemas[("account",)]["properties"]["account"]["enum"] == ["acc-1", "acc-2"]
    assert schemas[("confirm",)]["properties"]["confirm"] == {"type": "boolean", "default": True}


async def test_elicit_all_checks_every_questions_shape_before_sending_any(connect, era):
    scripted = ScriptedUser()
    async with connect(build_all(), era, scripted) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("ask_both", {"bad": True})
            stray = await client.call_tool("stray", {})
    assert result.is_error
    assert "PickAccount.account: offers no options" in result.content[0].text
    assert stray.is_error  # a ValueError, whose message the SDK keeps to the server's log
    assert scripted.questions == []


# --- limits checked first: a hostile offer is refused with work bounded by the limit ----------

HOSTILE: dict[str, Any] = {}
"""What the `hostile` tools offer; each test puts a counting container here (tests/counting.py)."""


def build_hostile() -> MCPServer:
    hostile = MCPServer("hostile-offers")

    @hostile.tool()
    @elicits
    async def offer(ctx: ElicitContext) -> str:
        await ctx.elicit(PickAccount, options={"account": HOSTILE["offer"]})
        return "asked"

    @hostile.tool()
    @elicits
    async def offer_all(ctx: ElicitContext) -> str:
        await ctx.elicit_all(Confirm, PickAccount, options={PickAccount: {"account": HOSTILE["offer"]}})
        return "asked"

    return hostile


@pytest.mark.parametrize(
    ("offer", "problem"),
    [
        (lambda: CountingSequence(10**6), "offers 1000000 options, more than the 1000 clients accept"),
        (lambda: CountingMapping(10**6), "offers 1000000 options, more than the 1000 clients accept"),
        (
            lambda: CountingMapping(1_000, title="t" * 100_000),
            "titles an option with 100003 characters, more than 1000",
        ),
    ],
    ids=["million-values", "million-titled", "huge-titles"],
)
@pytest.mark.parametrize("tool", ["offer", "offer_all"])
async def test_a_hostile_offer_fails_before_anything_is_sent_having_read_a_bounded_part(
    connect, era, offer, problem, tool
):
    HOSTILE["offer"] = given = offer()
    scripted = ScriptedUser()
    async with connect(build_hostile(), era, scripted) as client:
        is_error, text = await call(client, tool)
    assert is_error
    assert f"PickAccount.account: {problem}" in text
    assert scripted.questions == []
    assert given.read <= 2  # elicit_all checks every question's shape, then asks: two reads at most
