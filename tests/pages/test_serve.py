"""Typed pages over HTTP: rendering, validation, and each security property with its own test.

The pages are driven with Starlette's TestClient against the server's own app; the page
tickets are opened directly (`open_page`), as `ctx.elicit_page` does.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, MutableMapping
from datetime import date, datetime
from enum import Enum
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field, SecretStr
from starlette.testclient import TestClient

from typed_elicit import Accepted, Cancelled, Declined, ElicitContext, Titles, elicits, form
from typed_elicit import testing as kit
from typed_elicit._calls.page_question import PageQuestion
from typed_elicit._calls.plugs import PageAnswer, host_for
from typed_elicit._calls.state import PageRecord
from typed_elicit._core.results import ElicitResult
from typed_elicit._forms.reduce import page_reduced, reduce_schema, secret_fields
from typed_elicit.errors import ElicitUsageError, PagesNotServed, SchemaError
from typed_elicit.pages import PageBrand, PageSetupError, serve_pages
from typed_elicit.pages._host import Pages

ORIGIN = "https://mcp.example.com"
SECRET = "hunter2-Tr0ub4dor"


@form(message="Connect your bank account", page=True)
class BankLogin(BaseModel):
    username: str = Field(title="Username", description="As on your bank card")
    password: SecretStr
    otp: Annotated[str, Field(pattern=r"^\d{6}$", title="One-time code")]


class Colour(str, Enum):
    RED = "red"
    BLUE = "blue"


@form(page=True)
class Profile(BaseModel):
    """Tell us about yourself."""

    name: Annotated[str, Field(min_length=2, max_length=40)]
    age: Annotated[int, Field(ge=18, le=130)] = 30
    plan: Annotated[Literal["free", "pro"], Titles(free="Free plan", pro="Pro plan")] = "free"
    colours: list[Colour] = Field(default_factory=list[Colour])
    newsletter: bool = True
    email: str | None = None


class Client:
    """A TestClient on the server's app plus the helpers a browser would do."""

    def __init__(self, server: MCPServer, http: TestClient, *, origin: str = ORIGIN) -> None:
        self.server = server
        self.http = http
        self.origin = origin

    def open(
        self,
        model: type[BaseModel],
        *,
        timeout: float = 60.0,
        principal: str | None = None,
        message: str = "Please answer",
    ) -> PageRecord:
        page = self.host.mint("link_bank", "link_bank:req-1", timeout)
        self.http.portal.call(  # type: ignore[union-attr]
            lambda: self.host.open(page, model, message, "link_bank", principal, page_reduced(model))
        )
        return page

    @property
    def host(self) -> Pages:
        return hosted(self.server)

    def path(self, ticket: PageRecord) -> str:
        """The path the browser requests: the page URL's path (a proxy's prefix included)."""
        return urlsplit(self.host.url(ticket)).path

    def csrf(self, html: str) -> str:
        found = re.search(r'name="_csrf" value="([0-9a-f]+)"', html)
        assert found is not None
        return found.group(1)

    def submit(self, ticket: PageRecord, fields: dict[str, str | list[str]], *, action: str = "accept"):
        page = self.http.get(self.path(ticket))
        assert page.status_code == 200
        data = {**fields, "_csrf": self.csrf(page.text), "_action": action}
        return self.http.post(self.path(ticket), data=data, headers={"Origin": self.origin})

    def answer(self, ticket: PageRecord) -> PageAnswer | None:
        return self.http.portal.call(lambda: self.host.answer(ticket, None))  # type: ignore[union-attr]


def hosted(server: MCPServer) -> Pages:
    """The page host `serve_pages` plugged into `server`."""
    host = host_for(server)
    assert isinstance(host, Pages)
    return host


def page_outcome(model: type[BaseModel], answer: PageAnswer) -> ElicitResult[Any]:
    """What `ctx.elicit_page` makes of `answer`: the model validated again."""
    record = PageRecord(id="a" * 43, expires_at=0.0, elicitation_id="e", request="r")
    return PageQuestion("q0", "m", model, page_reduced(model), record, hosted_none()).outcome(
        answer.action, answer.content
    )


def hosted_none() -> Any:
    return None


