"""`ctx.elicit_url`: URL-mode questions on every protocol era, in memory."""

from __future__ import annotations

import importlib
import sys
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import mcp.client.session as client_session
import pytest
from mcp import Client
from mcp.client._memory import InMemoryTransport
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    ElicitationCapability,
    ElicitCompleteNotification,
    ElicitRequestURLParams,
    ElicitResult,
    FormElicitationCapability,
    InputRequiredResult,
    TextContent,
)
from pydantic import BaseModel
from starlette.requests import Request

import typed_elicit._calls.policy as policy_module
import typed_elicit._core.clock as clock_module
from tests.conftest import BOUND, ERAS
from typed_elicit import Accepted, Cancelled, Consented, Declined, ElicitContext, UrlResult, elicits
from typed_elicit.client import PinnedHandshake
from typed_elicit.errors import ElicitArgumentError
from typed_elicit.testing import ScriptedUser, accept, cancel, decline, send_raw

pytestmark = pytest.mark.anyio

URL_ERAS = ERAS[1:]
"""The eras that have URL mode."""


class Plan(BaseModel):
    seats: int


class Confirm(BaseModel):
    confirm: bool


server = MCPServer("url-mode")
MINTED: list[str] = []
RUNS: list[int] = []


def outcome(result: UrlResult) -> str:
    match result:
        case Consented():
            return "consented"
        case Declined():
            return "declined"
        case Cancelled():
            return "cancelled"


@server.tool()
@elicits
async def visit(ctx: ElicitContext, url: str = "https://pay.example.com/checkout?order=7") -> str:
    return outcome(await ctx.elicit_url(url, "Pay for your order on our page."))


@server.tool()
@elicits
async def polite_visit(ctx: ElicitContext) -> str:
    return outcome(await ctx.elicit_url("https://pay.example.com/", "Pay?", on_unsupported="decline"))


@server.tool()
@elicits(on_unsupported="defaults")
async def defaults_visit(ctx: ElicitContext) -> str:
    return outcome(await ctx.elicit_url("https://pay.example.com/", "Pay?"))


@server.tool()
@elicits(timeout=0.2)
async def hurried_visit(ctx: ElicitContext) -> str:
    return outcome(await ctx.elicit_url("https://pay.example.com/", "Quick, pay?"))


def mint() -> str:
    token = uuid.uuid4().hex
    MINTED.append(token)
    return token


@server.tool()
@elicits
async def wizard(ctx: ElicitContext) -> str:
    """A form, then a URL carrying a once-minted token, then another form."""
    match await ctx.elicit(Plan, "How many seats?"):
        case Accepted(Plan(seats=seats)):
            pass
        case _:
            return "no plan"
    token = await ctx.once("token", mint)
    paid = await ctx.elicit_url(f"https://pay.example.com/checkout?seats={seats}&t={token}", "Pay for it.")
    match await ctx.elicit(Confirm, "Send the receipt?"):
        case Accepted(Confirm(confirm=receipt)):
            return f"{seats} seats, {outcome(paid)}, receipt={receipt}, token={token}"
        case _:
            return f"{seats} seats, {outcome(paid)}, no receipt"


@server.tool()
@elicits
async def drifting_url(ctx: ElicitContext) -> str:
    """Mints its token outside ctx.once: every round asks for another URL."""
    await ctx.elicit_url(f"https://pay.example.com/?t={uuid.uuid4().hex}", "Pay?")
    await ctx.elicit(Confirm, "Done?")
    return "done"


@server.tool()
@elicits
async def form_then_url(ctx: ElicitContext) -> str:
    """Asks a form first on round one, a URL there from round two on."""
    RUNS.append(1)
    if len(RUNS) == 1:
        await ctx.elicit(Confirm, "Sure?")
    else:
        await ctx.elicit_url("https://pay.example.com/", "Pay?")
    await ctx.elicit(Plan, "Seats?")
    return "done"


@server.tool()
@elicits
async def late_drift(ctx: ElicitContext) -> str:
    """Builds the same URL for two rounds, another one from the third round on."""
    RUNS.append(1)
    await ctx.elicit_url(f"https://pay.example.com/?v={'a' if len(RUNS) < 3 else 'b'}", "Pay?")
    await ctx.elicit(Confirm, "Done?")
    return "done"


