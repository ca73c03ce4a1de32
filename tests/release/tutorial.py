"""The tutorial followed to the end by a reader who holds only the wheel (issue 29's "done when").

`.ci/release` runs `python -m tests.release.tutorial WHEEL FOLDER` from the checkout: in the empty
FOLDER it puts the wheel, runs step 1's install lines of docs/tutorial.md exactly as the page shows
them (with the wheel's real name), copies the tutorial's files in and runs every command the page
shows with its output, with FOLDER/.venv/bin first on PATH, as the activated reader would. Each must
print what the page shows (pytest's summary line without its duration). Prints one line per command
and exits 0, or says which command differed and exits 1.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "tutorial.md"
STEPS = ("step1_server.py", "step2_server.py", "step3_test_order.py")
COMMAND_AND_OUTPUT = re.compile(r"^```bash\n([^\n]+)\n```\n\n```text\n(.*?)^```", re.S | re.M)
TIMEOUT = 600
"""Seconds one command may take (the install fetches the dependencies): a hung step fails CI."""


def install_lines(page: str) -> str:
    """The bash block of step 1 ("## 1. Install")."""
    section = page.split("## 1. Install", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"^```bash\n(.*?)^```", section, re.S | re.M)
    return str(block)


def follow(wheel: Path, folder: Path) -> list[str]:
    """Follow the tutorial in `folder` with `wheel`: what differed from the page (nothing, when right)."""
    page = PAGE.read_text(encoding="utf-8")
    shutil.copy(wheel, folder / wheel.name)
    install = install_lines(page)
    if "typed_elicit-" not in install or wheel.name not in install:
        return [f"step 1 does not install {wheel.name}: {install!r}"]
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH")}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", install], cwd=folder, env=env, capture_output=True, text=True,
        timeout=TIMEOUT, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return [f"step 1 failed: {done.stderr[-2000:]}"]
    print(f"tutorial: step 1 installed {wheel.name} into {folder / '.venv'}")
    for name in STEPS:
        shutil.copy(ROOT / "examples" / "tutorial" / name, folder / name)
    env = {**env, "PATH": f"{folder / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}", "NO_COLOR": "1"}
    problems = []
    for command, output in COMMAND_AND_OUTPUT.findall(page):
        done = subprocess.run(
            command,
            shell=True,
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        if command.startswith("pytest"):  # pytest's summary line ends with a duration the page leaves out
            same = done.stdout.splitlines()[:1] == output.splitlines()[:1] and " passed in " in done.stdout
        else:
            same = done.stdout == output
        if done.returncode != 0 or not same:
            problems.append(f"{command!r} exited {done.returncode} and printed:\n{done.stdout}{done.stderr}")
        else:
            print(f"tutorial: {command}: as the page shows")
    return problems


def main(argv: list[str]) -> int:
    """`python -m tests.release.tutorial WHEEL FOLDER`: exit 0 when the tutorial works as written."""
    wheel, folder = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    problems = follow(wheel, folder)
    for problem in problems:
        print(f"tutorial: FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
