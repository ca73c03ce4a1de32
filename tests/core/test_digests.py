"""Short digests of what a call asked: stable across key order and processes, distinct where it matters."""

from __future__ import annotations

import string

from typed_elicit._core.digests import schema_digest, url_digest


def test_schema_digest_ignores_key_order():
    assert schema_digest({"a": 1, "b": [1, 2]}) == schema_digest({"b": [1, 2], "a": 1})
    assert schema_digest({"a": 1}) != schema_digest({"a": 2})


def test_a_schema_digest_is_short_url_safe_and_tells_different_schemas_apart():
    digest = schema_digest({"type": "object", "properties": {"a": {"type": "string"}}})
    assert len(digest) == 12
    assert set(digest) <= set(string.ascii_letters + string.digits + "-_")
    assert digest != schema_digest({"type": "object", "properties": {"a": {"type": "number"}}})


def test_a_url_digest_never_holds_the_url_and_tells_urls_apart():
    url = "https://bank.example/link?account=12345678"
    digest = url_digest(url)
    assert "bank" not in digest
    assert "12345678" not in digest
    assert digest == url_digest(url)
    assert digest != url_digest(url + "9")
