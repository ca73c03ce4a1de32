"""Every code example in the docs is a file that this test runs; README examples run too."""

from __future__ import annotations

import re
import runpy
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
import uvicorn
from mcp_types import TextContent

from tests.conftest import BOUND, _Uvicorn, example_output
from typed_elicit import PROTOCOL_VERSIONS, ProtocolVersion
from typed_elicit.testing import Answer, ScriptedUser, accept, cancel, connect, decline

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").rglob("*.md"))
PEER_SERVERS = ROOT / "tests" / "peers" / "servers"
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
SNIPPET = re.compile(r'^--8<-- "([^":]+)(?::[\w-]+)?"$')


def python_blocks(path: Path) -> list[str]:
    return FENCE.findall(path.read_text(encoding="utf-8"))


def included_files() -> list[Path]:
    files: set[Path] = set()
    for page in DOCS:
        for block in python_blocks(page):
            for line in block.strip().splitlines():
                match = SNIPPET.match(line.strip())
                assert match, f"{page.name}: python examples must be snippet includes of files, got {line!r}"
                files.add(ROOT / match[1])
    return sorted(files)


def test_docs_python_examples_are_included_files_under_examples_docs_or_peer_servers() -> None:
    for file in included_files():
        assert file.is_file(), f"{file} is included by the docs but does not exist"
        assert file.relative_to(ROOT).parts[0] in {"examples", "docs"} or file.parent == PEER_SERVERS


OLD_IMPORTS_ON_PURPOSE = {ROOT / "examples" / "migration_before.py"}
"""Examples of 0.2's imports (docs/migration.md): tests/test_docs_migration.py checks their warnings."""


def example_params() -> list[Any]:
    quiet = pytest.mark.filterwarnings("ignore::DeprecationWarning")
    return [pytest.param(f, marks=quiet) if f in OLD_IMPORTS_ON_PURPOSE else f for f in included_files()]


