#!/usr/bin/env bash
# Run the official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# tests/peers/package.json) against typed_elicit, on loopback only:
#
#   server side: tests/peers/servers/conformance_server.py (typed_elicit models only), served over
#                streamable HTTP on 127.0.0.1:<free port>, scenarios
#                tools-call-elicitation, elicitation-sep1034-defaults, elicitation-sep1330-enums
#   client side: tests/peers/conformance_client.py (typed_elicit's client side), scenario
#                elicitation-sep1034-client-defaults
#
# Exits 0 only if every check of every scenario is SUCCESS (tests/peers/check_results.py).
# Bounded: each suite run has a timeout, the server lives at most PEERS_MAX_LIFETIME s, and
# everything started here is stopped on exit. PEERS_KEEP=1 keeps the logs and checks.json.
#
# Environment: PYTHON (default .venv/bin/python), CONFORMANCE_SERVER, CONFORMANCE_CLIENT.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
peers_init

SERVER_FILE="${CONFORMANCE_SERVER:-$PEERS_DIR/servers/conformance_server.py}"
CLIENT_FILE="${CONFORMANCE_CLIENT:-$PEERS_DIR/conformance_client.py}"
SERVER_SCENARIOS=(tools-call-elicitation elicitation-sep1034-defaults elicitation-sep1330-enums)
CLIENT_SCENARIO=elicitation-sep1034-client-defaults
RESULTS="$WORK/results"
mkdir -p "$RESULTS"
started=$SECONDS

echo "== conformance $("$NODE22" "$CONFORMANCE" --version) on node $("$NODE22" --version), $("$PY" --version)"

# --- server scenarios -------------------------------------------------------------------
[[ -f "$SERVER_FILE" ]] || { echo "run_conformance: $SERVER_FILE is missing" >&2; exit 1; }
peers_serve URL "$WORK/server.log" "$PY" "$PEERS_DIR/serve_http.py" "$SERVER_FILE"
echo "== server $(basename "$SERVER_FILE") at $URL"
for scenario in "${SERVER_SCENARIOS[@]}"; do
    # The suite's own exit code ignores WARNINGs; check_results.py below is the judge.
    timeout --kill-after=5 60 "$NODE22" "$CONFORMANCE" server --url "$URL" --scenario "$scenario" \
        -o "$RESULTS" >"$WORK/server-$scenario.out" 2>&1 || true
    grep -E '^(Passed|Failed):' "$WORK/server-$scenario.out" | sed "s/^/   $scenario: /" || true
done
peers_kill_all

# --- client scenario --------------------------------------------------------------------
# The suite runs `<command> <server url>` through a shell after splitting --command on
# spaces, so the paths must not contain spaces.
client_cmd="$PY $CLIENT_FILE"
if [[ "$client_cmd" == *" "*" "* ]]; then
    echo "run_conformance: the client command must not contain spaces in paths: $client_cmd" >&2
    exit 1
fi
if [[ -f "$CLIENT_FILE" ]]; then
    timeout --kill-after=5 60 "$NODE22" "$CONFORMANCE" client --command "$client_cmd" \
        --scenario "$CLIENT_SCENARIO" --timeout 30000 -o "$RESULTS" >"$WORK/client.out" 2>&1 || true
    grep -E '^(Passed|Failed):' "$WORK/client.out" | sed "s/^/   $CLIENT_SCENARIO: /" || true
else
    echo "run_conformance: $CLIENT_FILE is missing: client scenario NOT run" >&2
fi

# --- verdict ----------------------------------------------------------------------------
if ! "$PY" "$PEERS_DIR/check_results.py" "$RESULTS" "${SERVER_SCENARIOS[@]}" "$CLIENT_SCENARIO"; then
    echo "----- server log (tail); every suite output is kept in $WORK" >&2
    tail -n 30 "$WORK/server.log" >&2 || true
    exit 1
fi
echo "== conformance done in $((SECONDS - started))s"
