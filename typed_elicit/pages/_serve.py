"""Serving pages: the routes `serve_pages` mounts, and what a submit must be to be taken.

A submit needs the CSRF token of the page the same browser loaded (a double-submit cookie,
HMAC-bound to the page id) and an `Origin` (or `Referer`) of `public_url`'s origin; the answer is
checked with the model, sealed and `put` once. Nothing a user types is logged, put in an
exception, or echoed back for a secret field.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import ipaddress
import math
import re
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal
from urllib.parse import parse_qsl, urlsplit

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from typed_elicit._calls.plugs import PageAnswer, host_for, serve
from typed_elicit._calls.sealer import sealer_for
from typed_elicit._core import clock as _clock
from typed_elicit._core.text import strip_bidi
from typed_elicit._forms.page.tree import PageTree
from typed_elicit._views.brand import Brand
from typed_elicit._views.fields import TEMPLATES as FIELD_TEMPLATES
from typed_elicit._views.words import page_words
from typed_elicit.errors import PageSetupError
from typed_elicit.pages._config import PAGE_POLL_SECONDS, Identify, PageConfig
from typed_elicit.pages._host import Pages
from typed_elicit.pages._multipart import (
    MAX_BODY_BYTES,
    BadBody,
    RawFile,
    boundary_of,
    checked_files,
    read_multipart,
)
from typed_elicit.pages._problems import page_problems
from typed_elicit.pages._render import TEMPLATES, gone, not_found, plain, tree_page
from typed_elicit.pages._tickets import (
    ANSWER_PREFIX,
    Ticket,
    answer_bytes,
    load_page,
    logger,
    model_named,
    seal,
)
from typed_elicit.pages._tree import (
    MAX_SUBMIT_FIELDS,
    BadSubmit,
    apply_action,
    check_names,
    kept_values,
    read_tree,
)
from typed_elicit.stores._config import store_for

if TYPE_CHECKING:  # the words are loaded when pages are first served, not on import
    from typed_elicit._views.i18n import Languages, Words

_CSRF_COOKIE: Final = "te_page_csrf"

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


_PREFIX_SEGMENT: Final = re.compile(r"[A-Za-z0-9._~!$&()*+=:@-]+")

_REFUSED_BODY: Final = {413: ("too_large", "too_large_text"), 400: ("refused", "refused_unreadable")}
"""What the page refusing a body says (its heading and text), by status: too large, or unreadable."""

_OWN_TEMPLATES: Final = ("page.html", "message.html", "tree.html", "fields.html")
"""The form templates whose override makes pages render with Jinja2 (`PageConfig.fast` False)."""


def _origin(url: str) -> str | None:
    """The origin of an http(s) URL as `scheme://host[:port]`, or None if it has none.

    Lower-cased, the default port (80 for http, 443 for https) left out, so the forms a browser
    and a configuration may write compare equal. A URL with credentials, an invalid port or
    another scheme (`null`, `file:`) has no origin here.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if parts.scheme not in _DEFAULT_PORTS or not host or "@" in parts.netloc:
        return None
    if ":" in host:  # an IPv6 address: Python 3.10's urlsplit takes `[1:2:3]` (3.11.4 refuses it)
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return None
    shown = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{shown}" + ("" if port in (None, _DEFAULT_PORTS[parts.scheme]) else f":{port}")


def _prefix(public_url: str) -> str:
    """The path of `public_url` without its trailing slash: a prefix a proxy publishes the app under.

    Raises:
        PageSetupError: If the path could not be matched as a route (braces, spaces,
            percent-escapes, empty, `.` or `..` segments).
    """
    prefix = urlsplit(public_url).path.rstrip("/")
    segments = prefix.split("/")[1:]
    if all(_PREFIX_SEGMENT.fullmatch(s) and s not in (".", "..") for s in segments):
        return prefix
    raise PageSetupError(
        "public_url",
        f"serve_pages public_url {public_url!r} has a path that cannot be a route: each segment may "
        "hold letters, digits and -._~!$&()*+=:@ only (no braces, spaces or percent-escapes, no '.' "
        "or '..'); give the prefix your proxy publishes the app under, e.g. 'https://example.com/app', "
        "or no path at all",
    )


