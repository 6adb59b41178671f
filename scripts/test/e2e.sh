#!/usr/bin/env bash
# The browser tests (e2e/browser_test.py): the demo page in headless Chromium with WebAuthn virtual authenticators,
# against real passkeyd processes (scripts/dev.sh test runs it after the smoke test).
#
#   scripts/test/e2e.sh BIN_DIR    BIN_DIR holds passkeyd; PASSKEYD_DATABASE_URL must be set; needs Debian's chromium,
#                             chromium-driver, python3-selenium and python3-pytest (scripts/dev.sh test installs them)
#
# Starts two passkeyd on free loopback ports with PASSKEYD_DEMO=on, PASSKEYD_RP_ID=localhost and
# PASSKEYD_ORIGINS=http://localhost:<port>, on the same database: one with the default policy (user verification
# required), one with PASSKEYD_USER_VERIFICATION=preferred-unsafe for the U2F authenticator, one with sessions on
# (the native-to-web-view handoff; the native side is passkeyd-softkey from BIN_DIR). Runs the tests, stops them. Screenshots go to ${PASSKEYD_E2E_ARTIFACTS:-var/artifacts}.
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/e2e.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python=/usr/bin/python3  # Debian's, which has python3-selenium and python3-pytest
# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
admin_key="e2e-admin-$(date +%s%N)"

# start NAME [VAR=VALUE…]: a passkeyd on a free port, ready; sets $started_port
start() {
    local name=$1
    shift
    pk_start "$name" PASSKEYD_RP_ID=localhost PASSKEYD_ORIGINS="http://localhost:@PORT@" \
        PASSKEYD_DEMO=on PASSKEYD_ADMIN_KEYS="$admin_key" PASSKEYD_MIGRATIONS="$repo/Migrations" \
        PASSKEYD_LOG_LEVEL="${PASSKEYD_LOG_LEVEL:-warning}" "$@"
    started_port=$PK_PORT
}

start default
port=$started_port
start u2f PASSKEYD_USER_VERIFICATION=preferred-unsafe
port_u2f=$started_port
# The key-encryption key is pk_init's (the shared var/kek): the test database keeps keys sealed under it.
start sessions PASSKEYD_SESSIONS=on
port_sessions=$started_port

mkdir -p "${PASSKEYD_E2E_ARTIFACTS:-$repo/var/artifacts}"
status=0
PASSKEYD_E2E_URL="http://localhost:$port" PASSKEYD_E2E_URL_U2F="http://localhost:$port_u2f" \
    PASSKEYD_E2E_URL_SESSIONS="http://localhost:$port_sessions" PASSKEYD_E2E_SOFTKEY="$bin/passkeyd-softkey" \
    PYTHONDONTWRITEBYTECODE=1 PASSKEYD_E2E_ADMIN_KEY="$admin_key" PASSKEYD_E2E_ARTIFACTS="${PASSKEYD_E2E_ARTIFACTS:-$repo/var/artifacts}" \
    "$python" -m pytest -p no:cacheprovider -v "$repo/e2e/browser_test.py" || status=$?
if ((status != 0)); then
    for log in "$work"/*.log; do echo "--- $(basename "$log")" >&2; cat "$log" >&2; done
fi
exit $status
