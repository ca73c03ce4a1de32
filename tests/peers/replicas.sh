#!/usr/bin/env bash
# Several replicas behind a real load balancer, on loopback only:
#
#   nginx (Debian package, foreground, temp prefix; config from tests/peers/nginx.conf.template)
#     round-robin        -> r1, r2   (tests/peers/servers/interop_server.py, keys [K1, K2], short TTL)
#     sticky on mcp-session-id prefix (push-era sessions)
#   direct, no nginx:      rotating (keys [K2, K1]), retired (keys [K2])
#
# Every server shares one store: Redis at PEERS_STORE_URL (default redis://127.0.0.1:6379/12,
# flushed first), so single-use rounds and fallback tokens hold across replicas.
#
# then tests/peers/replica_check.py runs the checks (2026-07-28 wizard across replicas; tampered,
# replayed and expired state refused; key rotation; push-era sticky sessions; a final round
# resent 20 times across both replicas applied once; a token redeemed on both at once used once).
# Exits 0 only if every check passed. Bounded; stops everything it started.
#
# Needs nginx on PATH (apt-get install nginx-light). PEERS_KEEP=1 keeps logs.
# Environment: PYTHON, REPLICA_SERVER (default tests/peers/servers/interop_server.py), PEERS_STATE_TTL (4).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
peers_init

NGINX="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
[[ -x "$NGINX" ]] || { echo "replicas: nginx not found; apt-get install -y nginx-light" >&2; exit 1; }
SERVER_FILE="${REPLICA_SERVER:-$PEERS_DIR/servers/interop_server.py}"
TTL="${PEERS_STATE_TTL:-4}"
started=$SECONDS

# Fresh random keys for this run (>= 32 bytes each); K1 is "old", K2 is "new".
K1="$("$PY" -c 'import secrets; print(secrets.token_hex(32))')"
K2="$("$PY" -c 'import secrets; print(secrets.token_hex(32))')"

STORE_URL="${PEERS_STORE_URL:-redis://127.0.0.1:6379/12}"
PAGES_URL="http://pages.test"  # the origin the replicas' pages name; the check submits to a replica directly
"$PY" - "$STORE_URL" <<'PYEOF' || { echo "replicas: no Redis at $STORE_URL; start one: redis-server --port 6379 --save '' --daemonize yes" >&2; exit 1; }
import sys, redis
redis.Redis.from_url(sys.argv[1], socket_connect_timeout=2).flushdb()
PYEOF

serve() {  # VAR NAME KEYS [--replica NAME]
    local var="$1" name="$2" keys="$3"
    shift 3
    PEERS_STATE_KEYS="$keys" PEERS_STATE_TTL="$TTL" PEERS_STORE_URL="$STORE_URL" PEERS_PAGES_URL="$PAGES_URL" \
        peers_serve "$var" "$WORK/$name.log" "$PY" "$PEERS_DIR/serve_http.py" "$SERVER_FILE" "$@"
}
serve R1 r1 "$K1,$K2" --replica r1
serve R2 r2 "$K1,$K2" --replica r2
serve ROT rotating "$K2,$K1"
serve RET retired "$K2"
port_of() { local u="${1#http://127.0.0.1:}"; echo "${u%%/*}"; }

# nginx cannot listen on port 0: take a free port from the kernel, retry on a lost race.
prefix="$WORK/nginx"
mkdir -p "$prefix/tmp"
LB=""
for attempt in 1 2 3; do
    lb_port="$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    sed -e "s#@PREFIX@#$prefix#g" -e "s#@PORT1@#$(port_of "$R1")#g" -e "s#@PORT2@#$(port_of "$R2")#g" \
        -e "s#@LB_PORT@#$lb_port#g" "$PEERS_DIR/nginx.conf.template" >"$prefix/nginx.conf"
    "$NGINX" -t -q -p "$prefix" -e "$prefix/error.log" -c "$prefix/nginx.conf"
    timeout --kill-after=5 "$PEERS_MAX_LIFETIME" "$NGINX" -p "$prefix" -e "$prefix/error.log" \
        -c "$prefix/nginx.conf" >"$WORK/nginx.out" 2>&1 &
    peers_track $!
    for _ in $(seq 50); do
        if "$PY" -c "import socket,sys; socket.create_connection(('127.0.0.1', $lb_port), 0.2)" 2>/dev/null; then
            LB="http://127.0.0.1:$lb_port/mcp"
            break 2
        fi
        sleep 0.1
    done
    echo "replicas: nginx did not come up on port $lb_port (attempt $attempt)" >&2
    cat "$prefix/error.log" >&2 || true
done
[[ -n "$LB" ]] || exit 1
echo "== nginx $("$NGINX" -v 2>&1 | sed 's#.*/##') at $LB -> r1 $R1, r2 $R2 (state TTL ${TTL}s)"

rc=0
timeout --kill-after=5 120 "$PY" "$PEERS_DIR/replica_check.py" --lb "$LB" --ttl "$TTL" --store "$STORE_URL" \
    --direct "r1=$R1" --direct "r2=$R2" --direct "rotating=$ROT" --direct "retired=$RET" || rc=$?
if [[ $rc -ne 0 || "${PEERS_VERBOSE:-0}" == 1 ]]; then
    echo "----- nginx access log (routing)" >&2
    cat "$prefix/access.log" >&2 || true
    for n in r1 r2 rotating retired; do
        echo "----- $n log (tail)" >&2
        tail -n 15 "$WORK/$n.log" >&2 || true
    done
fi
[[ $rc -eq 0 ]] || exit "$rc"
echo "== replicas done in $((SECONDS - started))s"
