"""The kinds of question a call asks: a form, a URL, a page; each knows how its answer becomes a result.

Every asker takes a `Question` and needs no more of it than this module's protocol: its
wire key, the text shown, the id a recorded answer is pinned to, its request params, how
an answer turns into `Accepted`/`Declined`/`Cancelled` (or `Consented`), its re-ask, and
its outcome when the client cannot be asked. A question never reaches back into the call:
the asker records what happened (`Call.answered_now`).

- `FormQuestion` (`ctx.elicit`): a model and its reducer record for the negotiated revision.
- `UrlQuestion` (`ctx.elicit_url`): a URL; its accept is consent only.
- `PageQuestion` (`ctx.elicit_page`, in `page_question`): a model asked on a page of the
  server's own; its answer comes beside the client's reply (`Beside`), and an asker only waits
  for it the way its era waits.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Final, Generic, Literal, Protocol, TypeAlias, TypeVar

from mcp_types import ElicitRequestFormParams, ElicitRequestParams, ElicitRequestURLParams
from mcp_types import ElicitResult as WireResult
from pydantic import BaseModel, ValidationError
from typing_extensions import Self

from typed_elicit._calls.plugs import PageAnswer
from typed_elicit._calls.policy import DEFAULT_MAX_ANSWER_BYTES, OnUnsupported
from typed_elicit._calls.state import URL_QUESTION, PageRecord, QuestionId, model_id
from typed_elicit._core.digests import url_digest
from typed_elicit._core.results import Accepted, Cancelled, Consented, Declined, ElicitResult, UrlResult
from typed_elicit._forms.reduce import Reduced
from typed_elicit._forms.validate import validate_answer
from typed_elicit._wire.rules import json_size
from typed_elicit._wire.spec import check_wire_value, too_many_keys
from typed_elicit.errors import ElicitationUnsupported, InvalidResponse

Mode: TypeAlias = Literal["form", "url"]
"""The elicitation mode a question needs of the client (a page question needs `url`)."""
Kind: TypeAlias = Literal["form", "url", "page"]
Via: TypeAlias = Literal["client", "fallback", "page"]
Action: TypeAlias = Literal["accept", "decline", "cancel"]

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R", bound=ElicitResult[Any] | UrlResult)
R_co = TypeVar("R_co", bound=ElicitResult[Any] | UrlResult, covariant=True)


class Question(Protocol[R_co]):
    """What every asker needs of a question (see the module docstring)."""

    key: str
    """Its wire key (`q0`, `q1`, ...): its position among the call's questions."""
    message: str
    """The text shown to the user (a re-ask adds the problems to it)."""
    asker: str
    """The call the tool made to ask it (`ctx.elicit`, ...), which advice names."""
    kind: ClassVar[Kind]
    """`"form"`, `"url"` or `"page"`."""
    mode: ClassVar[Mode]
    """The elicitation mode it needs of the client."""

    @property
    def model(self) -> type[BaseModel] | None:
        """The model asked for; None for a URL question."""
        ...

    @property
    def id(self) -> QuestionId:
        """What a recorded answer is pinned to: position, model (or `url`) and digest."""
        ...

    @property
    def subject(self) -> str:
        """What it asks for, as messages name it."""
        ...

    @property
    def schema(self) -> Mapping[str, Any] | None:
        """The question's own requested schema (never a re-ask's pre-filled one); None for a URL."""
        ...

    def params(self, message: str | None = None, *, with_id: bool = True) -> ElicitRequestParams:
        """The `elicitation/create` params, showing `message` (default: the question's own)."""
        ...

    def outcome(self, action: Action, content: dict[str, Any] | None) -> R_co:
        """The typed result of an answer (`InvalidResponse` if accepted content does not fit)."""
        ...

    def again(self, problem: InvalidResponse) -> Self:
        """This question as its re-ask shows it."""
        ...

    def kept(self, wire: Reply) -> dict[str, Any] | None:
        """The content recorded for replay."""
        ...

    def check_size(self, wire: Reply, limit: int) -> None:
        """Refuse an answer over the limits (`InvalidResponse`)."""
        ...

    def unsupported(self, policy: OnUnsupported, reason: str, *, tool: bool) -> R_co:
        """The outcome under `policy` when the client cannot be asked (`ElicitationUnsupported`)."""
        ...

    @property
    def beside(self) -> Beside | None:
        """Where its answer comes from when the client's accept is consent only (a page); else None."""
        ...


Reply: TypeAlias = "WireResult | PageAnswer"
"""An answer as it arrived: the client's `ElicitResult`, or a page's `PageAnswer`."""


