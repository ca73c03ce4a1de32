"""A client that completes a page question: its URL handler fills the server's page over HTTP.

A page question (`ctx.elicit_page` on the server) reaches a client as a URL-mode request:
the link to a page of the server's own, and the user's consent to open it. In a desktop
client the URL handler shows the link, opens it in the browser and returns "accept"; the
person types the secret on the page, never into the client or the model. This program
does what that person does, with httpx (`httpx2`, the HTTP client the mcp SDK installs),
so a page flow can run unattended (a CI check, a scripted demo): GET the page (its cookie
and CSRF token come with it), fill in the form's fields, POST it from the page's own
origin as a browser does, then consent. The tool gets the typed answer.

Run it against examples/link_bank.py (the era is optional, 2026-07-28 by default):

    python examples/link_bank.py &
    python examples/complete_page_client.py http://127.0.0.1:8000/mcp 2025-11-25
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import anyio
import httpx2 as httpx
from mcp import Client
from mcp.client.session import ElicitationFnT
from mcp_types import TextContent
from pydantic import BaseModel

from typed_elicit import Declined, ElicitResult
from typed_elicit.client import FormRequest, UrlAnswer, UrlRequest, elicitation_handler

ANSWERS = {"username": "ada", "password": "correct-horse-battery-staple", "otp": "123456"}
"""What the person would type on the page, by field name (demo values: keep real secrets out of code)."""


class PageForm(HTMLParser):
    """The page's form as a browser reads it: where it posts, its hidden inputs, its fields."""

    def __init__(self) -> None:
        super().__init__()
        self.action = ""
        self.hidden: dict[str, str] = {}
        self.fields: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "form":
            self.action = found.get("action", "")
        elif tag in ("input", "select", "textarea") and found.get("name"):
            if found.get("type") == "hidden":
                self.hidden[found["name"]] = found.get("value", "")
            elif found["name"] not in self.fields:
                self.fields.append(found["name"])


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def page_filler(server_url: str) -> ElicitationFnT:
    """An elicitation callback whose URL handler fills pages of the server at `server_url`."""

    async def on_form(request: FormRequest) -> ElicitResult[BaseModel]:
        print(f"declining a form question: {request.message}")
        return Declined()

    async def on_url(request: UrlRequest) -> UrlAnswer:
        print(f"{request.server_name or 'the server'} asks: {request.message}")
        if origin(request.url) != origin(server_url):
            print(f"not sending secrets to another site: {request.url}")
            return "decline"
        browser = httpx.AsyncClient()
        async with browser:
            page = await browser.get(request.url)
            page.raise_for_status()
            form = PageForm()
            form.feed(page.text)
            missing = [name for name in form.fields if name not in ANSWERS]
            if missing:
                print(f"no answer for {', '.join(missing)}: cancelling")
                return "cancel"
            data = {**form.hidden, **{name: ANSWERS[name] for name in form.fields}, "_action": "accept"}
            sent = await browser.post(
                urljoin(request.url, form.action), data=data, headers={"Origin": origin(request.url)}
            )
        if sent.status_code != 200:
            print(f"the page did not take the answer (HTTP {sent.status_code}): cancelling")
            return "cancel"
        print(f"filled in {', '.join(form.fields)} on the page")
        return "accept"  # consent: the user has opened the URL (and here, already submitted it)

    return elicitation_handler(on_form, url=on_url)


async def main(server_url: str, era: str = "2026-07-28") -> None:
    mode = "legacy" if era == "2025-11-25" else "auto"
    async with Client(server_url, mode=mode, elicitation_callback=page_filler(server_url)) as client:
        result = await client.call_tool("link_bank", {})
    print(*(block.text for block in result.content if isinstance(block, TextContent)))


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: python examples/complete_page_client.py SERVER_URL [2025-11-25|2026-07-28]")
    anyio.run(main, sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "2026-07-28")
