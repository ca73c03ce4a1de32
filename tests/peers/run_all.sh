#!/usr/bin/env bash
# Every proof against real peers, in order, for CI: install the pinned peers, then
#   1. the official conformance suite     (tests/peers/run_conformance.sh)
#   2. the TypeScript SDK interop client  (tests/peers/run_ts_interop.sh)
#   3. two replicas behind nginx          (tests/peers/replicas.sh)
# Runs all three even if one fails, prints a summary, exits non-zero if any failed.
# nginx comes from Debian packages: installed here when missing and we are root
# (PEERS_NO_APT=1 to forbid that).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
started=$SECONDS

if ! "$here/install.sh" >/dev/null; then
    echo "peers: install failed" >&2
    exit 1
fi
if ! command -v nginx >/dev/null && [[ ! -x /usr/sbin/nginx ]]; then
    if [[ "$(id -u)" == 0 && "${PEERS_NO_APT:-0}" != 1 ]] && command -v apt-get >/dev/null; then
        echo "== installing nginx-light (Debian)"
        export DEBIAN_FRONTEND=noninteractive
        timeout 300 apt-get install -y -qq --no-install-recommends nginx-light >/dev/null 2>&1 ||
            { timeout 120 apt-get update -qq >/dev/null 2>&1 &&
                timeout 300 apt-get install -y -qq --no-install-recommends nginx-light >/dev/null 2>&1; } ||
            echo "peers: could not install nginx-light" >&2
    fi
fi

declare -A verdict
for step in run_conformance run_ts_interop replicas; do
    echo
    echo "######## tests/peers/$step.sh"
    if timeout --kill-after=10 400 "$here/$step.sh"; then
        verdict[$step]=ok
    else
        verdict[$step]="FAILED (exit $?)"
    fi
done

echo
echo "######## peers summary ($((SECONDS - started))s)"
failed=0
for step in run_conformance run_ts_interop replicas; do
    printf '  %-16s %s\n' "$step" "${verdict[$step]}"
    [[ "${verdict[$step]}" == ok ]] || failed=1
done
exit $failed
