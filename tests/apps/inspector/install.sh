#!/usr/bin/env bash
# Install the released MCP Inspector for tests/apps/test_apps_inspector.py: a real MCP Apps host
# that renders app-rendered elicitations (SEP-3118, draft), with the Node.js 22 it needs.
# Versions are pinned by package.json + package-lock.json and installed with `npm ci` into
# tests/apps/inspector/node_modules (git-ignored). Idempotent: with an unchanged lockfile a second
# run does nothing. Needs only `npm` on PATH. Prints nothing but errors; on success the last line
# is the Inspector's command.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stamp="$here/.installed-lock.sha256"
want="$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" || ! -x "$here/node_modules/.bin/mcp-inspector" ]]; then
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
echo "$here/node_modules/.bin/mcp-inspector"
