"""A page and an app view, served by the installed typed_elicit over real HTTP: exit 0 when both came.

`.ci/release` runs this file with the python of a fresh virtual environment that holds only the
wheel and its extras `[cli,pages,apps,redis]`, from a directory outside the checkout, so every
import below comes from the wheel (the script imports nothing of `tests`). It starts a uvicorn
server on a free loopback port with `serve_pages` and `serve_apps`, then, as a client on
2025-11-25:

1. calls a tool that asks for a page form: the client's URL handler fetches the page over HTTP
   (as the user's browser would, asking for German), checks it holds the form, its password input
   and the German words of the wheel's compiled catalog, and declines; the tool then reports the
   decline;
2. lists the server's resources and reads the app view's `ui://` resource: a self-contained HTML
   document holding the model's field.

Run it by hand: `python tests/release/smoke.py` (any environment with the extras installed).
"""

from __future__ import annotations

import socket
import sys
from typing import Literal

import anyio
import httpx2 as httpx
import uvicorn
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, SecretStr

import typed_elicit
from typed_elicit import Declined, ElicitContext, elicits, form
from typed_elicit.apps import AppView, serve_apps
from typed_elicit.client import FormRequest, UrlRequest, elicitation_handler
from typed_elicit.pages import serve_pages
from typed_elicit.testing import connect

BOUND = 60.0
"""Seconds the whole smoke run may take: it fails then rather than hang CI (it takes about one)."""


@form(message="Sign in to the smoke test", page=True)
class Login(BaseModel):
    username: str
    password: SecretStr


@form(app=AppView(title="Smoke"))
class Size(BaseModel):
    size: Literal["small", "large"]


class Ready(uvicorn.Server):
    """A uvicorn server that says when it listens, so the client waits on an event, not a sleep."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = anyio.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.ready.set()


def build(origin: str) -> MCPServer:
    server = MCPServer("smoke", log_level="WARNING")
    serve_pages(server, public_url=origin)

    @server.tool()
    @elicits(Login)
    async def sign_in(ctx: ElicitContext) -> str:
        """Ask for a login on the server's page."""
        result = await ctx.elicit_page(Login)
        return "declined" if isinstance(result, Declined) else "answered"

    serve_apps(server, models=[Size])
    return server


async def smoke() -> list[str]:
    with anyio.fail_after(BOUND):
        return await _smoke()


async def _smoke() -> list[str]:
    said: list[str] = [f"typed_elicit {typed_elicit.__version__} from {typed_elicit.__file__}"]
    pages: list[str] = []

    async def no_form(request: FormRequest) -> Declined:
        raise AssertionError("a page question sends a URL, never a form")

    async def open_page(request: UrlRequest) -> str:
        async with httpx.AsyncClient() as browser:
            page = await browser.get(request.url, headers={"Accept-Language": "de-DE"})
        assert page.status_code == 200, f"the page answered {page.status_code}"
        assert 'lang="de"' in page.text, "the page is not in German: the wheel lacks its catalogs?"
        assert ">Senden<" in page.text, "the page's button is not in German: the wheel lacks its .mo files?"
        assert 'name="password"' in page.text, "the page has no password field"
        assert 'type="password"' in page.text, "the page's password field is not a password input"
        pages.append(request.url)
        return "decline"

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        origin = f"http://127.0.0.1:{sock.getsockname()[1]}"
        server = build(origin)
        http = Ready(uvicorn.Config(server.streamable_http_app(), log_level="warning", lifespan="on"))
        async with anyio.create_task_group() as tg:
            tg.start_soon(http.serve, [sock])
            await http.ready.wait()
            try:
                callback = elicitation_handler(no_form, url=open_page)
                async with connect(f"{origin}/mcp", "2025-11-25", elicitation_callback=callback) as client:
                    done = await client.call_tool("sign_in", {})
                    text = [block.text for block in done.content if block.type == "text"]
                    assert text == ["declined"], f"the tool said {text}"
                    assert len(pages) == 1, "the client was never sent the page"
                    said.append(
                        f"page: {pages[0].rsplit('/', 1)[0]}/<ticket> fetched (200, German, password input), "
                        "declined"
                    )
                    listed = await client.list_resources()
                    (uri,) = [str(r.uri) for r in listed.resources if str(r.uri).startswith("ui://")]
                    read = await client.read_resource(uri)
                    (content,) = read.contents
                    html = getattr(content, "text", "")
                    assert "<html" in html, "the app view is not an HTML document"
                    assert 'name="size"' in html, "the app view has no field"
                    said.append(f"app view: {uri} read ({len(html)} characters of HTML, the field inside)")
            finally:
                http.should_exit = True
    return said


def main() -> int:
    try:
        said = anyio.run(smoke)
    except Exception as error:  # the verdict: any failure fails the smoke run
        print(f"smoke: FAILED: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    print("\n".join(f"smoke: {line}" for line in said))
    return 0


if __name__ == "__main__":
    sys.exit(main())
