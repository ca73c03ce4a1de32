"""How a page or an app view looks (`Brand`): a title, a logo whose origin the CSP allows, CSS variables.

One brand type for both: `typed_elicit.pages.PageBrand` is `Brand`, and an app view's look
(`typed_elicit.apps.AppView`) is a `Brand` too, which it further limits to what a view may load.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from typed_elicit.errors import PageSetupError

_CSS_NAME: Final = re.compile(r"^--[A-Za-z0-9-]{1,64}$")


_CSS_VALUE: Final = re.compile(r"^[#(),.%\w\s-]{1,200}$")


_LOGO_URL_CHARS: Final = re.compile(r"[A-Za-z0-9._~%:/?#\[\]@!$&()*+=-]+")
"""What an https logo URL may hold: RFC 3986 characters, less those that end or quote a CSP source."""


_LOGO_NETLOC: Final = re.compile(r"(?P<host>\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(?P<port>[0-9]{1,5}))?")


_HOST_LABEL: Final = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")


_DATA_IMAGE: Final = re.compile(r"data:image/[a-z0-9][a-z0-9.+-]{0,63};base64,(?P<data>[A-Za-z0-9+/]+={0,2})")


def _logo_source(url: str) -> str | None:
    """The CSP source that lets a page show the logo at `url`: `https://host[:port]`; None for a data URL.

    The source is rebuilt from the checked host and port, never copied from `url`.

    Raises:
        PageSetupError: If `url` is neither an https URL with a valid host (and port), made only
            of characters that cannot end or quote a CSP source, nor a base64 image data URL.
    """
    if url.startswith("data:"):
        data = _DATA_IMAGE.fullmatch(url)
        if data is None:
            raise PageSetupError.logo_url(
                'a data URL must be "data:image/<type>;base64,<data>" and nothing more'
            )
        try:
            base64.b64decode(data["data"], validate=True)
        except binascii.Error:
            raise PageSetupError.logo_url("its data is not valid base64") from None
        return None
    if _LOGO_URL_CHARS.fullmatch(url) is None:
        raise PageSetupError.logo_url(
            "it holds whitespace, a quote, ';', ',', a backslash, a control or a non-ASCII character "
            "(write an international host name in its xn-- form)"
        )
    try:
        parts = urlsplit(url)
    except ValueError:  # an invalid bracketed IPv6 host
        raise PageSetupError.logo_url("its host is no valid host name or IP address") from None
    if parts.scheme != "https":
        raise PageSetupError.logo_url("it is not an https URL")
    netloc = _LOGO_NETLOC.fullmatch(parts.netloc.lower())
    if netloc is None:
        raise PageSetupError.logo_url(
            "its host is missing, carries credentials (user@) or a wildcard, or its port is empty"
        )
    host, port = netloc["host"], netloc["port"]
    try:  # a DNS name, an IPv4 address or a bracketed IPv6 address
        if host.startswith("["):
            ipaddress.IPv6Address(host[1:-1])
        elif host.replace(".", "").isdigit():
            ipaddress.IPv4Address(host)
        elif len(host) > 253 or not all(_HOST_LABEL.fullmatch(label) for label in host.split(".")):
            raise ValueError(host)
    except ValueError:
        raise PageSetupError.logo_url("its host is no valid host name or IP address") from None
    if port is not None and not 0 < int(port) < 65536:
        raise PageSetupError.logo_url("its port is not a number from 1 to 65535")
    return f"https://{host}" + ("" if port is None or int(port) == 443 else f":{int(port)}")


@dataclass(frozen=True)
class Brand:
    """How a page (or an app view) looks: a title, a logo, CSS variables.

    Attributes:
        title: Shown in the header and the browser tab; None: the default page's words, or the
            model's title in an app view.
        logo_url: An `https:` image URL (or a base64 `data:image/...` URL) shown next to the title.
        css: CSS custom properties of the default template, e.g. `{"--accent": "#0b5fff"}`
            (`--accent`, `--text`, `--muted`, `--bg`, `--card`, `--error`, `--radius`, `--font`).
        logo_source: Set from `logo_url`: what the page's CSP allows images from besides its own
            origin (`https://host[:port]`, rebuilt from the checked URL), or None.
    """

    title: str | None = None
    logo_url: str | None = None
    css: Mapping[str, str] = field(default_factory=dict[str, str])
    logo_source: str | None = field(init=False, default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Check the CSS variables and the logo URL (they go into a page under a strict CSP).

        Raises:
            PageSetupError: If a CSS variable is not `--name` with a plain value, or the logo
                URL is neither an https URL with a plain host (and port) nor a base64 image data URL.
        """
        for name, value in self.css.items():
            if not _CSS_NAME.match(name) or not _CSS_VALUE.match(value):
                raise PageSetupError(
                    "css",
                    f"css {name!r} is not a CSS variable with a plain value; write "
                    '`{"--accent": "#0b5fff"}` (letters, digits, #, %, parentheses, commas, dots)',
                )
        if self.logo_url is not None:
            object.__setattr__(self, "logo_source", _logo_source(self.logo_url))
