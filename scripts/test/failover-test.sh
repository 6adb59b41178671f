#!/usr/bin/env bash
# Failover under load with a real streaming replica (scripts/dev.sh test runs it after shutdown-test.sh).
#
#   scripts/test/failover-test.sh BIN_DIR [--async]
#
# BIN_DIR holds passkeyd and passkeyd-softkey. Starts two PostgreSQL 15 clusters of its own on 127.0.0.1
# (primary and standby on free ports, or on $FAILOVER_PORT and the next one when set; under var/failover, or /tmp
# when the postgres user cannot reach var/): the standby is a `pg_basebackup -R` of the primary, streaming, and synchronous
# (synchronous_standby_names = standby1, synchronous_commit = on). With --async the primary does not wait for it,
# and the standby's link is cut (primary_conninfo pointed at a closed port) ${FAILOVER_LAG_SECONDS:-2} s before the
# primary stops, standing for a replica that lags or lost its link.
#
# passkeyd runs with PASSKEYD_DATABASE_URL=postgresql://postgres@127.0.0.1:P1,127.0.0.1:P2/passkeyd?
# target_session_attrs=read-write. ${FAILOVER_WORKERS:-6} workers (scripts/lib/ackload.sh: new users registering,
# then signing in) run for ${FAILOVER_SECONDS:-24} s; after ${FAILOVER_SWITCH_AT:-8} s the primary is stopped
# (pg_ctl stop -m immediate) and, ${FAILOVER_PROMOTE_DELAY:-1} s later, the standby promoted (pg_ctl promote).
# passkeyd is not restarted. Afterwards, on the new primary: every acknowledged registration (201) must exist
# and every credential's sign_count must be ≥ the highest counter acknowledged (200) for it.
# Prints acknowledged requests before/after the switch, failures during it, the time to the first acknowledged
# finish after the stop, and exits 1 on any loss. Stops by itself (load deadline; every step has a timeout).
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/failover-test.sh BIN_DIR [--async]}" && pwd)"
mode="sync"
[[ ${2:-} == --async ]] && mode="async"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
# shellcheck source=scripts/lib/ackload.sh
source "$repo/scripts/lib/ackload.sh"
# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
# shellcheck source=scripts/lib/standby.sh
source "$repo/scripts/lib/standby.sh"
pk_init
chmod 0755 "$work"
if [[ -n ${FAILOVER_PORT:-} ]]; then
    p1=$FAILOVER_PORT
    p2=$((p1 + 1))
else
    p1=$(pk_free_port)
    p2=$(pk_free_port)
    while [[ $p2 == "$p1" ]]; do p2=$(pk_free_port); done
fi
workers="${FAILOVER_WORKERS:-6}"
seconds="${FAILOVER_SECONDS:-24}"
switch_at="${FAILOVER_SWITCH_AT:-8}"

fail() { echo "failover-test: FAIL: $*" >&2; tail -n 20 "$work/passkeyd.log" >&2 2>/dev/null || true; exit 1; }

# --- the two clusters (scripts/lib/standby.sh) ---
pg_pair_init failover
root=$pg_root primary=$pg_primary standby=$pg_standby
sync_names="standby1"
[[ $mode == async ]] && sync_names=""
pg_pair_start "$p1" "$p2" "$sync_names"
state=$pg_state
echo "failover-test: mode $mode; primary :$p1, standby :$p2 ($state), clusters in $root"
[[ $mode == sync && $state != "standby1:streaming:sync" ]] && fail "the standby is not a synchronous streaming replica ($state)"

# --- passkeyd on the multi-host URL ---
ACKLOAD_PREFIX="fo$(date +%s%N | tail -c 10)"
export PATH="$bin:$PATH" ACKLOAD_PREFIX
export PASSKEYD_DATABASE_URL="postgresql://postgres@127.0.0.1:$p1,127.0.0.1:$p2/passkeyd?target_session_attrs=read-write"
export PASSKEYD_MIGRATIONS="$repo/Migrations" PASSKEYD_ORIGINS="http://localhost:8080"
export PASSKEYD_LOG_LEVEL="${PASSKEYD_LOG_LEVEL:-warning}" PASSKEYD_DB_CONNECT_TIMEOUT="${PASSKEYD_DB_CONNECT_TIMEOUT:-2}"
pk_start passkeyd
server=$PK_PID
export API="$PK_URL"

# --- load, switch, more load ---
start=$(date +%s.%N)
deadline=$(($(date +%s) + seconds))
pids=()
for ((w = 1; w <= workers; w++)); do
    ackload_worker "$w" "$work" "$work/stop" "$deadline" &
    pids+=($!)
