"""Typed pages: ask for passwords, API keys and one-time codes on the server's own web page.

`serve_pages(server, public_url=...)` mounts the page routes on the server's Starlette app;
a tool then asks with `await ctx.elicit_page(Model)` (a model declared `@form(page=True)`).
Needs the `pages` extra (Jinja2): `pip install 'typed-elicit[pages]'`.
"""

from ._pages import Identify, PageBrand, PagesNotServed, serve_pages

__all__ = ["Identify", "PageBrand", "PagesNotServed", "serve_pages"]
