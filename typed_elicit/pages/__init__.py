"""Typed pages: ask for passwords, API keys and one-time codes on the server's own web page.

`serve_pages(server, public_url=...)` mounts the page routes on the server's Starlette app;
a tool then asks with `await ctx.elicit_page(Model)` (a model declared `@form(page=True)`).
Needs the `pages` extra (Jinja2): `pip install 'typed-elicit[pages]'`.

Also here, for any out-of-band URL (a page of yours, an OAuth consent): `url_required`
builds the `-32042` error (URL elicitation required, 2025-11-25) that ends a call until the
user has opened the listed `UrlElicitation`s; `typed_elicit.client.call_tool_with_urls` is
the client half.
"""

from typed_elicit._calls.url_required import UrlElicitation, url_required
from typed_elicit.pages._pages import Identify, PageBrand, PageSetupError, PagesNotServed, serve_pages

__all__ = [
    "Identify",
    "PageBrand",
    "PageSetupError",
    "PagesNotServed",
    "UrlElicitation",
    "serve_pages",
    "url_required",
]