class Beside(Protocol):
    """An answer that arrives beside the client's reply, out of band (a page's submit).

    The client is asked `consent`; once it consents, the answer comes from here. Push eras
    `watch` while the consent request is open (some clients hold their reply until the flow
    is done); 2026-07-28 rounds `take` it once per call, a while per round.
    """

    @property
    def consent(self) -> UrlQuestion:
        """What the client is asked: to open the page (recorded under the page question's id)."""
        ...

    @property
    def poll_seconds(self) -> float:
        """On 2026-07-28, how long one round waits for the answer."""
        ...

    @property
    def expires_at(self) -> float:
        """When the answer can no longer come (Unix time)."""
        ...

    async def open(self, function: str) -> None:
        """Make the page ready to be answered (when the question is first asked)."""
        ...

    async def watch(self, wait: float) -> Reply | None:
        """Push eras: the answer as soon as it comes within `wait` seconds; the call holds it now."""
        ...

    async def take(
        self, wait: float, until: float, function: str, *, claimed: bool = False
    ) -> tuple[Reply | None, PageRecord]:
        """Rounds: this call's answer, taken once (held until `until`); None if it did not come in `wait`.

        `claimed`: this run claimed the round that brought the consent (single use), so it is
        the only run that can take the answer now (no round after it exists yet).

        Returns it with the page's record as later rounds must carry it.
        """
        ...

    async def hold(self) -> None:
        """Rounds: this round ends while the call goes on: hold what `take` took for the later rounds."""
        ...

    async def close(self) -> None:
        """The call has ended: forget a held answer, and let the page take no answer any more."""
        ...


@dataclass(slots=True, eq=False)
class FormQuestion(Generic[M]):
    """A form question (`ctx.elicit`): `model`, reduced for the negotiated revision as `form`.

    Read-only by convention, not frozen: a frozen dataclass pays one `object.__setattr__`
    per field on every question (measured: 0.6 % of a push round trip). A re-ask is a
    new value (`again`), never a change to this one.

    Attributes:
        key: Its wire key.
        message: The text shown to the user.
        model: The model asked for.
        form: The model's reducer record for the negotiated revision (or shaped per call).
        asker: `"ctx.elicit"` or `"ctx.elicit_all"`.
        shown: The form as a re-ask shows it (pre-filled with the valid part of the last answer).
        meta: The request's `_meta` when the question is shown as its app view (`_meta.ui`), else None.
    """

    key: str
    message: str
    model: type[M]
    form: Reduced
    asker: str = "ctx.elicit"
    shown: Reduced | None = None
    meta: dict[str, Any] | None = None

    kind: ClassVar[Kind] = "form"
    mode: ClassVar[Mode] = "form"

    @property
    def id(self) -> QuestionId:
        """Position, model and schema digest."""
        return QuestionId(key=self.key, model=model_id(self.model), digest=self.form.digest)

    @property
    def subject(self) -> str:
        """The model's name."""
        return self.model.__name__

    @property
    def schema(self) -> Mapping[str, Any]:
        """The question's own schema (a re-ask's pre-filled one carries the last answer's values)."""
        return self.form.schema

    def params(self, message: str | None = None, *, with_id: bool = True) -> ElicitRequestParams:
        """The form request's params, showing `message` (a re-ask's), else the question's own."""
        form, text = self.shown or self.form, self.message if message is None else message
        if self.meta is None:
            return form.params(text)
        # The app view (SEP-3118): `_meta` set at construction, so the SDK sends it; same schema.
        return ElicitRequestFormParams.model_validate(
            {"message": text, "requestedSchema": form.schema, "_meta": self.meta}
        )

    def outcome(self, action: Action, content: dict[str, Any] | None) -> ElicitResult[M]:
        """`Accepted` of the content validated against the form and the model, or `Declined`/`Cancelled`.

        Raises:
            InvalidResponse: If accepted content breaks the form or the model.
        """
        if action == "accept":
            return Accepted(validate_answer(self.model, self.form, content))
        return Declined() if action == "decline" else Cancelled()

    def again(self, problem: InvalidResponse) -> Self:
        """This question as its re-ask shows it: each field the last answer got right pre-filled.

        A field is pre-filled (as its `default`, which the client sent itself) when the
        answer held a value for it that no problem names; when a problem names no field
        of the form (a size limit, a check across fields), nothing is. The question's
        identity (`id`, `form`) is unchanged, so a 2026-07-28 re-run still matches it.
        """
        if not problem.content:
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

    def kept(self, wire: Reply) -> dict[str, Any] | None:
        """An accepted answer's content (what a replay validates again); None otherwise."""
        return wire.content if wire.action == "accept" else None

    def check_size(self, wire: Reply, limit: int) -> None:
        """Refuse an answer with more keys than the form has fields, or over `limit` bytes of JSON.

        Both checks come first and do work bounded by the form and the limit, never by the
        answer: its keys are counted by `len` (an answer with more keys than the form has
        fields holds one it was not asked, and is refused whole, none of them read), and
        its size is bounded cheaply (`_bound`) and counted exactly only when that bound is
        over the limit (`json_size`, which stops once past it).

        Raises:
            InvalidResponse: Naming the count or the limit and the fix; it keeps no content.
        """
        content = wire.content
        if content is None:
            return
        fields = self.form.field_count
        if len(content) > fields:
            raise InvalidResponse(self.subject, [("(answer)", too_many_keys(len(content), fields))], None)
        if _bound(content, limit) <= limit or json_size(content, limit) <= limit:
            return
        raise InvalidResponse.too_large(self.subject, limit, DEFAULT_MAX_ANSWER_BYTES)

    @property
    def beside(self) -> None:
        """None: the client's answer is the answer."""
        return None

    def unsupported(self, policy: OnUnsupported, reason: str, *, tool: bool) -> ElicitResult[M]:
        """`Declined()`, or `Accepted` of the question's and then the model's defaults, under `policy`.

        Args:
            policy: `"decline"`, `"defaults"` or `"raise"` (`"fallback"` is the refusal path's).
            reason: Why the client cannot be asked.
            tool: Whether the call is a tool inside a request (so the advice may name `"fallback"`).

        Raises:
            ElicitationUnsupported: Unless the policy produces an outcome; the message
                advises only the policies that would work here.
        """
        if policy == "decline":
            return Declined()
        fallback = (
            ["'fallback' (the model relays the question; needs install_fallback(server))"] if tool else []
        )
        if policy == "defaults":
            try:
                return Accepted(self.model.model_validate(dict(self.form.fill)))
            except ValidationError as exc:
                missing = sorted({".".join(map(str, error["loc"])) for error in exc.errors()})
                raise ElicitationUnsupported.without_defaults(
                    self.subject, reason, missing, ["'decline'", *fallback], self.asker
                ) from None
        advised = ["'defaults'", "'decline'", *fallback]
        raise ElicitationUnsupported.for_form(self.subject, reason, advised, self.asker)