@pytest.fixture
def client() -> Iterator[Client]:
    server = MCPServer("pages-test")
    serve_pages(server, ORIGIN, brand=PageBrand(title="Acme Bank", css={"--accent": "#0b5fff"}))
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        yield Client(server, http)


# --- the models ----------------------------------------------------------------------------------


def test_a_page_form_may_hold_secrets_but_ctx_elicit_still_refuses_it():
    assert secret_fields(BankLogin) == {"password", "otp"}
    with pytest.raises(SchemaError, match=r"password.*secret.*page=True"):
        reduce_schema(BankLogin)


def test_a_secret_field_in_a_plain_form_is_still_refused_at_import():
    with pytest.raises(SchemaError, match="SecretStr holds a secret"):

        @form
        class Plain(BaseModel):
            login: SecretStr


def test_a_page_form_still_refuses_what_no_page_can_ask():
    with pytest.raises(SchemaError, match=r"Nested\.pair: tuple\[int, int\] cannot be asked on a page"):

        @form(page=True)
        class Nested(BaseModel):
            login: BankLogin
            pair: tuple[int, int]


# --- rendering -----------------------------------------------------------------------------------


def test_the_page_renders_labels_descriptions_and_password_inputs(client: Client):
    ticket = client.open(BankLogin, message="Connect your bank account")
    page = client.http.get(client.path(ticket))
    assert page.status_code == 200
    html = page.text
    assert "Connect your bank account" in html
    assert "Acme Bank" in html
    assert '<label for="f0" dir="auto">Username' in html
    assert 'id="f0-desc" dir="auto">As on your bank card' in html
    assert 'aria-describedby="f0-desc"' in html
    password = r'<input type="password" id="f1" name="password"[^>]*autocomplete="current-password"'
    assert re.search(password, html)
    assert re.search(r'<input type="password" id="f2" name="otp"[^>]*autocomplete="one-time-code"', html)
    assert re.search(r'name="username"[^>]*autocomplete="username"', html)
    assert 'value="decline"' in html
    assert 'value="cancel"' in html
    assert "<script" not in html


def test_the_page_renders_choices_defaults_bounds_and_multi_select(client: Client):
    html = client.http.get(client.path(client.open(Profile))).text
    assert re.search(r'name="name" value=""[^>]*minlength="2" maxlength="40"', html)
    assert re.search(r'type="number" id="f1" name="age" value="30"[^>]*min="18" max="130"', html)
    assert '<option value="free" selected dir="auto">Free plan</option>' in html
    assert '<option value="pro" dir="auto">Pro plan</option>' in html
    assert 'type="checkbox" id="f3-0" name="colours" value="red"' in html
    assert 'name="newsletter" value="true" checked' in html
    assert '<legend dir="auto">colours' in html


def test_the_brand_css_variables_reach_the_page(client: Client):
    html = client.http.get(client.path(client.open(Profile))).text
    assert "--accent: #0b5fff;" in html


def test_a_user_template_replaces_the_default(tmp_path):
    template = "<p>custom {{ message }} {% for f in fields %}[{{ f.name }}]{% endfor %}"
    (tmp_path / "page.html").write_text(template)
    server = MCPServer("custom")
    serve_pages(server, ORIGIN, templates_dir=tmp_path)
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        ticket = Client(server, http).open(BankLogin, message="<b>hi</b>")
        html = http.get(urlsplit(hosted(server).url(ticket)).path).text
    assert html == "<p>custom &lt;b&gt;hi&lt;/b&gt; [username][password][otp]"


# --- submitting ----------------------------------------------------------------------------------


def test_a_valid_submit_stores_the_answer_and_the_model_gets_it_with_secretstr_intact(client: Client):
    ticket = client.open(BankLogin)
    done = client.submit(ticket, {"username": "ada", "password": SECRET, "otp": "123456"})
    assert done.status_code == 200
    assert "Your answer was sent" in done.text
    answer = client.answer(ticket)
    assert answer is not None
    outcome = page_outcome(BankLogin, answer)
    assert isinstance(outcome, Accepted)
    assert isinstance(outcome.data.password, SecretStr)
    assert outcome.data.password.get_secret_value() == SECRET
    assert outcome.data.otp == "123456"


