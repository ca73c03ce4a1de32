"""The form model both ends share: every field kind is judged alike by the server and the client."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import AnyUrl, BaseModel, EmailStr, Field

from typed_elicit import Titles, reduce_schema
from typed_elicit._core.versions import PROTOCOL_VERSIONS
from typed_elicit._forms.validate import validate_content
from typed_elicit.client._handler import RequestedSchemaError, parse_requested_schema
from typed_elicit.errors import InvalidResponse


class EveryKind(BaseModel):
    """One field of every kind the reducer produces, every constraint on the wire."""

    text: str = Field(min_length=2, max_length=5)
    email: EmailStr | None = None
    site: AnyUrl | None = None
    day: date | None = None
    at: datetime | None = None
    count: int = Field(default=1, ge=1, le=10)
    ratio: float = Field(default=0.5, ge=0, le=1)
    flag: bool = False
    size: Literal["s", "m", "l"] = "m"
    titled: Annotated[Literal["a", "b"] | None, Titles(a="Alpha", b="Beta")] = None
    legacy: Annotated[Literal["x", "y"] | None, Titles(x="Ex", y="Why", legacy=True)] = None
    picks: list[Literal["r", "g", "b"]] = Field(default_factory=list, max_length=2)
    titled_picks: Annotated[list[Literal["p", "q"]], Titles(p="Pea", q="Queue")] = Field(
        default=["p"], min_length=1
    )


class SingleKinds(BaseModel):
    """The kinds 2025-06-18 has (no multi-select; `oneOf` goes out as `enum` + `enumNames`)."""

    text: str = Field(min_length=2, max_length=5)
    count: int = Field(default=1, ge=1, le=10)
    ratio: float = Field(default=0.5, ge=0, le=1)
    flag: bool = False
    size: Literal["s", "m", "l"] = "m"
    titled: Annotated[Literal["a", "b"] | None, Titles(a="Alpha", b="Beta")] = None


NOT_TEXT: list[object] = [1, 1.5, True, ["ab"], {"a": 1}, "\ud800x"]
NOT_A_NUMBER: list[object] = [True, False, "x", " 7 ", "1_000", "+1", "01", "NaN", "Infinity", [1], {}]
NOT_A_CHOICE: list[object] = [1, True, "S", "", ["s"], "\ud800"]

VALUES: dict[str, list[object]] = {
    "text": ["ab", "abcde", "héllo", "a", "abcdef", "", *NOT_TEXT],
    "email": ["a@example.com", "a.b+c@example.org", "a", "a@b", "@example.com", "a b@example.com", *NOT_TEXT],
    "site": [
        "https://example.com",
        "mailto:a@example.com",
        "urn:isbn:0451450523",
        "no-scheme",
        "a:b c",
        *NOT_TEXT,
    ],
    "day": ["2026-07-28", "2024-02-29", "2026-02-30", "2026-7-28", "0", "1700000000", "2026-07-28T09:30:00Z"],
    "at": [
        "2026-07-28T09:30:00Z",
        "2026-07-28t09:30:00.25+02:00",
        "2026-07-28T09:30Z",
        "2026-07-28T09:30:00",
        "2026-07-28",
        "0",
        "1700000000",
        "2026-07-28T25:00:00Z",
    ],
    "count": [1, 10, 5.0, "7", "1e1", 0, 11, 2.5, "2.5", 10**400, "1e400", *NOT_A_NUMBER],
    "ratio": [0, 1, 0.25, "0.5", "1e-1", -0.1, 1.5, "2", float("nan"), float("inf"), *NOT_A_NUMBER],
    "flag": [True, False, 1, 0, "true", "yes", None, [True]],
    "size": ["s", "m", "l", *NOT_A_CHOICE],
    "titled": ["a", "b", "Alpha", *NOT_A_CHOICE],
    "legacy": ["x", "y", "Ex", *NOT_A_CHOICE],
    "picks": [[], ["r"], ["r", "g"], ["r", "g", "b"], ["x"], ["r", 1], "r", [["r"]], ["\ud800"]],
    "titled_picks": [["p"], ["p", "q"], [], ["Pea"], ["p", None], "p", ["q", "q"]],
}
"""Per field: values both ends should take and values both should refuse (and `None`, left out)."""


def _server_takes(model: type[BaseModel], schema: dict[str, Any], content: dict[str, Any]) -> bool:
    try:
        validate_content(model, schema, content)
    except InvalidResponse:
        return False
    return True


def _client_takes(schema: dict[str, Any], content: dict[str, Any]) -> bool:
    try:
        parse_requested_schema(schema).instance(content)
    except InvalidResponse:
        return False
    return True


def _cases() -> list[Any]:
    cases: list[Any] = []
    for version in PROTOCOL_VERSIONS:
        model = SingleKinds if version == "2025-06-18" else EveryKind
        for field, values in VALUES.items():
            if field not in model.model_fields:
                continue
            for index, value in enumerate([*values, None]):
                cases.append(pytest.param(model, version, field, value, id=f"{version}-{field}-{index}"))
    return cases


@pytest.mark.parametrize(("model", "version", "field", "value"), _cases())
def test_every_field_kind_is_taken_and_refused_alike_on_both_ends(model, version, field, value):
    schema = reduce_schema(model, protocol_version=version)
    content = {"text": "abc", field: value}
    assert _server_takes(model, schema, content) == _client_takes(schema, content)


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_every_kind_s_values_are_split_into_taken_and_refused(version):
    model = SingleKinds if version == "2025-06-18" else EveryKind
    schema = reduce_schema(model, protocol_version=version)
    for field in model.model_fields:
        verdicts = {_client_takes(schema, {"text": "abc", field: v}) for v in VALUES[field]}
        assert verdicts == {True, False}, field  # each kind is tried with both kinds of value


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
@pytest.mark.parametrize(
    "content",
    [{}, {"size": "s"}, {"text": "abc", "stray": 1}, {"text": None}, {"text": "abc", "count": None}],
)
def test_whole_answers_are_taken_and_refused_alike_on_both_ends(version, content):
    model = SingleKinds if version == "2025-06-18" else EveryKind
    schema = reduce_schema(model, protocol_version=version)
    assert _server_takes(model, schema, content) == _client_takes(schema, content)


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_defaults_fill_the_same_fields_on_both_ends(version):
    model = SingleKinds if version == "2025-06-18" else EveryKind
    schema = reduce_schema(model, protocol_version=version)
    server = validate_content(model, schema, {"text": "abc"}).model_dump(mode="json")
    client = parse_requested_schema(schema).content({"text": "abc"})
    for key, value in client.items():
        assert server[key] == value


def _imports(module: str) -> set[str]:
    """Every module `module`'s source imports, following typed_elicit's own modules transitively.

    The package's `__init__` (the public surface, which another change splits into server
    and client halves) is not followed: this checks what the modules themselves need.
    """
    import ast
    import importlib.util

    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        spec = importlib.util.find_spec(name)
        if not name.startswith("typed_elicit.") or spec is None or spec.origin is None:
            continue
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                todo.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = f"typed_elicit.{base}" if base else "typed_elicit"
                if node.module is None:  # `from . import _clock`: the modules named
                    todo.extend(f"{base}.{alias.name}" for alias in node.names)
                else:
                    todo.append(base)
    return seen


@pytest.mark.parametrize(
    "module",
    [
        "typed_elicit._wire.spec",
        "typed_elicit._forms.validate",
        "typed_elicit._forms.reduce",
        "typed_elicit.fallback._companion",
    ],
)
def test_the_server_s_form_modules_never_import_the_client_stack(module):
    imported = _imports(module)
    assert "typed_elicit._wire.spec" in imported
    assert not {
        m
        for m in imported
        if m == "mcp.client" or m.startswith(("mcp.client.", "typed_elicit.client._handler"))
    }


def test_both_ends_write_a_problem_s_place_one_way():
    from typed_elicit._wire.spec import field_path

    assert field_path(["picks", 1]) == "picks[1]"
    assert field_path(["properties", "x", "enum", 0]) == "properties.x.enum[0]"
    assert field_path([]) == "(form)"
    schema = reduce_schema(EveryKind)
    with pytest.raises(InvalidResponse) as caught:
        validate_content(EveryKind, schema, {"text": "abc", "picks": ["r", "x"]})
    assert [path for path, _ in caught.value.errors] == ["picks[1]"]
    with pytest.raises(RequestedSchemaError, match=r"properties\.x\.enum\[1\]"):
        parse_requested_schema(
            {"type": "object", "properties": {"x": {"type": "string", "enum": ["a", "\ud800"]}}}
        )
