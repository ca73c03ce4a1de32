"""The page question kind: the client is asked its consent to the page, the answer comes from the page;
on 2026-07-28 its answer is taken once, with one claim in the store, not two."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequestURLParams, ElicitResult, InputRequiredResult
from pydantic import BaseModel, SecretStr

from tests.conftest import BOUND
from tests.pages.test_host import VALID, Browser, CountingStore, make_server, no_form
from typed_elicit import Accepted, Cancelled, Declined, form
from typed_elicit._calls.page_question import PageQuestion
from typed_elicit._calls.state import PageRecord
from typed_elicit._core.digests import url_digest
from typed_elicit._forms.reduce import page_reduced
from typed_elicit.client import elicitation_handler
from typed_elicit.errors import ElicitationUnsupported
from typed_elicit.testing import connect


@form(page=True)
class BankLogin(BaseModel):
    username: str
    password: SecretStr


RECORD = PageRecord(id="p" * 43, expires_at=2_000_000_000.0, elicitation_id="e-7", request="r")


class Host:
    """The one part of a `PageHost` these tests reach: where a page is."""

    poll_seconds = 1.5

    def url(self, page: PageRecord) -> str:
        return f"https://pages.example/elicit-pages/{page.id}"


def login() -> PageQuestion[BankLogin]:
    host: Any = Host()
    return PageQuestion("q2", "Link your bank", BankLogin, page_reduced(BankLogin), RECORD, host)


def test_the_client_is_asked_its_consent_to_the_pages_url_under_the_pages_own_pin() -> None:
    question = login()
    consent = question.consent
    assert (consent.key, consent.url, consent.elicitation_id) == ("q2", question.url, "e-7")
    assert consent.id == question.id
    assert question.id.digest == url_digest("https://pages.example/elicit-pages/" + "p" * 43)
    assert question.params().elicitation_id == "e-7"
    assert question.params(with_id=False).elicitation_id is None
    assert question.schema is None  # a page's form is never sent to the client


def test_the_pages_answer_becomes_the_model_with_its_secret_intact() -> None:
    question = login()
    accepted = question.outcome("accept", {"username": "ada", "password": "hunter2"})
    assert isinstance(accepted, Accepted)
    assert accepted.data.password.get_secret_value() == "hunter2"
    assert question.outcome("decline", None) == Declined()
    assert question.outcome("cancel", None) == Cancelled()


def test_a_page_is_never_re_asked_and_keeps_nothing_in_the_calls_state() -> None:
    question = login()
    assert question.again(None) is question  # type: ignore[arg-type]
    assert question.kept(None) is None  # type: ignore[arg-type]
    assert question.beside is question
    assert question.poll_seconds == 1.5


@pytest.mark.parametrize("policy", ["raise", "defaults", "fallback"])
def test_a_page_the_client_cannot_be_sent_to_is_declined_only_under_decline(policy: Any) -> None:
    question = login()
    assert question.unsupported("decline", "no URL mode", tool=True) == Declined()
    with pytest.raises(ElicitationUnsupported, match="no URL mode"):
        question.unsupported(policy, "no URL mode", tool=True)


pytestmark = pytest.mark.anyio


class Claims(CountingStore):
    """The in-process store, noting every claim."""

    def __init__(self) -> None:
        super().__init__()
        self.claims: list[str] = []

    async def claim(self, key: str, expires_at: float, /) -> bool:
        self.claims.append(key.partition(":")[0])
        return await super().claim(key, expires_at)


async def _first_round(session: Any) -> tuple[InputRequiredResult, str, str]:
    first = await session.call_tool("link_bank", {}, allow_input_required=True)
    assert isinstance(first, InputRequiredResult)
    assert first.input_requests is not None
    ((key, request),) = first.input_requests.items()
    assert isinstance(request.params, ElicitRequestURLParams)
    return first, key, request.params.url


async def test_the_run_that_claimed_the_consent_round_takes_a_submitted_answer_with_no_claim_of_its_own():
    store = Claims()
    server, runs = make_server(store=store)
    browser = Browser(server)
    async with connect(server, "2026-07-28", elicitation_callback=elicitation_handler(no_form)) as client:
        session = client.session
        with anyio.fail_after(BOUND):
            first, key, url = await _first_round(session)
            assert (await browser.submit(url, VALID)).status_code == 200
            consent = {key: ElicitResult(action="accept")}
            done = await session.call_tool(
                "link_bank", {}, input_responses=consent, request_state=first.request_state
            )
            assert done.content[0].text.startswith("linked ada")  # type: ignore[union-attr]
            assert store.claims == ["round"]  # the consent's round only: no `page-taken` claim
            with pytest.raises(MCPError) as replayed:  # and that round is still used once
                await session.call_tool(
                    "link_bank", {}, input_responses=consent, request_state=first.request_state
                )
    assert replayed.value.data == {"reason": "round_already_answered"}
    assert runs["once"] == 1


async def test_a_round_that_finds_the_answer_after_polling_still_claims_the_page():
    store = Claims()
    server, _ = make_server(store=store, poll=0.01)
    browser = Browser(server)
    async with connect(server, "2026-07-28", elicitation_callback=elicitation_handler(no_form)) as client:
        session = client.session
        with anyio.fail_after(BOUND):
            first, key, url = await _first_round(session)
            waiting = await session.call_tool(
                "link_bank",
                {},
                input_responses={key: ElicitResult(action="accept")},
                request_state=first.request_state,
                allow_input_required=True,
            )
            assert isinstance(waiting, InputRequiredResult)  # polled: requestState only
            assert (await browser.submit(url, VALID)).status_code == 200
            done = await session.call_tool("link_bank", {}, request_state=waiting.request_state)
            assert done.content[0].text.startswith("linked ada")  # type: ignore[union-attr]
    # A polling round may be replayed at once by many runs: the page's answer is claimed.
    assert store.claims == ["round", "page-taken"]
