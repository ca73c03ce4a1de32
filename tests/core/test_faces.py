"""Public names report their public homes: `publish` gives a face's exports the face as `__module__`."""

from __future__ import annotations

import dataclasses
import sys
import types
from typing import TypeVar, get_type_hints

import pytest

from typed_elicit._core.faces import publish

HOME = """
from __future__ import annotations
import dataclasses
from typing import Generic, TypeVar
T = TypeVar("T")

@dataclasses.dataclass
class Held(Generic[T]):
    value: T
    note: str = ""

def helper() -> int:
    return 1

VALUE = object()
"""


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A fresh module posing as a private home (`typed_elicit._x.home`)."""
    module = types.ModuleType("typed_elicit._x.home")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(HOME, "<home>", "exec"), module.__dict__)
    return module


def test_classes_and_functions_from_a_private_home_report_the_face(home: types.ModuleType):
    value = home.VALUE
    publish("typed_elicit.face", home.__dict__, ["Held", "helper", "VALUE"])
    assert home.Held.__module__ == "typed_elicit.face"
    assert home.helper.__module__ == "typed_elicit.face"
    assert home.VALUE is value


def test_a_published_class_keeps_its_string_annotations_resolvable(home: types.ModuleType):
    publish("typed_elicit.face", home.__dict__, ["Held"])
    hints = get_type_hints(home.Held)
    assert hints["note"] is str
    assert isinstance(hints["value"], TypeVar)
    assert {field.name: field.type for field in dataclasses.fields(home.Held)}["note"] is str


class Public:
    """A class whose home is not a private module of typed_elicit."""


def test_a_name_with_a_public_home_or_from_another_library_keeps_its_module(home: types.ModuleType):
    home.helper.__module__ = "typed_elicit.public"
    namespace = {"Public": Public, "helper": home.helper, "TypeVar": TypeVar, "gone": None}
    publish("typed_elicit.face", namespace, ["Public", "helper", "TypeVar", "gone", "missing"])
    assert Public.__module__ == __name__
    assert home.helper.__module__ == "typed_elicit.public"
    assert TypeVar.__module__ == "typing"


def test_the_faces_of_the_package_give_their_exports_public_homes():
    import typed_elicit
    from typed_elicit import ElicitContext

    assert ElicitContext.__module__ == "typed_elicit"
    assert typed_elicit.form.__module__ == "typed_elicit"
