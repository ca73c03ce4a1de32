"""Judge conformance-suite results strictly: every expected check present and SUCCESS.

    python tests/peers/check_results.py RESULTS_DIR SCENARIO [SCENARIO ...]

RESULTS_DIR is the `-o` directory given to `conformance server|client`; each run wrote
`<server|client>-<scenario>-<timestamp>/checks.json`. For every scenario named, the newest
run is read. A scenario passes when every check in it is SUCCESS or INFO (no FAILURE, no
WARNING, nothing else) and every check id listed in EXPECTED below is present and SUCCESS
(the suite reports zero checks when it could not even start, so "no failures" alone proves
nothing). Prints one line per check and a verdict; exits 1 on any problem.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

EXPECTED: dict[str, list[str]] = {
    "tools-call-elicitation": ["tools-call-elicitation"],
    "elicitation-sep1034-defaults": [
        f"elicitation-sep1034-{kind}-default" for kind in ("string", "integer", "number", "enum", "boolean")
    ],
    "elicitation-sep1330-enums": [
        f"elicitation-sep1330-{kind}"
        for kind in ("untitled-single", "titled-single", "legacy-enumnames", "untitled-multi", "titled-multi")
    ],
    "elicitation-sep1034-client-defaults": [
        f"client-elicitation-sep1034-{kind}-default"
        for kind in ("string", "integer", "number", "enum", "boolean")
    ],
}


def newest_run(results: Path, scenario: str) -> Path | None:
    """The newest run directory of `scenario` under `results`, if any."""
    runs = [
        p
        for p in results.iterdir()
        if p.is_dir() and (p / "checks.json").is_file() and _scenario_of(p.name) == scenario
    ]
    return max(runs, key=lambda p: p.stat().st_mtime) if runs else None


def _scenario_of(dirname: str) -> str:
    # <kind>-<scenario>-<YYYY>-<MM>-<DD>T<hh>-<mm>-<ss>-<ms>Z ; kind is optional
    name = dirname
    for kind in ("server-", "client-"):
        if name.startswith(kind):
            name = name[len(kind) :]
            break
    parts = name.split("-")
    return "-".join(parts[:-6]) if len(parts) > 6 else name


def judge(results: Path, scenario: str) -> list[str]:
    """Print every check of the newest run of `scenario`; return the problems found."""
    problems: list[str] = []
    run = newest_run(results, scenario)
    if run is None:
        return [f"{scenario}: no results (the suite did not run it, or crashed before writing checks.json)"]
    checks = json.loads((run / "checks.json").read_text())
    seen: dict[str, str] = {}
    for check in checks:
        cid, status = check.get("id", "?"), check.get("status", "?")
        if status == "INFO":
            continue
        seen.setdefault(cid, status)
        if status != "SUCCESS":
            seen[cid] = status
        mark = "ok  " if status == "SUCCESS" else "FAIL"
        detail = f"  ({check.get('errorMessage')})" if check.get("errorMessage") else ""
        print(f"  {mark} {scenario:40s} {cid:45s} {status}{detail}")
        if status != "SUCCESS":
            problems.append(f"{scenario}: {cid} is {status}{detail}")
    for cid in EXPECTED.get(scenario, []):
        if cid not in seen:
            problems.append(f"{scenario}: expected check {cid} is missing")
    if not seen:
        problems.append(f"{scenario}: no SUCCESS/FAILURE checks at all")
    return problems


def main(argv: list[str]) -> int:
    """Judge every scenario named on the command line."""
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    results = Path(argv[1])
    problems: list[str] = []
    for scenario in argv[2:]:
        problems += judge(results, scenario)
    if problems:
        print("CONFORMANCE: FAILED", file=sys.stderr)
        for p in problems:
            print(f"  - {p}", file=sys.stderr)
        return 1
    total = sum(len(EXPECTED.get(s, [])) for s in argv[2:])
    print(f"CONFORMANCE: all checks SUCCESS ({len(argv) - 2} scenarios, {total} expected checks present)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
