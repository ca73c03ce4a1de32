"""How a model's app view looks (`AppView`): a title, a logo, CSS variables, or the author's own page."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from typed_elicit._views.brand import Brand
from typed_elicit.errors import AppViewError

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
            context (`fields`, `brand`, `message`, `style`, `script`, `csp`, `data`, `lang`, `dir`,
            `words`: the library's words in the first language; import the
            `field` macro from `"fields.html"`); it must keep `{{ script }}`, `{{ data }}` and the
            `te-*` ids the script uses (copy `templates/view.html`).
        html: The whole view, served as it is (no script of typed_elicit's is added).
        search_over: From this many options on, a choice field gets a search box.

    Raises:
        PageSetupError: If a CSS variable or the logo cannot be used (the checks of `Brand`).
        AppViewError: If a view's own setting cannot be used (`logo_url`, `template`/`html`).
    """

    title: str | None = None
    logo_url: str | None = None
    css: Mapping[str, str] = field(default_factory=dict[str, str])
    template: str | None = None
    html: str | None = None
    search_over: int = 8

    brand: Brand = field(init=False, repr=False, compare=False)
    """Its look as pages have theirs (checked by `Brand`): title, logo and CSS variables."""

    def __post_init__(self) -> None:
        """Check every setting (they go into a page under a strict CSP).

        Raises:
            PageSetupError: If a CSS variable or the logo cannot be used (`Brand`'s checks).
            AppViewError: If the logo is not a small `data:` URL, or another setting cannot be used.
        """
        if self.logo_url is not None:
            _check_logo(self.logo_url)
        object.__setattr__(self, "brand", Brand(self.title, self.logo_url, self.css))
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


MAX_PREVIEW_TEXT: Final = 2000
"""Longest preview text (characters)."""
MAX_PREVIEW_ROWS: Final = 50
"""Most rows a preview table shows."""
MAX_PREVIEW_COLUMNS: Final = 8
"""Most columns a preview table has."""
MAX_PREVIEW_CELL: Final = 200
"""Longest preview cell (characters, once shown as text)."""

Cell = str | int | float | bool | None


@dataclass(frozen=True)
class Preview:
    """What answering will do, shown above the form by the question's app view (one call's data).

    Text, a small table, or both; it travels in the request's `_meta` (never in the
    schema), so a client without app views sees the plain form only. Checked when made.

    Attributes:
        text: A paragraph of plain text (no markup is read: it is shown as text).
        columns: The table's column titles (at most 8).
        rows: The table's rows, each as many cells as there are columns (at most 50 rows).

    Raises:
        AppViewError: If it is empty, too large, or a row does not fit the columns.
    """

    text: str | None = None
    columns: Sequence[str] = ()
    rows: Sequence[Sequence[Cell]] = ()

    def __post_init__(self) -> None:
        """Check the sizes (a preview is the server's, but the host shows it whole)."""
        problem = None
        if self.text is None and not self.columns:
            problem = "it has neither text nor columns"
        elif self.text is not None and len(self.text) > MAX_PREVIEW_TEXT:
            problem = f"its text has {len(self.text)} characters, over {MAX_PREVIEW_TEXT}"
        elif len(self.columns) > MAX_PREVIEW_COLUMNS or len(self.rows) > MAX_PREVIEW_ROWS:
            problem = f"a table has at most {MAX_PREVIEW_COLUMNS} columns and {MAX_PREVIEW_ROWS} rows"
        elif self.rows and not self.columns:
            problem = "it has rows but no columns"
        elif any(len(row) != len(self.columns) for row in self.rows):
            problem = f"every row needs {len(self.columns)} cells, one per column"
        elif any(len(str(c)) > MAX_PREVIEW_CELL for c in [*self.columns, *(c for r in self.rows for c in r)]):
            problem = f"a cell or column title is over {MAX_PREVIEW_CELL} characters"
        if problem is not None:
            raise AppViewError(
                "preview", f"this Preview cannot be shown: {problem}; make it smaller or fix it"
            )

    def wire(self) -> dict[str, Any]:
        """The preview as it travels in `_meta` (JSON)."""
        shown: dict[str, Any] = {}
        if self.text is not None:
            shown["text"] = self.text
        if self.columns:
            shown["columns"] = [str(c) for c in self.columns]
            shown["rows"] = [["" if c is None else str(c) for c in row] for row in self.rows]
        return shown
