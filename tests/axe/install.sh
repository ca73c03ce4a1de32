#!/usr/bin/env bash
# Install axe-core for the accessibility tests (tests/axe/__init__.py injects it into Chromium pages):
# the version is pinned by package.json + package-lock.json and installed with `npm ci` into
# tests/axe/node_modules (git-ignored). Idempotent: with an unchanged lockfile a second run does
# nothing. Needs only `npm` on PATH; no network at test time. Prints nothing but errors; on success
# the last line is the path of axe.min.js.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stamp="$here/.installed-lock.sha256"
script="$here/node_modules/axe-core/axe.min.js"
want="$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" || ! -f "$script" ]]; then
    command -v npm >/dev/null || { echo "install.sh: npm is required (apt-get install npm)" >&2; exit 1; }
    rm -f "$stamp"
    log="$here/npm-ci.log"
    if ! (cd "$here" && timeout 300 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >"$log" 2>&1); then
        echo "install.sh: npm ci failed, log follows ($log)" >&2
        cat "$log" >&2
        exit 1
    fi
    rm -f "$log"
    echo "$want" >"$stamp"
fi
echo "$script"
