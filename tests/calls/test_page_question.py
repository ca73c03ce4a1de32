"""The page question on 2026-07-28: its answer taken once, with one claim in the store, not two."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequestURLParams, ElicitResult, InputRequiredResult

from tests.conftest import BOUND
from tests.pages.test_pages_elicit import VALID, Browser, CountingStore, make_server, no_form
from typed_elicit.client import elicitation_handler
from typed_elicit.testing import connect

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
