#!/usr/bin/env bash
# TypeScript-SDK interop: the official TS client (@modelcontextprotocol/sdk, pinned in
# tests/peers/package.json) holds the scripted conversations of tests/peers/ts_client/scenarios.mjs with
# tests/peers/servers/interop_server.py over stdio and over streamable HTTP (127.0.0.1, free port), on
# protocol revisions 2025-11-25 and 2025-06-18. The TS SDK validates every elicitation/create
# it receives; tests/peers/ts_client/strict.mjs additionally refuses any key outside the spec.
#
# Exits 0 only if every conversation passed and every spec schema kind was exercised.
# Bounded: the client has a watchdog (TS_CLIENT_TIMEOUT_MS, default 120 s) and an outer
# timeout; the HTTP server is stopped on exit. PEERS_KEEP=1 keeps the logs.
#
# Environment: PYTHON (default .venv/bin/python), INTEROP_SERVER.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
peers_init

SERVER_FILE="${INTEROP_SERVER:-$PEERS_DIR/servers/interop_server.py}"
[[ -f "$SERVER_FILE" ]] || { echo "run_ts_interop: $SERVER_FILE is missing" >&2; exit 1; }
started=$SECONDS
sdk_version="$("$NODE22" -p "require('$REPO/.peers/node_modules/@modelcontextprotocol/sdk/package.json').version")"
echo "== TypeScript SDK $sdk_version on node $("$NODE22" --version), server $(basename "$SERVER_FILE")"

peers_serve URL "$WORK/server.log" "$PY" "$PEERS_DIR/serve_http.py" "$SERVER_FILE"
echo "== http server at $URL"

rc=0
timeout --kill-after=5 150 "$NODE22" "$PEERS_DIR/ts_client/client.mjs" \
    --http "$URL" --stdio "$PY" "$SERVER_FILE" "$@" || rc=$?
if [[ $rc -ne 0 ]]; then
    echo "----- http server log (tail)" >&2
    tail -n 30 "$WORK/server.log" >&2 || true
    exit "$rc"
fi
echo "== TS interop done in $((SECONDS - started))s"
