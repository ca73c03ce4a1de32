"""The root of the error tree, its three branches, and the bounds every error's problem list keeps."""

from __future__ import annotations

import pytest

from typed_elicit.errors import (
    DeclarationError,
    ElicitationTimeout,
    NoAnswerError,
    ReplayMismatch,
    SchemaError,
    ServerStateError,
    TypedElicitError,
)
from typed_elicit.errors._base import (
    MAX_PATH_LENGTH,
    MAX_PROBLEM_LENGTH,
    MAX_PROBLEMS,
    bounded_errors,
    either,
)


def test_every_branch_is_a_typed_elicit_error_and_each_error_sits_on_one_branch() -> None:
    for branch in (DeclarationError, NoAnswerError, ServerStateError):
        assert issubclass(branch, TypedElicitError)
    assert issubclass(SchemaError, DeclarationError)
    assert issubclass(ElicitationTimeout, NoAnswerError)
    assert issubclass(ReplayMismatch, ServerStateError)
    assert not issubclass(SchemaError, NoAnswerError | ServerStateError)


def test_problems_up_to_the_limit_are_kept_as_they_are() -> None:
    problems = [(f"field{i}", "too long") for i in range(MAX_PROBLEMS)]
    assert bounded_errors(problems) == tuple(problems)


@pytest.mark.parametrize(("extra", "counted"), [(1, "and 2 more problems"), (1000, "and 1001 more problems")])
def test_problems_past_the_limit_are_counted_in_the_last_one(extra: int, counted: str) -> None:
    kept = bounded_errors((f"field{i}", "too long") for i in range(MAX_PROBLEMS + extra))
    assert len(kept) == MAX_PROBLEMS
    assert kept[-2] == (f"field{MAX_PROBLEMS - 2}", "too long")
    assert kept[-1] == ("(form)", counted)


def test_a_long_or_unprintable_path_and_problem_are_cut_and_escaped() -> None:
    ((path, problem),) = bounded_errors([("a\x1b" + "p" * 500, "x" * 5000)])
    assert path.startswith("a\\x1bp")
    assert len(path) == MAX_PATH_LENGTH
    assert len(problem) == MAX_PROBLEM_LENGTH


def test_bounded_errors_leave_already_bounded_errors_unchanged() -> None:
    once = bounded_errors((f"f{i}", "x" * 5000) for i in range(MAX_PROBLEMS * 2))
    assert bounded_errors(once) == once


@pytest.mark.parametrize(
    ("options", "said"), [(["a"], "a"), (["a", "b"], "a or b"), (["a", "b", "c"], "a, b or c")]
)
def test_either_lists_the_options_as_a_person_says_them(options: list[str], said: str) -> None:
    assert either(options) == said
