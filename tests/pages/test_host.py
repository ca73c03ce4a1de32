"""`ctx.elicit_page` on every era: consent by URL mode, the page's answer through the store.

The client is the in-memory `mcp.Client`; its URL handler plays the user's browser by
submitting the page with httpx against the server's own Starlette app (same event loop).
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from typing import Annotated, Any

import anyio
import httpx2 as httpx
import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field, SecretStr

from tests.conftest import BOUND
from typed_elicit import Accepted, Cancelled, Declined, ElicitContext, elicits, form
from typed_elicit.client import FormRequest, UrlRequest, elicitation_handler
from typed_elicit.pages import serve_pages
from typed_elicit.stores import configure
from typed_elicit.stores._memory import InProcessStore
from typed_elicit.testing import connect

ORIGIN = "https://mcp.example.com"
SECRET = "correct-horse-battery-staple"
URL_ERAS = ("2025-11-25", "2026-07-28")


@form(message="Connect your bank account", page=True)
class BankLogin(BaseModel):
    username: str
    password: SecretStr
    otp: Annotated[str, Field(pattern=r"^\d{6}$")]


class CountingStore(InProcessStore):
    """The in-process store, noting each wait for a page answer that timed out (a state-only round)."""

    def __init__(self) -> None:
        super().__init__()
        self.empty_waits = 0
        self.waited = anyio.Event()

    async def wait(self, key: str, timeout: float, /) -> bytes | None:
        value = await super().wait(key, timeout)
        if value is None and key.startswith("page:"):
            self.empty_waits += 1
            self.waited.set()
        return value


def make_server(*, poll: float = 20.0, store: CountingStore | None = None, **elicits_options: Any):
    server = MCPServer("bank")
    if store is not None:
        configure(server, store=store)
    serve_pages(server, ORIGIN, poll_seconds=poll)
    runs = {"body": 0, "once": 0}

    @server.tool()
    @elicits(BankLogin, **elicits_options)
    async def link_bank(ctx: ElicitContext) -> str:
        runs["body"] += 1

        def side_effect() -> bool:
            runs["once"] += 1
            return True

        await ctx.once("started", side_effect)
        match await ctx.elicit_page(BankLogin):
            case Accepted(login):
                assert isinstance(login.password, SecretStr)
                return f"linked {login.username} ({len(login.password.get_secret_value())} chars, otp ok)"
            case Declined():
                return "declined"
            case Cancelled():
                return "cancelled"

    return server, runs


class Browser:
    """Submits a page like a user's browser: GET (cookie + CSRF token), then POST from the same origin."""

    def __init__(self, server: MCPServer) -> None:
        self.http = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=server.streamable_http_app()), base_url=ORIGIN
        )
        self.pages: list[str] = []

    async def submit(self, url: str, fields: dict[str, str], action: str = "accept") -> httpx.Response:
        path = url.removeprefix(ORIGIN)
        page = await self.http.get(path)
        assert page.status_code == 200, page.text
        self.pages.append(page.text)
        token = re.search(r'name="_csrf" value="([0-9a-f]+)"', page.text)
        assert token is not None
        data = {**fields, "_csrf": token.group(1), "_action": action}
        return await self.http.post(path, data=data, headers={"Origin": ORIGIN})


async def no_form(request: FormRequest) -> Declined:
    raise AssertionError("a page question never sends a form")


def answering(
    browser: Browser, fields: dict[str, str], action: str = "accept", seen: list[UrlRequest] | None = None
):
    async def open_url(request: UrlRequest) -> str:
        if seen is not None:
            seen.append(request)
        done = await browser.submit(request.url, fields, action)
        assert done.status_code == 200
        return "accept"

    return elicitation_handler(no_form, url=open_url)


