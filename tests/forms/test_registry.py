"""The registry (`typed_elicit._forms.registry`): one blueprint per model class, held weakly."""

from __future__ import annotations

import gc
import weakref
from typing import Annotated, Any, Literal, cast

import pytest
from pydantic import BaseModel, Field, SecretStr, field_validator

import typed_elicit._forms.registry as registry_module
from typed_elicit import Choices, form, reduce_schema
from typed_elicit._core.versions import PROTOCOL_VERSIONS
from typed_elicit._forms.layout import lay_out
from typed_elicit._forms.reduce import page_reduced, reduced, shaped
from typed_elicit._forms.registry import (
    _REGISTRY,  # pyright: ignore[reportPrivateUsage]
    blueprint,
    declared_forms,
    form_message,
    is_form,
    is_page_form,
    known,
    page_forms,
)
from typed_elicit._forms.validate import validate_answer
from typed_elicit.errors import SchemaError


def _entries(model: type[BaseModel]) -> int:
    return sum(1 for key in list(_REGISTRY.keys()) if key is model)


def _use_every_record(model: type[BaseModel]) -> None:
    """Everything a server makes from a model: every revision's record and form, a shaped question."""
    for version in PROTOCOL_VERSIONS:
        reduce_schema(model, protocol_version=version, include_dialect=True)
        reduced(model, version).form  # noqa: B018  (the parsed form too)
    record = shaped(model, "2026-07-28", defaults={"count": 3})
    validate_answer(model, record, {"name": "Ada"})


def _declare_and_drop() -> tuple[weakref.ref[type[BaseModel]], weakref.ref[type[BaseModel]]]:
    @form(message="Who are you?")
    class Person(BaseModel):
        name: str = Field(min_length=1, max_length=40)
        count: int = Field(default=1, ge=1, le=9)
        size: Literal["s", "m", "l"] = "m"

        @field_validator("name")
        @classmethod
        def no_digits(cls, value: str) -> str:  # compiled into the model's validators
            if any(c.isdigit() for c in value):
                raise ValueError("no digits")
            return value

    @form(page=True)
    class Login(BaseModel):
        user: str
        password: SecretStr

    _use_every_record(Person)
    page_reduced(Login).form  # noqa: B018
    assert is_form(Person)
    assert is_page_form(Login)
    assert Person in declared_forms()
    assert Login in page_forms()
    return weakref.ref(Person), weakref.ref(Login)


def test_a_form_class_that_goes_out_of_scope_is_garbage_collected() -> None:
    person, login = _declare_and_drop()
    gc.collect()
    assert person() is None
    assert login() is None


def test_a_class_asked_with_options_per_question_is_garbage_collected_too() -> None:
    def make() -> weakref.ref[type[BaseModel]]:
        class Pick(BaseModel):
            account: Annotated[str, Choices()]
            count: int = 1

        for _ in range(3):
            record = shaped(Pick, "2026-07-28", options={"account": ["a", "b"]})
            validate_answer(Pick, record, {"account": "a"})
        assert blueprint(Pick).kinds  # the shared form of its shaped questions is kept...
        return weakref.ref(Pick)

    pick = make()
    gc.collect()
    assert pick() is None  # ...and goes with the class


def test_the_registry_holds_exactly_one_record_per_class() -> None:
    @form(message="Hello")
    class Person(BaseModel):
        name: str
        count: int = 1

    before = len(_REGISTRY)
    _use_every_record(Person)
    page_reduced(Person)

    assert len(_REGISTRY) == before  # declared: its one record exists already, nothing was added
    assert _entries(Person) == 1
    entry = blueprint(Person)
    assert entry.declared
    assert entry.message == "Hello"
    assert not entry.page
    assert entry.layout is not None
    assert set(entry.records) == set(PROTOCOL_VERSIONS)
    assert entry.page_record is page_reduced(Person)
    assert form_message(Person) == "Hello"


def test_a_model_never_declared_gets_its_one_record_on_first_use() -> None:
    class Plain(BaseModel):
        """Tell me more."""

        note: str

    assert known(Plain) is None
    assert not is_form(Plain)
    reduce_schema(Plain)
    reduce_schema(Plain, protocol_version="2025-06-18")
    assert _entries(Plain) == 1
    entry = known(Plain)
    assert entry is not None
    assert not entry.declared
    assert form_message(Plain) == "Tell me more."


def test_repeated_reduce_schema_calls_reuse_the_record(monkeypatch: pytest.MonkeyPatch) -> None:
    class Note(BaseModel):
        text: str
        urgent: bool = False

    laid_out: list[type[BaseModel]] = []

    def counting(model: type[BaseModel], **kwargs: Any) -> Any:
        laid_out.append(model)
        return lay_out(model, **kwargs)

    monkeypatch.setattr(registry_module, "lay_out", counting)
    for version in PROTOCOL_VERSIONS:
        first = reduce_schema(Note, protocol_version=version)
        assert reduce_schema(Note, protocol_version=version) is first
        assert reduced(Note, version) is reduced(Note, version)
        assert reduced(Note, version).schema is first
    shaped(Note, "2026-07-28", defaults={"text": "hi"})  # a shaped question starts from the same layout
    assert laid_out == [Note]  # reduced once, for every revision and question


def test_a_model_that_cannot_be_elicited_is_refused_every_time_and_keeps_no_layout() -> None:
    class Bad(BaseModel):
        data: dict[str, int]

    for _ in range(2):
        with pytest.raises(SchemaError, match="cannot be elicited"):
            reduce_schema(Bad)
    entry = known(Bad)
    assert entry is not None
    assert entry.layout is None
    assert not entry.records


def test_the_registry_refuses_what_is_no_model_class() -> None:
    with pytest.raises(TypeError, match=r"pydantic\.BaseModel subclasses"):
        blueprint(cast("Any", int))
    assert known(cast("Any", int)) is None
    assert not is_page_form(cast("Any", {}))  # not even weakly referable
