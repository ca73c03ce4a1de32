"""Issue 30's goals: pages against a hand-written handler, the store, the import, `elicit_all`.

Runs `pages` (instructions of a page's GET + POST and of a whole page question against the
hand-written equivalent), `redis_counts` (Redis commands per page question), `import_cost`
(instructions of `import typed_elicit` over the SDK's server) and `growth` (instructions per
`elicit_all` call as questions are added), prints each table with its goal beside the measured
figure, and
draws `docs/img/goals.png` (needs matplotlib: `pip install matplotlib`), the plot of
docs/benchmarks.md's section "Page questions on Redis, import cost and growth".

Run: `python -m tests.bench.goals` (about 10 minutes: three callgrind runs); `--quick` for a
smoke run (seconds to a minute; prints the tables, draws nothing).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from . import growth, import_cost, pages, redis_counts

ROOT = Path(__file__).resolve().parents[2]
IMG = ROOT / "docs" / "img" / "goals.png"


PAGE_BARS = (
    ("flat", "flat page\nGET + POST"),
    ("groups", "with groups\nGET + POST"),
    ("question_flat", "flat page\nwhole question"),
    ("question_groups", "with groups\nwhole question"),
)


def draw(
    per: dict[tuple[str, str], float] | str,
    counts: list[redis_counts.Count],
    cost: import_cost.ImportCost,
    grown: growth.Growth,
    path: Path,
) -> None:
    """Four panels: pages over hand-written, Redis commands before and after, the import, growth by k."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (page, store, imports, grows) = plt.subplots(1, 4, figsize=(20, 4.6))
    if not isinstance(per, str):
        ratios = [per[("typed_elicit", case)] / per[("hand", case)] for case, _ in PAGE_BARS]
        bars = page.bar([label for _, label in PAGE_BARS], ratios, color="#1f77b4")
        page.bar_label(bars, labels=[f"{r:.2f}x" for r in ratios])
        page.axhline(1.0, color="#7f7f7f", linewidth=1)
        page.axhline(pages.GOAL_RATIO, color="#d62728", linestyle="--", label=f"goal: {pages.GOAL_RATIO}x")
        page.tick_params(axis="x", labelsize=8)
        page.legend(fontsize=8)
    page.set_title("pages / hand-written handler (instructions)")
    files = [c for c in counts if c.with_file]
    labels = [f"{c.where}\n{c.era}" for c in files]
    xs = list(range(len(files)))
    before = [redis_counts.BEFORE.get((c.where, c.era, True), 0) for c in files]
    store.bar([x - 0.2 for x in xs], before, 0.4, color="#bcbcbc", label="before")
    bars = store.bar(
        [x + 0.2 for x in xs], [c.per_question for c in files], 0.4, color="#1f77b4", label="now"
    )
    store.bar_label(bars, labels=[f"{c.per_question:.0f}" for c in files])
    store.axhline(redis_counts.GOAL_WITH_FILE, color="#d62728", linestyle="--", label="goal: 6")
    store.set_xticks(xs, labels, fontsize=8)
    store.set_title("Redis commands per page question with a file")
    store.legend(fontsize=8)

    if cost.sdk:
        values = [1.0, cost.ratio]
        bars = imports.bar(
            ["mcp +\nmcp.server.mcpserver", "+ typed_elicit"], values, color=["#7f7f7f", "#1f77b4"]
        )
        imports.bar_label(bars, labels=[f"{v:.3f}x" for v in values])
        imports.axhline(
            import_cost.GOAL, color="#d62728", linestyle="--", label=f"goal: {import_cost.GOAL:.2f}x"
        )
        imports.set_ylim(0.9, 1.15)
        imports.legend(fontsize=8)
    imports.set_title("import, in instructions (compiled bytecode)")

    if grown.per_call:
        ks = list(grown.per_call)
        grows.plot(ks, [growth.BEFORE[k] / 1e6 for k in ks], "o--", color="#bcbcbc", label="before")
        grows.plot(ks, [grown.per_call[k] / 1e6 for k in ks], "o-", color="#1f77b4", label="now")
        line = [grown.per_call[1] / 1e6 + grown.slope(1, 4) / 1e6 * (k - 1) for k in ks]
        grows.plot(ks, line, ":", color="#d62728", label="linear from k = 1 to 4")
        grows.set_xlabel("questions k in one elicit_all")
        grows.set_ylabel("M instructions per call")
        grows.legend(fontsize=8)
    grows.set_title("elicit_all on 2026-07-28")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.goals", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smoke run: small sizes, no plot")
    args = parser.parse_args(argv)
    import logging

    logging.disable(logging.INFO)
    sizes = pages.QUICK if args.quick else pages.FULL
    per = pages.measure(sizes)
    print("### Pages against a hand-written handler\n")
    print(per if isinstance(per, str) else "\n".join(pages.report(per, sizes)))
    counts = redis_counts.measure(3 if args.quick else 20, cluster=not args.quick)
    print("\n### Redis commands per page question\n")
    print(redis_counts.table(counts))
    cost = import_cost.measure(args.quick)
    print("\n### Import cost\n")
    print(import_cost.table(cost))
    grown = growth.measure(growth.QUICK if args.quick else growth.FULL)
    print("\n### elicit_all growth on 2026-07-28\n")
    print(growth.table(grown))
    if not args.quick:
        draw(per, counts, cost, grown, IMG)
        print(f"\nwrote {IMG.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