@server.tool()
@elicits
async def completing(ctx: ElicitContext, ask: bool = True) -> str:
    if ask:
        await ctx.elicit_url("https://auth.example.com/", "Sign in.", elicitation_id="flow-1")
    return f"sent={await ctx.complete_url('flow-1')}"


def text_of(result: Any) -> str:
    assert isinstance(result.content[0], TextContent)
    return result.content[0].text


async def call(client: Client, name: str, arguments: dict[str, Any] | None = None) -> tuple[bool, str]:
    with anyio.fail_after(BOUND):
        result = await client.call_tool(name, arguments or {})
    return bool(result.is_error), text_of(result)


async def error_text(client: Client, era: str, name: str) -> str:
    """The text of the error a failing tool call ends with, whatever the era's way to report it."""
    if era == "2026-07-28":
        with pytest.raises(MCPError) as caught, anyio.fail_after(BOUND):
            await client.call_tool(name, {})
        assert caught.value.code == MISSING_REQUIRED_CLIENT_CAPABILITY
        return caught.value.message
    is_error, text = await call(client, name)
    assert is_error
    return text


@pytest.fixture
def form_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every client declare form-mode elicitation only (`elicitation: {form: {}}`)."""
    build = client_session.ClientSession._build_capabilities

    def without_url(self: client_session.ClientSession, version: str) -> Any:
        declared = build(self, version)
        if declared.elicitation is None:
            return declared
        only_form = ElicitationCapability(form=FormElicitationCapability())
        return declared.model_copy(update={"elicitation": only_form})

    monkeypatch.setattr(client_session.ClientSession, "_build_capabilities", without_url)


# --- answers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected"), [(accept(), "consented"), (decline(), "declined"), (cancel(), "cancelled")]
)
@pytest.mark.parametrize("era", URL_ERAS)
async def test_consent_decline_and_cancel_reach_the_tool_as_their_own_outcomes(
    connect, era, answer, expected
):
    user = ScriptedUser(answer)
    async with connect(server, era, user) as client:
        assert await call(client, "visit") == (False, expected)
    user.assert_done()
    (question,) = user.questions
    assert (question.mode, question.url, question.message) == (
        "url",
        "https://pay.example.com/checkout?order=7",
        "Pay for your order on our page.",
    )


async def test_2025_11_25_sends_a_fresh_uuid4_elicitation_id_per_question(connect):
    user = ScriptedUser(accept(), accept())
    async with connect(server, "2025-11-25", user) as client:
        await call(client, "visit")
        await call(client, "visit")
    ids = [q.elicitation_id for q in user.questions]
    assert all(i is not None and uuid.UUID(i).version == 4 for i in ids)
    assert ids[0] != ids[1]


async def test_2026_07_28_asks_in_an_input_required_round_without_an_elicitation_id(connect):
    async with connect(server, "2026-07-28", ScriptedUser()) as client:
        session = client.session
        with anyio.fail_after(BOUND):
            first = await session.call_tool("visit", {}, allow_input_required=True)
            assert isinstance(first, InputRequiredResult)
            assert first.input_requests is not None
            request = first.input_requests["q0"]
            wire = request.model_dump(by_alias=True, mode="json", exclude_none=True)
            assert wire == {
                "method": "elicitation/create",
                "params": {
                    "mode": "url",
                    "message": "Pay for your order on our page.",
                    "url": "https://pay.example.com/checkout?order=7",
                },
            }
            again = await session.call_tool(
                "visit", {}, request_state=first.request_state, allow_input_required=True
            )
            assert isinstance(again, InputRequiredResult)
            done = await session.call_tool(
                "visit",
                {},
                input_responses={"q0": ElicitResult(action="accept")},
                request_state=again.request_state,
            )
    assert text_of(done) == "consented"


@pytest.mark.parametrize("era", URL_ERAS)
async def test_content_sent_with_a_url_consent_is_ignored(connect, era):
    user = ScriptedUser(send_raw({"token": "leaked"}))
    async with connect(server, era, user) as client:
        assert await call(client, "visit") == (False, "consented")


# --- when the client cannot be sent to a URL ----------------------------------------------------


async def test_2025_06_18_has_no_url_mode_so_the_policy_decides(connect):
    user = ScriptedUser()
    async with connect(server, "2025-06-18", user) as client:
        is_error, text = await call(client, "visit")
        assert await call(client, "polite_visit") == (False, "declined")
    assert is_error
    assert "ElicitationUnsupported: cannot send the user to a URL" in text
    assert "the negotiated protocol 2025-06-18 has no URL mode (URL mode needs 2025-11-25 or later)" in text
    assert "on_unsupported='decline'" in text
    assert user.questions == []


@pytest.mark.parametrize("era", URL_ERAS)
async def test_a_form_only_client_is_not_sent_to_a_url(connect, era, form_only):
    user = ScriptedUser()
    async with connect(server, era, user) as client:
        text = await error_text(client, era, "visit")
        assert await call(client, "polite_visit") == (False, "declined")
    assert "the client declared form-mode elicitation only (no `elicitation.url` capability)" in text
    assert user.questions == []


async def test_a_form_only_client_on_2026_07_28_is_told_url_mode_is_required(connect, form_only):
    async with connect(server, "2026-07-28", ScriptedUser()) as client:
        with pytest.raises(MCPError) as caught, anyio.fail_after(BOUND):
            await client.call_tool("visit", {})
    assert caught.value.code == MISSING_REQUIRED_CLIENT_CAPABILITY
    assert caught.value.data == {"requiredCapabilities": {"elicitation": {"url": {}}}}


async def test_a_bare_elicitation_capability_means_form_only(connect):
    """The testing kit's pinned handshake declares `elicitation: {}`, as a form-only client does."""
    user = ScriptedUser()
    transport = PinnedHandshake(InMemoryTransport(server), "2025-11-25")
    async with Client(transport, mode="legacy", elicitation_callback=user) as client:
        assert client.protocol_version == "2025-11-25"
        is_error, text = await call(client, "visit")
    assert is_error
    assert "no `elicitation.url` capability" in text


