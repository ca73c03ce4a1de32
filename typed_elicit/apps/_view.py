"""How a model's app view looks (`AppView`): a title, a logo, CSS variables, or the author's own page."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from typed_elicit.errors import AppViewError

_CSS_NAME: Final = re.compile(r"^--[A-Za-z0-9-]{1,64}$")
_CSS_VALUE: Final = re.compile(r"^[#(),.%\w\s-]{1,200}$")
_DATA_IMAGE: Final = re.compile(
    r"data:image/(?:png|gif|jpeg|webp|svg\+xml);base64,(?P<data>[A-Za-z0-9+/]+={0,2})"
)
MAX_LOGO_BYTES: Final = 64 * 1024
"""The largest logo a view embeds (it travels in the resource)."""


@dataclass(frozen=True)
class AppView:
    """How a model's app view looks: `@form(app=AppView(...))`, or `serve_apps(server, view=...)`.

    The default view is the shared field markup (the pages' own) in a small page with its own
    script. Brand it (`title`, `logo_url`, `css`), replace its page around the fields with a
    Jinja2 `template`, or give the whole `html` yourself (it then speaks the MCP Apps bridge
    itself: see the how-to). A view never loads anything from the network, so a logo is a
    `data:` URL.

    Attributes:
        title: Shown in the view's header; None: the model's `title` (its `model_config`), else no header.
        logo_url: A base64 image `data:` URL (png, gif, jpeg, webp, svg+xml; at most 64 KiB).
        css: CSS custom properties of the default view, e.g. `{"--accent": "#0b5fff"}`
            (`--accent`, `--text`, `--muted`, `--bg`, `--card`, `--error`, `--radius`, `--font`).
        template: A Jinja2 template's source, rendered instead of the default page with the same
            context (`fields`, `brand`, `message`, `style`, `script`, `csp`, `data`; import the
            `field` macro from `"fields.html"`); it must keep `{{ script }}`, `{{ data }}` and the
            `te-*` ids the script uses (copy `templates/view.html`).
        html: The whole view, served as it is (no script of typed_elicit's is added).
        search_over: From this many options on, a choice field gets a search box.

    Raises:
        AppViewError: If a setting cannot be used (`css`, `logo_url`, `template`/`html`).
    """

    title: str | None = None
    logo_url: str | None = None
    css: Mapping[str, str] = field(default_factory=dict[str, str])
    template: str | None = None
    html: str | None = None
    search_over: int = 8

    def __post_init__(self) -> None:
        """Check every setting (they go into a page under a strict CSP)."""
        for name, value in self.css.items():
            if not _CSS_NAME.match(name) or not _CSS_VALUE.match(value):
                raise AppViewError(
                    "css",
                    f"AppView css {name!r} is not a CSS variable with a plain value; write "
                    '`{"--accent": "#0b5fff"}` (letters, digits, #, %, parentheses, commas, dots)',
                )
        if self.logo_url is not None:
            _check_logo(self.logo_url)
        if self.template is not None and self.html is not None:
            raise AppViewError("html", "AppView takes a template or the whole html, not both: keep one")
        for name, text in (("template", self.template), ("html", self.html)):
            if text is not None and "<" not in text:
                raise AppViewError(name, f"AppView {name} holds no markup: give the view's HTML source text")
        if self.search_over < 2:
            raise AppViewError("search_over", "AppView search_over must be 2 or more (options)")


def _check_logo(url: str) -> None:
    """Refuse a logo that is not a small base64 image `data:` URL (a view loads nothing)."""
    data = _DATA_IMAGE.fullmatch(url)
    if data is None:
        raise AppViewError(
            "logo_url",
            'an app view loads nothing from the network, so its logo is "data:image/<png|gif|jpeg|webp|'
            'svg+xml>;base64,<data>" and nothing more',
        )
    try:
        size = len(base64.b64decode(data["data"], validate=True))
    except binascii.Error:
        raise AppViewError("logo_url", "the logo's data is not valid base64") from None
    if size > MAX_LOGO_BYTES:
        raise AppViewError(
            "logo_url", f"the logo has {size} bytes, over {MAX_LOGO_BYTES}: use a smaller image"
        )
