"""The hand-written baseline of `tests/bench/pages.py`: the same pages, written without typed_elicit.

One Starlette route, `/hand/{page_id}`, as a developer would write it for an `elicit_url`
question: the form rendered with string joins (every text escaped with markupsafe), the same
security headers, a double-submit CSRF cookie bound to the page by an HMAC, an origin check,
the body parsed (`parse_qsl`, or Starlette's multipart parser), dotted names gathered into a
nested dict, the file checked against its limits, the model validated, the answer kept once and
its waiter woken (an `anyio.Event` per page: the tool of a whole question waits on it).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any
from urllib.parse import parse_qsl

import anyio
from markupsafe import escape
from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from typed_elicit.pages import UploadedFile

from . import pages as bench

_CSS = """body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#f3f5f8;color:#1b1f24}
main{max-width:34rem;margin:2.5rem auto;padding:0 1rem}.field{margin-bottom:1.15rem}
label,legend{display:block;font-weight:600}input{width:100%;padding:.6rem .7rem;font:inherit}
fieldset{border:1px solid #d5dbe3;padding:.9rem 1rem}.row{border-left:3px solid #d5dbe3}
.req{color:#b3261e}.actions{display:flex;gap:.6rem;margin-top:1.5rem}"""


def _text(ident: str, name: str, label: str, kind: str = "text", extra: str = "") -> str:
    return (
        f'<div class="field"><label for="{ident}">{escape(label)} '
        '<span class="req" aria-hidden="true">*</span>'
        f'</label><input type="{kind}" id="{ident}" name="{escape(name)}" value="" required{extra}></div>'
    )


def _form(case: str) -> str:
    """The inputs of `case`'s form, in the page's order."""
    if case == "flat":
        return _text("f0", "api_key", "API key", "password", ' minlength="8" autocomplete="off"')
    if case == "groups":
        parts = [_text("f0", "name", "name", extra=' autocomplete="name"')]
        parts.append('<fieldset class="group" id="f1"><legend>address <span class="req">*</span></legend>')
        parts += [
            _text("f2", "address.street", "street", extra=' minlength="2"'),
            _text("f3", "address.city", "city"),
            _text("f4", "address.postcode", "postcode", extra=' autocomplete="postal-code"'),
            "</fieldset>",
            '<fieldset class="rows" id="f5"><legend>contacts <span class="req">*</span></legend>',
            '<input type="hidden" name="contacts._n" value="3">',
        ]
        for i in range(3):
            parts.append(f'<div class="row"><h3>Contact {i + 1}</h3>')
            parts.append(_text(f"f{6 + 2 * i}", f"contacts.{i}.name", "name"))
            parts.append(_text(f"f{7 + 2 * i}", f"contacts.{i}.phone", "phone", "tel"))
            parts.append("</div>")
        parts.append(
            '<button type="submit" name="_action" value="add:contacts">Add to contacts</button></fieldset>'
        )
        parts.append(
            '<div class="field"><label for="f12">scan</label><input type="file" id="f12" name="scan" '
            'accept="text/plain" required></div>'
        )
        return "".join(parts)
    parts = ['<fieldset class="rows" id="f0"><legend>rows</legend>']
    ident = 1
    for r in range(bench.BIG_ROWS):
        parts.append(f'<div class="row"><h3>rows {r + 1}</h3>')
        for c in range(bench.BIG_FIELDS):
            parts.append(_text(f"f{ident}", f"rows.{r}.c{c:02d}", f"c{c:02d}"))
            ident += 1
        parts.append("</div>")
    parts.append("</fieldset>")
    return "".join(parts)


_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


def _page(title: str, body: str, nonce: str, status: int = 200) -> Response:
    html = "".join(
        (
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>',
            escape(title),
            f'</title><style nonce="{nonce}">',
            _CSS,
            "</style></head><body><main>",
            body,
            "</main></body></html>",
        )
    )
    headers = {
        **_HEADERS,
        "Content-Security-Policy": f"default-src 'none'; style-src 'nonce-{nonce}'; form-action 'self'",
    }
    return HTMLResponse(html, status_code=status, headers=headers)


def _nested(data: dict[str, Any]) -> dict[str, Any]:
    """Dotted names (`contacts.0.name`) as nested dicts; a dict of digits becomes a list."""
    out: dict[str, Any] = {}
    for name, value in data.items():
        if name.startswith("_") or name.endswith("._n"):
            continue
        *parents, last = name.split(".")
        here = out
        for part in parents:
            here = here.setdefault(part, {})
        here[last] = value

    def lists(node: Any) -> Any:
        if isinstance(node, dict):
            items = {k: lists(v) for k, v in node.items()}  # pyright: ignore[reportUnknownVariableType]
            if items and all(k.isdigit() for k in items):
                return [items[str(i)] for i in range(len(items))]
            return items
        return node

    return lists(out)


class HandPages:
    """The hand-written pages: an id per page, its case, CSRF key and answer."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.pages: dict[str, dict[str, Any]] = {}
        self.app = Starlette(routes=[Route("/hand/{page_id}", self.endpoint, methods=["GET", "POST"])])

    def open(self, case: str) -> str:
        page_id = secrets.token_urlsafe(32)
        key = secrets.token_bytes(32)
        self.pages[page_id] = {"case": case, "key": key, "answer": None, "done": anyio.Event()}
        return f"/hand/{page_id}"

    def _csrf(self, page_id: str, key: bytes, nonce: str) -> str:
        return hmac.new(key, f"{page_id}\n{nonce}".encode(), hashlib.sha256).hexdigest()

    async def endpoint(self, request: Request) -> Response:
        page_id = request.path_params["page_id"]
        page = self.pages.get(page_id)
        nonce = secrets.token_urlsafe(18)
        if page is None or page["answer"] is not None:
            return _page("Page not found", "<h1>Page not found</h1>", nonce, 404)
        case: str = page["case"]
        model: type[BaseModel] = bench.MODELS[case]
        if request.method == "GET":
            cookie = secrets.token_urlsafe(24)
            csrf = self._csrf(page_id, page["key"], cookie)
            multipart = ' enctype="multipart/form-data"' if case == "groups" else ""
            body = "".join(
                (
                    f"<h1>{escape(model.__doc__ or 'Please answer')}</h1>",
                    f'<form method="post" action="/hand/{page_id}"{multipart} novalidate>',
                    f'<input type="hidden" name="_csrf" value="{csrf}">',
                    _form(case),
                    '<div class="actions">',
                    '<button type="submit" name="_action" value="accept">Submit</button>',
                    '<button type="submit" name="_action" value="decline">Decline</button></div></form>',
                )
            )
            response = _page(str(model.__doc__), body, nonce)
            response.set_cookie(
                "csrf", cookie, path=f"/hand/{page_id}", httponly=True, secure=True, samesite="strict"
            )
            return response
        if request.headers.get("origin") != self.origin:
            return _page("Form not accepted", "<h1>Form not accepted</h1>", nonce, 403)
        data: dict[str, Any] = {}
        if request.headers.get("content-type", "").startswith("multipart/"):
            async with request.form(max_files=4, max_fields=200) as got:
                for name, value in got.multi_items():
                    if isinstance(value, str):
                        data[name] = value
                    else:
                        raw = await value.read()
                        media = value.content_type or ""
                        if len(raw) > 2048 or media != "text/plain":
                            return _page("Form not accepted", "<h1>File refused</h1>", nonce, 400)
                        data[name] = UploadedFile(value.filename or "file", media, raw)
        else:
            body = (await request.body()).decode()
            data = dict(parse_qsl(body, keep_blank_values=True, max_num_fields=200))
        cookie = request.cookies.get("csrf", "")
        if not hmac.compare_digest(str(data.get("_csrf", "")), self._csrf(page_id, page["key"], cookie)):
            return _page("Form not accepted", "<h1>Reload the page</h1>", nonce, 403)
        try:
            answer = model.model_validate(_nested(data))
        except ValidationError as exc:
            return _page("Error", f"<h1>Please correct {len(exc.errors())} problems</h1>", nonce, 422)
        page["answer"] = answer
        page["done"].set()
        return _page("Thank you", "<h1>Thank you</h1><p>Your answer was sent.</p>", nonce)
