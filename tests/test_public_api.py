"""The public surface is exactly what `__all__` lists, and every listed name exists."""

from __future__ import annotations

import importlib
import importlib.resources

import pytest

import typed_elicit


@pytest.mark.parametrize("module", ["typed_elicit", "typed_elicit.testing", "typed_elicit.terminal"])
def test_every_name_in_all_is_importable(module: str) -> None:
    imported = importlib.import_module(module)
    missing = [name for name in imported.__all__ if not hasattr(imported, name)]
    assert missing == []


def test_public_modules_list_no_private_name() -> None:
    assert [n for n in typed_elicit.__all__ if n.startswith("_")] == []


def test_every_error_derives_from_the_one_base() -> None:
    errors = [
        getattr(typed_elicit, n)
        for n in typed_elicit.__all__
        if n.endswith(("Error", "Unsupported", "Timeout", "Response", "Mismatch", "Answer"))
        and isinstance(getattr(typed_elicit, n), type)
    ]
    assert len(errors) >= 8
    assert all(issubclass(e, typed_elicit.TypedElicitError) for e in errors)


def test_the_package_ships_its_type_marker() -> None:
    assert importlib.resources.files("typed_elicit").joinpath("py.typed").is_file()


def test_the_store_protocol_and_configure_are_public_and_redeemed_tokens_stays_an_alias() -> None:
    assert {"ClaimStore", "configure", "RedeemedTokens"} <= set(typed_elicit.__all__)
    assert typed_elicit.RedeemedTokens is typed_elicit.ClaimStore