class ConsentOnly:
    """What a question whose client answer is consent only shares (a URL question, a page question)."""

    __slots__ = ()

    @property
    def schema(self) -> None:
        """No schema is sent to the client: consent only (a page's form stays on the page)."""
        return None

    def again(self, problem: InvalidResponse) -> Self:
        """Never re-asked: no consent is invalid (a page re-shows itself)."""
        return self

    def kept(self, wire: Reply) -> None:
        """Nothing: consent has no content (what a page answers is held by the server, never in the state)."""
        return None

    def check_size(self, wire: Reply, limit: int) -> None:
        """Nothing to check: a consent's content is ignored (a page bounds its own submits)."""


@dataclass(slots=True, eq=False)
class UrlQuestion(ConsentOnly):
    """A URL-mode question (`ctx.elicit_url`, or a page's consent): accept means consent only.

    Attributes:
        key: Its wire key.
        message: Why the user should open the URL.
        url: The page it sends the user to.
        elicitation_id: The `elicitationId` it carries on 2025-11-25.
        asker: `"ctx.elicit_url"` or `"ctx.elicit_page"`.
        pin: The id its answer is recorded under, when it is a page's consent (the page's own).
    """

    key: str
    message: str
    url: str
    elicitation_id: str
    asker: str = "ctx.elicit_url"
    pin: QuestionId | None = None

    kind: ClassVar[Kind] = "url"
    mode: ClassVar[Mode] = "url"

    @property
    def beside(self) -> None:
        """None: the client's answer is the answer."""
        return None

    @property
    def model(self) -> None:
        """No model: consent only."""
        return None

    @property
    def id(self) -> QuestionId:
        """Position, the kind `url` and the URL's digest (the URL itself is never recorded)."""
        if self.pin is not None:
            return self.pin
        return QuestionId(key=self.key, model=URL_QUESTION, digest=url_digest(self.url))

    @property
    def subject(self) -> str:
        """How messages name a URL question."""
        return "the URL-mode question"

    def params(self, message: str | None = None, *, with_id: bool = True) -> ElicitRequestParams:
        """The URL request's params (2026-07-28 URL requests carry no `elicitationId`: `with_id=False`)."""
        return ElicitRequestURLParams(
            message=self.message if message is None else message,
            url=self.url,
            elicitation_id=self.elicitation_id if with_id else None,
        )

    def outcome(self, action: Action, content: dict[str, Any] | None) -> UrlResult:
        """`Consented()`, `Declined()` or `Cancelled()`; content sent with an accept is ignored."""
        if action == "accept":
            return Consented()
        return Declined() if action == "decline" else Cancelled()

    def unsupported(self, policy: OnUnsupported, reason: str, *, tool: bool) -> UrlResult:
        """`Declined()` under `"decline"`; `"defaults"` and `"fallback"` count as `"raise"`.

        Raises:
            ElicitationUnsupported: Unless the policy is `"decline"`; the message says why a
                policy inherited from `@elicits` counts as `"raise"`.
        """
        if policy == "decline":
            return Declined()
        why = _NO_URL_POLICY.get(policy)
        if why is not None:
            reason += f"; {why}, so on_unsupported={policy!r} (from @elicits) counts as 'raise' here"
        raise ElicitationUnsupported.for_url(reason, self.asker)


_NO_URL_POLICY: Final = {
    "defaults": "a URL-mode question has no defaults",
    "fallback": "a URL must not pass through the model",
}
"""Why a policy inherited from `@elicits` counts as `"raise"` for a URL question."""


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
