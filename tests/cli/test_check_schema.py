"""`typed-elicit schema`: a model on the wire per revision, with options per call, page forms too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.running import BAD_ON_OLD_CLIENTS, ROOT, run
from tests.client_servers import Traveller
from typed_elicit import PROTOCOL_VERSIONS, ProtocolVersion, reduce_schema
from typed_elicit._cli import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
)

pytestmark = pytest.mark.slow  # most tests run the command in a subprocess or a terminal


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_schema_prints_the_wire_schema_of_a_model(version: ProtocolVersion) -> None:
    code, out = run("schema", "tests.client_servers:Traveller", "--protocol", version)

    assert code == EXIT_OK
    assert json.loads(out) == reduce_schema(Traveller, protocol_version=version)


def test_schema_can_include_the_dialect() -> None:
    code, out = run("schema", "tests.client_servers:Traveller", "--dialect")

    assert code == EXIT_OK
    assert json.loads(out)["$schema"].startswith("https://json-schema.org/")


def test_schema_of_a_model_that_cannot_be_sent_on_a_revision_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "topics.py").write_text(BAD_ON_OLD_CLIENTS)

    code, _ = run("schema", f"{tmp_path}/topics.py:Topics", "--protocol", "2025-06-18")

    assert code == EXIT_PROBLEMS
    assert "multi-select" in capsys.readouterr().err


def test_schema_of_a_model_with_choices_prints_them_as_given_per_call(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/pick_file.py:PickFile")

    assert code == EXIT_OK
    schema = json.loads(out)
    assert schema["properties"]["path"] == {"type": "string", "description": "One of the files that match"}
    assert schema["required"] == ["path"]
    note = capsys.readouterr().err
    assert "PickFile.path is a Choices() field: its options are given per call" in note
    assert "--option path=VALUE,VALUE" in note


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("path=a.txt,b.txt", {"enum": ["a.txt", "b.txt"]}),
        ("path=a=Al,b=Bo", {"oneOf": [{"const": "a", "title": "Al"}, {"const": "b", "title": "Bo"}]}),
        ('path=["a,1.txt"]', {"enum": ["a,1.txt"]}),
        ('path={"a=1": "A"}', {"oneOf": [{"const": "a=1", "title": "A"}]}),
    ],
)  # fmt: skip
def test_schema_takes_the_options_of_a_choices_field(
    option: str, expected: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/pick_file.py:PickFile", "--option", option)

    assert code == EXIT_OK
    assert json.loads(out)["properties"]["path"] == {
        "type": "string",
        "description": "One of the files that match",
        **expected,
    }


def test_schema_takes_the_options_of_a_multi_select_and_refuses_it_where_the_revision_cannot(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/split_bill.py:Split", "--option", "friends=ann,bo")
    old, _ = run("schema", "examples/split_bill.py:Split", "--protocol", "2025-06-18")

    assert code == EXIT_OK
    friends = json.loads(out)["properties"]["friends"]
    assert friends["items"] == {"type": "string", "enum": ["ann", "bo"]}
    assert (friends["minItems"], friends["maxItems"]) == (1, 3)
    assert old == EXIT_PROBLEMS
    assert "Split.friends: multi-select fields need protocol 2025-11-25" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("pth=a", "Split.pth: is no field of Split"),
        ("share=a", "Split.share: is not a Choices() field"),
        ("friends=", "Split.friends: offers no options"),
        ("friends=a=A,b", "--option friends: give every option a title (VALUE=TITLE) or none"),
        ("friends", "--option takes FIELD=VALUE,VALUE,..."),
        ('friends=["a", 1]', "--option friends: expected a JSON list of strings"),
        (
            "friends=[a",
            "--option friends: expected a JSON list of strings or a JSON object of string to string; "
            "this is not valid JSON",
        ),
    ],
)
def test_schema_options_that_do_not_fit_are_usage_errors_that_say_why(
    option: str, message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/split_bill.py:Split", "--option", option)

    assert code == EXIT_USAGE
    assert out == ""
    assert message in capsys.readouterr().err


def test_schema_of_a_page_form_prints_its_page_form_with_the_secret_fields_marked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/link_bank.py:BankLogin", "--dialect")

    assert code == EXIT_OK
    schema = json.loads(out)
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert list(schema["properties"]) == ["username", "password", "otp"]
    assert schema["properties"]["password"]["writeOnly"] is True
    assert schema["properties"]["otp"]["writeOnly"] is True
    assert "writeOnly" not in schema["properties"]["username"]
    note = capsys.readouterr().err
    assert "BankLogin is a page form (@form(page=True))" in note
    assert "secret fields (password inputs, never echoed): password, otp" in note


def test_schema_options_for_a_page_forms_plain_field_are_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/link_bank.py:BankLogin", "--option", "username=a")

    assert (code, out) == (EXIT_USAGE, "")
    assert "BankLogin.username: is not a Choices() field" in capsys.readouterr().err


def test_schema_of_a_page_form_with_choices_shows_them_per_call_or_as_given(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/pay_invoice.py:Payment")
    bare, note = json.loads(out), capsys.readouterr().err
    given_code, given = run("schema", "examples/pay_invoice.py:Payment", "--option", "account=chk=Checking")

    assert (code, given_code) == (EXIT_OK, EXIT_OK)
    assert "enum" not in bare["properties"]["account"]
    assert "oneOf" not in bare["properties"]["account"]
    assert bare["properties"]["pin"]["writeOnly"] is True
    assert "Payment.account is a Choices() field: its options are given per call (ctx.elicit_page(" in note
    assert json.loads(given)["properties"]["account"]["oneOf"] == [{"const": "chk", "title": "Checking"}]


NOT_ELICITABLE = {
    "choices_on_an_int": (
        "from typing import Annotated\nfrom typed_elicit import Choices\n"
        "class M(BaseModel):\n    n: Annotated[int, Choices()]\n",
        "Choices() marks a str field",
    ),
    "no_fields": ("class M(BaseModel):\n    pass\n", "a model without fields asks nothing"),
    "a_secret": ("class M(BaseModel):\n    password: str\n", "the name suggests a secret"),
    "nested": ("class Inner(BaseModel):\n    x: int\nclass M(BaseModel):\n    inner: Inner\n", "nested"),
    "unresolved": ("class M(BaseModel):\n    x: 'Later'\n", "cannot be resolved"),
    "choices_selecting_more_than_any_question_may_offer": (
        "from typing import Annotated\nfrom pydantic import Field\nfrom typed_elicit import Choices\n"
        "class M(BaseModel):\n    n: Annotated[list[str], Choices(), Field(min_length=5000)]\n",
        "5000",
    ),
    "choices_marker_not_called": (
        "from typing import Annotated\nfrom typed_elicit import Choices\n"
        "class M(BaseModel):\n    n: Annotated[str, Choices]\n",
        "Choices is a marker to instantiate",
    ),
}


@pytest.mark.parametrize("case", NOT_ELICITABLE)
@pytest.mark.parametrize("with_options", [False, True])
def test_schema_of_a_model_that_cannot_be_elicited_prints_the_schema_error_without_a_traceback(
    case: str, with_options: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, problem = NOT_ELICITABLE[case]
    (tmp_path / f"{case}.py").write_text(f"from pydantic import BaseModel\n{source}")
    options = ["--option", "n=a"] if with_options else []

    code, out = run("schema", f"{tmp_path}/{case}.py:M", *options)

    err = capsys.readouterr().err
    assert code in (EXIT_PROBLEMS, EXIT_USAGE)
    assert out == ""
    assert problem in err
    assert "Traceback" not in err