def test_errors_are_shown_next_to_fields_keeping_values_but_never_secrets(client: Client):
    ticket = client.open(BankLogin)
    page = client.submit(ticket, {"username": "ada-lovelace", "password": SECRET, "otp": "12ab"})
    assert page.status_code == 422
    html = page.text
    assert SECRET not in html
    assert 'value="ada-lovelace"' in html
    assert "12ab" not in html  # the one-time code is a secret too
    assert 'role="alert"' in html
    assert 'id="f2-error"' in html
    otp = r'name="otp"[^>]*aria-describedby="f2-desc f2-hint f2-error" aria-invalid="true">'
    assert re.search(otp, html)
    assert 'id="error-summary" role="alert" aria-labelledby="summary-title" tabindex="-1" autofocus>' in html
    assert html.count("autofocus") == 1  # the summary takes the focus, and links to each field
    assert 'id="f1-hint" dir="auto">Enter it again' in html  # the password, typed but never sent back
    assert client.answer(ticket) is None


def test_a_missing_required_field_is_reported_by_name(client: Client):
    ticket = client.open(Profile)
    html = client.submit(ticket, {"age": "17"}).text
    assert "name: Fill this in" in html
    assert 'value="17"' in html


def test_a_number_field_with_text_says_so(client: Client):
    ticket = client.open(Profile)
    html = client.submit(ticket, {"name": "Ada", "age": "old"}).text
    assert "Enter a whole number" in html


def test_the_checked_answer_carries_multi_select_and_unchecked_booleans(client: Client):
    ticket = client.open(Profile)
    client.submit(ticket, {"name": "Ada", "age": "40", "plan": "pro", "colours": ["red", "blue"]})
    answer = client.answer(ticket)
    assert answer is not None
    outcome = page_outcome(Profile, answer)
    assert isinstance(outcome, Accepted)
    assert outcome.data == Profile(
        name="Ada", age=40, plan="pro", colours=[Colour.RED, Colour.BLUE], newsletter=False
    )


@pytest.mark.parametrize(("action", "outcome"), [("decline", Declined()), ("cancel", Cancelled())])
def test_decline_and_cancel_on_the_page_end_the_question_so(client: Client, action, outcome):
    ticket = client.open(BankLogin)
    page = client.submit(ticket, {}, action=action)
    assert page.status_code == 200
    answer = client.answer(ticket)
    assert answer is not None
    assert page_outcome(BankLogin, answer) == outcome


# --- security --------------------------------------------------------------------------------------


def test_a_second_submit_gets_a_plain_error_page(client: Client):
    ticket = client.open(BankLogin)
    page = client.http.get(client.path(ticket))
    data = {"username": "ada", "password": SECRET, "otp": "123456", "_csrf": client.csrf(page.text)}
    first = client.http.post(client.path(ticket), data=data, headers={"Origin": ORIGIN})
    second = client.http.post(client.path(ticket), data=data, headers={"Origin": ORIGIN})
    assert first.status_code == 200
    assert second.status_code == 410
    assert "can no longer be used" in second.text
    assert "Traceback" not in second.text
    assert client.http.get(client.path(ticket)).status_code == 410


def test_an_expired_link_gets_a_plain_error_page(client: Client, monkeypatch: pytest.MonkeyPatch):
    from typed_elicit._core import clock as _clock

    ticket = client.open(BankLogin, timeout=30)
    now = _clock.now()
    monkeypatch.setattr(_clock, "now", lambda: now + 31)
    page = client.http.get(client.path(ticket))
    assert page.status_code in (404, 410)
    assert "<form" not in page.text


def test_a_submit_without_the_csrf_token_is_refused(client: Client):
    ticket = client.open(BankLogin)
    client.http.get(client.path(ticket))  # the cookie is set, but the form's token is missing
    data = {"username": "ada", "password": SECRET, "otp": "123456", "_csrf": "0" * 64}
    page = client.http.post(client.path(ticket), data=data, headers={"Origin": ORIGIN})
    assert page.status_code == 403
    assert client.answer(ticket) is None