def serve_pages(
    server: MCPServer,
    public_url: str,
    *,
    path: str = "/elicit-pages",
    brand: Brand | None = None,
    template: str | None = None,
    templates_dir: str | Path | None = None,
    identify: Identify | None = None,
    poll_seconds: float = PAGE_POLL_SECONDS,
    words: Mapping[str, str] | None = None,
    languages: Languages | None = None,
) -> None:
    """Serve the pages of `ctx.elicit_page` questions on the server's own HTTP app.

    Mounts `GET` and `POST <path>/{page_id}` with the SDK's `custom_route`, so the
    routes exist on the Starlette app of `server.streamable_http_app()` (and
    `server.run("streamable-http")`). Call it once, before serving.

    Links and paths. A page's link is `<public_url><path>/<page_id>`: the browser's address,
    so a path in `public_url` (`https://example.com/app`, a prefix a reverse proxy publishes
    the app under) is kept in links, in the form's `action` and in the CSRF cookie's `Path`.
    The app answers the page both at `<path>/<page_id>` (what it receives from a proxy that
    strips the prefix, or with ASGI `root_path` set to it) and at `<prefix><path>/<page_id>`
    (what it receives from a proxy that forwards the path unchanged, or directly, e.g. when
    `public_url` is the MCP endpoint's URL `http://127.0.0.1:8000/mcp`).

    Security: every page id is 256 random bits, bound to its call and principal, single-use
    (a second submit, an expired or an unknown link get a plain 410/404 page); a submit needs
    the CSRF token of the page the same browser loaded (a double-submit cookie, HMAC-bound
    to the page id) and an `Origin` (or `Referer`) of `public_url`'s origin (compared
    lower-cased, a default port, 443 or 80, left out on both sides). Responses carry
    `Cache-Control: no-store`, a strict `Content-Security-Policy` (no script at all; a style
    nonce; `form-action 'self'`; `frame-ancestors 'none'`), `X-Content-Type-Options: nosniff`,
    and a `Referrer-Policy` (`same-origin` on the form, whose own POST must carry its `Origin`;
    `no-referrer` on every other page).

    Args:
        server: The MCP server.
        public_url: Where the user's browser reaches the server's app, e.g.
            `https://mcp.example.com` (behind a proxy: the proxy's, with the path prefix the
            proxy publishes the app under, if any).
        path: Where the pages live under `public_url`.
        brand: Title, logo and CSS variables of the default template.
        template: The name of a template to render forms with instead of the default
            `page.html` (looked up in `templates_dir` first, then the defaults); it gets
            `nodes` for every form, and `fields` too for a form without groups.
        templates_dir: A directory of Jinja2 templates that override the defaults
            (`page.html` for the form, `message.html` for the plain pages).
        identify: `async (request) -> principal | None`: the principal of the browser's user
            (from your own login cookie), compared with the principal of the call that asked.
            Without it, a page of an authenticated call is still bound to its principal on the
            MCP side (only that principal's call takes the answer), but the browser is not checked.
        poll_seconds: On 2026-07-28, how long one round waits for the page's answer before it
            ends with a round that carries only `requestState` (the client then retries).
        words: Texts that replace some of `PAGE_WORDS`, what a page says about a field's
            constraints (`{"min_length": "Mindestens {limit} Zeichen"}`), in the server's default
            language (English); the rest stay. With `languages`, give them there instead
            (`Languages(words={"en": {...}})`).
        languages: The languages pages speak (`typed_elicit.i18n.Languages`): which locales are
            offered, a fixed one, rewordings, the developer's own catalogs or translate function.
            None: every shipped language, chosen per page from the call's `locale=`, else the
            browser's `Accept-Language`, else English.

    Raises:
        PageSetupError: If `public_url` is not an absolute http(s) URL without query or
            credentials whose path can be a route, `path` does not start with `/`, `words`
            has an unknown key or a bad text, `words` and `languages` are both given, or pages
            are served already.
        ImportError: If Jinja2 is missing (install `typed-elicit[pages]`).
    """
    try:
        import jinja2  # an optional extra
    except ImportError as exc:  # pragma: no cover - jinja2 is in the dev extra
        raise ImportError("typed_elicit.pages needs Jinja2: pip install 'typed-elicit[pages]'") from exc
    origin = _origin(public_url)
    if origin is None or urlsplit(public_url).query or urlsplit(public_url).fragment:
        if "@" in public_url.partition("://")[2].partition("/")[0]:
            raise PageSetupError(
                "public_url", "serve_pages public_url must not carry credentials (user:password@)"
            )
        raise PageSetupError(
            "public_url",
            f"serve_pages public_url must be an absolute https (or http) URL, got {public_url!r}: "
            'write it as the browser reaches the server, e.g. "https://mcp.example.com"',
        )
    prefix = _prefix(public_url)
    if not path.startswith("/") or path.endswith("/") or "{" in path:
        raise PageSetupError(
            "path", f"serve_pages path must start with '/' and not end with one, got {path!r}"
        )
    if host_for(server) is not None:
        raise PageSetupError("server", "serve_pages was already called on this server; call it once")
    if not 0 < poll_seconds < math.inf:
        raise PageSetupError(
            "poll_seconds",
            f"serve_pages poll_seconds must be a positive number of seconds, got {poll_seconds!r}",
        )
    if words and languages is not None:
        raise PageSetupError(
            "words",
            "serve_pages takes words or languages, not both: give the words in "
            'Languages(words={"en": {...}}) (keyed by the locale they reword)',
        )
    from typed_elicit._views.i18n import Languages

    if languages is None:
        languages = Languages(words={"en": dict(page_words(words))} if words else None)
    searched = [str(TEMPLATES), str(FIELD_TEMPLATES)]  # the server's own templates first
    loader = jinja2.FileSystemLoader(searched if templates_dir is None else [str(templates_dir), *searched])
    env = jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined)
    brand = brand or Brand()
    # the built-in renderer, unless the server has a form template of its own (`base.html` alone keeps it)
    own = templates_dir is not None and any((Path(templates_dir) / n).exists() for n in _OWN_TEMPLATES)
    config = PageConfig(
        public_url=origin + prefix,
        path=path,
        prefix=prefix,
        origin=origin,
        secure=origin.startswith("https:"),
        brand=dataclasses.replace(brand, title=None if brand.title is None else strip_bidi(brand.title)),
        identify=identify,
        env=env,
        template=template or "page.html",
        fast=template is None and not own,
        poll_seconds=poll_seconds,
        languages=languages,
        sealer=sealer_for(server, "serve_pages"),
    )
    serve(server, Pages(server, config))

    async def endpoint(request: Any) -> Any:
        return await _handle(server, config, request)

    # What the app receives: without the prefix (a stripping proxy, or none), and with it.
    for name, route in (("typed_elicit_page", path), ("typed_elicit_page_prefixed", prefix + path)):
        if name == "typed_elicit_page" or prefix:
            server.custom_route(
                f"{route}/{{page_id}}", methods=["GET", "POST"], name=name, include_in_schema=False
            )(endpoint)


