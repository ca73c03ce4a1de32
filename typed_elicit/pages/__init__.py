"""Typed pages: ask for passwords, API keys and one-time codes on the server's own web page.

`serve_pages(server, public_url=...)` mounts the page routes on the server's Starlette app;
a tool then asks with `await ctx.elicit_page(Model)` (a model declared `@form(page=True)`).
Needs the `pages` extra (Jinja2): `pip install 'typed-elicit[pages]'`.

- `Brand` (also `PageBrand`): the default page's title, logo and CSS variables, the look pages
  and app views share.
- `PAGE_WORDS`: what a page says about an invalid answer (override with `serve_pages(words=...)`).
- `Identify`: the type of `serve_pages(identify=...)`, who the browser's user is.
- `Languages`: the languages pages speak, `serve_pages(languages=Languages(...))` (loaded on first use).
- `UploadedFile`: what a page form's file field holds (name, media type, bytes).
- `FileLimits`: a file field's limits, `Annotated[UploadedFile, FileLimits(max_bytes=..., media_types=...)]`.

A page form may hold nested models, lists of rows, optional groups, discriminated unions,
`dict[str, X]` and files (docs/howto/page_shapes.md has the shapes and their limits).

Errors: `PagesNotServed` and `PageSetupError` live in `typed_elicit.errors` (importable here too).
"""

from typing import Any

from typed_elicit._core.deprecation import moved
from typed_elicit._core.faces import publish
from typed_elicit._forms.page.files import FileLimits, UploadedFile
from typed_elicit._views.brand import Brand
from typed_elicit._views.words import PAGE_WORDS
from typed_elicit.errors import PageSetupError, PagesNotServed
from typed_elicit.pages._config import Identify
from typed_elicit.pages._serve import serve_pages

PageBrand = Brand
"""The name pages gave `Brand` before app views shared it."""

__all__ = [
    "PAGE_WORDS",
    "Brand",
    "FileLimits",
    "Identify",
    "PageBrand",
    "PageSetupError",
    "PagesNotServed",
    "UploadedFile",
    "serve_pages",
]

publish(__name__, globals(), __all__)


def __getattr__(name: str) -> Any:
    """`Languages` (loaded on first use); moved names: still importable, with a `DeprecationWarning`."""
    if name == "Languages":
        from typed_elicit._views.i18n import Languages

        return Languages
    return moved(__name__, name, {"url_required": "typed_elicit", "UrlElicitation": "typed_elicit"})