def test_a_submit_without_the_page_cookie_is_refused(client: Client):
    ticket = client.open(BankLogin)
    token = client.csrf(client.http.get(client.path(ticket)).text)
    client.http.cookies.clear()
    data = {"username": "ada", "password": SECRET, "otp": "123456", "_csrf": token}
    page = client.http.post(client.path(ticket), data=data, headers={"Origin": ORIGIN})
    assert page.status_code == 403
    assert client.answer(ticket) is None


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "https://evil.example"}, {"Origin": "null"}, {"Referer": "https://evil.example/x"}, {}],
)
def test_a_submit_from_another_origin_is_refused(client: Client, headers: dict[str, str]):
    ticket = client.open(BankLogin)
    token = client.csrf(client.http.get(client.path(ticket)).text)
    data = {"username": "ada", "password": SECRET, "otp": "123456", "_csrf": token}
    page = client.http.post(client.path(ticket), data=data, headers=headers)
    assert page.status_code == 403
    assert client.answer(ticket) is None


def test_a_same_origin_referer_without_origin_is_accepted(client: Client):
    ticket = client.open(BankLogin)
    token = client.csrf(client.http.get(client.path(ticket)).text)
    data = {"username": "ada", "password": SECRET, "otp": "123456", "_csrf": token}
    page = client.http.post(client.path(ticket), data=data, headers={"Referer": ORIGIN + client.path(ticket)})
    assert page.status_code == 200


def test_a_page_bound_to_a_principal_refuses_another_browser_user():
    server = MCPServer("principal")
    who: dict[str, str | None] = {"user": "alice"}

    async def identify(request: object) -> str | None:
        return who["user"]

    serve_pages(server, ORIGIN, identify=identify)
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        c = Client(server, http)
        ticket = c.open(BankLogin, principal="alice")
        assert http.get(c.path(ticket)).status_code == 200
        who["user"] = "mallory"
        assert http.get(c.path(ticket)).status_code == 404
        who["user"] = None
        assert http.get(c.path(ticket)).status_code == 404


def test_secrets_are_never_logged(client: Client, caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.DEBUG)
    ticket = client.open(BankLogin)
    client.submit(ticket, {"username": "ada", "password": SECRET, "otp": "12"})
    client.submit(ticket, {"username": "ada", "password": SECRET, "otp": "123456"})
    assert caplog.records
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert SECRET not in logged
    assert "123456" not in logged


@pytest.mark.anyio
async def test_a_page_question_without_served_pages_says_how_to_serve_them():
    server = MCPServer("bare")

    @server.tool()
    @elicits
    async def link(ctx: ElicitContext) -> str:
        await ctx.elicit_page(BankLogin)
        return "linked"

    assert host_for(server) is None
    async with kit.connect(server, "2025-11-25") as session:
        with anyio.fail_after(10):
            result = await session.call_tool("link", {})
    assert result.is_error
    text = str(result.content[0].text)  # type: ignore[union-attr]
    assert "PagesNotServed" in text
    assert "serve_pages(server" in text


def test_serve_pages_refuses_a_public_url_that_is_no_origin():
    with pytest.raises(ValueError, match="absolute https"):
        serve_pages(MCPServer("x"), "mcp.example.com")
    with pytest.raises(ValueError, match="credentials"):
        serve_pages(MCPServer("x"), "https://u:p@mcp.example.com")
    for public_url in ("https://[1:2:3]", "https://mcp.example.com:abc", "https://mcp.example.com/?a=1"):
        with pytest.raises(PageSetupError, match="absolute https") as refused:
            serve_pages(MCPServer("x"), public_url)
        assert refused.value.setting == "public_url"


def test_a_replica_that_never_asked_serves_a_page_form_it_imported(client: Client):
    from typed_elicit.pages import _tickets

    ticket = client.open(BankLogin)
    _tickets._models.clear()  # this process never asked: only @form(page=True) knows the model
    page = client.http.get(client.path(ticket))
    assert page.status_code == 200
    assert 'name="otp"' in page.text


class Event(BaseModel):
    starts: datetime
    budget: Annotated[float, Field(ge=0, le=1000)] = 12.5
    guests: Annotated[int, Field(ge=1)] = 2
    day: date | None = None
    tags: Annotated[list[Colour], Field(min_length=1, max_length=2)]


def test_bounds_formats_and_multi_select_limits_become_hints(client: Client):
    html = client.http.get(client.path(client.open(Event))).text
    assert "Enter a date and time with its offset, like 2026-07-28T09:30:00Z." in html
    assert re.search(r'name="budget" value="12.5"[^>]*step="any" min="0" max="1000"', html)
    assert re.search(r'type="date" id="f3" name="day"', html)
    assert "Choose at least 1. Choose at most 2." in html


