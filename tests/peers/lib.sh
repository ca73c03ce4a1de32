# Shared helpers for the peer scripts (sourced, not run). Bash only.
#
#   peers_init              repo paths, python, node 22 (installs peers if needed), temp dir, EXIT trap
#   peers_serve VAR LOG ... start a server command in the background (bounded by `timeout`),
#                           wait up to PEERS_READY_TIMEOUT s for its "READY <url>" line, and
#                           store the URL in VAR; fails with the log on timeout or early exit
#   peers_kill_all          stop everything this script started (by pid, SIGTERM then SIGKILL)

PEERS_READY_TIMEOUT="${PEERS_READY_TIMEOUT:-20}"
# Hard upper bound on the life of any process a peer script starts.
PEERS_MAX_LIFETIME="${PEERS_MAX_LIFETIME:-300}"
PEERS_PIDS=()

peers_init() {
    PEERS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    REPO="$(cd "$PEERS_DIR/../.." && pwd)"
    PY="${PYTHON:-$REPO/.venv/bin/python}"
    [[ -x "$PY" ]] || PY="$(command -v python3)"
    NODE22="$("$PEERS_DIR/install.sh")"
    CONFORMANCE="$REPO/.peers/node_modules/@modelcontextprotocol/conformance/dist/index.js"
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/peers.XXXXXX")"
    trap peers_on_exit EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

peers_on_exit() {
    local rc=$?
    peers_kill_all
    if [[ $rc -ne 0 || "${PEERS_KEEP:-0}" == 1 ]]; then
        echo "peers: logs kept in $WORK" >&2
    else
        rm -rf "$WORK"
    fi
    exit $rc
}

peers_serve() {
    local __var="$1" log="$2"
    shift 2
    timeout --kill-after=5 "$PEERS_MAX_LIFETIME" "$@" >"$log" 2>&1 &
    local pid=$!
    PEERS_PIDS+=("$pid")
    local deadline=$((SECONDS + PEERS_READY_TIMEOUT)) url=""
    while ((SECONDS < deadline)); do
        url="$(awk '/^READY /{print $2; exit}' "$log" 2>/dev/null || true)"
        [[ -n "$url" ]] && break
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "peers: server exited before it was ready: $*" >&2
            cat "$log" >&2
            return 1
        fi
        sleep 0.1
    done
    if [[ -z "$url" ]]; then
        echo "peers: server not ready after ${PEERS_READY_TIMEOUT}s: $*" >&2
        cat "$log" >&2
        return 1
    fi
    printf -v "$__var" '%s' "$url"
}

peers_track() {  # remember a pid started elsewhere so peers_kill_all stops it
    PEERS_PIDS+=("$1")
}

peers_kill_all() {
    local pid
    for pid in "${PEERS_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    local deadline=$((SECONDS + 5))
    for pid in "${PEERS_PIDS[@]}"; do
        while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    PEERS_PIDS=()
}
