"""Short, stable digests of what a call asked, recorded in its sealed state instead of the thing itself."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any


def schema_digest(schema: dict[str, Any]) -> str:
    """A short digest of a `requestedSchema`, stable across processes and key order.

    Computed once per model and revision, by the reducer's record.
    """
    return _digest(json.dumps(schema, sort_keys=True, separators=(",", ":")))


def url_digest(url: str) -> str:
    """A short digest of a URL-mode question's URL (the URL itself is never recorded)."""
    return _digest(url)


def _digest(text: str) -> str:
    digest = hashlib.sha256(text.encode()).digest()[:9]
    return base64.urlsafe_b64encode(digest).decode()
