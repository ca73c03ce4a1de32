"""The PNG for docs/benchmarks.md (needs matplotlib: `pip install matplotlib`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

if TYPE_CHECKING:
    from .__main__ import Results

TE, RES, SDK, FLOOR, FM = "#1f77b4", "#d62728", "#ff7f0e", "#7f7f7f", "#2ca02c"


def draw(results: Results, path: Path) -> None:
    """Four panels: round trip vs floor, three-step wizard, growth in time, growth in runs."""
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    (roundtrip, wizard), (growth, runs) = axes

    rt = results.roundtrip
    names = ["typed_elicit", "SDK\nctx.elicit", "floor", "floor +\nmodel_validate"]
    values = [rt.ratio(n, "floor") for n in ("typed_elicit", "sdk")] + [
        1.0,
        rt.ratio("floor_validated", "floor"),
    ]
    colors = [TE, SDK, FLOOR, "#bcbcbc"]
    fm = results.fastmcp.samples
    if fm is not None:
        names.append("FastMCP\nctx.elicit\n(own venv)")
        values.append(fm.ratio("fastmcp", "floor"))
        colors.append(FM)
    bars = roundtrip.bar(names, values, color=colors)
    roundtrip.bar_label(bars, labels=[f"{v:.2f}x" for v in values])
    roundtrip.axhline(1.10, color=FLOOR, linestyle="--", linewidth=1, label="target: 1.10x floor")
    sdk_target = 0.70 * rt.ratio("sdk", "floor")
    roundtrip.axhline(sdk_target, color=SDK, linestyle=":", linewidth=1, label="target: 0.70x SDK")
    roundtrip.set_ylabel("CPU time per call / floor")
    roundtrip.set_title("1. Push round trip, 6-field model (lower is better)")
    roundtrip.set_ylim(0, max(values) * 1.3)
    roundtrip.legend(loc="upper left")

    eras = list(results.three_step)
    xs = range(len(eras))
    te_ms = [results.three_step[era].median("wizard_typed_elicit") * 1e3 for era in eras]
    res_ms = [results.three_step[era].median("wizard_resolvers") * 1e3 for era in eras]
    width = 0.38
    b1 = wizard.bar([x - width / 2 for x in xs], te_ms, width, color=TE, label="typed_elicit")
    b2 = wizard.bar([x + width / 2 for x in xs], res_ms, width, color=RES, label="SDK Resolve/Elicit")
    wizard.bar_label(b1, fmt="%.2f")
    wizard.bar_label(b2, fmt="%.2f")
    wizard.set_xticks(list(xs), [{"legacy": "push (2025-11-25)"}.get(era, era) for era in eras])
    wizard.set_ylabel("CPU ms per wizard call")
    wizard.set_title("2. Three-step wizard")
    wizard.legend()

    for era, style in (("legacy", "--"), ("2026-07-28", "-")):
        rows = [row for row in results.growth if row.era == era]
        ks = [row.k for row in rows]
        label = "push" if era == "legacy" else era
        growth.plot(
            ks,
            [r.typed_seconds * 1e3 for r in rows],
            style,
            color=TE,
            marker="o",
            label=f"typed_elicit, {label}",
        )
        growth.plot(
            ks,
            [r.resolvers_seconds * 1e3 for r in rows],
            style,
            color=RES,
            marker="s",
            label=f"resolvers, {label}",
        )
        runs.plot(
            ks, [r.typed_runs for r in rows], style, color=TE, marker="o", label=f"typed_elicit, {label}"
        )
        runs.plot(
            ks, [r.resolvers_runs for r in rows], style, color=RES, marker="s", label=f"resolvers, {label}"
        )
    growth.set_xticks([1, 4, 8, 12, 16] if len(results.growth) > 8 else sorted({r.k for r in results.growth}))
    runs.set_xticks(growth.get_xticks())
    growth.set_xlabel("k (questions in the wizard)")
    growth.set_ylabel("CPU ms per wizard call")
    growth.set_title("3. Growth: total time")
    growth.legend()
    runs.set_xlabel("k (questions in the wizard)")
    runs.set_ylabel("function bodies run per call")
    runs.set_yscale("log")
    runs.set_title("3. Growth: re-runs (tool body; resolvers + tool body)")
    runs.legend()

    fig.suptitle(  # pyright: ignore[reportUnknownMemberType]
        f"typed_elicit benchmarks, mcp {results.environment['mcp']}, {results.environment['machine']}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)  # pyright: ignore[reportUnknownMemberType]
    plt.close(fig)