@pytest.mark.parametrize(
    ("guests", "message"), [("1.5", "Enter a whole number"), ("inf", "Enter a whole number")]
)
def test_a_number_that_is_no_whole_number_is_refused_by_name(client: Client, guests: str, message: str):
    ticket = client.open(Event)
    html = client.submit(ticket, {"starts": "2026-07-28T09:30:00Z", "guests": guests, "tags": "red"}).text
    assert "guests: Enter a whole number" in html


def test_a_whole_number_written_as_an_exponent_is_taken(client: Client):
    ticket = client.open(Event)
    done = client.submit(ticket, {"starts": "2026-07-28T09:30:00Z", "guests": "1e3", "tags": ["red"]})
    assert done.status_code == 200
    answer = client.answer(ticket)
    assert answer is not None
    assert answer.content["guests"] == 1000


def test_an_oversized_submit_is_refused(client: Client):
    ticket = client.open(BankLogin)
    token = client.csrf(client.http.get(client.path(ticket)).text)
    body = f"_csrf={token}&username=" + "a" * (300 * 1024)
    page = client.http.post(
        client.path(ticket),
        content=body,
        headers={"Origin": ORIGIN, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert page.status_code == 413
    assert client.answer(ticket) is None


def test_an_unreadable_submit_or_unknown_action_gets_a_plain_400(client: Client):
    ticket = client.open(BankLogin)
    token = client.csrf(client.http.get(client.path(ticket)).text)
    headers = {"Origin": ORIGIN, "Content-Type": "application/x-www-form-urlencoded"}
    assert client.http.post(client.path(ticket), content=b"\xff\xfe", headers=headers).status_code == 400
    data = {"_csrf": token, "_action": "approve"}
    assert client.http.post(client.path(ticket), data=data, headers={"Origin": ORIGIN}).status_code == 400
    assert client.answer(ticket) is None


def test_a_failure_inside_the_handler_is_a_plain_page_without_a_traceback(
    client: Client, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    from typed_elicit.pages import _serve

    ticket = client.open(BankLogin)

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError(SECRET)

    monkeypatch.setattr(_serve, "tree_page", broken)
    page = client.http.get(client.path(ticket))
    assert page.status_code == 500
    assert "Traceback" not in page.text
    assert SECRET not in page.text
    assert SECRET not in caplog.text
    assert page.headers["cache-control"] == "no-store"


def test_a_logo_is_shown_and_allowed_by_the_csp_for_its_host_only():
    server = MCPServer("logo")
    serve_pages(server, ORIGIN, brand=PageBrand(title="Acme", logo_url="https://cdn.example.com/logo.svg"))
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        ticket = Client(server, http).open(BankLogin)
        page = http.get(urlsplit(hosted(server).url(ticket)).path)
    assert '<img src="https://cdn.example.com/logo.svg" alt="">' in page.text
    assert "img-src 'self' data: https://cdn.example.com;" in page.headers["content-security-policy"]
    with pytest.raises(ValueError, match="logo_url"):
        PageBrand(logo_url="javascript:alert(1)")


def test_pages_on_a_server_without_request_state_keys_are_refused_naming_the_fix():
    server = MCPServer("lowlevel")
    server.middleware.clear()  # no RequestStateBoundary: no keys to seal pages with
    with pytest.raises(ElicitUsageError, match="request_state_security=RequestStateSecurity") as refused:
        serve_pages(server, ORIGIN)
    assert refused.value.problem == "unsealed"
    assert refused.value.subject == "serve_pages"


def test_an_answer_the_model_refuses_names_fields_only():
    from typed_elicit.errors import InvalidResponse

    with pytest.raises(InvalidResponse) as refused:
        page_outcome(BankLogin, PageAnswer("accept", {"username": "ada", "password": SECRET, "otp": "1"}))
    assert SECRET not in str(refused.value)
    assert refused.value.errors[0][0] == "otp"


def test_pages_not_served_carries_the_server_name():
    error = PagesNotServed("bank")
    assert error.server_name == "bank"


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"path": "pages"}, "path must start"),
        ({"path": "/pages/"}, "path must start"),
        ({"poll_seconds": 0}, "poll"),
    ],
)
def test_serve_pages_refuses_a_bad_path_or_poll(options: dict[str, object], problem: str):
    with pytest.raises(ValueError, match=problem):
        serve_pages(MCPServer("x"), ORIGIN, **options)  # type: ignore[arg-type]


