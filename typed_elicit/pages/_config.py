"""One server's page settings, as `serve_pages` checked them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from typed_elicit._calls.sealer import Sealer
from typed_elicit._views.brand import Brand

if TYPE_CHECKING:  # loaded when pages are first served
    from typed_elicit._views.i18n import Languages

Identify = Callable[[Any], Awaitable[str | None]]
"""`async (starlette Request) -> principal | None`: who the browser's user is (see `serve_pages`)."""

PAGE_POLL_SECONDS: Final = 20.0
"""On 2026-07-28, how long one round waits for the page's answer before ending with `requestState` only."""


@dataclass(frozen=True)
class PageConfig:
    """What `serve_pages` was given, checked and normalised.

    Attributes:
        public_url: The normalised origin and the path prefix, e.g. `https://example.com/app`
            (what links start with).
        path: Where the pages live under `public_url`.
        prefix: The path of `public_url` (`""` for none): the browser's paths start with it.
        origin: `scheme://host[:port]`, lower-cased, without a default port.
        secure: Whether the origin is https (the CSRF cookie is then `Secure`).
        brand: Title, logo and CSS variables of the default template (no title: the page's
            words for it, "Secure form").
        identify: Who the browser's user is, if the server can tell.
        env: The Jinja2 environment the pages render with.
        template: The form's template.
        poll_seconds: On 2026-07-28, how long one round waits for a page's answer.
        languages: The languages pages speak (`typed_elicit._views.i18n.Languages`), the
            `words=` overrides of `serve_pages` in its default language.
        sealer: The server's sealer (tickets, answers and files are kept sealed with its keys).
        fast: Whether pages are rendered by the built-in renderer (no template of the server's own
            for the form or the plain pages); otherwise with Jinja2 (`env`, `template`).
    """

    public_url: str
    path: str
    prefix: str
    origin: str
    secure: bool
    brand: Brand
    identify: Identify | None
    env: Any  # jinja2.Environment
    template: str
    poll_seconds: float
    languages: Languages
    sealer: Sealer
    fast: bool = True
    chosen: dict[tuple[str | None, str | None], Any] = field(
        default_factory=dict[tuple[str | None, str | None], Any], compare=False
    )
    """The words chosen per call locale and `Accept-Language` header (bounded: `pages._serve`)."""
    chrome: dict[int, Any] = field(default_factory=dict[int, Any], compare=False)
    """The words around a form page, per words table (`typed_elicit.pages._render`)."""
    said: dict[tuple[int, str, str], Any] = field(
        default_factory=dict[tuple[int, str, str], Any], compare=False
    )
    """The plain pages' title and body, per words table and message."""
