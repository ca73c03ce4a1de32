"""What the reducer reads off a pydantic field: constraints opened, types named, texts checked."""

from __future__ import annotations

import annotated_types as at
import pytest
from pydantic import Field

from typed_elicit._forms.fieldinfo import FieldProblem, flat, ordered, type_name, valid_text


def test_field_and_grouped_constraints_are_opened_into_single_constraints() -> None:
    found = list(flat([Field(min_length=2), at.Interval(gt=1, lt=9), "plain"]))
    assert found == [at.MinLen(2), at.Gt(1), at.Lt(9), "plain"]


def test_type_title_and_description_come_first_and_the_rest_keeps_its_order() -> None:
    prop = {"minimum": 1, "description": "d", "maximum": 3, "type": "integer", "title": "T"}
    assert list(ordered(prop)) == ["type", "title", "description", "minimum", "maximum"]
    assert ordered(prop) == prop


def test_text_with_a_lone_surrogate_is_a_problem_naming_what_it_is() -> None:
    valid_text("fine \u00e9", "title")
    with pytest.raises(FieldProblem, match=r"^the title 'bad \\ud800' is not valid Unicode text"):
        valid_text("bad \ud800", "title")


@pytest.mark.parametrize(
    ("annotation", "shown"), [(str, "str"), (list[int], "list[int]"), (dict[str, int], "dict[str, int]")]
)
def test_an_annotation_is_named_as_a_message_shows_it(annotation: object, shown: str) -> None:
    assert type_name(annotation) == shown