def test_serve_pages_is_called_once_per_server():
    server = MCPServer("twice")
    serve_pages(server, ORIGIN)
    with pytest.raises(ValueError, match="already called"):
        serve_pages(server, ORIGIN)


# --- the logo URL (issue 18, item 4) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("logo_url", "source"),
    [
        ("https://cdn.example.com/logo.svg", "https://cdn.example.com"),
        ("https://CDN.Example.com:8443/a/logo.png?v=3", "https://cdn.example.com:8443"),
        ("https://cdn.example.com:443/logo.png", "https://cdn.example.com"),
        ("https://192.0.2.7/logo.png", "https://192.0.2.7"),
        ("https://[2001:db8::1]:8443/logo.png", "https://[2001:db8::1]:8443"),
        ("data:image/png;base64,iVBORw0KGgo=", None),
        ("data:image/svg+xml;base64,PHN2Zy8+", None),
    ],
)
def test_the_csp_carries_only_the_logo_origin_rebuilt_from_its_checked_parts(
    logo_url: str, source: str | None
):
    server = MCPServer("logo")
    serve_pages(server, ORIGIN, brand=PageBrand(title="Acme", logo_url=logo_url))
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        c = Client(server, http)
        page = http.get(c.path(c.open(BankLogin)))
    csp = page.headers["content-security-policy"]
    img = re.search(r"img-src ([^;]*);", csp)
    assert img is not None
    assert img.group(1) == "'self' data:" + (f" {source}" if source else "")
    assert csp.count(";") == 5  # the six directives of the policy, and no other


# --- the submit's origin (issue 18, item 15) ----------------------------------------------------


def test_a_submit_without_origin_or_referer_says_what_is_missing_and_is_logged_apart(
    client: Client, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.INFO, logger="typed_elicit.pages")
    ticket = client.open(BankLogin)
    token = client.csrf(client.http.get(client.path(ticket)).text)
    data = {"username": "ada", "password": SECRET, "otp": "123456", "_csrf": token}
    page = client.http.post(client.path(ticket), data=data)
    assert page.status_code == 403
    assert "another site" not in page.text
    assert "Origin" in page.text
    assert "Referer" in page.text
    assert "privacy" in page.text
    assert client.answer(ticket) is None
    refused = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refused) == 1
    assert "without Origin or Referer" in refused[0]
    assert SECRET not in caplog.text
    assert "ada" not in refused[0]


def test_a_submit_from_another_origin_is_still_said_to_come_from_another_site(
    client: Client, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.INFO, logger="typed_elicit.pages")
    ticket = client.open(BankLogin)
    token = client.csrf(client.http.get(client.path(ticket)).text)
    data = {"username": "ada", "password": SECRET, "otp": "123456", "_csrf": token}
    page = client.http.post(client.path(ticket), data=data, headers={"Origin": "https://evil.example"})
    assert page.status_code == 403
    assert "another site" in page.text
    assert any("from another origin" in r.getMessage() for r in caplog.records)


def _submit_with(public_url: str, headers: dict[str, str]) -> int:
    """The status of a valid submit to a server serving pages at `public_url`, with `headers`."""
    server = MCPServer("origin")
    serve_pages(server, public_url)
    parts = urlsplit(public_url)
    with TestClient(server.streamable_http_app(), base_url=f"{parts.scheme}://{parts.netloc}") as http:
        c = Client(server, http)
        ticket = c.open(BankLogin)
        token = c.csrf(http.get(c.path(ticket)).text)
        data = {"username": "ada", "password": SECRET, "otp": "123456", "_csrf": token}
        return http.post(c.path(ticket), data=data, headers=headers).status_code