VALID = {"username": "ada", "password": SECRET, "otp": "123456"}


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_a_submitted_page_returns_the_typed_model_to_the_tool(era: str):
    server, runs = make_server()
    browser = Browser(server)
    seen: list[UrlRequest] = []
    async with connect(server, era, elicitation_callback=answering(browser, VALID, seen=seen)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert result.is_error is False, result
    assert result.content[0].text == f"linked ada ({len(SECRET)} chars, otp ok)"  # type: ignore[union-attr]
    assert len(seen) == 1
    assert seen[0].message == "Connect your bank account"
    assert re.fullmatch(re.escape(ORIGIN) + r"/elicit-pages/[A-Za-z0-9_-]{43}", seen[0].url)
    assert runs["once"] == 1


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
@pytest.mark.parametrize(("action", "text"), [("decline", "declined"), ("cancel", "cancelled")])
async def test_decline_or_cancel_on_the_page_reaches_the_tool(era: str, action: str, text: str):
    server, _ = make_server()
    browser = Browser(server)
    async with connect(server, era, elicitation_callback=answering(browser, {}, action)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert result.content[0].text == text  # type: ignore[union-attr]


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_a_refused_consent_declines_without_opening_the_page(era: str):
    server, _ = make_server()

    async def refuse(request: UrlRequest) -> str:
        return "decline"

    async with connect(server, era, elicitation_callback=elicitation_handler(no_form, url=refuse)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert result.content[0].text == "declined"  # type: ignore[union-attr]


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
@pytest.mark.parametrize("reply", ["decline", "cancel"])
async def test_the_page_of_a_refused_consent_says_it_is_closed_and_stores_nothing(era: str, reply: str):
    store = CountingStore()
    server, _ = make_server(store=store)
    browser = Browser(server)
    links: list[str] = []

    async def refuse(request: UrlRequest) -> str:
        links.append(request.url)
        return reply

    async with connect(server, era, elicitation_callback=elicitation_handler(no_form, url=refuse)) as client:
        with anyio.fail_after(BOUND):
            await client.call_tool("link_bank", {})
        (link,) = links
        path = link.removeprefix(ORIGIN)
        shown = await browser.http.get(path)
        late = await browser.http.post(path, data={**VALID, "_csrf": "x"}, headers={"Origin": ORIGIN})
    assert shown.status_code == 410
    assert "This question is closed" in shown.text
    assert late.status_code == 410
    answers = [key for key in store._values if key.startswith("page:")]  # pyright: ignore[reportPrivateUsage]
    assert [store._values[key][0] for key in answers] == [b"closed"]  # pyright: ignore[reportPrivateUsage]


@pytest.mark.anyio
async def test_the_page_of_a_call_the_client_cancelled_says_it_is_closed():
    store = CountingStore()
    server, _ = make_server(store=store)
    browser = Browser(server)
    opened = anyio.Event()
    links: list[str] = []

    async def hold(request: UrlRequest) -> str:
        links.append(request.url)
        opened.set()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async with connect(
        server, "2025-11-25", elicitation_callback=elicitation_handler(no_form, url=hold)
    ) as client:
        with anyio.fail_after(BOUND):
            async with anyio.create_task_group() as group:
                group.start_soon(client.call_tool, "link_bank", {})
                await opened.wait()
                group.cancel_scope.cancel()  # the client gives up: the SDK cancels the request
            while b"closed" not in [v[0] for k, v in store._values.items() if k.startswith("page:")]:  # pyright: ignore[reportPrivateUsage]
                await anyio.lowlevel.checkpoint()
        shown = await browser.http.get(links[0].removeprefix(ORIGIN))
    assert shown.status_code == 410
    assert "This question is closed" in shown.text


@pytest.mark.anyio
async def test_2025_06_18_has_no_url_mode_so_the_policy_applies():
    server, _ = make_server()
    async with connect(server, "2025-06-18", elicitation_callback=elicitation_handler(no_form)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert result.is_error
    assert "URL mode" in result.content[0].text  # type: ignore[union-attr]

    declining, _ = make_server(on_unsupported="decline")
    async with connect(declining, "2025-06-18", elicitation_callback=elicitation_handler(no_form)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert result.content[0].text == "declined"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_on_2025_11_25_the_client_is_told_the_page_is_complete():
    server, _ = make_server()
    browser = Browser(server)
    seen: list[UrlRequest] = []
    completed: list[str] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/elicitation/complete":
            completed.append(root.params.elicitation_id)

    handler = answering(browser, VALID, seen=seen)
    async with connect(
        server, "2025-11-25", elicitation_callback=handler, message_handler=on_message
    ) as client:
        with anyio.fail_after(BOUND):
            await client.call_tool("link_bank", {})
    assert completed == [seen[0].elicitation_id]


@pytest.mark.anyio
async def test_on_2026_07_28_rounds_carry_only_request_state_until_the_page_is_submitted():
    store = CountingStore()
    server, runs = make_server(poll=0.05, store=store)
    browser = Browser(server)

    async def open_url(request: UrlRequest) -> str:
        async def user_fills_the_page_later() -> None:
            await store.waited.wait()  # the server has ended at least one round without the answer
            await browser.submit(request.url, VALID)

        group.start_soon(user_fills_the_page_later)
        return "accept"

    async with anyio.create_task_group() as group:
        handler = elicitation_handler(no_form, url=open_url)
        async with connect(server, "2026-07-28", elicitation_callback=handler) as client:
            with anyio.fail_after(BOUND):
                result = await client.call_tool("link_bank", {})
    assert result.content[0].text == f"linked ada ({len(SECRET)} chars, otp ok)"  # type: ignore[union-attr]
    assert store.empty_waits >= 1
    assert runs["body"] >= 3  # consent round, at least one state-only round, the answer's round
    assert runs["once"] == 1


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_a_page_not_submitted_in_time_times_out(era: str):
    server, _ = make_server(timeout=1.0, poll=0.05)

    async def consent_only(request: UrlRequest) -> str:
        return "accept"

    handler = elicitation_handler(no_form, url=consent_only)
    async with connect(server, era, elicitation_callback=handler) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert result.is_error
    assert "ElicitationTimeout" in result.content[0].text  # type: ignore[union-attr]
    assert "was not submitted within 1 s" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_the_secret_never_reaches_the_tool_result_or_the_client(era: str):
    server, _ = make_server()
    browser = Browser(server)
    seen: list[UrlRequest] = []
    messages: list[str] = []

    async def on_message(message: Any) -> None:
        messages.append(repr(message))

    handler = answering(browser, VALID, seen=seen)
    async with connect(server, era, elicitation_callback=handler, message_handler=on_message) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert SECRET not in result.model_dump_json()
    assert SECRET not in repr(seen)
    assert all(SECRET not in m for m in messages)
    assert all(SECRET not in page for page in browser.pages)


@pytest.mark.anyio
async def test_ctx_elicit_still_refuses_a_page_form():
    server = MCPServer("misuse")
    serve_pages(server, ORIGIN)

    @server.tool()
    @elicits
    async def misuse(ctx: ElicitContext) -> str:
        await ctx.elicit(BankLogin)
        return "asked"

    async with connect(server, "2025-11-25", elicitation_callback=elicitation_handler(no_form)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("misuse", {})
    assert result.is_error
    assert "SchemaError" in result.content[0].text  # type: ignore[union-attr]
    assert "elicit_page" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_a_server_without_pages_says_how_to_serve_them():
    server = MCPServer("nopages")

    @server.tool()
    @elicits
    async def ask(ctx: ElicitContext) -> str:
        await ctx.elicit_page(BankLogin)
        return "asked"

    async with connect(server, "2025-11-25", elicitation_callback=elicitation_handler(no_form)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("ask", {})
    assert result.is_error
    assert "serve_pages(server" in result.content[0].text  # type: ignore[union-attr]


def link_bank_example() -> Any:
    examples = str(Path(__file__).resolve().parents[2] / "examples")
    if examples not in sys.path:
        sys.path.insert(0, examples)
    return importlib.import_module("link_bank")


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_the_link_bank_example_links_the_account_from_its_page(era: str):
    example = link_bank_example()
    server = example.build_server(ORIGIN)
    browser = Browser(server)
    async with connect(server, era, elicitation_callback=answering(browser, VALID)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert result.content[0].text == "Linked the account of ada (one-time code accepted)"  # type: ignore[union-attr]
    assert example.LINKED["ada"] == len(SECRET)
    assert "Acme Bank" in browser.pages[0]


@pytest.mark.anyio
async def test_the_link_bank_example_refuses_a_client_without_url_mode():
    server = link_bank_example().build_server(ORIGIN)
    async with connect(server, "2025-06-18", elicitation_callback=elicitation_handler(no_form)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert result.is_error
    assert "ElicitationUnsupported" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_on_2026_07_28_a_replayed_round_cannot_take_the_page_answer_twice():
    from mcp.shared.exceptions import MCPError
    from mcp_types import ElicitRequestURLParams, ElicitResult, InputRequiredResult

    server, _ = make_server(poll=0.01)
    browser = Browser(server)
    async with connect(server, "2026-07-28", elicitation_callback=elicitation_handler(no_form)) as client:
        session = client.session
        with anyio.fail_after(BOUND):
            first = await session.call_tool("link_bank", {}, allow_input_required=True)
            assert isinstance(first, InputRequiredResult)
            assert first.input_requests is not None
            ((key, request),) = first.input_requests.items()
            assert isinstance(request.params, ElicitRequestURLParams)
            consent = {key: ElicitResult(action="accept")}
            waiting = await session.call_tool(
                "link_bank",
                {},
                input_responses=consent,
                request_state=first.request_state,
                allow_input_required=True,
            )
            assert isinstance(waiting, InputRequiredResult)
            assert not waiting.input_requests  # a round carrying only requestState
            await browser.submit(request.params.url, VALID)
            done = await session.call_tool(
                "link_bank", {}, request_state=waiting.request_state, allow_input_required=True
            )
            assert not isinstance(done, InputRequiredResult)
            assert done.content[0].text.startswith("linked ada")  # type: ignore[union-attr]
            with pytest.raises(MCPError) as replayed:
                await session.call_tool("link_bank", {}, request_state=waiting.request_state)
    assert replayed.value.code == -32602
    assert replayed.value.data == {"reason": "round_already_answered"}


class Nickname(BaseModel):
    nickname: str


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_a_question_after_the_page_replays_past_the_taken_page_answer(era: str):
    server = MCPServer("bank-then-nickname")
    serve_pages(server, ORIGIN)

    @server.tool()
    @elicits(BankLogin)
    async def link_and_name(ctx: ElicitContext) -> str:
        login = await ctx.elicit_page(BankLogin)
        name = await ctx.elicit(Nickname)
        assert isinstance(login, Accepted)
        assert isinstance(name, Accepted)
        return f"{login.data.username} as {name.data.nickname} ({login.data.password.get_secret_value()[:3]})"

    browser = Browser(server)

    async def nickname(request: FormRequest) -> Accepted[BaseModel]:
        return request.accept({"nickname": "countess"})

    async def open_url(request: UrlRequest) -> str:
        await browser.submit(request.url, VALID)
        return "accept"

    handler = elicitation_handler(nickname, url=open_url)
    async with connect(server, era, elicitation_callback=handler) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_and_name", {})
    assert result.content[0].text == f"ada as countess ({SECRET[:3]})"  # type: ignore[union-attr]


def _page_id(url: str) -> str:
    return url.rsplit("/", 1)[-1]


def bank_then_nickname(store: Any) -> MCPServer:
    """A tool asking a page (30 s to submit it), then a form question (5 minutes to answer it)."""
    server = MCPServer("bank-then-nickname-later")
    configure(server, store=store)
    serve_pages(server, ORIGIN, poll_seconds=0.01)

    @server.tool()
    @elicits(BankLogin)
    async def link_and_name(ctx: ElicitContext) -> str:
        login = await ctx.elicit_page(BankLogin, timeout=30)
        name = await ctx.elicit(Nickname, timeout=300)
        assert isinstance(login, Accepted)
        assert isinstance(name, Accepted)
        return f"{login.data.username} as {name.data.nickname} ({login.data.password.get_secret_value()[:3]})"

    return server


async def take_the_page_then_ask_the_nickname(server: MCPServer, session: Any) -> tuple[Any, str]:
    """Rounds 1 and 2 of `bank_then_nickname`: consent, then the page taken; returns (round, page id)."""
    from mcp_types import ElicitRequestURLParams, ElicitResult, InputRequiredResult

    first = await session.call_tool("link_and_name", {}, allow_input_required=True)
    assert isinstance(first, InputRequiredResult)
    ((key, request),) = (first.input_requests or {}).items()
    assert isinstance(request.params, ElicitRequestURLParams)
    done = await Browser(server).submit(request.params.url, VALID)
    assert done.status_code == 200
    nickname = await session.call_tool(
        "link_and_name",
        {},
        input_responses={key: ElicitResult(action="accept")},
        request_state=first.request_state,
        allow_input_required=True,
    )
    assert isinstance(nickname, InputRequiredResult)
    assert nickname.input_requests, "the page was taken and the nickname asked in the same round"
    return nickname, _page_id(request.params.url)


class PutsNoted(CountingStore):
    """The in-process store, noting the namespace of every value put."""

    def __init__(self) -> None:
        super().__init__()
        self.put_into: list[str] = []

    async def put(self, key: str, value: bytes, expires_at: float, /) -> bool:
        self.put_into.append(key.partition(":")[0])
        return await super().put(key, value, expires_at)


@pytest.mark.anyio
async def test_on_2026_07_28_a_page_answer_is_held_only_when_its_call_goes_on_past_the_round_that_took_it():
    from mcp_types import InputRequiredResult

    ended_there = PutsNoted()
    server, _ = make_server(poll=0.01, store=ended_there)
    browser = Browser(server)
    async with connect(server, "2026-07-28", elicitation_callback=answering(browser, VALID)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert result.content[0].text.startswith("linked ada")  # type: ignore[union-attr]
    assert "page-kept" not in ended_there.put_into  # the call ended in the round that took it
    assert ended_there.put_into.count("page") == 1  # the answer, files and all, in one value

    goes_on = PutsNoted()
    server = bank_then_nickname(goes_on)
    async with connect(server, "2026-07-28", elicitation_callback=elicitation_handler(no_form)) as client:
        with anyio.fail_after(BOUND):
            nickname, page_id = await take_the_page_then_ask_the_nickname(server, client.session)
            assert isinstance(nickname, InputRequiredResult)
            assert goes_on.put_into.count("page-kept") == 1  # held as the round ended
            assert await goes_on.get(f"page-kept:{page_id}") is not None
            done = await _final_round(client.session, nickname)
    assert done.content[0].text.startswith("ada as countess")  # type: ignore[union-attr]
    assert await goes_on.get(f"page-kept:{page_id}") is None  # and forgotten when the call ended


@pytest.mark.anyio
async def test_a_page_answer_taken_in_time_survives_a_later_question_answered_after_the_page_timeout(
    monkeypatch: pytest.MonkeyPatch,
):
    from mcp_types import ElicitResult

    import typed_elicit._core.clock as clock

    store = InProcessStore()
    server = bank_then_nickname(store)
    async with connect(server, "2026-07-28", elicitation_callback=elicitation_handler(no_form)) as client:
        with anyio.fail_after(BOUND):
            nickname, page_id = await take_the_page_then_ask_the_nickname(server, client.session)
            now = clock.now()
            monkeypatch.setattr(clock, "now", lambda: now + 60)  # the page's 30 s are long gone
            assert await store.get(f"page:{page_id}") is None  # the submitted answer expired with its page
            ((key, _),) = (nickname.input_requests or {}).items()
            done = await client.session.call_tool(
                "link_and_name",
                {},
                input_responses={key: ElicitResult(action="accept", content={"nickname": "countess"})},
                request_state=nickname.request_state,
                allow_input_required=True,
            )
    assert done.content[0].text == f"ada as countess ({SECRET[:3]})"  # type: ignore[union-attr]
    assert not [k for k in store._values if page_id in k]  # pyright: ignore[reportPrivateUsage]


def like_the_inspector(browser: Browser, completed: anyio.Event, reply: str = "accept"):
    """A URL handler that, like the MCP Inspector, replies only once the server says the page is complete.

    The user submits the page first (here: at once, over HTTP); the consent reply waits for
    `notifications/elicitation/complete`.
    """

    async def open_url(request: UrlRequest) -> str:
        done = await browser.submit(request.url, VALID)
        assert done.status_code == 200
        with anyio.fail_after(3):  # without the completion this never ends
            await completed.wait()
        return reply

    return elicitation_handler(no_form, url=open_url)


def completion_watcher(completed: anyio.Event, ids: list[str]):
    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/elicitation/complete":
            ids.append(root.params.elicitation_id)
            completed.set()

    return on_message


@pytest.mark.anyio
@pytest.mark.parametrize(("reply", "why"), [("accept", "consented"), ("decline", "the page came first")])
async def test_on_2025_11_25_a_client_that_replies_only_after_the_completion_gets_the_page_answer(
    reply: str, why: str
):
    server, runs = make_server()
    completed = anyio.Event()
    ids: list[str] = []
    handler = like_the_inspector(Browser(server), completed, reply)
    async with connect(
        server, "2025-11-25", elicitation_callback=handler, message_handler=completion_watcher(completed, ids)
    ) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert result.is_error is False, (why, result)
    assert result.content[0].text == f"linked ada ({len(SECRET)} chars, otp ok)"  # type: ignore[union-attr]
    assert len(ids) == 1
    assert runs["body"] == 1


@pytest.mark.anyio
async def test_on_2025_11_25_a_decline_before_any_submit_wins_and_the_page_is_not_awaited():
    server, _ = make_server()
    completed = anyio.Event()
    ids: list[str] = []

    async def refuse(request: UrlRequest) -> str:
        return "decline"

    handler = elicitation_handler(no_form, url=refuse)
    async with connect(
        server, "2025-11-25", elicitation_callback=handler, message_handler=completion_watcher(completed, ids)
    ) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert result.content[0].text == "declined"  # type: ignore[union-attr]
    assert ids == []  # nothing was submitted, so nothing completed


@pytest.mark.slow
@pytest.mark.anyio
async def test_on_2026_07_28_a_page_timeout_names_the_budget_of_the_clients_rounds():
    server, _ = make_server(timeout=1.0, poll=0.05)

    async def consent_only(request: UrlRequest) -> str:
        return "accept"

    handler = elicitation_handler(no_form, url=consent_only)
    async with connect(server, "2026-07-28", elicitation_callback=handler) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    text = result.content[0].text  # type: ignore[union-attr]
    assert "was not submitted within 1 s" in text
    assert "each round waits up to 0.05 s" in text
    assert "input_required_max_rounds" in text
    assert "about 0.5 s" in text


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_page_timeout_within_the_budget_of_the_clients_rounds_does_not_mention_it():
    server, _ = make_server(timeout=1.0, poll=0.5)

    async def consent_only(request: UrlRequest) -> str:
        return "accept"

    handler = elicitation_handler(no_form, url=consent_only)
    async with connect(server, "2026-07-28", elicitation_callback=handler) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    text = result.content[0].text  # type: ignore[union-attr]
    assert "was not submitted within 1 s" in text
    assert "input_required_max_rounds" not in text


class CountingWaits(InProcessStore):
    """The in-process store, counting the waits that reach it."""

    def __init__(self) -> None:
        super().__init__()
        self.waits = 0

    async def wait(self, key: str, timeout: float, /) -> bytes | None:
        self.waits += 1
        return await super().wait(key, timeout)


@pytest.mark.anyio
async def test_concurrent_waits_for_one_page_share_one_store_wait_and_leave_nothing_behind():
    import typed_elicit._core.clock as clock
    from typed_elicit.pages._tickets import _waits  # pyright: ignore[reportPrivateUsage]
    from typed_elicit.pages._tickets import wait_shared as _wait_shared

    store = CountingWaits()
    got: list[bytes | None] = []

    async def poll(timeout: float) -> None:
        got.append(await _wait_shared(store, "page:p", timeout))

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as group:
            for _ in range(50):
                group.start_soon(poll, 30)
            await anyio.wait_all_tasks_blocked()
            assert len(_waits()) == 1
            assert await store.put("page:p", b"sealed", clock.now() + 60)
    assert got == [b"sealed"] * 50
    assert store.waits == 1
    assert _waits() == {}
    assert store._waiters == {}  # pyright: ignore[reportPrivateUsage]


@pytest.mark.anyio
async def test_a_joined_wait_ends_with_the_shared_one_or_at_its_own_time_and_touches_no_store():
    from typed_elicit.pages._tickets import _waits  # pyright: ignore[reportPrivateUsage]
    from typed_elicit.pages._tickets import wait_shared as _wait_shared

    store = CountingWaits()
    got: dict[str, bytes | None] = {}
    ended: dict[str, float] = {}

    async def poll(name: str, timeout: float) -> None:
        got[name] = await _wait_shared(store, "page:q", timeout)
        ended[name] = anyio.current_time()

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as group:
            group.start_soon(poll, "leader", 0.2)
            await anyio.wait_all_tasks_blocked()
            group.start_soon(poll, "longer", 30)  # ends with the shared wait, as at the end of a poll
            group.start_soon(poll, "shorter", 0.01)  # ends at its own time; the shared wait goes on
    assert got == {"leader": None, "longer": None, "shorter": None}
    assert ended["shorter"] < ended["leader"] <= ended["longer"]
    assert store.waits == 1
    assert _waits() == {}


class FailingWait(InProcessStore):
    """The in-process store whose waits fail once released (as a store going away would)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = anyio.Event()

    async def wait(self, key: str, timeout: float, /) -> bytes | None:
        await self.release.wait()
        raise OSError("the store went away")


@pytest.mark.anyio
async def test_when_a_shared_wait_fails_its_joiners_end_their_rounds_and_the_map_empties():
    from typed_elicit.pages._tickets import _waits  # pyright: ignore[reportPrivateUsage]
    from typed_elicit.pages._tickets import wait_shared as _wait_shared

    store = FailingWait()
    got: list[bytes | None] = []
    failed: list[str] = []

    async def leader() -> None:
        try:
            await _wait_shared(store, "page:r", 30)
        except OSError as error:
            failed.append(str(error))

    async def joiner() -> None:
        got.append(await _wait_shared(store, "page:r", 30))

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as group:
            group.start_soon(leader)
            await anyio.wait_all_tasks_blocked()
            for _ in range(3):
                group.start_soon(joiner)
            await anyio.wait_all_tasks_blocked()
            store.release.set()
    assert failed == ["the store went away"]  # the leader's round fails with the store's error
    assert got == [None, None, None]  # the joiners' rounds end with requestState only
    assert _waits() == {}


async def _final_round(session: Any, nickname: Any) -> Any:
    from mcp_types import ElicitResult

    ((key, _),) = (nickname.input_requests or {}).items()
    return await session.call_tool(
        "link_and_name",
        {},
        input_responses={key: ElicitResult(action="accept", content={"nickname": "countess"})},
        request_state=nickname.request_state,
        allow_input_required=True,
    )


@pytest.mark.anyio
async def test_a_round_replayed_after_its_call_ended_is_refused_though_the_page_answer_is_gone():
    from mcp.shared.exceptions import MCPError

    store = InProcessStore()
    server = bank_then_nickname(store)
    async with connect(server, "2026-07-28", elicitation_callback=elicitation_handler(no_form)) as client:
        with anyio.fail_after(BOUND):
            nickname, _ = await take_the_page_then_ask_the_nickname(server, client.session)
            done = await _final_round(client.session, nickname)
            assert done.content[0].text.startswith("ada as countess")
            with pytest.raises(MCPError) as replayed:
                await _final_round(client.session, nickname)
    assert replayed.value.code == -32602
    assert replayed.value.data == {"reason": "round_already_answered"}
    assert "is no longer held: the call it belongs to has ended" in replayed.value.message


@pytest.mark.anyio
async def test_a_later_round_past_the_calls_deadline_ends_in_the_calls_timeout(
    monkeypatch: pytest.MonkeyPatch,
):
    import typed_elicit._core.clock as clock

    store = InProcessStore()
    server = bank_then_nickname(store)
    async with connect(server, "2026-07-28", elicitation_callback=elicitation_handler(no_form)) as client:
        with anyio.fail_after(BOUND):
            nickname, page_id = await take_the_page_then_ask_the_nickname(server, client.session)
            now = clock.now()
            monkeypatch.setattr(clock, "now", lambda: now + 3601)  # the default call_timeout passes
            assert await store.get(f"page-kept:{page_id}") is None  # the held answer expired with the call
            done = await _final_round(client.session, nickname)
    assert done.is_error
    assert "ElicitationTimeout: this call of" in done.content[0].text  # type: ignore[union-attr]
    assert "limit, so BankLogin can no longer be answered" in done.content[0].text  # type: ignore[union-attr]


class UndeletableStore(InProcessStore):
    """The in-process store whose deletes fail (a store gone at the end of a call)."""

    async def delete(self, key: str, /) -> None:
        raise OSError("the store went away")


@pytest.mark.anyio
async def test_a_call_whose_held_answer_cannot_be_deleted_still_returns_and_logs_it(
    caplog: pytest.LogCaptureFixture,
):
    store = UndeletableStore()
    server = bank_then_nickname(store)
    async with connect(server, "2026-07-28", elicitation_callback=elicitation_handler(no_form)) as client:
        with anyio.fail_after(BOUND):
            nickname, _ = await take_the_page_then_ask_the_nickname(server, client.session)
            done = await _final_round(client.session, nickname)
    assert done.content[0].text == f"ada as countess ({SECRET[:3]})"  # type: ignore[union-attr]
    assert "failed with OSError" in caplog.text
    assert SECRET not in caplog.text


@pytest.mark.slow
@pytest.mark.anyio
async def test_on_2025_11_25_a_page_submitted_before_a_reply_that_never_comes_is_the_result():
    server, _ = make_server(timeout=1.0)
    browser = Browser(server)

    async def submit_and_never_reply(request: UrlRequest) -> str:
        done = await browser.submit(request.url, VALID)
        assert done.status_code == 200
        await anyio.Event().wait()  # the server cancels this request when its timeout passes
        raise AssertionError("unreachable")

    handler = elicitation_handler(no_form, url=submit_and_never_reply)
    async with connect(server, "2025-11-25", elicitation_callback=handler) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert result.content[0].text == f"linked ada ({len(SECRET)} chars, otp ok)"  # type: ignore[union-attr]


class BrokenWaits(InProcessStore):
    """The in-process store whose waits fail as a shared store gone away does."""

    async def wait(self, key: str, timeout: float, /) -> bytes | None:
        from typed_elicit.errors import StoreUnavailable

        raise StoreUnavailable.during(
            "wait", store="redis test:6379 db 0", namespace="page", cause="ConnectionError", timeout=2.0
        )


@pytest.mark.anyio
async def test_on_2025_11_25_a_store_failing_while_the_page_is_watched_fails_the_call_without_a_reply():
    server = MCPServer("broken-bank")
    configure(server, store=BrokenWaits())
    serve_pages(server, ORIGIN)

    @server.tool()
    @elicits(BankLogin)
    async def link_bank(ctx: ElicitContext) -> str:
        outcome = await ctx.elicit_page(BankLogin)
        return type(outcome).__name__

    async def never_reply(request: UrlRequest) -> str:
        await anyio.Event().wait()  # cancelled by the server when the call fails
        raise AssertionError("unreachable")

    handler = elicitation_handler(no_form, url=never_reply)
    async with connect(server, "2025-11-25", elicitation_callback=handler) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("link_bank", {})
    assert result.is_error
    assert (
        "StoreUnavailable: the shared store (redis test:6379 db 0) could not wait" in result.content[0].text
    )  # type: ignore[union-attr]