async def test_a_client_without_elicitation_is_not_sent_to_a_url(connect, era):
    async with connect(server, era) as client:
        if era == "2025-06-18":
            assert "has no URL mode" in (await call(client, "visit"))[1]
            return
        text = await error_text(client, era, "visit")
    assert "the client did not declare the elicitation capability" in text


async def test_the_decorators_defaults_policy_counts_as_raise_for_url_questions(connect, era):
    async with connect(server, era) as client:
        if era == "2026-07-28":
            text = await error_text(client, era, "defaults_visit")
        else:
            is_error, text = await call(client, "defaults_visit")
            assert is_error
    assert (
        "a URL-mode question has no defaults, so on_unsupported='defaults' (from @elicits) counts as" in text
    )


# --- timeouts -----------------------------------------------------------------------------------


async def test_push_timeout_cancels_the_pending_url_question(connect):
    asked = anyio.Event()

    async def never(context: Any, params: Any) -> ElicitResult:
        asked.set()
        await anyio.Event().wait()
        raise AssertionError("unreachable")

    async with connect(server, "2025-11-25", never) as client:
        is_error, text = await call(client, "hurried_visit")
    assert asked.is_set()
    assert is_error
    assert "ElicitationTimeout: no answer to the URL-mode question within 0.2 s" in text
    assert "Pass timeout= to ctx.elicit_url or @elicits" in text