@pytest.mark.parametrize(
    ("public_url", "headers"),
    [
        ("https://mcp.example.com:443", {"Origin": "https://mcp.example.com"}),
        ("https://mcp.example.com", {"Origin": "https://mcp.example.com:443"}),
        ("http://mcp.example.com:80", {"Origin": "http://mcp.example.com"}),
        ("https://MCP.Example.COM", {"Origin": "https://mcp.example.com"}),
        ("https://mcp.example.com:443", {"Origin": "HTTPS://MCP.EXAMPLE.COM"}),
        ("https://mcp.example.com:8443", {"Origin": "https://mcp.example.com:8443"}),
        ("https://mcp.example.com:443", {"Referer": "https://mcp.example.com/elicit-pages/x"}),
        ("https://mcp.example.com", {"Referer": "https://mcp.example.com:443/elicit-pages/x"}),
        ("https://[2001:db8::1]:443", {"Origin": "https://[2001:db8::1]"}),
    ],
)
def test_default_ports_and_letter_case_compare_equal_in_the_origin_check(
    public_url: str, headers: dict[str, str]
):
    assert _submit_with(public_url, headers) == 200


@pytest.mark.parametrize(
    ("public_url", "headers"),
    [
        ("https://mcp.example.com", {"Origin": "https://mcp.example.com:8443"}),
        ("https://mcp.example.com:443", {"Origin": "http://mcp.example.com"}),
        ("https://mcp.example.com:443", {"Origin": "http://mcp.example.com:443"}),
        ("http://mcp.example.com:80", {"Origin": "http://mcp.example.com:8080"}),
        ("https://mcp.example.com", {"Origin": "https://mcp.example.com:abc"}),
        ("https://mcp.example.com", {"Origin": "https://mcp.example.com.evil.example"}),
        ("https://mcp.example.com", {"Origin": "https://user@mcp.example.com"}),
        ("https://mcp.example.com", {"Referer": "https://evil.example:443/elicit-pages/x"}),
    ],
)
def test_another_port_scheme_or_host_is_still_another_origin(public_url: str, headers: dict[str, str]):
    assert _submit_with(public_url, headers) == 403


# --- public_url with a path (issue 18, item 15) --------------------------------------------------

Scope = MutableMapping[str, Any]


class Proxy:
    """A reverse proxy publishing the app under `prefix`, as nginx would.

    `strip`: forwards `/prefix/x` as `/x` (`location /prefix/ { proxy_pass http://app/; }`);
    `root_path`: forwards `/prefix/x` unchanged with ASGI `root_path="/prefix"` (uvicorn
    `--root-path /prefix` behind a stripping proxy); `keep`: forwards `/prefix/x` unchanged.
    """

    def __init__(self, app: Any, prefix: str, mode: str) -> None:
        self.app, self.prefix, self.mode = app, prefix, mode
        self.seen: list[str] = []

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            path = str(scope["path"])
            assert path.startswith(self.prefix + "/"), "a browser only reaches the proxy's prefix"
            if self.mode == "strip":
                inner = path[len(self.prefix) :]
                scope = {**scope, "path": inner, "raw_path": inner.encode()}
            elif self.mode == "root_path":
                scope = {**scope, "root_path": self.prefix}
            self.seen.append(str(scope["path"]))
        await self.app(scope, receive, send)


@pytest.mark.parametrize(
    ("public_url", "mode", "received"),
    [
        ("https://example.com/app", "strip", "/elicit-pages/"),
        ("https://example.com/app", "root_path", "/app/elicit-pages/"),
        ("https://example.com/app", "keep", "/app/elicit-pages/"),
        ("https://example.com/mcp", None, "/mcp/elicit-pages/"),  # no proxy: the MCP URL given
    ],
)
def test_a_public_url_path_is_kept_in_links_and_the_page_answers_however_a_proxy_forwards_it(
    public_url: str, mode: str | None, received: str
):
    server = MCPServer("prefixed")
    serve_pages(server, public_url)
    app: Any = server.streamable_http_app()
    proxy = None if mode is None else Proxy(app, urlsplit(public_url).path, mode)
    with TestClient(proxy or app, base_url="https://example.com") as http:
        c = Client(server, http, origin="https://example.com")
        ticket = c.open(BankLogin)
        link = hosted(server).url(ticket)
        assert link == f"{public_url}/elicit-pages/{ticket.id}"  # what the browser opens
        page = http.get(c.path(ticket))
        assert page.status_code == 200, page.text
        assert f'action="{urlsplit(public_url).path}/elicit-pages/{ticket.id}"' in page.text
        assert f"Path={urlsplit(public_url).path}/elicit-pages/{ticket.id}" in page.headers["set-cookie"]
        done = c.submit(ticket, {"username": "ada", "password": SECRET, "otp": "123456"})
        assert done.status_code == 200, done.text
        assert c.answer(ticket) is not None
    if proxy is not None:
        assert proxy.seen
        assert all(p.startswith(received) for p in proxy.seen)


