"""The LLM-mediated fallback: questions through the model and the companion tool, on every era."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client._memory import InMemoryTransport
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.request_state import RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY, CallToolResult, TextContent
from pydantic import BaseModel, Field

import typed_elicit._core.clock as clock_module
from tests.conftest import BOUND, ERAS, PUSH_ERAS, serve_http
from typed_elicit import Accepted, Declined, ElicitContext, elicits, install_fallback
from typed_elicit.client._handler import PinnedHandshake
from typed_elicit.errors import ElicitArgumentError
from typed_elicit.fallback._companion import META_KEY, describe_fields
from typed_elicit.hooks import AnswerEvent, ElicitHook, QuestionEvent
from typed_elicit.stores import InProcessStore
from typed_elicit.testing import ScriptedUser, accept

pytestmark = pytest.mark.anyio

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
COMPANION = "send_elicitation_result"
KEY = b"k" * 32


def example(name: str) -> ModuleType:
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return importlib.import_module(name)


def text_of(result: CallToolResult) -> str:
    assert isinstance(result.content[0], TextContent)
    return result.content[0].text


def token_of(result: CallToolResult) -> str:
    assert result.is_error, text_of(result)
    assert result.meta is not None
    token = result.meta[META_KEY]["token"]
    assert isinstance(token, str)
    assert f'token: "{token}"' in text_of(result)
    return token


async def call(client: Any, name: str, arguments: dict[str, Any]) -> CallToolResult:
    with anyio.fail_after(BOUND):
        result: CallToolResult = await client.call_tool(name, arguments)
    return result


async def answer(client: Any, token: str, action: str = "accept", **content: Any) -> CallToolResult:
    arguments: dict[str, Any] = {"token": token, "action": action}
    if content:
        arguments["content"] = content
    return await call(client, COMPANION, arguments)


class Confirm(BaseModel):
    confirm: bool


class Code(BaseModel):
    code: str = Field(pattern=r"^\d{4}$")


class Optional_(BaseModel):
    note: str = "none"


class Log(ElicitHook):
    def __init__(self) -> None:
        self.questions: list[QuestionEvent] = []
        self.answers: list[AnswerEvent] = []

    async def on_question(self, event: QuestionEvent) -> None:
        self.questions.append(event)

    async def on_answer(self, event: AnswerEvent) -> dict[str, Any] | None:
        self.answers.append(event)
        return None


SENT: list[str] = []
LOG = Log()


def build(
    name: str = "fallback", *, install: bool = True, security: RequestStateSecurity | None = None
) -> MCPServer:
    server = MCPServer(name)
    if install:
        install_fallback(server, security=security)

    @server.tool()
    @elicits(on_unsupported="fallback", retries=1, hooks=[LOG])
    async def verify(user_id: str, ctx: ElicitContext) -> str:
        code = await ctx.once("send", lambda: SENT.append(user_id) or "1234")
        match await ctx.elicit(Code, f"Enter the code sent to {user_id}"):
            case Accepted(Code(code=typed)):
                return "verified" if typed == code else "wrong code"
            case Declined():
                return "declined"
            case _:
                return "cancelled"

    @server.tool()
    @elicits(on_unsupported="fallback")
    async def sign_in(ctx: ElicitContext) -> str:
        return type(await ctx.elicit_url("https://id.example.com/login", "Sign in.")).__name__

    @server.prompt()
    @elicits(on_unsupported="fallback")
    async def greeting(ctx: ElicitContext) -> str:
        return type(await ctx.elicit(Confirm, "Greet?")).__name__

    return server


TRAVELLER = "Annabelle-Quintessa-Mortimer"


async def test_a_client_without_elicitation_gets_the_question_as_a_tool_result(connect, era):
    async with connect(example("fallback_wizard").server, era) as client:
        result = await call(client, "plan_trip", {"traveller": TRAVELLER})
    token = token_of(result)
    text = text_of(result)
    assert "Question: Where would you like to go?" in text
    assert "- city (City): string, required, at least 1 character\n" in text
    default = "" if era == "2025-06-18" else ", default 2"  # 2025-06-18 has boolean defaults only
    assert f"- nights (Nights): integer, optional, at least 1, at most 30{default}\n" in text
    assert f"Then call the tool `{COMPANION}`" in text
    assert result.meta is not None
    assert result.meta[META_KEY]["tool"] == COMPANION
    assert result.meta[META_KEY]["requestedSchema"]["required"] == ["city"]
    assert "plan_trip" not in token
    assert TRAVELLER not in token  # sealed: an argument never shows (a 3-letter name could, by chance)


async def test_a_multi_step_wizard_completes_through_the_companion_tool(connect, era):
    async with connect(example("fallback_wizard").server, era) as client:
        first = token_of(await call(client, "plan_trip", {"traveller": "Ann"}))
        second = await answer(client, first, city="Oslo", nights=3)
        assert "Question: How would you like to travel to Oslo?" in text_of(second)
        assert '- mode: one of: "train" (Train), "plane" (Plane), required' in text_of(second)
        done = await answer(client, token_of(second), mode="train")
    assert not done.is_error
    assert text_of(done) == "Ann: 3 nights in Oslo, by train."
    assert done.structured_content == {"result": "Ann: 3 nights in Oslo, by train."}


async def test_decline_through_the_companion_reaches_the_tool(connect, era):
    async with connect(example("fallback_wizard").server, era) as client:
        first = token_of(await call(client, "plan_trip", {"traveller": "Ann"}))
        done = await answer(client, first, "decline")
    assert text_of(done) == "No trip planned for Ann."


async def test_a_capable_client_is_asked_directly(connect, era):
    scripted = ScriptedUser(accept(city="Rome"), accept(mode="plane"))
    async with connect(example("fallback_wizard").server, era, scripted) as client:
        done = await call(client, "plan_trip", {"traveller": "Bo"})
    assert text_of(done) == "Bo: 2 nights in Rome, by plane."


async def test_side_effects_in_once_run_once_across_fallback_rounds(connect, era):
    SENT.clear()
    async with connect(build(), era) as client:
        token = token_of(await call(client, "verify", {"user_id": "u1"}))
        done = await answer(client, token, code="1234")
    assert text_of(done) == "verified"
    assert SENT == ["u1"]


async def test_an_invalid_answer_is_asked_again_then_fails_with_invalid_response(connect, era):
    async with connect(build(), era) as client:
        token = token_of(await call(client, "verify", {"user_id": "u1"}))
        again = await answer(client, token, code="12")
        assert "Your previous answer could not be used (code: String should match pattern" in text_of(again)
        failed = await answer(client, token_of(again), code="abc")
    assert failed.is_error
    assert failed.meta is None or META_KEY not in failed.meta
    assert "Error executing tool verify: InvalidResponse: the answer to Code is invalid" in text_of(failed)


async def test_hooks_see_the_fallback_question_and_the_relayed_answer_once(connect, era):
    LOG.questions.clear()
    LOG.answers.clear()
    async with connect(build(), era) as client:
        token = token_of(await call(client, "verify", {"user_id": "u1"}))
        await answer(client, token, code="1234")
    (question,) = LOG.questions
    assert (question.via, question.model, question.attempt) == ("fallback", Code, 0)
    assert question.protocol_version == era
    assert [(a.action, a.content, a.question.via) for a in LOG.answers] == [
        ("accept", {"code": "1234"}, "fallback")
    ]


async def test_a_tampered_token_is_a_clear_tool_error(connect, era):
    async with connect(build(), era) as client:
        token = token_of(await call(client, "verify", {"user_id": "u1"}))
        middle = len(token) // 2
        tampered = token[:middle] + ("A" if token[middle] != "A" else "B") + token[middle + 1 :]
        for bad in (tampered, "not-a-token", ""):
            result = await answer(client, bad, code="1234")
            assert result.is_error
            assert "InvalidFallbackToken: the token is not one this server issued, or it was altered" in (
                text_of(result)
            )


async def test_an_expired_token_is_a_clear_tool_error(connect, era, monkeypatch):
    async with connect(build(), era) as client:
        token = token_of(await call(client, "verify", {"user_id": "u1"}))
        later = clock_module.now() + 601
        monkeypatch.setattr(clock_module, "now", lambda: later)
        result = await answer(client, token, code="1234")
    assert result.is_error
    assert "InvalidFallbackToken: the token has expired (tokens are valid for 600 s)" in text_of(result)


async def test_a_token_of_another_server_with_the_same_keys_is_refused(connect, era):
    security = RequestStateSecurity(keys=[KEY])
    async with connect(build("one", security=security), era) as client:
        token = token_of(await call(client, "verify", {"user_id": "u1"}))
    async with connect(build("two", security=RequestStateSecurity(keys=[KEY])), era) as client:
        result = await answer(client, token, code="1234")
    assert "InvalidFallbackToken: the token was issued by another server" in text_of(result)


async def test_a_replica_with_the_shared_key_redeems_the_token(connect, era):
    async with connect(build("svc", security=RequestStateSecurity(keys=[KEY])), era) as client:
        token = token_of(await call(client, "verify", {"user_id": "u1"}))
    async with connect(build("svc", security=RequestStateSecurity(keys=[KEY])), era) as client:
        assert text_of(await answer(client, token, code="1234")) == "verified"


async def test_fallback_without_install_names_the_fix(connect, era):
    async with connect(build(install=False), era) as client:
        result = await call(client, "verify", {"user_id": "u1"})
    assert result.is_error
    text = text_of(result)
    assert "FallbackNotInstalled: cannot ask in " in text
    assert "the client did not declare the elicitation capability" in text
    assert "Call `typed_elicit.install_fallback(server)` once" in text


async def test_url_questions_never_fall_back(connect, era):
    async with connect(build(), era) as client:
        if era == "2026-07-28":
            with pytest.raises(MCPError) as caught, anyio.fail_after(BOUND):
                await client.call_tool("sign_in", {})
            assert caught.value.code == MISSING_REQUIRED_CLIENT_CAPABILITY
            text = caught.value.message
        else:
            result = await call(client, "sign_in", {})
            assert result.is_error
            text = text_of(result)
    assert "ElicitationUnsupported: cannot send the user to a URL" in text
    assert "a URL must not pass through the model, so on_unsupported='fallback'" in text


async def test_prompts_cannot_fall_back(connect, era):
    async with connect(build(), era) as client:
        with pytest.raises(MCPError, match="works for tools only") as caught, anyio.fail_after(BOUND):
            await client.get_prompt("greeting", {})
    assert "ElicitArgumentError" in str(caught.value)


@pytest.mark.parametrize("era", PUSH_ERAS)
async def test_stateless_http_falls_back_on_push_eras(connect, era):
    async with serve_http(build(), stateless_http=True) as url, connect(url, era, ScriptedUser()) as client:
        result = await call(client, "verify", {"user_id": "u2"})
        assert "cannot carry server-to-client requests" not in text_of(result)
        done = await answer(client, token_of(result), code="1234")
    assert text_of(done) == "verified"


def test_install_fallback_twice_is_a_value_error():
    server = MCPServer("twice")
    install_fallback(server)
    with pytest.raises(ValueError, match="already called on this server"):
        install_fallback(server)


def test_the_companion_tool_takes_token_action_and_content():
    server = MCPServer("schema")
    install_fallback(server, name="relay")
    tool = server._tool_manager.get_tool("relay")
    assert tool is not None
    assert set(tool.parameters["properties"]) == {"token", "action", "content"}
    assert tool.parameters["required"] == ["token", "action"]
    assert tool.parameters["properties"]["action"]["enum"] == ["accept", "decline", "cancel"]


def test_fields_are_described_with_their_options_limits_and_defaults():
    schema = {
        "type": "object",
        "properties": {
            "email": {"type": "string", "format": "email", "description": "Work address"},
            "tags": {
                "type": "array",
                "items": {"anyOf": [{"const": "a", "title": "Alpha"}, {"const": "b", "title": "Beta"}]},
                "minItems": 1,
                "maxItems": 2,
            },
            "size": {"type": "string", "enum": ["s", "m"], "default": "m"},
            "legacy": {"type": "string", "enum": ["x"], "enumNames": ["Ex"]},
            "ok": {"type": "boolean", "default": False},
        },
        "required": ["email"],
    }
    assert describe_fields(schema) == [
        "email: string (email), required. Work address",
        'tags: a list of any of: "a" (Alpha), "b" (Beta), optional, at least 1 item, at most 2 items',
        'size: one of: "s", "m", optional, default "m"',
        'legacy: one of: "x" (Ex), optional',
        "ok: boolean, optional, default false",
    ]


def test_every_era_is_covered():
    assert ERAS == ("2025-06-18", "2025-11-25", "2026-07-28")


async def test_a_token_issued_to_another_user_is_refused(connect, era):
    who = ["ann"]
    security = RequestStateSecurity(keys=[KEY], bind_principal=lambda ctx: who[0])
    async with connect(build(security=security), era) as client:
        token = token_of(await call(client, "verify", {"user_id": "u1"}))
        who[0] = "mallory"
        refused = await answer(client, token, code="1234")
        who[0] = "ann"
        accepted = await answer(client, token, code="1234")
    assert "InvalidFallbackToken: the token was issued to another user" in text_of(refused)
    assert text_of(accepted) == "verified"


async def test_a_protocol_without_elicitation_still_falls_back():
    transport = PinnedHandshake(InMemoryTransport(example("fallback_wizard").server), "2025-03-26")
    async with Client(transport, mode="legacy") as client:
        assert client.protocol_version == "2025-03-26"
        first = await call(client, "plan_trip", {"traveller": "Cy"})
        assert "default 2" in text_of(first)  # described with the newest revision's schema
        second = await answer(client, token_of(first), city="Lima")
        done = await answer(client, token_of(second), mode="plane")
    assert text_of(done) == "Cy: 2 nights in Lima, by plane."


def test_an_unknown_policy_is_refused_at_decoration():
    with pytest.raises(
        ElicitArgumentError,
        match="@elicits takes on_unsupported='raise', 'defaults', 'decline' or 'fallback', got 'ask-later'",
    ):
        elicits(on_unsupported="ask-later")  # type: ignore[arg-type]


async def test_a_crash_after_a_relayed_answer_keeps_its_text_on_the_server(connect, era):
    server = MCPServer("crash")
    install_fallback(server)

    @server.tool()
    @elicits(on_unsupported="fallback")
    async def explode(ctx: ElicitContext) -> str:
        await ctx.elicit(Confirm, "Go?")
        raise RuntimeError("secret internals")

    async with connect(server, era) as client:
        token = token_of(await call(client, "explode", {}))
        result = await answer(client, token, confirm=True)
    assert result.is_error
    assert "secret internals" not in text_of(result)
    assert "Error executing tool" in text_of(result)


async def test_the_policy_can_be_chosen_per_question(connect, era):
    server = MCPServer("per-call")
    install_fallback(server)

    @server.tool()
    @elicits
    async def ask(ctx: ElicitContext) -> str:
        match await ctx.elicit(Confirm, "Sure?", on_unsupported="fallback"):
            case Accepted(Confirm(confirm=sure)):
                return f"sure={sure}"
            case _:
                return "no"

    async with connect(server, era) as client:
        token = token_of(await call(client, "ask", {}))
        assert text_of(await answer(client, token, confirm=True)) == "sure=True"


PAID: list[int] = []


def bank(
    name: str = "bank",
    *,
    security: RequestStateSecurity | None = None,
    redeemed: InProcessStore | None = None,
    failures: int = 0,
) -> MCPServer:
    """A server whose `pay` tool pays after its last question, failing transiently `failures` times."""
    server = MCPServer(name)
    install_fallback(server, security=security, redeemed=redeemed)
    left = [failures]

    @server.tool()
    @elicits(on_unsupported="fallback")
    async def pay(amount: int, ctx: ElicitContext) -> str:
        match await ctx.elicit(Confirm, f"Pay {amount}?"):
            case Accepted(Confirm(confirm=True)):
                if left[0]:
                    left[0] -= 1
                    raise ToolError("the payment service is unavailable; try again")
                PAID.append(amount)
                return f"paid {amount}"
            case _:
                return "not paid"

    return server


ALREADY_USED = "InvalidFallbackToken: the token was already used"


async def test_a_token_is_redeemed_once_and_a_second_redemption_is_refused_as_already_used(connect, era):
    PAID.clear()
    async with connect(bank(), era) as client:
        token = token_of(await call(client, "pay", {"amount": 100}))
        first = await answer(client, token, confirm=True)
        again = [await answer(client, token, confirm=True) for _ in range(2)]
    assert text_of(first) == "paid 100"
    for refused in again:
        assert refused.is_error
        assert ALREADY_USED in text_of(refused)
        assert "call the tool 'pay' again; it asks the question again" in text_of(refused)
    assert PAID == [100]


async def test_concurrent_redemptions_of_one_token_run_the_tool_once(connect, era):
    PAID.clear()
    results: list[CallToolResult] = []
    async with connect(bank(), era) as client:
        token = token_of(await call(client, "pay", {"amount": 7}))

        async def redeem() -> None:
            results.append(await answer(client, token, confirm=True))

        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(redeem)
    assert sorted(text_of(r) == "paid 7" for r in results) == [False, False, True]
    assert sum(ALREADY_USED in text_of(r) for r in results) == 2
    assert PAID == [7]


async def test_a_token_whose_run_failed_is_spent_and_the_tool_is_called_again(connect, era):
    PAID.clear()
    async with connect(bank(failures=1), era) as client:
        token = token_of(await call(client, "pay", {"amount": 5}))
        failed = await answer(client, token, confirm=True)
        retried = await answer(client, token, confirm=True)
        fresh = token_of(await call(client, "pay", {"amount": 5}))
        done = await answer(client, fresh, confirm=True)
    assert failed.is_error
    assert "the payment service is unavailable" in text_of(failed)
    assert ALREADY_USED in text_of(retried)
    assert text_of(done) == "paid 5"
    assert PAID == [5]


async def test_replicas_sharing_a_redeemed_store_refuse_a_token_used_on_another(connect, era):
    PAID.clear()
    shared = InProcessStore()
    async with connect(bank("svc", security=RequestStateSecurity(keys=[KEY]), redeemed=shared), era) as one:
        token = token_of(await call(one, "pay", {"amount": 3}))
        assert text_of(await answer(one, token, confirm=True)) == "paid 3"
    async with connect(bank("svc", security=RequestStateSecurity(keys=[KEY]), redeemed=shared), era) as two:
        refused = await answer(two, token, confirm=True)
    assert ALREADY_USED in text_of(refused)
    assert PAID == [3]


async def test_the_in_process_store_forgets_ids_once_their_tokens_expire(monkeypatch):
    store = InProcessStore()
    now = [1000.0]
    monkeypatch.setattr(clock_module, "now", lambda: now[0])
    assert await store.claim("a", 1600.0)
    assert not await store.claim("a", 1600.0)
    assert await store.claim("b", 1700.0)
    now[0] = 1600.0
    assert await store.claim("c", 2200.0)
    assert len(store) == 2  # "a" expired and was forgotten
    now[0] = 2200.0
    assert await store.claim("a", 2800.0)
    assert len(store) == 1


async def test_content_that_is_not_a_primitive_is_a_tool_error_naming_the_field_and_the_allowed_types(
    connect, era
):
    PAID.clear()
    async with connect(bank(), era) as client:
        token = token_of(await call(client, "pay", {"amount": 9}))
        result = await answer(client, token, confirm={"yes": True})
        listed = await answer(client, token, confirm=[1, 2])
        fixed = await answer(client, token, confirm=True)
    assert result.is_error
    assert "Error executing tool send_elicitation_result: the answer's content has fields of a type" in (
        text_of(result)
    )
    assert "'confirm' (an object)" in text_of(result)
    assert "must be a string, a number, a boolean or a list of strings" in text_of(result)
    assert "'confirm' (a list with a non-string item)" in text_of(listed)
    assert text_of(fixed) == "paid 9"  # a refused answer does not spend the token
    assert PAID == [9]


async def test_a_question_settled_by_its_policy_stays_settled_when_a_later_one_falls_back(connect, era):
    server = MCPServer("mixed")
    install_fallback(server)

    @server.tool()
    @elicits
    async def ask(ctx: ElicitContext) -> str:
        news = await ctx.elicit(Confirm, "Newsletter?", on_unsupported="decline")
        sure = await ctx.elicit(Optional_, "Optional?", on_unsupported="defaults")
        match await ctx.elicit(Code, "Code?", on_unsupported="fallback"):
            case Accepted(Code(code=code)):
                return f"{type(news).__name__}, {sure}, code {code}"
            case _:
                return "no code"

    async with connect(server, era) as client:
        token = token_of(await call(client, "ask", {}))
        done = await answer(client, token, code="1234")
    assert text_of(done) == "Declined, Accepted(data=Optional_(note='none')), code 1234"


def trip_with_sign_in() -> MCPServer:
    server = MCPServer("trip-sign-in")
    install_fallback(server)

    @server.tool()
    @elicits(on_unsupported="fallback")
    async def book(ctx: ElicitContext) -> str:
        sure = await ctx.elicit(Confirm, "Book?")
        signed = await ctx.elicit_url("https://id.example.com/login", "Sign in.", on_unsupported="decline")
        return f"{type(sure).__name__}, sign-in {type(signed).__name__}"

    return server


async def test_a_url_question_in_a_resumed_call_follows_its_policy_and_never_reaches_the_model(connect, era):
    async with connect(trip_with_sign_in(), era) as client:
        token = token_of(await call(client, "book", {}))
        done = await answer(client, token, confirm=True)
    assert text_of(done) == "Accepted, sign-in Declined"


async def test_a_url_question_on_a_protocol_without_elicitation_names_the_protocol():
    server = MCPServer("old-url")

    @server.tool()
    @elicits
    async def sign_in(ctx: ElicitContext) -> str:
        return type(await ctx.elicit_url("https://id.example.com/login", "Sign in.")).__name__

    transport = PinnedHandshake(InMemoryTransport(server), "2025-03-26")
    async with Client(transport, mode="legacy") as client:
        result = await call(client, "sign_in", {})
    assert result.is_error
    assert "cannot send the user to a URL: the negotiated protocol 2025-03-26 has no elicitation." in text_of(
        result
    )