async def test_late_url_answer_on_2026_07_28_is_an_elicitation_timeout(connect, monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr(clock_module, "now", lambda: now[0])

    async def slow(context: Any, params: Any) -> ElicitResult:
        now[0] += 1.5
        return ElicitResult(action="accept")

    async with connect(server, "2026-07-28", slow) as client:
        is_error, text = await call(client, "hurried_visit")
    assert is_error
    assert "ElicitationTimeout: the answer to the URL-mode question arrived 1.5 s after it was asked" in text
    assert "ctx.elicit_url" in text


# --- replay on 2026-07-28 -----------------------------------------------------------------------


@pytest.mark.parametrize("era", URL_ERAS)
async def test_a_form_url_form_wizard_behaves_the_same_on_every_url_era(connect, era):
    MINTED.clear()
    user = ScriptedUser(accept(seats=3), accept(), accept(confirm=True))
    async with connect(server, era, user) as client:
        rounds = 0
        original = client.session.call_tool

        async def counting(*args: Any, **kwargs: Any) -> Any:
            nonlocal rounds
            rounds += 1
            return await original(*args, **kwargs)

        client.session.call_tool = counting  # type: ignore[method-assign]
        is_error, text = await call(client, "wizard")
    assert len(MINTED) == 1
    assert (is_error, text) == (False, f"3 seats, consented, receipt=True, token={MINTED[0]}")
    assert [q.mode for q in user.questions] == ["form", "url", "form"]
    assert user.questions[1].url == f"https://pay.example.com/checkout?seats=3&t={MINTED[0]}"
    assert rounds == (4 if era == "2026-07-28" else 1)
    user.assert_done()


@pytest.mark.parametrize("era", URL_ERAS)
async def test_a_declined_url_in_a_wizard_is_replayed_as_declined(connect, era):
    user = ScriptedUser(accept(seats=1), decline(), decline())
    async with connect(server, era, user) as client:
        assert await call(client, "wizard") == (False, "1 seats, declined, no receipt")


async def test_a_url_that_changes_between_rounds_is_a_replay_mismatch(connect):
    user = ScriptedUser(accept(), accept(confirm=True))
    async with connect(server, "2026-07-28", user) as client:
        is_error, text = await call(client, "drifting_url")
    assert is_error
    assert "ReplayMismatch: question #1 of this call was a URL-mode question (key 'q0', url " in text
    assert "ctx.once" in text


async def test_a_recorded_consent_replayed_against_another_url_is_a_replay_mismatch(connect):
    RUNS.clear()
    user = ScriptedUser(accept(), accept(confirm=True))
    async with connect(server, "2026-07-28", user) as client:
        is_error, text = await call(client, "late_drift")
    assert is_error
    assert "ReplayMismatch: question #1 of this call was a URL-mode question" in text
    assert len(RUNS) == 3


async def test_a_url_question_where_a_form_was_answered_is_a_replay_mismatch(connect):
    RUNS.clear()
    user = ScriptedUser(accept(confirm=True), accept(seats=2))
    async with connect(server, "2026-07-28", user) as client:
        is_error, text = await call(client, "form_then_url")
    assert is_error
    assert "was tests.calls.test_context_url.Confirm" in text
    assert "but this round asked a URL-mode question (key 'q0'" in text


# --- completion ---------------------------------------------------------------------------------


async def test_complete_url_notifies_the_client_on_2025_11_25_only(connect, era):
    completed: list[str] = []
    arrived = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ElicitCompleteNotification):
            completed.append(message.params.elicitation_id)
            arrived.set()

    user = ScriptedUser(accept())
    async with connect(server, era, user, message_handler=on_message) as client:
        ask = era != "2025-06-18"
        assert await call(client, "completing", {"ask": ask}) == (False, f"sent={era == '2025-11-25'}")
        if era == "2025-11-25":
            with anyio.fail_after(BOUND):
                await arrived.wait()
    assert completed == (["flow-1"] if era == "2025-11-25" else [])
    if era == "2025-11-25":
        assert user.questions[0].elicitation_id == "flow-1"


# --- checks before anything is sent -------------------------------------------------------------


def bare(policy: str = "decline") -> ElicitContext:
    return ElicitContext(Context(), policy_module.Policy(on_unsupported=policy))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("ftp://files.example.com/x", "absolute https:// (or http://) URL with a host"),
        ("/relative/path", "absolute https://"),
        ("https://", "absolute https://"),
        ("javascript:alert(1)", "absolute https://"),
        ("HTTPS//missing-colon.example.com", "absolute https://"),
        ("https://exa mple.com/", "whitespace or control characters"),
        ("https://example.com/\nnext", "whitespace or control characters"),
        ("https://example.com/\u202e", "whitespace or control characters"),
        ("https://example.com:99999/", "malformed URL"),
        ("https://[::1/", "malformed URL"),
        ("https://user@example.com/", "credentials in it (https://***@example.com/)"),
        ("https://ann:s3cret@example.com/x?y=1", "credentials in it (https://***@example.com/x?***)"),
        (42, "as a string, got int"),
    ],
)
async def test_a_bad_or_credential_carrying_url_is_refused_before_sending(url, problem):
    with pytest.raises(ElicitArgumentError, match=r"ctx\.elicit_url") as caught:
        await bare().elicit_url(url, "Open it.")
    assert problem in str(caught.value)
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize(
    "url", ["https://example.com", "http://localhost:8080/cb?x=1#frag", "HTTPS://Example.com/%20path"]
)
async def test_absolute_http_urls_pass_the_checks(url):
    assert await bare().elicit_url(url, "Open it.") == Declined()


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"message": "  "}, "needs a message"),
        ({"elicitation_id": ""}, "non-empty string"),
        ({"timeout": 0}, "positive"),
        ({"on_unsupported": "defaults"}, "a URL-mode question has no defaults"),
    ],
)
async def test_invalid_arguments_are_value_errors(arguments, problem):
    options = {"message": "Open it.", **arguments}
    with pytest.raises(ElicitArgumentError, match=problem):
        await bare().elicit_url("https://example.com/", **options)