@pytest.mark.parametrize(
    "public_url", ["https://example.com/a{b}", "https://example.com/a b", "https://example.com/a%2Fb"]
)
def test_a_public_url_path_that_cannot_be_a_route_is_refused(public_url: str):
    with pytest.raises(PageSetupError, match="public_url"):
        serve_pages(MCPServer("x"), public_url)


# --- bidirectional controls in server text (issue 18, item 7) ------------------------------------

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


@form(page=True)
class Transfer(BaseModel):
    amount: Annotated[
        str, Field(title="Amount \u202e001$\u202c", description="To \u2067Bob\u2069 \u200fonly\u200e")
    ] = "1"
    to: Annotated[
        Literal["bob", "eve"], Titles(bob="Bob \u202e(checking)\u202c", eve="Eve\u061c \u2066x\u2069")
    ] = "bob"
    tags: list[Annotated[Literal["a", "b"], Titles(a="A\u202d1\u202c", b="B")]] = Field(
        default_factory=list[Literal["a", "b"]]
    )
    agree: bool = Field(default=False, title="I agree \u202bto pay\u202c")


def test_bidi_controls_in_server_text_never_reach_the_page_and_server_text_gets_dir_auto():
    server = MCPServer("bidi")
    serve_pages(server, ORIGIN, brand=PageBrand(title="Acme \u202eknaB\u202c"))
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        c = Client(server, http)
        html = http.get(c.path(c.open(Transfer, message="Pay \u202e0001$\u202c to Bob"))).text
    assert not any(ch in html for ch in BIDI)
    assert not re.search(
        r"&#(x0*(202[a-e]|206[6-9]|200[ef]|61c)|0*(8234|8235|8236|8237|8238|8294|8295|8296|8297|8206|8207|1564));",
        html,
        re.I,
    )
    assert "Pay 0001$ to Bob" in html
    assert "Amount 001$" in html
    assert "To Bob only" in html
    assert "Bob (checking)" in html
    assert "Eve x" in html
    assert "A1" in html
    assert "I agree to pay" in html
    assert "Acme knaB" in html
    assert re.search(r'<h1 id="page-message" dir="auto">Pay 0001\$ to Bob</h1>', html)
    assert re.search(r'<label for="f0" dir="auto">Amount 001\$', html)


# --- the CSRF cookie ------------------------------------------------------------------------------


@pytest.mark.parametrize("secure", [True, False])
@pytest.mark.parametrize("path", ["/elicit-pages/" + "A-b_9" * 8 + "xyz", "/mcp/x/elicit-pages/id"])
def test_the_csrf_cookie_is_byte_for_byte_what_starlettes_set_cookie_writes(path: str, secure: bool):
    from starlette.responses import Response

    from typed_elicit.pages._serve import csrf_cookie

    nonce = "Zm9vYmFy-_x" * 3
    expected = Response()
    expected.set_cookie(
        "te_page_csrf", nonce, path=path, httponly=True, secure=secure, samesite="strict", max_age=3599
    )
    written = [h for h in expected.raw_headers if h[0] == b"set-cookie"]
    assert [csrf_cookie(nonce, path, 3599, secure=secure)] == written


def test_a_pages_csrf_cookie_is_http_only_same_site_strict_secure_and_scoped_to_the_page(client: Client):
    from http.cookies import SimpleCookie

    ticket = client.open(BankLogin, timeout=600.0)
    page = client.http.get(client.path(ticket))
    assert page.status_code == 200
    (morsel,) = SimpleCookie(page.headers["set-cookie"]).values()
    assert morsel.key == "te_page_csrf"
    assert re.fullmatch(r"[A-Za-z0-9_-]{32}", morsel.value)
    assert morsel["httponly"] is True
    assert morsel["secure"] is True
    assert morsel["samesite"] == "strict"
    assert morsel["path"] == client.path(ticket)
    assert 0 < int(morsel["max-age"]) <= 600
