"""The page question kind: the client is asked its consent to the page, the answer comes from the page."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, SecretStr

from typed_elicit import Accepted, Cancelled, Declined, form
from typed_elicit._calls.page_question import PageQuestion
from typed_elicit._calls.state import PageRecord
from typed_elicit._core.digests import url_digest
from typed_elicit._forms.reduce import page_reduced
from typed_elicit.errors import ElicitationUnsupported


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