done
if [[ $mode == async ]]; then
    sleep $((switch_at - ${FAILOVER_LAG_SECONDS:-2}))
    # Cut the standby's link: its WAL receiver restarts with a primary_conninfo that leads nowhere.
    timeout 20 "${psql2[@]}" -d postgres -c "ALTER SYSTEM SET primary_conninfo = 'host=127.0.0.1 port=1 user=postgres'" \
        -c "SELECT pg_reload_conf()" >/dev/null || fail "could not cut the standby's link"
    sleep "${FAILOVER_LAG_SECONDS:-2}"
else
    sleep "$switch_at"
fi
stop_at=$(date +%s.%N)
as_pg "$pgbin/pg_ctl" stop -D "$primary" -m immediate -w -t 20 >/dev/null || fail "could not stop the primary"
sleep "${FAILOVER_PROMOTE_DELAY:-1}"
as_pg "$pgbin/pg_ctl" promote -D "$standby" -w -t 30 >/dev/null || fail "could not promote the standby"
promoted_at=$(date +%s.%N)
for pid in "${pids[@]}"; do wait "$pid" || true; done
touch "$work/stop"
alive=yes
kill -0 "$server" 2>/dev/null || alive=no

# --- count and check on the new primary ---
cat "$work"/log.* >"$work/requests.log"
read -r acked_before acked_after recovered_at < <(awk -v s="$stop_at" '
    $1 ~ /finish$/ && $4 ~ /^2/ && $3 <= s { before++ }
    $1 ~ /finish$/ && $4 ~ /^2/ && $3 > s { after++ }
    $2 > s && $4 ~ /^2/ && (first == "" || $3 < first) { first = $3 }
    END { printf "%d %d %s\n", before, after, (first == "" ? "none" : first) }' "$work/requests.log")
# Recovered: the first request sent after the stop that succeeded (every ceremony request writes to the primary).
if [[ $recovered_at != none ]]; then
    failed_switch=$(awk -v s="$stop_at" -v f="$recovered_at" '$3 > s && $3 < f && $4 !~ /^2/' "$work/requests.log" | wc -l)
    recovery=$(awk -v a="$stop_at" -v b="$recovered_at" 'BEGIN { printf "%.2f", b - a }')
    after_promote=$(awk -v a="$promoted_at" -v b="$recovered_at" 'BEGIN { printf "%.2f", b - a }')
else
    failed_switch=$(awk -v s="$stop_at" '$3 > s && $4 !~ /^2/' "$work/requests.log" | wc -l)
    recovery="never"
    after_promote="never"
fi
failed_total=$(awk '$4 !~ /^2/' "$work/requests.log" | wc -l)
statuses=$(awk -v s="$stop_at" '$3 > s && $4 !~ /^2/ { n[$4 "/" $5]++ } END { for (k in n) printf "%s×%d ", k, n[k] }' "$work/requests.log")
acked_before_reg=$(awk -v s="$stop_at" '$1 == "regfinish" && $4 == 201 && $3 <= s' "$work/requests.log" | wc -l)
acked_before_auth=$(awk -v s="$stop_at" '$1 == "authfinish" && $4 == 200 && $3 <= s' "$work/requests.log" | wc -l)
ackload_check "$work" "${psql2[@]}" -d passkeyd >"$work/check.txt" 2>"$work/check.err" || true
lost=$((ACKLOAD_MISSING + ACKLOAD_BEHIND))

echo "failover-test: $workers workers for ${seconds} s; primary stopped (immediate) at +$(awk -v a="$start" -v b="$stop_at" 'BEGIN { printf "%.1f", b - a }') s, standby promoted $(awk -v a="$stop_at" -v b="$promoted_at" 'BEGIN { printf "%.1f", b - a }') s later; passkeyd not restarted (still running: $alive)"
echo "failover-test: acknowledged finishes before the stop $acked_before ($acked_before_reg registrations, $acked_before_auth sign-ins), after it $acked_after"
echo "failover-test: requests failed between the stop and the first success after it: $failed_switch (HTTP/curl: ${statuses:-none}); failed in the whole run: $failed_total"
echo "failover-test: time to recover (first request sent after the stop to succeed): $recovery s after the stop, $after_promote s after the promotion"
echo "failover-test: on the new primary: $(cat "$work/check.txt")"
[[ -s $work/check.err ]] && head -n 10 "$work/check.err" | sed 's/^/failover-test: /'
echo "failover-test: lost acknowledged requests: $lost"
[[ $alive == yes ]] || fail "passkeyd exited"
[[ $recovered_at != none ]] || fail "passkeyd did not recover after the promotion"
((lost == 0)) || fail "$lost acknowledged registrations or counter advances are missing on the new primary ($mode replication)"
echo "failover-test: passed ($mode replication)"
