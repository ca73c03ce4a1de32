"""Smoke run of the benchmark harness (tests/bench/): tiny sizes, every table complete, no timing checks."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.bench.__main__ import Config, Results, run
from tests.bench.report import BEGIN, END, render_markdown, targets, write_outputs

pytestmark = pytest.mark.slow  # runs the benchmark harness


@pytest.fixture(scope="module")
def results() -> Results:
    config = Config.quick_run(
        fastmcp=False,
        roundtrip_size=(3, 2),
        wizard_size=(2, 2),
        growth_ks=[1, 2],
        pending=40,
        clients=2,
        traced_pending=20,
    )
    return run(config)


def test_every_comparison_produced_numbers(results: Results) -> None:
    assert set(results.roundtrip.blocks) == {"typed_elicit", "sdk", "floor", "floor_validated"}
    assert all(len(v) == 2 and all(x > 0 for x in v) for v in results.roundtrip.blocks.values())
    assert results.fastmcp.samples is None
    assert "FastMCP skipped" in results.fastmcp.note
    assert len(results.steps) == 6
    assert all(seconds > 0 for seconds in results.steps.values())
    assert set(results.three_step) == {"2026-07-28", "legacy"}
    assert results.three_step_runs["2026-07-28"] == {"wizard_typed_elicit": 4, "wizard_resolvers": 10}
    assert results.three_step_runs["legacy"] == {"wizard_typed_elicit": 1, "wizard_resolvers": 4}
    assert [(row.era, row.k) for row in results.growth] == [
        ("legacy", 1),
        ("legacy", 2),
        ("2026-07-28", 1),
        ("2026-07-28", 2),
    ]
    replay = [row for row in results.growth if row.era == "2026-07-28"]
    assert [row.typed_runs for row in replay] == [2, 3]
    assert [row.resolvers_runs for row in replay] == [3, 6]
    assert set(results.schema) == {
        "dict lookup (floor)",
        "typed_elicit reduce_schema (cached)",
        "typed_elicit reduce_schema (first call on a new model: the full reduction, once)",
        "SDK render_elicitation_schema (per call)",
    }


def test_scale_scenarios_settle_with_nothing_left(results: Results) -> None:
    runs = {(run.scenario, run.tool, run.traced): run for run in results.scale}
    assert set(runs) == {
        ("answered", "typed_elicit", False),
        ("answered", "floor", False),
        ("answered", "typed_elicit", True),
        ("answered", "floor", True),
        ("timeout", "typed_elicit", False),
        ("disconnect", "typed_elicit", False),
    }
    for one in results.scale:
        assert one.results["peak pending at once"] == one.pending
        assert all(count == 0 for count in one.tasks_left.values()), one
        assert all(count == 0 for key, count in one.leftovers.items() if key != "dispatchers alive"), one
    assert runs["answered", "typed_elicit", False].results["ok"] == 40
    assert runs["timeout", "typed_elicit", False].results["error: ElicitationTimeout"] == 40
    assert runs["disconnect", "typed_elicit", False].results["questions answered by the client"] == 0
    assert runs["answered", "typed_elicit", True].breakdown["typed_elicit"] > 0
    assert runs["answered", "typed_elicit", True].ours


def test_markdown_has_every_table(results: Results, tmp_path: Path) -> None:
    markdown = render_markdown(results, image=tmp_path / "img" / "b.png", doc=tmp_path / "benchmarks.md")
    for heading in (
        "### Targets",
        "### 1. Round trip",
        "#### 1c. What typed_elicit adds per question",
        "### 2. Three-step wizard",
        "### 3. Growth",
        "### 4. Scale",
        "### 5. Schema cost",
    ):
        assert heading in markdown
    assert len(targets(results)) == 6
    assert "| typed_elicit `ctx.elicit(Signup)` |" in markdown
    assert "| floor + `Signup.model_validate(content)` |" in markdown
    assert "**extra over floor + bare `model_validate`**" in markdown
    assert "| 2026-07-28 (replay) |" in markdown
    assert "| 2 |" in markdown  # growth row for k = 2
    assert "![benchmark plots](img/b.png)" in markdown
    assert "FastMCP skipped" in markdown


def test_outputs_replace_only_the_generated_part(results: Results, tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text(f"# Benchmarks\n\nprose before\n\n{BEGIN}\nold\n{END}\n\nprose after\n")
    image = tmp_path / "img" / "b.png"
    markdown = render_markdown(results, image=image, doc=doc)
    write_outputs(results, markdown, doc, image)
    text = doc.read_text()
    assert text.startswith("# Benchmarks\n\nprose before\n\n" + BEGIN)
    assert text.rstrip().endswith("prose after")
    assert "old" not in text.split(BEGIN)[1].split(END)[0].splitlines()
    assert "### 5. Schema cost" in text
    if importlib.util.find_spec("matplotlib") is not None:
        assert image.stat().st_size > 10_000


def test_the_shaped_question_benchmark_measures_every_contender() -> None:
    from tests.bench import bench_shaped

    times = bench_shaped.run(quick=True)
    assert set(times) == set(bench_shaped.contenders())
    assert all(seconds > 0 for seconds in times.values())
    assert bench_shaped.table(times).count("\n") == len(times) + 1


def test_the_http_benchmark_measures_server_cpu_for_every_contender_and_session_count() -> None:
    from tests.bench import http

    run = http.main(["--quick"])
    assert run is not None
    contenders = {*http.PUSH, *http.WIZARD}
    assert set(run.server.blocks) == contenders
    assert set(run.client.blocks) == contenders
    assert all(len(blocks) == 2 and all(x > 0 for x in blocks) for blocks in run.server.blocks.values())
    assert [(row.sessions, row.tool) for row in run.throughput] == [
        (sessions, tool)
        for sessions in (1, 2)
        for tool in ("typed_elicit", "sdk", "wizard_typed_elicit", "wizard_resolvers")
    ]
    assert all(row.calls_per_second > 0 and row.server_cpu_per_call > 0 for row in run.throughput)
    report = http.render(run)
    assert "| push (2025-11-25) | typed_elicit |" in report
    assert "| 2026-07-28 wizard |" in report
    assert report.count("\n| 2 | ") == 4


def test_the_pages_benchmark_drives_every_case_through_both_contenders() -> None:
    import anyio

    from tests.bench import pages

    async def main() -> None:
        with anyio.fail_after(120):
            await pages._stretches(1, 1, 1, pages.CASES, counting=False)  # pyright: ignore[reportPrivateUsage]

    anyio.run(main)


def test_the_pages_benchmark_prints_each_goal_beside_its_figure() -> None:
    from tests.bench import pages

    per = {(name, case): 1_000_000.0 for name in pages.CONTENDERS for case in pages.CASES}
    per[("typed_elicit", "groups")] = 2_000_000.0
    per[("typed_elicit", "big")] = 100_000_000.0
    lines = "\n".join(pages.report(per, pages.QUICK))
    assert "| flat page, one secret field: GET + POST | 1.00 M | 1.00 M | 1.00x | ≤ 1.3x | yes |" in lines
    assert "| page with groups: GET + POST | 2.00 M | 1.00 M | 2.00x | ≤ 1.3x | **no** |" in lines
    assert "| its render per input | 52,632 | 526 | | ≤ 30,000 | **no** |" in lines
