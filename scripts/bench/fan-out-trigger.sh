#!/usr/bin/env bash
# What the webhook outbox's fan-out trigger (Migrations/0015_events.sql) costs PostgreSQL per statement that writes
# events, with no endpoint configured (docs/events.md, "Cost"). Not part of the test command or CI.
#
#   scripts/bench/fan-out-trigger.sh [PASSKEYD_BINARY] [ROUNDS]     (default .build/debug/passkeyd, 6 rounds)
#
# On the durable cluster (scripts/postgres.sh --durable: stock fsync and synchronous_commit), two databases migrated
# by PASSKEYD_BINARY: bench_fan_out_on with the trigger enabled, bench_fan_out_off with it disabled (what passkeyd
# does when no endpoint is configured). pgbench runs scripts/bench/fan-out-trigger.sql, a statement shaped like a
# sign-up's (a user and its two audit events in one statement), at 16 clients for 15 s, alternating on, off, on, …
# ROUNDS times each; every round prints the transactions, their rate and PostgreSQL's CPU per transaction (the
# postmaster's process tree from /proc: its own, its reaped children's and its live children's ticks), then the
# medians and their difference. Compare the sides of one sitting, never figures of separate runs.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
binary="${1:-.build/debug/passkeyd}"
rounds="${2:-6}"
[[ -x $binary ]] || { echo "fan-out-trigger: $binary is not an executable (swift build first)" >&2; exit 2; }
command -v pgbench >/dev/null || { echo "fan-out-trigger: pgbench is missing (Debian postgresql-contrib / postgresql-client)" >&2; exit 2; }
export PSQL="${PSQL:-/usr/lib/postgresql/15/bin/psql}"
scripts/postgres.sh --durable start >/dev/null
url="$(scripts/postgres.sh --durable url)"
base="${url%/*}"
data="$(scripts/postgres.sh --durable status | sed -n 's/^running .* dir=//p')/data"
for side in on off; do
    PGOPTIONS="-c client_min_messages=warning" "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$base/postgres" -c "DROP DATABASE IF EXISTS bench_fan_out_$side" \
        -c "CREATE DATABASE bench_fan_out_$side" >/dev/null
    PASSKEYD_DATABASE_URL="$base/bench_fan_out_$side" "$binary" migrate 2>/dev/null
    state=$([[ $side == on ]] && echo ENABLE || echo DISABLE)
    "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$base/bench_fan_out_$side" -c "ALTER TABLE audit_events $state TRIGGER audit_events_fan_out"
done

ticks() {
    local postmaster total child
    postmaster="$(head -1 "$data/postmaster.pid")"
    total=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$postmaster/stat")
    for child in $(pgrep -P "$postmaster"); do
        total=$((total + $(awk '{print $14 + $15}' "/proc/$child/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}
hz=$(getconf CLK_TCK)
declare -A cpu
for round in $(seq "$rounds"); do
    for side in on off; do
        before=$(ticks)
        out=$(pgbench -n -c 16 -j 2 -T 15 -f scripts/bench/fan-out-trigger.sql "$base/bench_fan_out_$side" 2>&1)
        sleep 1  # the backends exit and are reaped: their CPU is then the postmaster's children's
        after=$(ticks)
        count=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
        rate=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out")
        per=$(((after - before) * 1000000 / hz / count))
        cpu[$side]+="$per "
        echo "round $round trigger $side: $count transactions, $rate/s, PostgreSQL CPU $per µs per transaction"
    done
done
median() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
on=$(median "${cpu[on]}") off=$(median "${cpu[off]}")
echo "median PostgreSQL CPU per transaction: trigger on $on µs, off $off µs, difference $(awk -v a="$on" -v b="$off" 'BEGIN {print a - b}') µs"