async def _handle(server: MCPServer, config: PageConfig, request: Any) -> Any:
    try:
        return await _handle_page(server, config, request)
    except Exception as exc:  # a plain page, never a traceback (and never the request's values)
        logger.error("page request failed with %s", type(exc).__name__)
        return plain(config, 500, _words(config, request, None), "failed", "failed_text")


async def _handle_page(server: MCPServer, config: PageConfig, request: Any) -> Any:
    page_id = str(request.path_params.get("page_id", ""))
    ticket, answered = await load_page(server, config.sealer, page_id, submit=request.method == "POST")
    words = _words(config, request, ticket)
    if ticket is None:
        return not_found(config, words)
    if ticket.expires_at <= _clock.now():
        return gone(config, words)
    model = model_named(ticket.model)
    if model is None:  # another replica asked with a model this process never registered
        return not_found(config, words)
    if ticket.principal is not None and config.identify is not None:
        browser = await config.identify(request)
        if browser is None or not hmac.compare_digest(browser.encode(), ticket.principal.encode()):
            logger.warning("page %s opened by another principal", page_id[:8])
            return not_found(config, words)
    if answered is not None:
        return gone(config, words, answered)
    record = ticket.record(model)
    if record is None or record.tree is None:  # the model changed since the call shaped the page
        return not_found(config, words)
    tree = record.tree
    if request.method == "GET":
        nonce = secrets.token_urlsafe(24)
        response = tree_page(
            config, ticket, tree, words=words, values={}, errors={}, csrf=_csrf(ticket, nonce)
        )
        max_age = max(1, math.ceil(ticket.expires_at - _clock.now()))
        response.raw_headers.append(
            csrf_cookie(nonce, f"{config.prefix}{config.path}/{page_id}", max_age, secure=config.secure)
        )
        return response
    submitted = await _submit(config, request, ticket, model, tree, words)
    if isinstance(submitted, PageAnswer):
        return await _store_answer(server, config, words, ticket, submitted)
    # Refused or shown again: a page answered or closed says so first (a submit with a known
    # ticket has not read its answer key yet; one that is stored needs no read: `put` stores once).
    answered = await store_for(server).get(ANSWER_PREFIX + page_id)
    if answered is not None:
        return gone(config, words, answered)
    return submitted


