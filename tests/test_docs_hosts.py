"""docs/howto/app_views.md for hosts: its JavaScript runs as it says, its table names files that exist."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "howto" / "app_views.md").read_text(encoding="utf-8")

HARNESS = """
const seen = [];
const kept = [];
const transport = {
  onmessage(message, extra) { seen.push([this === transport, message.method, extra ?? null]); },
};
keepRawAppCapabilities(transport, (capabilities) => kept.push(capabilities));
transport.onmessage({jsonrpc: "2.0", id: 1, method: "ui/initialize",
                     params: {appCapabilities: {elicitation: {}, tools: {}}}}, "first");
transport.onmessage({jsonrpc: "2.0", method: "ui/notifications/initialized"});
transport.onmessage({jsonrpc: "2.0", id: 2, method: "ui/initialize", params: {}});
transport.onmessage({jsonrpc: "2.0", id: 1, result: {}});
console.log(JSON.stringify({seen, kept}));
"""
"""A transport as `bridge.connect` leaves it (its handler in `onmessage`), and what reaches it."""


def node() -> str:
    """The `node` command; skips without it (fails under CI, which has it for the host proofs)."""
    found = shutil.which("node")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the docs' JavaScript needs node (apt-get install -y nodejs)")
        pytest.skip("the docs' JavaScript needs node")
    return found


def test_the_raw_ui_initialize_snippet_keeps_the_apps_capabilities_and_passes_every_message_on() -> None:
    (snippet,) = re.findall(r"^```js\n(.*?)^```", PAGE, re.S | re.M)

    done = subprocess.run(
        [node(), "--input-type=module", "-e", snippet + HARNESS],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )

    assert json.loads(done.stdout) == {
        "seen": [
            [True, "ui/initialize", "first"],
            [True, "ui/notifications/initialized", None],
            [True, "ui/initialize", None],
            [True, None, None],
        ],
        "kept": [{"elicitation": {}, "tools": {}}, {}],
    }


def test_every_file_the_clients_table_and_the_host_section_name_exists() -> None:
    sections = PAGE.split("## Which clients show app views", 1)[1].split("\n## The client half", 1)[0]
    paths = set(re.findall(r"`((?:tests|examples)/[\w./-]+)`", sections))
    assert "tests/apps/test_apps_inspector.py" in paths
    assert [path for path in sorted(paths) if not (ROOT / path).exists()] == []
