"""The how-to's examples run as the page says."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

pytestmark = pytest.mark.anyio


async def test_the_python_host_shows_the_app_and_the_tool_gets_its_answer(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    for name in ("app_views", "app_host"):
        sys.modules.pop(name, None)
    import app_host  # pyright: ignore[reportMissingImports]

    assert await app_host.main() == "A-1 ships express from Warehouse 17"