def _words(config: PageConfig, request: Any, ticket: Ticket | None) -> Words:
    """The words of the page's language: the call's, else the server's fixed one, else the browser's."""
    key = (None if ticket is None else ticket.locale, request.headers.get("accept-language"))
    chosen = config.chosen
    words = chosen.get(key)
    if words is None:
        languages = config.languages
        words = languages.words(languages.choose(call=key[0], accept_language=key[1]))
        if len(chosen) >= MAX_CHOSEN:  # the header is the browser's to write: bounded, the oldest goes
            del chosen[next(iter(chosen))]
        chosen[key] = words
    return words


MAX_CHOSEN: Final = 256
"""How many (call locale, `Accept-Language`) pairs a server remembers the words of."""


def csrf_cookie(nonce: str, path: str, max_age: int, *, secure: bool) -> tuple[bytes, bytes]:
    """The `Set-Cookie` header of a page's CSRF nonce: what Starlette's `set_cookie` writes for it.

    Written directly: `http.cookies` costs about 90,000 instructions a page. Nothing needs
    quoting: the nonce is URL-safe base64, the path the page's own.
    """
    flag = "; Secure" if secure else ""
    value = f"{_CSRF_COOKIE}={nonce}; HttpOnly; Max-Age={max_age}; Path={path}; SameSite=strict{flag}"
    return b"set-cookie", value.encode("latin-1")


def _csrf(ticket: Ticket, nonce: str) -> str:
    # keyed BLAKE2b is a MAC (RFC 7693), and cheaper than an HMAC through OpenSSL
    return hashlib.blake2b(
        f"{ticket.id}\n{nonce}".encode(), key=bytes.fromhex(ticket.csrf_key), digest_size=32
    ).hexdigest()


def _same_origin(config: PageConfig, request: Any) -> Literal["same", "other", "unsaid"]:
    """Whether a POST comes from the page's own origin, by its `Origin` (else its `Referer`).

    Returns:
        `same`, `other` (another origin, `null`, or no origin at all), or `unsaid` (the
        browser sent neither header, e.g. under strict privacy settings).
    """
    origin = request.headers.get("origin")
    if origin is None:
        origin = request.headers.get("referer")
        if origin is None:
            return "unsaid"
    if origin == config.origin:  # what a browser sends: the origin exactly as it is written
        return "same"
    return "same" if _origin(str(origin)) == config.origin else "other"


