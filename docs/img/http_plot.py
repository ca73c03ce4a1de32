"""Draw docs/img/benchmarks-http.png from the over-HTTP table of docs/benchmarks.md (run A).

Run from the repository root with matplotlib (the bench extra):
`.venv/bin/python docs/img/http_plot.py`. The numbers are read from the page, so the picture
shows exactly the measured table beside it.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "benchmarks.md"
OUT = ROOT / "docs" / "img" / "benchmarks-http.png"
ROW = re.compile(
    r"^\| (push \(2025-11-25\)|2026-07-28) \| (.+?) \| ([\d.]+) ms \| (\d+)% \| ([\d.]+) ms \|$", re.M
)


def rows() -> list[tuple[str, str, float, float]]:
    """(era, contender, server CPU ms per call, spread %) of the page's over-HTTP table."""
    section = PAGE.read_text(encoding="utf-8").split("## Over real HTTP", 1)[1]
    return [(era, who, float(ms), float(spread)) for era, who, ms, spread, _ in ROW.findall(section)]


def colour(contender: str) -> str:
    """typed_elicit blue, the SDK red, the floors grey (as in docs/img/benchmarks.png)."""
    if "typed_elicit" in contender:
        return "#1f77b4"
    return "#d62728" if "SDK" in contender else "#7f7f7f"


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = rows()
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), gridspec_kw={"width_ratios": [4, 2]})
    for axis, era, title in (
        (axes[0], "push (2025-11-25)", "Push round trip over HTTP"),
        (axes[1], "2026-07-28", "2026-07-28 three-step wizard over HTTP"),
    ):
        mine = [(who, ms, spread) for e, who, ms, spread in data if e == era]
        labels = [re.sub(r"`([^`]*)`", r"\1", who).replace("three-step wizard, ", "") for who, _, _ in mine]
        labels = [label.replace(": ", ":\n").replace(" ctx", "\nctx") for label in labels]
        values = [ms for _, ms, _ in mine]
        errors = [ms * spread / 100 for _, ms, spread in mine]
        colours = [
            "#1f77b4" if "typed_elicit" in who else "#d62728" if "SDK" in who else "#7f7f7f"
            for who, _, _ in mine
        ]
        bars = axis.bar(range(len(mine)), values, yerr=errors, capsize=4, color=colours)
        axis.bar_label(bars, labels=[f"{v:.1f} ms" for v in values], padding=3)
        axis.set_xticks(range(len(mine)), labels, fontsize=8)
        axis.set_ylabel("server CPU ms per call (lower is better)")
        axis.set_title(title)
        axis.set_ylim(0, max(values) * 1.3)
    fig.suptitle("Server CPU per call over streamable HTTP (run A; error bars: the blocks' spread)")
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
