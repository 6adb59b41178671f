#!/usr/bin/env bash
# Begins on a read replica (PASSKEYD_DATABASE_READ_URL, issue 29) with a real streaming standby.
#
#   scripts/test/replica-test.sh BIN_DIR
#
# BIN_DIR holds passkeyd and passkeyd-softkey. Starts a primary and an asynchronous `pg_basebackup -R` standby of its
# own on 127.0.0.1 (scripts/lib/standby.sh; free ports, or $REPLICA_PORT and the next one when set) and passkeyd with
# PASSKEYD_DATABASE_URL on the primary and PASSKEYD_DATABASE_READ_URL on the standby (stateless ceremonies: the test
# key-encryption key), plus a second passkeyd on the primary alone for contrast. Then, through the HTTP API and
# passkeyd-softkey:
#   1. alice signs up; once the standby has replayed her, the primary is stopped: named sign-in begins for alice are
#      still answered (200, her passkey in allowCredentials) from the standby, while the instance without a read
#      URL answers 503 and a finish (which writes) is 503 too; the primary is started again.
#   2. replay is paused on the standby (pg_wal_replay_pause): bob signs up and begins a sign-in by name at once (the
#      standby does not know him: read on the primary, his passkey listed; he signs in); a second sign-up of "bob"
#      passes its begin (the standby says the name is free) and is refused at its finish (409 user_exists, on the
#      primary); alice adds a second passkey: her named begins list only the first until replay resumes, and the
#      second signs in on those options all the same (the finish accepts any passkey of the user).
#   3. replay resumes: alice's begins list both passkeys.
#   4. /metrics: passkeyd_replica_begin_reads_total by outcome.
#   5. the standby is stopped: named begins are read on the primary (200), the failure is logged once.
# Exits 1 on any difference. Takes about 10 s.
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/replica-test.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
# shellcheck source=scripts/lib/standby.sh
source "$repo/scripts/lib/standby.sh"
pk_init
chmod 0755 "$work"
if [[ -n ${REPLICA_PORT:-} ]]; then
    p1=$REPLICA_PORT
    p2=$((p1 + 1))
else
    p1=$(pk_free_port)
    p2=$(pk_free_port)
    while [[ $p2 == "$p1" ]]; do p2=$(pk_free_port); done
fi
say() { echo "replica-test: $*"; }
fail() { echo "replica-test: FAIL: $*" >&2; tail -n 20 "$work/passkeyd.log" >&2 2>/dev/null || true; exit 1; }

# --- the clusters: asynchronous streaming ---
pg_pair_init replica
pg_pair_start "$p1" "$p2" ""
[[ $pg_state == "standby1:streaming:async" ]] || fail "the standby does not stream ($pg_state)"
say "primary :$p1, standby :$p2 ($pg_state), clusters in $pg_root"

# --- passkeyd with a read URL, and one without ---
export PATH="$bin:$PATH" PASSKEYD_MIGRATIONS="$repo/Migrations" PASSKEYD_ORIGINS="http://localhost:8080"
export PASSKEYD_RATE_LIMIT_USER=off PASSKEYD_DB_CONNECT_TIMEOUT=2 PASSKEYD_LOG_LEVEL="${PASSKEYD_LOG_LEVEL:-info}"
primary_url="postgresql://postgres@127.0.0.1:$p1/passkeyd"
standby_url="postgresql://postgres@127.0.0.1:$p2/passkeyd"
pk_start passkeyd PASSKEYD_DATABASE_URL="$primary_url" PASSKEYD_DATABASE_READ_URL="$standby_url"
API=$PK_URL
pk_start primary-only PASSKEYD_DATABASE_URL="$primary_url"
API_PRIMARY_ONLY=$PK_URL
grep -q '"read_replica":"on"' "$work/passkeyd.log" || fail "passkeyd did not log that begins read the replica"

