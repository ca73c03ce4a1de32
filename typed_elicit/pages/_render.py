"""The page's HTML: the form page, the plain pages, and the headers every response carries.

The field markup is the shared one (`typed_elicit._views`), built from a `FormSpec` alone.
The pages carry no script: a strict `Content-Security-Policy` with a style nonce.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from typed_elicit._core.text import strip_bidi
from typed_elicit._forms.page.tree import PageTree
from typed_elicit.pages._config import PageConfig
from typed_elicit.pages._nodes import NodeView, tree_views
from typed_elicit.pages._tickets import Ticket

TEMPLATES: Final = Path(__file__).with_name("templates")


_SECURITY_HEADERS: Final = {
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}


def _csp(nonce: str, logo_source: str | None) -> str:
    """The page's Content-Security-Policy; `logo_source` is `Brand.logo_source` (checked, rebuilt)."""
    img = "'self' data:" if logo_source is None else f"'self' data: {logo_source}"
    return (
        f"default-src 'none'; style-src 'nonce-{nonce}'; img-src {img}; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    )


def _response(config: PageConfig, template: str, status: int, context: dict[str, Any], *, form: bool) -> Any:
    from starlette.responses import HTMLResponse  # the SDK's own dependency

    nonce = secrets.token_urlsafe(18)
    html = config.env.get_template(template).render(brand=config.brand, nonce=nonce, **context)
    headers = {
        **_SECURITY_HEADERS,
        "Content-Security-Policy": _csp(nonce, config.brand.logo_source),
        "Referrer-Policy": "same-origin" if form else "no-referrer",
    }
    return HTMLResponse(html, status_code=status, headers=headers)


def plain(config: PageConfig, status: int, heading: str, text: str) -> Any:
    return _response(config, "message.html", status, {"heading": heading, "text": text}, form=False)


def gone(config: PageConfig) -> Any:
    return plain(
        config,
        410,
        "This link can no longer be used",
        "The form was already submitted, or it expired. Go back to your app and start again if needed.",
    )


def closed(config: PageConfig) -> Any:
    return plain(
        config,
        410,
        "This question is closed",
        "The app stopped waiting for this answer: it was declined, cancelled or timed out. Nothing you "
        "enter here is sent. Go back to your app and start again if needed.",
    )


def not_found(config: PageConfig) -> Any:
    return plain(
        config, 404, "Page not found", "This link is not valid. Check that you opened the whole link."
    )


def tree_page(
    config: PageConfig,
    ticket: Ticket,
    tree: PageTree,
    *,
    values: Mapping[str, list[str]],
    errors: Mapping[str, str],
    csrf: str,
    status: int = 200,
    files_again: bool = False,
) -> Any:
    """The form page: its fields, groups, rows, choices and files (`nodes`), and what a submit got wrong."""
    nodes = tree_views(tree, values, errors, config.words, files_again=files_again)
    flat = _flat(nodes)
    invalid = [
        (n.id, f"{n.where} \u203a {n.label}" if n.where else n.label, n.error) for n in flat if n.error
    ]
    shown = {n.path for n in flat}
    stray = [message for path, message in errors.items() if path not in shown]
    context = {
        "message": strip_bidi(ticket.message),
        # A form without groups is also given as plain `fields` (a user template may show only those).
        "fields": [n.field for n in nodes] if all(n.field is not None for n in nodes) else [],
        "nodes": nodes,
        "errors": invalid,
        "form_errors": stray,
        "first_error": invalid[0][0] if invalid else None,
        "csrf": csrf,
        "action": f"{config.prefix}{config.path}/{ticket.id}",
        "multipart": tree.files,
    }
    return _response(config, config.template, status, context, form=True)


def _flat(nodes: list[NodeView]) -> list[NodeView]:
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
