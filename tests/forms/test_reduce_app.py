"""`@form(app=...)`: recorded for `typed_elicit.apps`; secrets stay page-only, refused at definition."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, SecretStr

from typed_elicit import form
from typed_elicit._forms.registry import app_view
from typed_elicit.errors import SchemaError


def test_a_model_declared_with_an_app_view_keeps_it_and_one_without_has_none():
    @form(app=True)
    class Plain(BaseModel):
        name: str

    @form
    class Other(BaseModel):
        name: str

    marker = object()

    @form(app=marker)
    class Branded(BaseModel):
        name: str

    assert app_view(Plain) is True
    assert app_view(Other) is None
    assert app_view(Branded) is marker
    assert app_view(int) is None  # type: ignore[arg-type]


def test_a_model_with_a_secret_field_cannot_have_an_app_view_and_the_error_names_the_field():
    with pytest.raises(SchemaError) as caught:

        @form(app=True)
        class Login(BaseModel):
            user: str
            password: SecretStr
            api_key: str

    assert caught.value.model_name == "Login"
    assert [p.split(":")[0] for p in caught.value.problems] == ["Login.api_key", "Login.password"]
    assert all("secrets stay page-only" in p for p in caught.value.problems)


def test_a_page_form_cannot_have_an_app_view():
    with pytest.raises(SchemaError) as caught:

        @form(page=True, app=True)
        class Card(BaseModel):
            holder: str

    assert "page form" in caught.value.problems[0]
    assert "secrets stay page-only" in caught.value.problems[0]


def test_app_false_is_no_app_view():
    @form(app=False)
    class Quiet(BaseModel):
        name: str

    assert app_view(Quiet) is None
