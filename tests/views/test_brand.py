"""How a page or an app view looks: CSS variables and a logo URL, checked before they reach a strict CSP."""

from __future__ import annotations

import pytest

from typed_elicit.pages import PageBrand, PageSetupError


def test_a_brand_with_a_css_injection_is_refused():
    with pytest.raises(ValueError, match="CSS variable"):
        PageBrand(css={"--accent": "red; } body { display: none"})


HOSTILE_LOGOS = [
    "https://cdn.example.com;script-src * 'unsafe-inline'",
    "https://cdn.example.com; script-src *",
    "https://cdn.example.com,script-src *",
    "https://cdn.example.com script-src *",
    "https://cdn.example.com/logo.svg;script-src *",
    "https://cdn.example.com/logo.svg script-src *",
    "https://cdn.example.com/\nscript-src *",
    "https://cdn.example.com\t/logo.svg",
    "https://cdn.example.com\x00/logo.svg",
    "https://cdn.example.com\u2028/logo.svg",
    "https://'unsafe-inline'",
    'https://"cdn.example.com"/logo.svg',
    "https://cdn.example.com/'self'",
    "https://*",
    "https://*.example.com/logo.svg",
    "https://user:pw@cdn.example.com/logo.svg",
    "https://cdn.example.com:99999/logo.svg",
    "https://cdn.example.com:abc/logo.svg",
    "https://cdn.example.com:/logo.svg",
    "https:///logo.svg",
    "https://cdn..example.com/logo.svg",
    "https://-cdn.example.com/logo.svg",
    "https://999.1.1.1/logo.svg",
    "https://[1:2:3]/logo.svg",
    "https://cdn.example.com\\@evil.example/logo.svg",
    "https://cdn.exämple.com/logo.svg",
    "https://cdn.example.com#;script-src *",
    "http://cdn.example.com/logo.svg",
    "javascript:alert(1)",
    "//cdn.example.com/logo.svg",
    "data:image/svg+xml,<svg onload=alert(1)>",
    "data:image/png;base64,@@@@",
    "data:image/png;base64,AAAA;script-src *",
    "data:image/png;base64,AAAA AAAA",
    "data:image/png;charset=utf-8;base64,AAAA",
    "data:text/html;base64,PHNjcmlwdD4=",
    "data:image/;base64,AAAA",
    "data:image/png;base64,",
    "data:image/png;base64,AAAAA",
]


@pytest.mark.parametrize("logo_url", HOSTILE_LOGOS)
def test_a_logo_url_that_could_break_out_of_the_csp_is_refused_saying_the_fix(logo_url: str):
    with pytest.raises(PageSetupError) as refused:
        PageBrand(logo_url=logo_url)
    assert isinstance(refused.value, ValueError)
    assert refused.value.setting == "logo_url"
    message = str(refused.value)
    assert "logo_url" in message
    assert "https://cdn.example.com/logo.svg" in message  # the fix: what a good one looks like
    assert "script-src" not in message  # the refused text is never quoted back
