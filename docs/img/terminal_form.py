"""Render the terminal form of the tutorial's first step, from a real pty run, to docs/img/terminal-form.svg.

Run from the repository root, in the dev venv plus pyte (a terminal emulator, only for this
picture): `.venv/bin/pip install pyte && .venv/bin/python docs/img/terminal_form.py`.
It answers as a person would: yes to the form, `4` for the size (not an option), then `3`,
`7` sugars (over the limit), then `1`, and Enter for the oat milk's default.
"""

from __future__ import annotations

import html
import os
import sys
from pathlib import Path

import pexpect
import pyte

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "img" / "terminal-form.svg"
COLUMNS, ROWS = 92, 40
STEPS = [
    (r"Answer\? \[Y\]es", ""),
    (r"\) large", "4"),
    (r"try again", "3"),
    (r"Spoons of sugar", "7"),
    (r"try again", "1"),
    (r"oat_milk", ""),
]
PALETTE = {
    "default": "#d4d4d4",
    "black": "#1e1e1e",
    "red": "#f14c4c",
    "green": "#23d18b",
    "yellow": "#f5f543",
    "blue": "#3b8eea",
    "magenta": "#d670d6",
    "cyan": "#29b8db",
    "white": "#e5e5e5",
    "brightblack": "#8a8a8a",
}


def run() -> pyte.Screen:
    screen = pyte.Screen(COLUMNS, ROWS)
    stream = pyte.Stream(screen)
    env = {**os.environ, "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm-256color", "COLUMNS": str(COLUMNS)}
    child = pexpect.spawn(
        str(Path(sys.executable).parent / "typed-elicit"),
        ["demo", "step1_server.py", "--arg", "name=Ada"],
        cwd=str(ROOT / "examples" / "tutorial"),
        env=env,
        dimensions=(ROWS, COLUMNS),
        encoding="utf-8",
        timeout=30,
    )
    seen = ""
    for pattern, answer in STEPS:
        child.expect(pattern)
        seen += child.before + child.after
        child.send(answer + "\r")
    child.expect(pexpect.EOF)
    seen += child.before
    stream.feed(seen.replace("\r\r\n", "\r\n"))
    return screen


def colour(char: pyte.screens.Char) -> str:
    """A character's colour: a named one from the palette, or pyte's hex for 256 colours."""
    return PALETTE.get(char.fg, f"#{char.fg}" if len(char.fg) == 6 else PALETTE["default"])


def svg(screen: pyte.Screen) -> str:
    used = [row for row in range(ROWS) if any(screen.buffer[row][col].data.strip() for col in range(COLUMNS))]
    lines = [[screen.buffer[row][col] for col in range(COLUMNS)] for row in range(used[-1] + 1)]
    width, height, step = COLUMNS * 8.4 + 32, len(lines) * 19 + 56, 19
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
        f'viewBox="0 0 {width:.0f} {height}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" '
        'font-size="14">',
        f'<rect width="100%" height="100%" rx="8" fill="{PALETTE["black"]}"/>',
        '<circle cx="20" cy="16" r="6" fill="#ff5f56"/><circle cx="40" cy="16" r="6" fill="#ffbd2e"/>'
        '<circle cx="60" cy="16" r="6" fill="#27c93f"/>',
    ]
    for index, line in enumerate(lines):
        y = 48 + index * step
        spans = []
        run_text, run_style = "", None
        for char in [*line, None]:
            style = None if char is None else (colour(char), char.bold)
            if char is not None and style == run_style:
                run_text += char.data
                continue
            if run_text:
                fill, bold = run_style
                weight = ' font-weight="bold"' if bold else ""
                spans.append(f'<tspan fill="{fill}"{weight}>{html.escape(run_text)}</tspan>')
            if char is not None:
                run_text, run_style = char.data, style
        out.append(f'<text x="16" y="{y}" xml:space="preserve">{"".join(spans).rstrip()}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    OUT.write_text(svg(run()), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
