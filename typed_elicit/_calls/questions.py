"""One question: what is asked, how it travels, and how its answer becomes a result.

A `Question` is the value every asker takes: a form question (a model and its
reduced schema) or a URL-mode question (a URL), with its wire key and the text
shown to the user. It knows its request params, the id a recorded answer is
pinned to, and how an answer turns into `Accepted`/`Declined`/`Cancelled`
(or `Consented`), so form and URL questions travel one path through each asker.
The checks on what a tool passes in, and on what an answer may be, live here too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final, Generic, Literal, TypeAlias, TypeVar
from urllib.parse import SplitResult, urlsplit

from mcp_types import ElicitRequestParams, ElicitRequestURLParams
from mcp_types import ElicitResult as WireResult
from pydantic import BaseModel

from typed_elicit._calls.policy import DEFAULT_MAX_ANSWER_BYTES, OnUnsupported, unsupported, url_unsupported
from typed_elicit._calls.state import URL_QUESTION, QuestionId, model_id, url_digest
from typed_elicit._core.results import Accepted, Cancelled, Consented, Declined, ElicitResult, UrlResult
from typed_elicit._forms.reduce import Reduced
from typed_elicit._forms.spec import check_wire_value, too_many_keys
from typed_elicit._forms.validate import validate_answer
from typed_elicit._forms.wire import json_size as json_size
from typed_elicit.errors import ElicitArgumentError, InvalidResponse

if TYPE_CHECKING:
    from typed_elicit._calls.call import Call

Mode: TypeAlias = Literal["form", "url"]
Via: TypeAlias = Literal["client", "fallback"]
Action: TypeAlias = Literal["accept", "decline", "cancel"]

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R", bound=ElicitResult[Any] | UrlResult)


@dataclass(slots=True, eq=False)
class Question(Generic[R]):
    """A question as asked: form (`model`, `form`) or URL mode (`url`).

    Read-only by convention, not frozen: a frozen dataclass pays one `object.__setattr__`
    per field on every question (measured: 0.6 % of a push round trip). A re-ask is a
    new value (`again`), never a change to this one.

    Attributes:
        key: Its wire key (`q0`, `q1`, ...): its position among the call's questions.
        message: The text shown to the user (a re-ask adds the problems to it).
        model: The model asked for; None for a URL-mode question.
        form: The model's reducer record for the negotiated revision; None for URL mode.
        url: The page a URL-mode question sends the user to; None for a form.
        elicitation_id: The `elicitationId` a URL-mode question carries on 2025-11-25.
        asker: The call the tool made to ask it (`ctx.elicit`, `ctx.elicit_all`,
            `ctx.elicit_url`, `ctx.elicit_page`), for messages that advise `timeout=` or a policy.
    """

    key: str
    message: str
    model: type[BaseModel] | None = None
    form: Reduced | None = None
    url: str | None = None
    elicitation_id: str | None = None
    asker: str = "ctx.elicit"
    shown: Reduced | None = None
    """The form as a re-ask shows it (`form` pre-filled with the valid part of the last answer)."""

    @property
    def mode(self) -> Mode:
        """`"form"` or `"url"`."""
        return "form" if self.form is not None else "url"

    @property
    def id(self) -> QuestionId:
        """What a recorded answer is pinned to: position, model (or `url`) and digest."""
        if self.form is not None:
            assert self.model is not None
            return QuestionId(key=self.key, model=model_id(self.model), digest=self.form.digest)
        assert self.url is not None
        return QuestionId(key=self.key, model=URL_QUESTION, digest=url_digest(self.url))

    @property
    def subject(self) -> str:
        """What the question asks for, as messages name it (the model's name)."""
        return self.model.__name__ if self.model is not None else "the URL-mode question"

    def params(self, message: str | None = None, *, with_id: bool = True) -> ElicitRequestParams:
        """The `elicitation/create` params, showing `message` (default: the question's own).

        Args:
            message: The text to show instead of the question's (a re-ask's).
            with_id: Whether a URL-mode question carries its `elicitationId`
                (2026-07-28 URL requests carry none).
        """
        text = self.message if message is None else message
        if self.form is not None:
            return (self.shown or self.form).params(text)
        assert self.url is not None
        return ElicitRequestURLParams(
            message=text, url=self.url, elicitation_id=self.elicitation_id if with_id else None
        )

    def outcome(self, action: Action, content: dict[str, Any] | None) -> R:
        """The typed result of an answer (accepted content validated against the form and model).

        Raises:
            InvalidResponse: If accepted content breaks the form or the model.
        """
        result: Any
        if action == "accept":
            if self.form is None:
                result = Consented()  # any content a client sends with a URL-mode accept is ignored
            else:
                assert self.model is not None
                result = Accepted(validate_answer(self.model, self.form, content))
        elif action == "decline":
            result = Declined()
        else:
            result = Cancelled()
        typed: R = result
        return typed

    def again(self, problem: InvalidResponse) -> Question[R]:
        """This question as its re-ask shows it: each field the last answer got right pre-filled.

        A field is pre-filled (as its `default`, which the client sent itself) when the
        answer held a value for it that no problem names; when a problem names no field
        of the form (a size limit, a check across fields), nothing is. The question's
        identity (`id`, `form`) is unchanged, so a 2026-07-28 re-run still matches it.
        """
        if self.form is None or not problem.content:
            return self
        form = self.form.kinds or self.form.form
        named = {re.split(r"[.\[]", path, maxsplit=1)[0] for path, _ in problem.errors}
        if not named <= form.by_name.keys():
            return self
        valid: dict[str, Any] = {}
        for key, value in problem.content.items():
            spec = form.by_name.get(key)
            if spec is None or value is None or key in named:
                continue
            try:
                valid[key] = check_wire_value(spec, value, self.form.offered)
            except ValueError:
                continue
        return replace(self, shown=self.form.prefilled(valid)) if valid else self

    def unsupported(self, policy: OnUnsupported, reason: str, *, tool: bool | None) -> R:
        """The outcome when the client cannot be asked, under `policy` (never `"fallback"`).

        Raises:
            ElicitationUnsupported: Unless the policy produces an outcome.
        """
        result: Any
        if self.form is None:
            result = url_unsupported(policy, reason, self.asker)
        else:
            assert self.model is not None
            result = unsupported(
                self.model, policy, reason, tool=tool, defaults=self.form.fill, asker=self.asker
            )
        typed: R = result
        return typed

    def settle(self, call: Call, outcome: R) -> None:
        """Record an outcome its policy gave (`"decline"`, `"defaults"`), to be replayed like an answer.

        A call resumed through the fallback asks every open question through the model,
        so a question its policy settled must be recorded, not asked again.
        """
        if isinstance(outcome, Declined):
            call.answered_now(self, "decline", None)
        else:
            call.answered_now(self, "accept", {})  # {}: the model's defaults

    def kept(self, wire: WireResult) -> dict[str, Any] | None:
        """The content recorded for replay: only an accepted form answer keeps any."""
        return wire.content if wire.action == "accept" and self.form is not None else None

    def check_size(self, wire: WireResult, limit: int) -> None:
        """Refuse an answer with more keys than the form has fields, or over `limit` bytes of JSON.

        Both checks come first and do work bounded by the form and the limit, never by the
        answer: its keys are counted by `len` (an answer with more keys than the form has
        fields holds one it was not asked, and is refused whole, none of them read), and
        its size is bounded cheaply (`_bound`) and counted exactly only when that bound is
        over the limit (`json_size`, which stops once past it).

        Raises:
            InvalidResponse: Naming the count or the limit and the fix; it keeps no content
                (nor any value).
        """
        content = wire.content
        if content is None or self.form is None:
            return
        fields = self.form.field_count
        if len(content) > fields:
            raise InvalidResponse(self.subject, [("(answer)", too_many_keys(len(content), fields))], None)
        if _bound(content, limit) <= limit:
            return
        if json_size(content, limit) > limit:
            raise InvalidResponse(
                self.subject,
                [("(answer)", f"the answer is larger than the limit of {limit} bytes")],
                None,
                advice=(
                    f"An answer may carry at most {limit} bytes of JSON content "
                    f"(@elicits(max_answer_bytes=...), {DEFAULT_MAX_ANSWER_BYTES} by default), so that it "
                    "fits in the request state a "
                    "2026-07-28 round carries. Ask for less per question (set max_length on long text "
                    "fields, or split the form), or pass a larger max_answer_bytes to @elicits."
                ),
            )


def _bound(content: dict[str, Any], limit: int) -> int:
    """An upper bound of `json_size(content)`, cheap for the flat answers forms produce; or above `limit`.

    Each string counts 12 bytes per character (the longest ASCII JSON escape: a
    character outside the BMP becomes a surrogate pair of two six-byte escapes);
    anything but a string, a list of strings, a bool, None or a small number counts as
    unbounded, so the exact `json_size` decides. A list whose item count alone puts
    the bound over `limit` (3 bytes an item at least) is not read: the bound so far is
    returned, over `limit`, and `json_size` decides. The caller counts the keys first.
    """
    total = 2
    for key, value in content.items():
        total += 12 * len(key) + 4  # quotes, colon, comma
        kind = value.__class__
        if kind is str:
            total += 12 * len(value) + 2
        elif value is None or kind is bool or kind is float or (kind is int and -_BIG < value < _BIG):
            total += 24
        elif kind is list:
            total += 2 + 3 * len(value)  # brackets; each item's quotes and comma
            if total > limit:
                return total
            for item in value:
                if type(item) is not str:
                    return _UNBOUNDED
                total += 12 * len(item)
        else:
            return _UNBOUNDED
    return total


_UNBOUNDED: Final = 1 << 62
_BIG: Final = 10**15


def out_of_retries(problem: InvalidResponse, retries: int) -> InvalidResponse:
    """`problem` as raised once the re-asks are used up: with `retries` > 0 its advice says so."""
    if retries == 0:
        return problem
    asked = retries + 1
    return InvalidResponse(
        problem.model_name,
        problem.errors,
        problem.content,
        advice=(
            f"The user was asked {asked} times (retries={retries}) and no answer was valid; "
            "catch InvalidResponse to carry on without it, or make the form easier to fill in "
            "(clearer message, titles, descriptions)."
        ),
    )


def reask(message: str, problem: InvalidResponse) -> str:
    """The message of a re-ask: the question's own, then what was wrong (paths and rules, no values)."""
    details = "; ".join(f"{path}: {text}" for path, text in problem.errors)
    return f"{message}\n\nYour previous answer could not be used ({details}). Please answer again."


def check_question(model: object, message: object, call: str = "ctx.elicit") -> None:
    """Refuse a `ctx.elicit` (or `ctx.elicit_page`, ...) call whose model or message cannot make a question.

    Args:
        model: What the tool passed as the model.
        message: What the tool passed as the message.
        call: The call the tool made, for the message.

    Raises:
        ElicitArgumentError: If `model` is not a pydantic model class (with a hint when the
            arguments are in the SDK's order, message first) or `message` is not a string
            (was a `TypeError`), or `message` is empty or only whitespace (was a `ValueError`).
    """
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        if isinstance(message, type) and issubclass(message, BaseModel):
            raise ElicitArgumentError(
                call,
                "model",
                f'takes the model first and the message second: {call}({message.__name__}, "...")',
                "The SDK's ctx.elicit(message, schema) has the other order.",
            )
        got = model.__name__ if isinstance(model, type) else type(model).__name__
        raise ElicitArgumentError(
            call,
            "model",
            f"needs a pydantic.BaseModel subclass to ask for, got {got}",
            "Pass the model class itself, e.g. ctx.elicit(Booking).",
        )
    if message is None:
        return
    if not isinstance(message, str):
        raise ElicitArgumentError(
            call,
            "message",
            f"needs the message for {model.__name__} as a string, got {type(message).__name__}",
            "Pass the text the user reads, or no message to use the model's @form(message=...) or docstring.",
        )
    if not message.strip():
        raise ElicitArgumentError(
            call,
            "message",
            f"got a blank message for {model.__name__}: the user would see an empty question",
            "Say what you are asking for, or pass no message to use the model's "
            "@form(message=...) or docstring.",
        )


_URL_SCHEMES: Final = ("https", "http")


def check_url_question(url: object, message: object, elicitation_id: object) -> None:
    """Refuse a `ctx.elicit_url` call that cannot make a question.

    The URL must be absolute `https` or `http` with a host, and carry no
    credentials, because clients display it in full.

    Raises:
        ElicitArgumentError: Naming the problem (a `ValueError`); credentials, query and
            fragment are never repeated in the message (the query carries the flow's token).
    """
    call = "ctx.elicit_url"
    if not isinstance(url, str):
        raise ElicitArgumentError(
            call, "url", f"needs the URL as a string, got {type(url).__name__}", "Pass the page's URL."
        )
    if any(c.isspace() or not c.isprintable() for c in url):
        raise ElicitArgumentError(
            call,
            "url",
            "refuses a URL containing whitespace or control characters (clients show the URL in full)",
            "Percent-encode them.",
        )
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for an invalid port
    except ValueError:  # its text may repeat the host part, credentials included
        raise ElicitArgumentError(
            call,
            "url",
            "got a malformed URL: its host or port cannot be read",
            "Check the brackets of an IPv6 address, the port number and the host's characters.",
        ) from None
    if "@" in parts.netloc:
        raise ElicitArgumentError(
            call,
            "url",
            f"refuses a URL with credentials in it ({shown(parts)}): clients show the full URL to the user",
            "Put a short-lived, single-use token in the query instead (mint it with ctx.once).",
        )
    if parts.scheme.lower() not in _URL_SCHEMES or not parts.hostname:
        raise ElicitArgumentError(
            call,
            "url",
            f"needs an absolute https:// (or http://) URL with a host, got {shown(parts)!r}",
            "Pass the full URL of the page, e.g. https://example.com/connect?flow=...",
        )
    if not isinstance(message, str) or not message.strip():
        raise ElicitArgumentError(
            call,
            "message",
            "needs a message telling the user why they should open the URL",
            "Say why, in words the user reads next to the URL.",
        )
    if elicitation_id is not None and not elicitation_id:
        raise ElicitArgumentError(
            call,
            "elicitation_id",
            "got an empty elicitation_id",
            "Pass a non-empty string, or None to mint one.",
        )


def shown(parts: SplitResult) -> str:
    """A URL fit for an error message: user info, query and fragment become `***`.

    A URL-mode URL carries its single-use token in the query; no message, log or
    traceback may repeat it.
    """
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"***@{netloc.rpartition('@')[2]}"
    return parts._replace(
        netloc=netloc, query="***" if parts.query else "", fragment="***" if parts.fragment else ""
    ).geturl()
