"""The page's HTML: the form page, the plain pages, and the headers every response carries.

The field and node markup is the shared one (`typed_elicit._views.fields.field_html`,
`typed_elicit.pages._nodes.node_html`), the page around it is written here, once, in Python;
`base.html` (the head, the style, the card) is rendered once per language and direction with
markers where the title, the style nonce and the body go (`Shell`). A server that gives its own
form template (`serve_pages(template=..., templates_dir=...)`) renders with Jinja2 instead; its
templates get the same context, and the page's own markup as `body`.
The pages carry no script: a strict `Content-Security-Policy` with a style nonce.
"""

from __future__ import annotations

import dataclasses
import re
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from markupsafe import Markup

from typed_elicit._forms.page.tree import PageTree
from typed_elicit._views.fields import esc
from typed_elicit._views.fields import plain as plain_text
from typed_elicit._views.words import counted, own_text, say
from typed_elicit.pages._config import PageConfig
from typed_elicit.pages._nodes import NodeView, tree_views, write_node
from typed_elicit.pages._tickets import CLOSED, Ticket

TEMPLATES: Final = Path(__file__).with_name("templates")


_SECURITY_HEADERS: Final = {
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}

_RAW_HEADERS: Final = tuple(
    (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in _SECURITY_HEADERS.items()
)
"""The security headers as the ASGI response carries them (encoded once)."""

_REFERRER: Final = {True: (b"referrer-policy", b"same-origin"), False: (b"referrer-policy", b"no-referrer")}
"""`same-origin` on the form, whose own POST must carry its `Origin`; `no-referrer` on every other page."""

_MARK: Final = re.compile("\x00(title|nonce|body)\x00")
_SHELL: Final = (
    '{% extends "base.html" %}{% block title %}\x00title\x00{% endblock %}'
    "{% block content %}\x00body\x00{% endblock %}"
)


class Shell:
    """`base.html` rendered once for a language and direction, cut where the title, nonce and body go."""

    __slots__ = ("parts", "slots")

    def __init__(self, env: Any, brand: Any, lang: str, direction: str) -> None:
        """Render `base.html` with markers in `env` (a Jinja2 environment)."""
        html = env.from_string(_SHELL).render(brand=brand, nonce="\x00nonce\x00", lang=lang, dir=direction)
        cut = _MARK.split(html)
        self.parts: tuple[str, ...] = tuple(cut[0::2])
        """The text between the markers."""
        self.slots: tuple[int, ...] = tuple(_SLOTS[name] for name in cut[1::2])
        """What goes at each marker: 0 the title, 1 the nonce, 2 the body."""

    def fill(self, title: str, nonce: str, body: str) -> str:
        """The page: the shell with its title and body (markup) and the style nonce."""
        parts = self.parts
        if self.slots == (0, 1, 2):  # base.html's own order
            return "".join((parts[0], title, parts[1], nonce, parts[2], body, parts[3]))
        values = (title, nonce, body)
        out = [parts[0]]
        for slot, text in zip(self.slots, parts[1:], strict=True):
            out += (values[slot], text)
        return "".join(out)


_SLOTS: Final = {"title": 0, "nonce": 1, "body": 2}


def _response(
    config: PageConfig,
    template: str,
    status: int,
    context: dict[str, Any],
    chrome: _Chrome,
    *,
    form: bool,
) -> Any:
    from starlette.responses import HTMLResponse  # the SDK's own dependency

    nonce = secrets.token_urlsafe(18)
    if config.fast:
        shell = chrome.shell
        if shell is None:  # once per language the server speaks
            shell = chrome.shell = Shell(config.env, chrome.brand_of(config), chrome.lang, chrome.direction)
        html = shell.fill(context["title"], nonce, context["body"])
    else:
        html = config.env.get_template(template).render(
            brand=chrome.brand_of(config),
            nonce=nonce,
            lang=chrome.lang,
            dir=chrome.direction,
            words=chrome.words,
            **context,
        )
    logo = config.brand.logo_source  # checked, rebuilt (`Brand.logo_source`)
    img = "'self' data:" if logo is None else f"'self' data: {logo}"
    csp = (
        f"default-src 'none'; style-src 'nonce-{nonce}'; img-src {img}; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    )
    response = HTMLResponse(html, status_code=status)
    response.raw_headers += (
        *_RAW_HEADERS,
        (b"content-security-policy", csp.encode("latin-1")),
        _REFERRER[form],
    )
    return response


def plain(config: PageConfig, status: int, words: Mapping[str, str], heading: str, text: str) -> Any:
    """A plain page: the message `heading` and its text `text` (message keys) in `words`."""
    key = (id(words), heading, text)
    found = config.said.get(key)
    chrome = _chrome(config, words)
    if found is None or found[0] is not words:
        shown, said = say(words, heading), say(words, text)
        body = Markup(f"<h1>{esc(shown)}</h1>\n<p>{esc(said)}</p>")
        title = Markup(esc(shown.join(chrome.title)))
        found = config.said[key] = (words, {"heading": shown, "text": said, "title": title, "body": body})
    context = found[1] if config.fast else dict(found[1])
    return _response(config, "message.html", status, context, chrome, form=False)


def gone(config: PageConfig, words: Mapping[str, str], answered: bytes | None = None) -> Any:
    """A link no longer usable: its question closed (`answered` is `CLOSED`), or answered or expired."""
    if answered == CLOSED:
        return plain(config, 410, words, "closed", "closed_text")
    return plain(config, 410, words, "gone", "gone_text")


def not_found(config: PageConfig, words: Mapping[str, str]) -> Any:
    return plain(config, 404, words, "not_found", "not_found_text")


def tree_page(
    config: PageConfig,
    ticket: Ticket,
    tree: PageTree,
    *,
    words: Mapping[str, str],
    values: Mapping[str, list[str]],
    errors: Mapping[str, str],
    csrf: str,
    status: int = 200,
    files_again: bool = False,
) -> Any:
    """The form page: its fields, groups, rows, choices and files (`nodes`), and what a submit got wrong."""
    nodes = tree_views(tree, values, errors, words, files_again=files_again, share=config.fast)
    invalid: list[tuple[str, str, str]] = []
    stray: list[str] = []
    if errors:
        flat = _flat(nodes)
        invalid = [
            (n.id, f"{n.where} \u203a {n.label}" if n.where else n.label, n.error) for n in flat if n.error
        ]
        shown = {n.path for n in flat}
        stray = [message for path, message in errors.items() if path not in shown]
    message = plain_text(own_text(words, ticket.message))
    chrome = _chrome(config, words)
    heading = message.join(chrome.title)
    context: dict[str, Any] = {
        "message": message,
        "nodes": nodes,
        "errors": invalid,
        "form_errors": stray,
        "first_error": invalid[0][0] if invalid else None,
        "csrf": csrf,
        "action": f"{config.prefix}{config.path}/{ticket.id}",
        "multipart": tree.files,
        "title": esc(say(words, "error_title", title=heading) if invalid or stray else heading),
    }
    body = _form_body(context, chrome)
    # A template of the server's own: markup, and the plain fields of a form without groups.
    if not config.fast:
        context["title"] = Markup(context["title"])
        context["fields"] = [n.field for n in nodes] if all(n.field is not None for n in nodes) else []
        body = Markup(body)
    context["body"] = body
    return _response(config, config.template, status, context, chrome, form=True)


class _Chrome:
    """The words around every form page of one language, escaped once (`_chrome`)."""

    __slots__ = ("brand", "default_submit", "direction", "lang", "shell", "tail", "title", "words")

    def __init__(self, words: Mapping[str, str], brand: str) -> None:
        self.words = words
        self.brand = brand
        """The app's title in these words."""
        self.lang: str = getattr(words, "locale", "en")
        """The page's `lang` and `dir` (English, left to right, for a plain table)."""
        self.direction: str = getattr(words, "direction", "ltr")
        self.shell: Shell | None = None
        """`base.html` in this language, made on first use (the built-in renderer's)."""
        self.title = say(words, "title", heading="\x00", title=brand).split("\x00")
        """The window title around a page's heading (`{heading} - {title}`)."""
        submit = esc(say(words, "submit"))
        self.default_submit = (
            '<button type="submit" class="default-submit" name="_action" value="accept" tabindex="-1" '
            f'aria-hidden="true">{submit}</button>\n'
        )
        self.tail = (
            f'\n<div class="actions">\n<button type="submit" class="primary" name="_action" value="accept">'
            f"{submit}</button>\n"
            '<button type="submit" name="_action" value="decline" formnovalidate>'
            f"{esc(say(words, 'decline'))}"
            "</button>\n"
            f'<button type="submit" name="_action" value="cancel" formnovalidate>{esc(say(words, "cancel"))}'
            "</button>\n"
            f'</div>\n</form>\n<p class="note">{esc(say(words, "page_note"))}</p>'
        )

    def brand_of(self, config: PageConfig) -> Any:
        """The server's `Brand` with the app's title in these words."""
        return dataclasses.replace(config.brand, title=self.brand)


def _chrome(config: PageConfig, words: Mapping[str, str]) -> _Chrome:
    """The chrome of `words`: one per words table the server speaks (a bounded set), made on first use."""
    found = config.chrome.get(id(words))
    if found is None or found.words is not words:
        found = config.chrome[id(words)] = _Chrome(words, config.brand.title or say(words, "default_title"))
    return found


def _form_body(c: Mapping[str, Any], chrome: _Chrome) -> str:
    """The form page's own markup: the question, the problems, the form, the note."""
    words = chrome.words
    out = [f'<h1 id="page-message" dir="auto">{esc(c["message"])}</h1>\n']
    errors: list[tuple[str, str, str]] = c["errors"]
    stray: list[str] = c["form_errors"]
    if errors or stray:  # the summary takes the focus (no script), and links to each field
        problems = counted(words, "problems", len(errors) + len(stray))
        out.append(
            '<div class="summary" id="error-summary" role="alert" aria-labelledby="summary-title" '
            'tabindex="-1" autofocus>'
            f'<h2 id="summary-title">{esc(problems)}</h2><ul>'
        )
        out.extend(
            f'<li><a href="#{ident}" dir="auto">'
            f"{esc(say(words, 'problem_at', label=label, problem=error))}</a></li>"
            for ident, label, error in errors
        )
        out.extend(f'<li dir="auto">{esc(error)}</li>' for error in stray)
        out.append("</ul></div>\n")
    multipart = ' enctype="multipart/form-data"' if c["multipart"] else ""
    out.append(
        f'<form method="post" action="{esc(c["action"])}"{multipart} novalidate '
        'aria-labelledby="page-message">\n'
    )
    out.append(chrome.default_submit)
    out.append(f'<input type="hidden" name="_csrf" value="{esc(c["csrf"])}">\n')
    nodes: list[NodeView] = c["nodes"]
    for n in nodes:
        write_node(n, None, out)
    out.append(chrome.tail)
    return "".join(out)


def _flat(nodes: Sequence[NodeView]) -> list[NodeView]:
    """Every node view, depth first (a row's key and value included)."""
    out: list[NodeView] = []
    for n in nodes:
        out.append(n)
        out.extend(_flat(n.children))
        for row in n.rows:
            if row.key is not None:
                out.append(NodeView("leaf", row.key.name, row.key.id, row.key.label, error=row.key.error))
            out.extend(_flat(row.children))
    return out
