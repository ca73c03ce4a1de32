"""The question kinds, form and URL: each answer's result, the pin, the re-ask, and the refusal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from typed_elicit import Accepted, Cancelled, Consented, Declined
from typed_elicit._calls.questions import FormQuestion, UrlQuestion
from typed_elicit._calls.state import QuestionId
from typed_elicit._core.digests import url_digest
from typed_elicit._forms.reduce import reduced
from typed_elicit.errors import ElicitationUnsupported, InvalidResponse


class Booking(BaseModel):
    name: str
    guests: int = 2


class Confirm(BaseModel):
    ok: bool


@dataclass
class Wire:
    """An answer as it came from the client."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None


def booking(key: str = "q0") -> FormQuestion[Booking]:
    return FormQuestion(key, "Book a table", Booking, reduced(Booking, "2026-07-28"))


URL = "https://bank.example/link?flow=7"


def test_a_form_answer_becomes_its_typed_outcome() -> None:
    question = booking()
    assert question.outcome("accept", {"name": "Ada", "guests": 3}) == Accepted(Booking(name="Ada", guests=3))
    assert question.outcome("decline", None) == Declined()
    assert question.outcome("cancel", None) == Cancelled()


def test_a_form_answer_that_does_not_fit_is_an_invalid_response_naming_the_field() -> None:
    with pytest.raises(InvalidResponse) as refused:
        booking().outcome("accept", {"name": "Ada", "guests": "many"})
    assert [path for path, _ in refused.value.errors] == ["guests"]


def test_a_form_question_is_pinned_to_its_key_model_and_schema_digest() -> None:
    question = booking("q3")
    assert question.id.key == "q3"
    assert question.id.digest == reduced(Booking, "2026-07-28").digest
    assert question.id != FormQuestion("q3", "x", Confirm, reduced(Confirm, "2026-07-28")).id
    params = question.params("Book again")
    assert params.message == "Book again"
    assert question.params().message == "Book a table"


def test_a_re_ask_prefills_what_the_last_answer_got_right_and_keeps_the_questions_identity() -> None:
    question = booking()
    problem = InvalidResponse("Booking", [("guests", "not a number")], {"name": "Ada", "guests": "many"})
    again = question.again(problem)
    assert again.id == question.id
    shown = again.params().model_dump(by_alias=True)["requestedSchema"]["properties"]
    assert shown["name"]["default"] == "Ada"
    assert (
        "default" not in question.params().model_dump(by_alias=True)["requestedSchema"]["properties"]["name"]
    )


def test_an_answer_with_keys_the_form_never_asked_is_refused_whole_before_it_is_read() -> None:
    with pytest.raises(InvalidResponse) as refused:
        booking().check_size(Wire("accept", {"name": "a", "guests": 1, "extra": 0}), 1000)
    assert refused.value.content is None
    booking().check_size(Wire("accept", {"name": "a"}), 1000)


def test_a_form_the_client_cannot_be_asked_follows_its_policy() -> None:
    question = booking()
    assert question.unsupported("decline", "no form mode", tool=True) == Declined()
    with pytest.raises(ElicitationUnsupported, match="needs a default for every field, but Booking has none"):
        question.unsupported("defaults", "no form mode", tool=True)
    with pytest.raises(ElicitationUnsupported) as raised:
        question.unsupported("raise", "no form mode", tool=False)
    assert "fallback" not in str(raised.value)  # outside a tool, the fallback is never advised


def test_a_url_answer_is_consent_only_and_its_content_is_ignored() -> None:
    question = UrlQuestion("q0", "Link your bank", URL, "e-1")
    assert question.outcome("accept", {"account": "12345678"}) == Consented()
    assert question.outcome("decline", None) == Declined()
    assert question.outcome("cancel", None) == Cancelled()
    assert question.kept(Wire("accept", {"account": "12345678"})) is None


def test_a_url_question_is_pinned_to_the_urls_digest_never_the_url_or_to_its_page() -> None:
    question = UrlQuestion("q1", "Link your bank", URL, "e-1")
    assert question.id.digest == url_digest(URL)
    assert URL not in repr(question.id)
    page = QuestionId(key="q1", model="page", digest="d")
    assert UrlQuestion("q1", "Open the page", URL, "e-1", pin=page).id is page


def test_a_url_question_carries_its_elicitation_id_only_where_the_era_has_one() -> None:
    question = UrlQuestion("q0", "Link your bank", URL, "e-1")
    assert question.params().elicitation_id == "e-1"
    assert question.params(with_id=False).elicitation_id is None


@pytest.mark.parametrize("policy", ["raise", "defaults", "fallback"])
def test_a_url_the_client_cannot_be_sent_to_is_declined_only_under_decline(policy: Any) -> None:
    question = UrlQuestion("q0", "Link your bank", URL, "e-1")
    assert question.unsupported("decline", "no URL mode", tool=True) == Declined()
    with pytest.raises(ElicitationUnsupported) as raised:
        question.unsupported(policy, "no URL mode", tool=True)
    assert URL not in str(raised.value)