@pytest.mark.parametrize("file", example_params(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_included_docs_example_runs(file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # as `python file` would: its folder is importable (the tutorial's test imports its server)
    monkeypatch.syspath_prepend(str(file.parent))
    runpy.run_path(str(file), run_name="docs_example")


def run_readme_example() -> dict[str, Any]:
    (block,) = python_blocks(ROOT / "README.md")
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    exec(compile(block, "README.md", "exec", dont_inherit=True), namespace)
    return namespace


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (accept(env="prod", replicas=3), "deployed web to prod x3"),
        (accept(env="stg"), "deployed web to stg x2"),
        (decline(), "not deployed: declined"),
        (cancel(), "not deployed: cancelled"),
    ],
)
async def test_the_readme_tool_answers_as_the_readme_says_on_every_era(
    era: ProtocolVersion, answer: Answer, expected: str
) -> None:
    example = run_readme_example()
    user = ScriptedUser(answer)
    with anyio.fail_after(10):
        async with connect(example["server"], era, elicitation_callback=user) as client:
            result = await client.call_tool("deploy", {"app": "web"})
    assert not result.is_error
    assert [c.text for c in result.content if isinstance(c, TextContent)] == [expected]
    (question,) = user.questions
    assert question.message == "Where should we deploy?"
    user.assert_done()


@pytest.mark.slow
def test_declaring_models_example_prints_each_modern_schema() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "declaring_models.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert out.startswith("2025-11-25 {")
    assert '"enumNames"' not in out
    assert "2026-07-28 {" in out


def test_no_tracked_text_file_holds_a_merge_conflict_marker():
    root = Path(__file__).resolve().parent.parent
    files = subprocess.run(
        ["git", "ls-files", "*.md", "*.py", "*.toml", "*.yml", "*.html", "*.sh"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    markers = ("<<<<<<< ", ">>>>>>> ")
    found = [
        name
        for name in files
        if (root / name).exists()
        and any(line.startswith(markers) for line in (root / name).read_text(encoding="utf-8").splitlines())
    ]
    assert found == []


# --- the client examples the docs link to (issue 18, item 17) ----------------------------------


@pytest.mark.slow
def test_the_pinned_client_example_negotiates_2025_06_18_over_stdio() -> None:
    assert example_output("pinned_client.py") == [
        "negotiated 2025-06-18",
        "Deployed shop to production (4 cores, 8GB, auto_scale=False)",
    ]


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_the_complete_page_client_example_fills_the_bank_page_and_the_tool_gets_the_login(
    era: str,
) -> None:
    bank = runpy.run_path(str(ROOT / "examples" / "link_bank.py"), run_name="served_example")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        http = _Uvicorn(
            uvicorn.Config(
                bank["build_server"](f"http://127.0.0.1:{port}").streamable_http_app(),
                log_level="warning",
                timeout_graceful_shutdown=2,
            )
        )
        async with anyio.create_task_group() as tg:
            tg.start_soon(http.serve, [sock])
            with anyio.fail_after(BOUND):
                await http.ready.wait()
            try:
                with anyio.fail_after(60):
                    done = await anyio.run_process(
                        [
                            sys.executable,
                            "examples/complete_page_client.py",
                            f"http://127.0.0.1:{port}/mcp",
                            era,
                        ],
                        cwd=ROOT,
                        check=False,
                    )
            finally:
                http.should_exit = True
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().splitlines() == [
        "bank asks: Connect your bank account",
        "filled in username, password, otp on the page",
        "Linked the account of ada (one-time code accepted)",
    ]
    assert bank["LINKED"] == {"ada": len("correct-horse-battery-staple")}


# --- the site's navigation -------------------------------------------------------------------------


def test_every_page_of_the_site_is_in_the_navigation_once() -> None:
    nav = re.findall(r"^\s*- (?:[^:\n]+: )?([\w./-]+\.md)$", (ROOT / "mkdocs.yml").read_text("utf-8"), re.M)
    assert len(nav) == len(set(nav))
    assert sorted(nav) == sorted(str(page.relative_to(ROOT / "docs")) for page in DOCS)


def test_the_landing_page_links_the_tutorial_and_includes_its_example_file() -> None:
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "(tutorial.md)" in text
    assert '--8<-- "examples/index_example.py"' in text


def test_the_pages_page_quotes_pages_not_served_as_it_is_raised() -> None:
    from typed_elicit.pages import PagesNotServed

    text = (ROOT / "docs" / "pages.md").read_text(encoding="utf-8")
    assert f"Error executing tool link_bank: PagesNotServed: {PagesNotServed('bank')}" in text


def test_the_security_page_names_every_logger_the_log_filter_covers() -> None:
    from typed_elicit.logs import HideAnswerValues

    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    table = {row.split("|")[1].strip().strip("`") for row in text.splitlines() if row.startswith("| `")}
    assert set(HideAnswerValues.LOGGERS) <= table


def test_every_benchmark_command_in_the_docs_runs_a_module_that_exists() -> None:
    commands = {
        module
        for page in DOCS
        for module in re.findall(r"python -m (tests\.bench(?:\.\w+)?)", page.read_text(encoding="utf-8"))
    }
    assert "tests.bench.http" in commands
    assert "tests.bench.scale" in commands
    for module in commands:
        path = ROOT.joinpath(*module.split("."))
        assert path.with_suffix(".py").is_file() or (path / "__main__.py").is_file(), module


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_the_several_questions_example_asks_both_at_once_and_books_what_was_accepted(
    era: ProtocolVersion,
) -> None:
    example = runpy.run_path(str(ROOT / "examples" / "several_questions.py"), run_name="docs_example")
    user = ScriptedUser(accept(seat="window", bags=1), decline())
    with anyio.fail_after(10):
        async with connect(example["server"], era, elicitation_callback=user) as client:
            result = await client.call_tool("plan_trip", {"city": "Lisbon"})
    assert [c.text for c in result.content if isinstance(c, TextContent)] == [
        "Booked a window seat with 1 bag(s)"
    ]
    assert [question.message for question in user.questions] == ["Which flight?", "Which hotel room?"]
    user.assert_done()


def test_the_landing_page_example_is_the_readme_example() -> None:
    (block,) = python_blocks(ROOT / "README.md")
    assert (ROOT / "examples" / "index_example.py").read_text(encoding="utf-8") == block


def test_the_http_plot_reads_every_row_of_the_over_http_table_it_draws() -> None:
    plot = runpy.run_path(str(ROOT / "docs" / "img" / "http_plot.py"), run_name="docs_plot")
    rows = plot["rows"]()
    assert [(era, "typed_elicit" in who) for era, who, _, _ in rows] == [
        ("push (2025-11-25)", True),
        ("push (2025-11-25)", False),
        ("push (2025-11-25)", False),
        ("push (2025-11-25)", False),
        ("2026-07-28", True),
        ("2026-07-28", False),
    ]
    assert (ROOT / "docs" / "img" / "benchmarks-http.png").is_file()


def test_the_glossary_defines_the_words_the_docs_lean_on_in_alphabetical_order() -> None:
    text = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    terms = [
        re.sub(r"[`*()]", "", term).strip().lower() for term in re.findall(r"^\*\*(.+?)\*\*", text, re.M)
    ]
    for word in (
        "era",
        "round",
        "pending",
        "once",
        "page form",
        "asker",
        "requeststate",
        "store",
        "fallback",
    ):
        assert any(term == word or term.startswith(word + " ") for term in terms), word
    assert terms == sorted(terms, key=lambda term: term.lstrip("`").lower())
