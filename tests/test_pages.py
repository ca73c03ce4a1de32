"""Typed pages over HTTP: rendering, validation, and each security property with its own test.

The pages are driven with Starlette's TestClient against the server's own app; the page
tickets are opened directly (`open_page`), as `ctx.elicit_page` does.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from datetime import date, datetime
from enum import Enum
from typing import Annotated, Literal

import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field, SecretStr
from starlette.testclient import TestClient

from typed_elicit import Accepted, Cancelled, Declined, Titles, form
from typed_elicit._errors import SchemaError
from typed_elicit._pages import (
    ANSWER_PREFIX,
    PageAnswer,
    PageBrand,
    PagesNotServed,
    Ticket,
    new_page_id,
    open_page,
    page_expiry,
    page_outcome,
    page_url,
    read_answer,
    seal,
    serve_pages,
    unseal,
)
from typed_elicit._reducer import reduce_schema, secret_fields
from typed_elicit._store import store_for

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

    def __init__(self, server: MCPServer, http: TestClient) -> None:
        self.server = server
        self.http = http

    def open(
        self,
        model: type[BaseModel],
        *,
        timeout: float = 60.0,
        principal: str | None = None,
        message: str = "Please answer",
    ) -> Ticket:
        page_id = new_page_id()
        return self.http.portal.call(  # type: ignore[union-attr]
            lambda: open_page(
                self.server,
                model,
                page_id=page_id,
                message=message,
                function="link_bank",
                request="req-1",
                principal=principal,
                expires_at=page_expiry(timeout),
            )
        )

    def path(self, ticket: Ticket) -> str:
        return page_url(self.server, ticket.id).removeprefix(ORIGIN)

    def csrf(self, html: str) -> str:
        found = re.search(r'name="_csrf" value="([0-9a-f]+)"', html)
        assert found is not None
        return found.group(1)

    def submit(self, ticket: Ticket, fields: dict[str, str | list[str]], *, action: str = "accept"):
        page = self.http.get(self.path(ticket))
        assert page.status_code == 200
        data = {**fields, "_csrf": self.csrf(page.text), "_action": action}
        return self.http.post(self.path(ticket), data=data, headers={"Origin": ORIGIN})

    def answer(self, ticket: Ticket) -> PageAnswer | None:
        return self.http.portal.call(lambda: read_answer(self.server, ticket))  # type: ignore[union-attr]


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
    with pytest.raises(SchemaError, match="nested model"):

        @form(page=True)
        class Nested(BaseModel):
            login: BankLogin


# --- rendering -----------------------------------------------------------------------------------


def test_the_page_renders_labels_descriptions_and_password_inputs(client: Client):
    ticket = client.open(BankLogin, message="Connect your bank account")
    page = client.http.get(client.path(ticket))
    assert page.status_code == 200
    html = page.text
    assert "Connect your bank account" in html
    assert "Acme Bank" in html
    assert '<label for="f0">Username' in html
    assert 'id="f0-desc">As on your bank card' in html
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
    assert '<option value="free" selected>Free plan</option>' in html
    assert '<option value="pro">Pro plan</option>' in html
    assert 'type="checkbox" id="f3-0" name="colours" value="red"' in html
    assert 'name="newsletter" value="true" checked' in html
    assert "<legend>colours" in html


def test_the_brand_css_variables_reach_the_page(client: Client):
    html = client.http.get(client.path(client.open(Profile))).text
    assert "--accent: #0b5fff;" in html


def test_a_brand_with_a_css_injection_is_refused():
    with pytest.raises(ValueError, match="CSS variable"):
        PageBrand(css={"--accent": "red; } body { display: none"})


def test_a_user_template_replaces_the_default(tmp_path):
    template = "<p>custom {{ message }} {% for f in fields %}[{{ f.name }}]{% endfor %}"
    (tmp_path / "page.html").write_text(template)
    server = MCPServer("custom")
    serve_pages(server, ORIGIN, templates_dir=tmp_path)
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        ticket = Client(server, http).open(BankLogin, message="<b>hi</b>")
        html = http.get(page_url(server, ticket.id).removeprefix(ORIGIN)).text
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
    otp = r'name="otp"[^>]*aria-describedby="f2-desc f2-hint f2-error" aria-invalid="true" autofocus'
    assert re.search(otp, html)
    assert 'id="f1-hint">Enter it again' in html  # the password, typed but never sent back
    assert client.answer(ticket) is None


def test_a_missing_required_field_is_reported_by_name(client: Client):
    ticket = client.open(Profile)
    html = client.submit(ticket, {"age": "17"}).text
    assert "name: Field required" in html
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


def test_a_page_id_is_at_least_128_random_bits():
    ids = {new_page_id() for _ in range(200)}
    assert len(ids) == 200
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{43}", i) for i in ids)  # 256 bits


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
    from typed_elicit import _clock

    ticket = client.open(BankLogin, timeout=30)
    now = _clock.now()
    monkeypatch.setattr(_clock, "now", lambda: now + 31)
    page = client.http.get(client.path(ticket))
    assert page.status_code in (404, 410)
    assert "<form" not in page.text


@pytest.mark.parametrize(
    "page_id",
    ["A" * 43, "not-a-page", "../../etc/passwd", "A" * 42 + "%00"],
)
def test_an_unknown_or_malformed_link_gets_a_plain_404(client: Client, page_id: str):
    page = client.http.get(f"/elicit-pages/{page_id}")
    assert page.status_code == 404
    assert "Traceback" not in page.text


def test_a_link_of_another_server_is_foreign(client: Client):
    other = MCPServer("other")
    serve_pages(other, ORIGIN)
    with TestClient(other.streamable_http_app(), base_url=ORIGIN) as http:
        foreign = Client(other, http).open(BankLogin)
    assert client.http.get(f"/elicit-pages/{foreign.id}").status_code == 404


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


def test_every_page_response_carries_the_security_headers(client: Client):
    ticket = client.open(BankLogin)
    for response in (
        client.http.get(client.path(ticket)),
        client.submit(ticket, {"otp": "x"}),
        client.http.get("/elicit-pages/" + "A" * 43),
    ):
        headers = response.headers
        assert headers["cache-control"] == "no-store"
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] in ("no-referrer", "same-origin")
        csp = headers["content-security-policy"]
        assert "default-src 'none'" in csp
        assert "form-action 'self'" in csp
        assert "frame-ancestors 'none'" in csp
        assert "script-src" not in csp
        nonce = re.search(r"style-src 'nonce-([^']+)'", csp)
        assert nonce is not None
        assert f'<style nonce="{nonce.group(1)}">' in response.text


def test_the_error_pages_send_no_referrer(client: Client):
    assert client.http.get("/elicit-pages/" + "A" * 43).headers["referrer-policy"] == "no-referrer"


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


def test_a_sealed_answer_cannot_be_moved_to_another_page(client: Client):
    sealed = seal(client.server, ANSWER_PREFIX + "a" * 43, b'{"action":"accept","content":{}}')
    assert unseal(client.server, ANSWER_PREFIX + "a" * 43, sealed) is not None
    assert unseal(client.server, ANSWER_PREFIX + "b" * 43, sealed) is None
    assert unseal(client.server, ANSWER_PREFIX + "a" * 43, sealed[:-2] + b"xx") is None


def test_the_store_holds_the_answer_sealed_never_in_clear(client: Client):
    ticket = client.open(BankLogin)
    client.submit(ticket, {"username": "ada", "password": SECRET, "otp": "123456"})
    stored = client.http.portal.call(store_for(client.server).get, ANSWER_PREFIX + ticket.id)  # type: ignore[union-attr]
    assert stored is not None
    assert SECRET.encode() not in stored
    assert b"123456" not in stored


def test_secrets_are_never_logged(client: Client, caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.DEBUG)
    ticket = client.open(BankLogin)
    client.submit(ticket, {"username": "ada", "password": SECRET, "otp": "12"})
    client.submit(ticket, {"username": "ada", "password": SECRET, "otp": "123456"})
    assert caplog.records
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert SECRET not in logged
    assert "123456" not in logged


def test_a_page_question_without_served_pages_says_how_to_serve_them():
    server = MCPServer("bare")
    with pytest.raises(PagesNotServed, match=r"serve_pages\(server"):
        page_url(server, new_page_id())


def test_serve_pages_refuses_a_public_url_that_is_no_origin():
    with pytest.raises(ValueError, match="absolute https"):
        serve_pages(MCPServer("x"), "mcp.example.com")
    with pytest.raises(ValueError, match="credentials"):
        serve_pages(MCPServer("x"), "https://u:p@mcp.example.com")


def test_a_replica_that_never_asked_serves_a_page_form_it_imported(client: Client):
    from typed_elicit import _pages

    ticket = client.open(BankLogin)
    _pages._models.clear()  # this process never asked: only @form(page=True) knows the model
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
    assert "A date and time with its offset, e.g. 2026-07-28T09:30:00Z" in html
    assert re.search(r'name="budget" value="12.5"[^>]*step="any" min="0" max="1000"', html)
    assert re.search(r'type="date" id="f3" name="day"', html)
    assert "Choose at least 1; choose at most 2" in html


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
    from typed_elicit import _pages

    ticket = client.open(BankLogin)

    def broken(model: object) -> object:
        raise RuntimeError(SECRET)

    monkeypatch.setattr(_pages, "page_reduced", broken)
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
        page = http.get(page_url(server, ticket.id).removeprefix(ORIGIN))
    assert '<img src="https://cdn.example.com/logo.svg" alt="">' in page.text
    assert "img-src 'self' data: https://cdn.example.com;" in page.headers["content-security-policy"]
    with pytest.raises(ValueError, match="logo_url"):
        PageBrand(logo_url="javascript:alert(1)")


def test_a_server_without_a_request_state_boundary_seals_with_a_key_of_its_own():
    server = MCPServer("lowlevel")
    server.middleware.clear()
    sealed = seal(server, "page:x", b"payload")
    assert unseal(server, "page:x", sealed) == b"payload"
    assert unseal(MCPServer("other"), "page:x", sealed) is None


def test_an_answer_the_model_refuses_names_fields_only():
    from typed_elicit import InvalidResponse

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