async def _submit(
    config: PageConfig,
    request: Any,
    ticket: Ticket,
    model: type[BaseModel],
    tree: PageTree,
    words: Mapping[str, str],
) -> Any:
    """A submit from the page's origin with its CSRF token: the answer to store, else the page to show.

    Returns:
        The `PageAnswer` to store, or the response (a refusal, the page shown again).
    """
    verdict = _same_origin(config, request)
    if verdict == "unsaid":
        logger.warning("page %s: a submit without Origin or Referer was refused", ticket.id[:8])
        return plain(config, 403, words, "refused", "refused_unsaid")
    if verdict == "other":
        logger.warning("page %s: a submit from another origin was refused", ticket.id[:8])
        return plain(config, 403, words, "refused", "refused_other_site")
    boundary = boundary_of(request.headers.get("content-type", "")) if tree.files else None
    raw_files: dict[str, RawFile] = {}
    data: dict[str, list[str]] = {}
    if boundary is not None:
        try:
            data, raw_files = await read_multipart(request, tree, boundary)
        except BadBody as bad:
            logger.warning("page %s: a multipart submit was refused (%d)", ticket.id[:8], bad.status)
            return plain(config, bad.status, words, *_REFUSED_BODY[bad.status])
    else:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                return plain(config, 413, words, *_REFUSED_BODY[413])
        try:
            pairs = parse_qsl(
                body.decode("utf-8"),
                keep_blank_values=True,
                strict_parsing=False,
                max_num_fields=MAX_SUBMIT_FIELDS,
            )
        except (UnicodeDecodeError, ValueError):
            return plain(config, 400, words, *_REFUSED_BODY[400])
        for name, value in pairs:
            data.setdefault(name, []).append(value)
    cookie = request.cookies.get(_CSRF_COOKIE)
    token = (data.get("_csrf") or [""])[-1]
    if not cookie or not hmac.compare_digest(token.encode(), _csrf(ticket, cookie).encode()):
        logger.warning("page %s: a submit without this page's CSRF token was refused", ticket.id[:8])
        return plain(config, 403, words, "refused", "refused_expired")
    action = (data.get("_action") or ["accept"])[-1]
    try:
        check_names(tree, data)
        changed = apply_action(tree, data, action)
    except BadSubmit:
        logger.warning("page %s: a submit with inputs this page does not have was refused", ticket.id[:8])
        return plain(config, 400, words, "refused", "refused_unreadable")
    if action in ("decline", "cancel"):
        return PageAnswer(action)  # type: ignore[arg-type]
    if changed is not None:
        values = kept_values(tree, changed)
        return tree_page(
            config, ticket, tree, words=words, values=values, errors={}, csrf=token, files_again=tree.files
        )
    if action != "accept":
        return plain(config, 400, words, "refused", "refused_unreadable")
    files, errors = checked_files(tree, raw_files, words)
    content, read_errors = read_tree(tree, data, files, words)
    for path, problem in (*read_errors.items(), *page_problems(model, tree, content, words).items()):
        errors.setdefault(path, problem)
    if errors:
        logger.debug(
            "page %s: an answer with %d invalid field(s) was shown again", ticket.id[:8], len(errors)
        )
        values = kept_values(tree, data)
        return tree_page(
            config,
            ticket,
            tree,
            words=words,
            values=values,
            errors=errors,
            csrf=token,
            status=422,
            files_again=tree.files,
        )
    return PageAnswer("accept", content)


async def _store_answer(
    server: MCPServer, config: PageConfig, words: Mapping[str, str], ticket: Ticket, answer: PageAnswer
) -> Any:
    key = ANSWER_PREFIX + ticket.id
    sealed = seal(config.sealer, key, answer_bytes(answer))
    if not await store_for(server).put(key, sealed, ticket.expires_at):  # answered or closed already
        return gone(config, words, await store_for(server).get(key))
    logger.debug("page %s answered (%s)", ticket.id[:8], answer.action)
    if answer.action == "accept":
        return plain(config, 200, words, "thanks", "thanks_text")
    return plain(config, 200, words, "nothing_sent", "nothing_sent_text")