# post URL PATH BODY: prints the body, then the status on a line of its own
post() { curl -s -m 10 -w '\n%{http_code}' "$1$2" --json "$3"; }
# expect STATUS URL PATH BODY: the body, or fail
expect() {
    local want=$1 out
    out=$(post "$2" "$3" "$4") || fail "POST $3: curl failed"
    [[ ${out##*$'\n'} == "$want" ]] || fail "POST $3: HTTP ${out##*$'\n'}, wanted $want: ${out%$'\n'*}"
    printf '%s' "${out%$'\n'*}"
}
allowed() { jq -r '[.publicKey.allowCredentials[].id] | sort | join(",")'; }
# on_standby SQL: the standby's answer (one value)
on_standby() { timeout 10 "${psql2[@]}" -d passkeyd -A -t -c "$1"; }
# replayed SQL: wait (10 s at most) until the standby answers t
replayed() {
    for _ in $(seq 100); do [[ $(on_standby "$1") == t ]] && return 0; sleep 0.1; done
    fail "the standby did not replay: $1"
}
credentials_of() { echo "SELECT count(*) = $2 FROM credentials c JOIN users u ON u.id = c.user_id WHERE u.name = '$1'"; }
sign() { passkeyd-softkey sign --key "$work/$1.json"; }
register() { passkeyd-softkey register --key "$work/$1.json"; }

# --- 1. the primary stopped: named begins answered by the standby ---
expect 200 "$API" /v1/registration/begin '{"user":{"name":"alice"}}' | register alice >"$work/alice.finish"
alice=$(expect 201 "$API" /v1/registration/finish @"$work/alice.finish")
alice_id=$(jq -r .user.id <<<"$alice")
alice1=$(jq -r .credential.id <<<"$alice")
replayed "$(credentials_of alice 1)"
as_pg "$pgbin/pg_ctl" stop -D "$pg_primary" -m fast -w -t 20 >/dev/null || fail "could not stop the primary"
begins=20
start=$(date +%s%N)
for ((i = 0; i < begins; i++)); do
    [[ $(expect 200 "$API" /v1/authentication/begin '{"user":{"name":"alice"}}' | allowed) == "$alice1" ]] \
        || fail "a named begin with the primary stopped did not list alice's passkey"
done
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
expect 200 "$API" /v1/authentication/begin '{"user":{"name":"alice"}}' | sign alice >"$work/alice.assert"
finish_down=$(post "$API" /v1/authentication/finish @"$work/alice.assert" | tail -n 1)
contrast=$(post "$API_PRIMARY_ONLY" /v1/authentication/begin '{"user":{"name":"alice"}}' | tail -n 1)
say "1. primary stopped: $begins named sign-in begins for alice answered 200 from the standby in $elapsed_ms ms (allowCredentials: her passkey); a finish: $finish_down (it writes); the same begin on a passkeyd without a read URL: $contrast"
[[ $finish_down == 503 && $contrast == 503 ]] || fail "expected 503 from the finish and from the instance without a read URL"
as_pg "$pgbin/pg_ctl" start -D "$pg_primary" -l "$pg_root/primary.log" -w -t 30 >/dev/null || fail "could not start the primary again"
for _ in $(seq 50); do curl -sf -o /dev/null -m 2 "$API/readyz" && break; sleep 0.2; done
# The pool's broken connections fail once each; the assertion is finished after they were replaced.
for _ in 1 2 3 4 5 6 7 8 9 10; do
    expect 200 "$API" /v1/authentication/begin '{"user":{"name":"alice"}}' | sign alice >"$work/alice.assert"
    [[ $(post "$API" /v1/authentication/finish @"$work/alice.assert" | tail -n 1) == 200 ]] && break
    sleep 0.3
done

# --- 2. replay paused: what lag means ---
on_standby "SELECT pg_wal_replay_pause()" >/dev/null
for _ in $(seq 50); do [[ $(on_standby "SELECT pg_get_wal_replay_pause_state()") == paused ]] && break; sleep 0.1; done
[[ $(on_standby "SELECT pg_get_wal_replay_pause_state()") == paused ]] || fail "replay did not pause"
expect 200 "$API" /v1/registration/begin '{"user":{"name":"bob"}}' | register bob >"$work/bob.finish"
bob1=$(expect 201 "$API" /v1/registration/finish @"$work/bob.finish" | jq -r .credential.id)
[[ $(on_standby "SELECT count(*) FROM users WHERE name = 'bob'") == 0 ]] || fail "the standby already has bob"
bob_begin=$(expect 200 "$API" /v1/authentication/begin '{"user":{"name":"bob"}}')
[[ $(allowed <<<"$bob_begin") == "$bob1" ]] || fail "bob's begin did not list his passkey (primary fallback)"
sign bob <<<"$bob_begin" >"$work/bob.assert"
expect 200 "$API" /v1/authentication/finish @"$work/bob.assert" >/dev/null
say "2a. replay paused; bob signed up (not on the standby): his named begin listed his passkey (read on the primary) and he signed in"
expect 200 "$API" /v1/registration/begin '{"user":{"name":"bob"}}' | register bob-again >"$work/bob-again.finish"
again=$(post "$API" /v1/registration/finish @"$work/bob-again.finish")
[[ ${again##*$'\n'} == 409 && $(jq -r .error.code <<<"${again%$'\n'*}") == user_exists ]] || fail "a second sign-up of bob: ${again//$'\n'/ }"
say "2b. a second sign-up of \"bob\": begin 200 (the standby says the name is free), finish 409 user_exists (the primary)"
addition=$(expect 200 "$API" /v1/registration/begin "{\"user\":{\"id\":\"$alice_id\"}}")
[[ $(jq -r '[.publicKey.excludeCredentials[].id] | join(",")' <<<"$addition") == "$alice1" ]] || fail "the addition did not exclude alice's passkey"
register alice2 <<<"$addition" >"$work/alice2.finish"
alice2=$(expect 201 "$API" /v1/registration/finish @"$work/alice2.finish" | jq -r .credential.id)
lagging=$(expect 200 "$API" /v1/authentication/begin '{"user":{"name":"alice"}}')
[[ $(allowed <<<"$lagging") == "$alice1" ]] || fail "with replay paused, alice's begin listed $(allowed <<<"$lagging"), not only her first passkey"
sign alice2 <<<"$lagging" >"$work/alice2.assert"
signed=$(expect 200 "$API" /v1/authentication/finish @"$work/alice2.assert" | jq -r .credential.id)
[[ $signed == "$alice2" ]] || fail "the second passkey did not sign in"
say "2c. alice added a second passkey: her named begin listed only the first (the standby lags); the second signed in on those options (200)"

# --- 3. replay resumed ---
on_standby "SELECT pg_wal_replay_resume()" >/dev/null
replayed "$(credentials_of alice 2)"
both=$(printf '%s\n' "$alice1" "$alice2" | sort | paste -sd,)
[[ $(expect 200 "$API" /v1/authentication/begin '{"user":{"name":"alice"}}' | allowed) == "$both" ]] || fail "after replay, alice's begin did not list both passkeys"
say "3. replay resumed: alice's named begin lists both passkeys"

# --- 4. the counters ---
curl -s -m 5 "$API/metrics" >"$work/metrics.txt"
counts=$(grep '^passkeyd_replica_begin_reads_total' "$work/metrics.txt" | sed 's/passkeyd_replica_begin_reads_total//' | sort | tr '\n' ' ')
say "4. passkeyd_replica_begin_reads_total: $counts; the standby's pool: $(grep -E '^passkeyd_db_read_pool_(size|connects_total) ' "$work/metrics.txt" | tr '\n' ' ')"
served=$(awk '/^passkeyd_replica_begin_reads_total\{outcome="served"\}/ { print int($2) }' "$work/metrics.txt")
((${served:-0} >= begins)) || fail "fewer than $begins begins served by the standby: ${served:-none}"

# --- 5. the standby stopped ---
as_pg "$pgbin/pg_ctl" stop -D "$pg_standby" -m immediate -w -t 20 >/dev/null || fail "could not stop the standby"
for _ in 1 2 3; do
    [[ $(expect 200 "$API" /v1/authentication/begin '{"user":{"name":"alice"}}' | allowed) == "$both" ]] || fail "with the standby stopped, a begin did not list both passkeys"
done
warnings=$(grep -c 'the read replica failed: begins read the primary' "$work/passkeyd.log" || true)
[[ $warnings == 1 ]] || fail "expected one warning about the failed replica, got $warnings"
say "5. standby stopped: named begins answered 200 from the primary; logged once: $(grep -o '"message":"the read replica failed[^"]*"' "$work/passkeyd.log")"
say "passed"