# --- the connect-account example ----------------------------------------------------------------


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name: str) -> ModuleType:
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return importlib.import_module(name)


class Browser:
    """A scripted user who, having consented to the sign-in URL, signs in on the page (or not)."""

    def __init__(self, *answers: Any, signs_in: bool = True) -> None:
        self.user = ScriptedUser(*answers)
        self.signs_in = signs_in

    async def __call__(self, context: Any, params: Any) -> Any:
        reply = await self.user(context, params)
        consented = isinstance(reply, ElicitResult) and reply.action == "accept"
        if isinstance(params, ElicitRequestURLParams) and consented and self.signs_in:
            state = parse_qs(urlsplit(params.url).query)["state"][0]
            assert example("connect_account").finish_flow(state, "ann")
        return reply


CONNECT_SCENARIOS = {
    "connected": (
        Browser(accept(access="read-write"), accept(), accept(done=True)),
        "Connected github account ann with read-write access",
    ),
    "page-left-unfinished": (
        Browser(accept(), accept(), accept(done=True), signs_in=False),
        "The sign-in to github has not finished; please try again",
    ),
    "not-confirmed": (Browser(accept(), accept(), accept(done=False)), "Connection cancelled"),
    "url-declined": (Browser(accept(), decline()), "github was not connected"),
    "url-cancelled": (Browser(accept(), cancel()), "Connection cancelled"),
    "access-declined": (Browser(decline()), "github was not connected"),
}
NO_URL_MODE = "This client cannot open sign-in pages; connect github in the web app instead"


@pytest.mark.parametrize("name", CONNECT_SCENARIOS)
async def test_connect_account_example_on_every_era(connect, era, name):
    module = example("connect_account")
    template, expected = CONNECT_SCENARIOS[name]
    browser = Browser(*template.user._queue, signs_in=template.signs_in)
    completed: list[str] = []
    arrived = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ElicitCompleteNotification):
            completed.append(message.params.elicitation_id)
            arrived.set()

    flows_before = dict(module.FLOWS)
    notified = era == "2025-11-25" and expected.startswith("Connected")
    async with connect(module.server, era, browser, message_handler=on_message) as client:
        result = await call(client, "connect_account", {"service": "github"})
        if notified:
            with anyio.fail_after(BOUND):
                await arrived.wait()
    assert flows_before == module.FLOWS
    asked = browser.user.questions
    if era == "2025-06-18" and name != "access-declined":
        assert result == (False, NO_URL_MODE)
        assert [q.mode for q in asked] == ["form"]
        return
    assert result == (False, expected)
    browser.user.assert_done()
    assert [q.mode for q in asked] == ["form", "url", "form"][: len(asked)]
    if len(asked) > 1:
        url = asked[1].url
        assert url is not None
        assert url.startswith("https://auth.example.com/connect?service=github&access=")
        assert len(parse_qs(urlsplit(url).query)["state"][0]) >= 32
    assert completed == ([asked[1].elicitation_id] if notified else [])


async def test_connect_account_example_answers_plainly_without_url_capability(connect, era, form_only):
    module = example("connect_account")
    browser = Browser(accept())
    async with connect(module.server, era, browser) as client:
        assert await call(client, "connect_account", {"service": "gitlab"}) == (
            False,
            NO_URL_MODE.replace("github", "gitlab"),
        )
    assert [q.mode for q in browser.user.questions] == ["form"]


async def test_connect_account_callback_route_finishes_only_known_flows():
    module = example("connect_account")
    flow = module.start_flow("gitlab")

    def request(query: str) -> Request:
        scope = {"type": "http", "method": "GET", "path": "/oauth/callback", "query_string": query.encode()}
        return Request(scope)

    unknown = await module.oauth_callback(request("state=nope&code=1"))
    assert unknown.status_code == 400
    ok = await module.oauth_callback(request(f"state={flow['state']}&code=abc"))
    assert ok.status_code == 200
    assert module.finish_flow(flow["state"], "again") is False
    assert module.end_flow(flow["state"]) == "gitlab-user"
    assert module.end_flow(flow["state"]) is None
