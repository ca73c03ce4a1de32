#!/usr/bin/env bash
# Install the test MCP Apps host for tests/apps/test_apps_browser.py:
#   - @modelcontextprotocol/ext-apps 2.0.4 (the official host bridge, AppBridge) and its peers,
#   - esbuild, which bundles src/host.js + the bridge into dist/host.js for the browser.
# Versions are pinned by package.json + package-lock.json and installed with `npm ci` into
# tests/apps/host/node_modules (git-ignored). Idempotent: a second run with an unchanged
# lockfile and unchanged sources does nothing and takes well under a second.
# Needs only `npm` on PATH (Node >= 18). No global installs, no network at test time.
#
# Prints nothing but errors unless APPHOST_VERBOSE=1. On success the last line is the bundle's path.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stamp="$here/.installed-lock.sha256"
bundle="$here/dist/host.js"

inputs_hash() { cat "$here/package.json" "$here/package-lock.json" "$here"/src/*.js | sha256sum | cut -d' ' -f1; }

want="$(inputs_hash)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -f "$bundle" ]]; then
    echo "$bundle"
    exit 0
fi

command -v npm >/dev/null || { echo "install.sh: npm is required (apt-get install npm)" >&2; exit 1; }
rm -f "$stamp"
log="$here/npm-ci.log"
if [[ ! -f "$here/node_modules/.package-lock.json" ]] || ! cmp -s <(sha256sum <"$here/package-lock.json") <(cat "$here/node_modules/.lock-source" 2>/dev/null); then
    # --ignore-scripts: esbuild finds its binary in the pinned @esbuild/linux-x64 package without
    # its postinstall; nothing else has install scripts.
    if ! (cd "$here" && timeout 300 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >"$log" 2>&1); then
        echo "install.sh: npm ci failed, log follows ($log)" >&2
        cat "$log" >&2
        exit 1
    fi
    sha256sum <"$here/package-lock.json" >"$here/node_modules/.lock-source"
fi

if ! (cd "$here" && node_modules/.bin/esbuild src/host.js --bundle --format=esm --platform=browser \
        --target=chrome120 --log-level=error --outfile=dist/host.js); then
    echo "install.sh: bundling src/host.js failed" >&2
    exit 1
fi
rm -f "$log"
echo "$want" >"$stamp"
[[ "${APPHOST_VERBOSE:-0}" == 1 ]] && echo "install.sh: installed the test host into $here" >&2
echo "$bundle"
