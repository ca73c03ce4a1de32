"""The page question kind (`ctx.elicit_page`): a model answered on a page of the server's own.

The client is asked its `consent` (a `UrlQuestion` for the page's URL, recorded under the page's
own id); the answer itself comes beside the client's reply, from the page (`Beside`), through
the server's `PageHost`. An asker only waits for it the way its era waits: what a page is
stays here and in `PageHost`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from mcp_types import ElicitRequestParams
from pydantic import BaseModel
from typing_extensions import Self

from typed_elicit._calls.plugs import PageAnswer, PageHost
from typed_elicit._calls.policy import OnUnsupported
from typed_elicit._calls.questions import Action, ConsentOnly, Kind, Mode, UrlQuestion
from typed_elicit._calls.signals import RoundRefused
from typed_elicit._calls.state import URL_QUESTION, PageRecord, QuestionId
from typed_elicit._core import clock
from typed_elicit._core.digests import url_digest
from typed_elicit._core.results import Accepted, Cancelled, Consented, Declined, ElicitResult
from typed_elicit._forms.reduce import Reduced
from typed_elicit._forms.validate import validate_answer

M = TypeVar("M", bound=BaseModel)


@dataclass(slots=True, eq=False)
class PageQuestion(ConsentOnly, Generic[M]):
    """A page question (`ctx.elicit_page`): `model`, filled in on a page of the server's own.

    The client is asked its `consent` (a URL question for the page's URL, with the same key
    and the page's id); the answer comes from the page through `host` (`Beside`), and
    `outcome` validates it with the model.

    Attributes:
        key: Its wire key.
        message: The text above the page's form and in the consent question.
        model: The model asked for (secret fields allowed).
        form: The model's page record, shaped per call when the call gave options or defaults.
        page: The call's record of the page (the same in every round).
        host: The pages of the call's server.
        principal: The call's authenticated principal, which the page is bound to; None if none.
        locale: The language the call asked the page to speak (`elicit_page(locale=...)`); None if none.
    """

    key: str
    message: str
    model: type[M]
    form: Reduced
    page: PageRecord
    host: PageHost
    principal: str | None = None
    asker: str = "ctx.elicit_page"
    locale: str | None = None
    took: tuple[PageAnswer, float] | None = None
    """The answer this run took, and until when its call may hold it (`hold`); None if it took none."""

    kind: ClassVar[Kind] = "page"
    mode: ClassVar[Mode] = "url"

    @property
    def beside(self) -> Self:
        """Itself: its answer comes from its page."""
        return self

    @property
    def url(self) -> str:
        """The page's public URL."""
        return self.host.url(self.page)

    @property
    def consent(self) -> UrlQuestion:
        """The URL-mode question that sends the user to the page (its answer recorded as this question's)."""
        return UrlQuestion(self.key, self.message, self.url, self.page.elicitation_id, self.asker, self.id)

    @property
    def poll_seconds(self) -> float:
        """On 2026-07-28, how long one round waits for the page's answer."""
        return self.host.poll_seconds

    @property
    def expires_at(self) -> float:
        """When the page's link stops working."""
        return self.page.expires_at

    async def open(self, function: str) -> None:
        """Open the page (store its sealed ticket), when the question is first asked.

        Raises:
            StoreUnavailable: If the store failed.
        """
        await self.host.open(
            self.page, self.model, self.message, function, self.principal, self.form, locale=self.locale
        )

    async def watch(self, wait: float) -> PageAnswer | None:
        """The page's answer as soon as it is submitted within `wait` seconds.

        Raises:
            StoreUnavailable: If the store failed.
        """
        wait = min(wait, self.page.expires_at - clock.now())
        return None if wait <= 0 else await self.host.answer(self.page, wait)

    async def take(
        self, wait: float, until: float, function: str, *, claimed: bool = False
    ) -> tuple[PageAnswer | None, PageRecord]:
        """This call's answer: held since an earlier round took it, or taken now (once).

        Taken once: the page's answer is claimed in the store, unless this run `claimed` the
        round that brought the consent. That claim makes it the only run of that round, and
        only a round it ends without the answer (requestState only) lets a later run wait for
        the page: finding the answer now, it is the only run that ever can. If this round
        ends while the call goes on, the answer is held then (`hold`), until `until` at most.

        Raises:
            RoundRefused: If another round took the answer, or the call that took it has ended.
            StoreUnavailable: If the store failed.
        """
        host, page = self.host, self.page
        if page.taken:  # an earlier round took it; this one re-runs past it
            held = await host.kept(page)
            if held is None:
                raise RoundRefused(function, "page_released")
            return held, page
        found = await self.watch(wait)
        if found is None:
            return None, page
        if not claimed and not await host.take(page):
            raise RoundRefused(function, "page_taken")
        self.took = (found, until)
        return found, page.model_copy(update={"taken": True})

    async def hold(self) -> None:
        """This round ends and the call goes on: hold the answer it took for the later rounds.

        Raises:
            StoreUnavailable: If the store failed.
        """
        if self.took is not None:
            answer, until = self.took
            await self.host.keep(self.page, answer, until)

    async def close(self) -> None:
        """The call has ended: forget a held answer; the page says it is closed and stores nothing more.

        Raises:
            StoreUnavailable: If the store failed.
        """
        taken = self.page.taken  # held by the round that took it, which the call outlived
        await self.host.close(self.page, answered=taken or self.took is not None, held=taken)

    @property
    def id(self) -> QuestionId:
        """Pinned to the page's URL (and a shaped page's form).

        A page shaped at call time is pinned to its form's digest too, so a 2026-07-28 re-run
        that offers other options or defaults is a `ReplayMismatch`, as for `ctx.elicit`.
        """
        tree, pinned = self.form.tree, self.url
        if tree is not None and tree.shaped:
            pinned += f"\n{self.form.digest}"
        return QuestionId(key=self.key, model=URL_QUESTION, digest=url_digest(pinned))

    @property
    def subject(self) -> str:
        """The model's name."""
        return self.model.__name__

    def params(self, message: str | None = None, *, with_id: bool = True) -> ElicitRequestParams:
        """Its consent's params."""
        return self.consent.params(message, with_id=with_id)

    def outcome(self, action: Action, content: dict[str, Any] | None) -> ElicitResult[M]:
        """The outcome of the page's answer: the model validated (`SecretStr` intact).

        Raises:
            InvalidResponse: Never for an answer the page accepted; if the model changed
                between the page and the call, naming fields only.
        """
        if action == "accept":
            return Accepted(validate_answer(self.model, self.form, content, keep=False))
        return Declined() if action == "decline" else Cancelled()

    def unsupported(self, policy: OnUnsupported, reason: str, *, tool: bool) -> ElicitResult[M]:
        """Its consent's outcome under `policy` (`Declined()`, else `ElicitationUnsupported`)."""
        outcome = self.consent.unsupported(policy, reason, tool=tool)
        assert not isinstance(outcome, Consented)  # a policy never consents
        return outcome
