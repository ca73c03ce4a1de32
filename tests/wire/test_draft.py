"""The pinned draft's names are the ones the SDK, the call and the view's script use."""

from __future__ import annotations

from pathlib import Path

from mcp.server import apps as sdk_apps

from typed_elicit._wire import draft as _draft
from typed_elicit.client import app_capability

SCRIPT = (Path(_draft.__file__).parents[1] / "apps" / "templates" / "view.js").read_text()


def test_the_released_names_are_the_sdks():
    assert _draft.UI_EXTENSION == sdk_apps.EXTENSION_ID == _draft.UI_EXTENSION
    assert _draft.APP_MIME_TYPE == sdk_apps.APP_MIME_TYPE == _draft.APP_MIME_TYPE


def test_the_client_half_advertises_the_pinned_capability():
    extension = app_capability()
    assert extension.identifier == _draft.UI_EXTENSION
    assert extension.settings() == _draft.CLIENT_UI_SETTINGS


def test_the_views_script_speaks_the_pinned_bridge_messages():
    for name in (_draft.INITIALIZE, _draft.INITIALIZED, _draft.SIZE_CHANGED, _draft.TEARDOWN):
        assert f'"{name}"' in SCRIPT
    assert "appCapabilities: { elicitation: {} }" in SCRIPT
    assert "host.elicitation" in SCRIPT


def test_the_pin_names_the_sep_commit():
    assert _draft.SEP_COMMIT in _draft.PIN
    assert len(_draft.SEP_COMMIT) == 40
