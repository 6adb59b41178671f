#!/usr/bin/env bash
# SIGTERM under load, against a real passkeyd process (scripts/dev.sh test runs it after smoke.sh).
#
#   scripts/test/shutdown-test.sh BIN_DIR    BIN_DIR holds passkeyd and passkeyd-softkey; PASSKEYD_DATABASE_URL must be
#                                       set (a postgresql:// URI; its database is used, names are unique per run)
#
# Starts passkeyd on a free loopback port with application_name passkeyd-shutdown-<run>, runs
# ${SHUTDOWN_WORKERS:-8} workers (scripts/lib/ackload.sh: new users registering, then signing in) for
# ${SHUTDOWN_LOAD_SECONDS:-4} s, then holds an EXCLUSIVE lock on credentials for a second (so that finishes are in
# flight inside passkeyd) and sends SIGTERM in the middle of it. Then checks and prints:
#   - passkeyd exited with 0 (within PASSKEYD_SHUTDOWN_TIMEOUT);
#   - every request sent before the signal got an HTTP answer (in flight at the signal = sent before it and
#     answered after it), none was cut; requests after it were refused (curl: connection refused);
#   - every acknowledged registration and counter is in the database;
#   - pg_stat_activity shows no connection of this passkeyd left (the pool closed).
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/shutdown-test.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/lib/ackload.sh
source "$repo/scripts/lib/ackload.sh"
: "${PASSKEYD_DATABASE_URL:?PASSKEYD_DATABASE_URL must be set}"
pgbin="${PASSKEYD_PG_BINDIR:-/usr/lib/postgresql/15/bin}"
# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
workers="${SHUTDOWN_WORKERS:-8}"
run="sd$(date +%s%N | tail -c 10)"
app="passkeyd-shutdown-$run"
export PATH="$bin:$PATH" ACKLOAD_PREFIX="$run"
db_url="$PASSKEYD_DATABASE_URL"
separator="?"; [[ $db_url == *\?* ]] && separator="&"
export PASSKEYD_DATABASE_URL="$db_url${separator}application_name=$app"
export PASSKEYD_MIGRATIONS="$repo/Migrations" PASSKEYD_ORIGINS="http://localhost:8080"
export PASSKEYD_LOG_LEVEL="${PASSKEYD_LOG_LEVEL:-info}"
psql=("$pgbin/psql" "$db_url")

fail() { echo "shutdown-test: FAIL: $*" >&2; tail -n 20 "$work/passkeyd.log" >&2; exit 1; }
pk_start passkeyd
server=$PK_PID
export API="$PK_URL"

deadline=$(($(date +%s) + 60))
export ACKLOAD_STOP_ON_REFUSED=1
pids=()
for ((w = 1; w <= workers; w++)); do
    ackload_worker "$w" "$work" "$work/stop" "$deadline" &
    pids+=($!)
done
sleep "${SHUTDOWN_LOAD_SECONDS:-4}"
connections_before=$("${psql[@]}" -X -A -t -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'")

# Writers now block on the lock inside passkeyd; SIGTERM arrives while they are in flight.
"${psql[@]}" -X -q -c "BEGIN; LOCK TABLE credentials IN EXCLUSIVE MODE; SELECT pg_sleep(1.5); COMMIT;" >/dev/null &
locker=$!
for _ in $(seq 100); do
    [[ $("${psql[@]}" -X -A -t -c "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
        WHERE c.relname = 'credentials' AND l.mode = 'ExclusiveLock' AND l.granted") == 1 ]] && break
    sleep 0.02
done
sleep 0.7
signal_at=$(date +%s.%N)
kill -TERM "$server"
set +e
wait "$server"
exit_code=$?
set -e
stopped_at=$(date +%s.%N)
wait "$locker" || true
# Workers stop at their first refused connection; a last request may still be in curl's connect.
for pid in "${pids[@]}"; do wait "$pid" || true; done
touch "$work/stop"

# Connections of this passkeyd still open (backends exit right after the client goes; poll briefly).
connections_after=-1
for _ in $(seq 20); do
    connections_after=$("${psql[@]}" -X -A -t -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'")
    [[ $connections_after == 0 ]] && break
    sleep 0.1
done

cat "$work"/log.* >"$work/requests.log"
read -r sent_before in_flight cut refused after_ok unread < <(awk -v t="$signal_at" '
    $2 < t { before++ }
    $2 < t && $3 > t && $4 != "000" { inflight++ }
    $2 < t && $4 == "000" && $5 != 7 && $5 != 52 { cut++; print "cut: " $0 > "/dev/stderr" }
    $2 < t && $4 == "000" && $5 == 52 { unread++ }
    $4 == "000" && $5 == 7 { refused++ }
    $2 >= t && $4 != "000" { afterok++; print "answered after the signal: " $0 > "/dev/stderr" }
    END { printf "%d %d %d %d %d %d\n", before, inflight, cut, refused, afterok, unread }' "$work/requests.log")
in_flight_2xx=$(awk -v t="$signal_at" '$2 < t && $3 > t && $4 ~ /^2/' "$work/requests.log" | wc -l)
ackload_check "$work" "${psql[@]}" >"$work/check.txt"

printf 'shutdown-test: %d workers; SIGTERM after %s s of load; passkeyd exited with %d after %.3f s\n' \
    "$workers" "${SHUTDOWN_LOAD_SECONDS:-4}" "$exit_code" "$(awk -v a="$signal_at" -v b="$stopped_at" 'BEGIN { print b - a }')"
echo "shutdown-test: requests sent before the signal $sent_before; in flight at the signal $in_flight (all answered, $in_flight_2xx with 2xx); cut without an answer $cut; connection closed before its request was read (empty reply, not processed) $unread"
echo "shutdown-test: new connections after the signal refused $refused; answered after the signal (sent before the listener closed) $after_ok"
echo "shutdown-test: $(cat "$work/check.txt")"
echo "shutdown-test: database connections of this passkeyd: $connections_before before SIGTERM, $connections_after after exit"
grep -q '"passkeyd stopped"' "$work/passkeyd.log" && grep '"passkeyd stopped"' "$work/passkeyd.log" | sed 's/^/shutdown-test: log: /'

[[ $exit_code == 0 ]] || fail "exit code $exit_code, wanted 0"
((in_flight > 0)) || fail "no request was in flight at the signal (the test did not test anything)"
((cut == 0)) || fail "$cut requests sent before the signal got no answer"
((refused > 0)) || fail "no new connection was refused after the signal"
((ACKLOAD_MISSING == 0 && ACKLOAD_BEHIND == 0)) || fail "acknowledged requests lost"
((connections_before > 0)) || fail "passkeyd had no database connection under load (application_name not seen)"
[[ $connections_after == 0 ]] || fail "$connections_after database connections left after exit"
echo "shutdown-test: passed"
