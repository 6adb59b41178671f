#!/usr/bin/env bash
# A bounded begin flood on loopback against a real passkeyd (scripts/dev.sh test runs it after failover-test.sh).
#
#   scripts/test/flood-test.sh BIN_DIR    BIN_DIR holds passkeyd and passkeyd-softkey; PASSKEYD_DATABASE_URL must be
#                                    set (a postgresql:// URI; its database is used, user names are unique per run)
#
# With ceremony keys (PASSKEYD_KEY_ENCRYPTION_KEY_FILE or PASSKEYD_CEREMONY_KEY_FILES set, as the test command sets
# them) ceremonies are stateless and the run checks instead that the flood (at least 100,000 begins, phase B running up to 240 s to send them) leaves no row
# and no 5xx while the legitimate client keeps signing in (flood-load.py, FLOOD_STATELESS).
#
# Starts passkeyd on a free loopback port with a small global cap (PASSKEYD_PENDING_MAX=${FLOOD_CAP:-3000}),
# PASSKEYD_CHALLENGE_TTL=30 (the minimum), a per-address limit of 100/s:200 with the address taken from
# X-Forwarded-For (so one loopback load generator is thousands of clients), then runs scripts/test/flood-load.py
# (Python 3 standard library): 16 keep-alive connections flood begins for ${FLOOD_PHASE_A_SECONDS:-5} s from 2
# addresses (429 rate_limited) and ${FLOOD_PHASE_B_SECONDS:-30} s from 5000 (503 ceremony_capacity_reached once the
# table is full; the flood outlasts one TTL, so rows expire and are purged while it goes on), mixing `{}` sign-in
# begins, sign-in begins naming one targeted user (429 too_many_pending_ceremonies) and registration begins for new
# names; a legitimate client on its own address signs in by name every 0.5 s; the table and VmRSS are sampled every
# 0.5 s; then up to ${FLOOD_DRAIN_SECONDS:-15} s without load for the purge. About 55 s in all.
#
# Fails when the table ever held more rows than the cap (+ ${FLOOD_CAP_SLACK:-8}: saves in flight at once each see
# the count below the cap, at most one per pooled connection, PASSKEYD_POOL_SIZE 8), a 5xx other than 503
# ceremony_capacity_reached (or a transport error) appeared, passkeyd crashed or did not exit 0 on SIGTERM, or VmRSS
# grew more than ${FLOOD_RSS_BOUND_MB:-64} MB over its figure after the warm-up. passkeyd keeps no per-ceremony state
# in memory (the table is in PostgreSQL); what may grow under a flood is the rate limiters' keys (at most 100,000,
# 5,000 here), allocator arenas and connection buffers: a few MB measured. 64 MB is far above that and below what a
# leak of 1 KB per request would add over the ~70,000 requests of a run. See docs/operations.md "Abuse limits".
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/flood-test.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
: "${PASSKEYD_DATABASE_URL:?PASSKEYD_DATABASE_URL must be set}"
pgbin="${PASSKEYD_PG_BINDIR:-/usr/lib/postgresql/15/bin}"
# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
cap="${FLOOD_CAP:-3000}"
ttl=30
run="fl$(date +%s%N | tail -c 10)"
db_url="$PASSKEYD_DATABASE_URL"

export PASSKEYD_MIGRATIONS="$repo/Migrations" PASSKEYD_ORIGINS="http://localhost:8080"
export PASSKEYD_LOG_LEVEL="${PASSKEYD_LOG_LEVEL:-warning}"
export PASSKEYD_PENDING_MAX="$cap" PASSKEYD_PENDING_PER_USER=20 PASSKEYD_CHALLENGE_TTL="$ttl"
export PASSKEYD_RATE_LIMIT_CLIENT="100/s:200" PASSKEYD_CLIENT_ADDRESS_HEADER="X-Forwarded-For"
# The legitimate client signs in twice a second, over the default per-user 1/s:10; 5/s:20 lets it through and
# still lets the targeted user's begins reach the per-user pending cap (20) within one TTL.
export PASSKEYD_RATE_LIMIT_USER="5/s:20"

fail() { echo "flood-test: FAIL: $*" >&2; tail -n 20 "$work/passkeyd.log" >&2; exit 1; }
# With a key-encryption key or ceremony key files, ceremonies are stateless: begins write nothing (flood-load.py).
stateless=0
[[ -n ${PASSKEYD_KEY_ENCRYPTION_KEY_FILE:-}${PASSKEYD_CEREMONY_KEY_FILES:-} ]] && stateless=1
echo "flood-test: ceremonies are $([[ $stateless == 1 ]] && echo "stateless (ceremony keys): begins must write nothing" || echo "stored in the ceremonies table: caps apply")"
pk_start passkeyd
server=$PK_PID
api=$PK_URL

set +e
FLOOD_API="$api" FLOOD_PID="$server" FLOOD_PSQL="$pgbin/psql" FLOOD_DB_URL="$db_url" FLOOD_SOFTKEY="$bin/passkeyd-softkey" \
    FLOOD_WORK="$work" FLOOD_CAP="$cap" FLOOD_TTL="$ttl" FLOOD_RUN="$run" FLOOD_STATELESS="$stateless" \
    python3 "$repo/scripts/test/flood-load.py"
load_status=$?
set -e

kill -0 "$server" 2>/dev/null || fail "passkeyd is not running any more (crashed)"
kill -TERM "$server"
set +e
wait "$server"
exit_code=$?
set -e
warnings=$(grep -c '"level":"warning"' "$work/passkeyd.log" || true)
other_warnings=$(grep '"level":"warning"' "$work/passkeyd.log" | grep -vc '"code":"ceremony_capacity_reached"' || true)
echo "flood-test: passkeyd exited with $exit_code after SIGTERM; $warnings warning log lines, $other_warnings not about ceremony_capacity_reached"
grep '"level":"warning"' "$work/passkeyd.log" | grep -v '"code":"ceremony_capacity_reached"' | head -n 5 | sed 's/^/flood-test: log: /' || true
[[ $exit_code == 0 ]] || fail "passkeyd exited with $exit_code, wanted 0"
((load_status == 0)) || fail "see above (flood-load.py exited with $load_status)"
echo "flood-test: passed"
