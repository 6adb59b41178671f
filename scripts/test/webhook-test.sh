#!/usr/bin/env bash
# Webhook delivery end to end (docs/events.md, "Delivery"; a stage of scripts/dev.sh test): real passkeyd processes on
# the test database, a real receiver (scripts/test/webhook-receiver.py) that verifies every delivery with the
# reference implementation of Standard Webhooks (`standardwebhooks` from PyPI, in a venv under var/).
#
#   scripts/test/webhook-test.sh BIN_DIR    BIN_DIR holds passkeyd and passkeyd-softkey; PASSKEYD_DATABASE_URL must be set
#
# 1. Every event type (user.created, credential.registered, credential.renamed, session.revoked, identity.linked,
#    identity.unlinked, appstore.entitlement_changed, appattest.key_registered, credential.deleted, user.deleted)
#    arrives, signed, and verifies; webhook-id is evt_<audit id>. The ID token comes from passkeyd-idp, the App Store
#    transaction and the App Attest key from passkeyd-softkey (as in the idtoken, appstore and appattest smokes).
# 2. The receiver is down (connection refused) while events happen, for longer than the first retries, then up:
#    every event arrives, none lost, duplicates only with the same webhook-id and body.
# 3. Two passkeyd instances on one database, a slow receiver: every event delivered, never the same one concurrently,
#    both instances deliver.
# 4. A receiver that accepts and never answers: sign-in latency stays what it was.
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/webhook-test.sh BIN_DIR}" && pwd)"
vectors="${PASSKEYD_VECTORS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/../shared/vectors}/apple"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
export PATH="$bin:$PATH"
cd "$work"

# The reference verifier, in a venv of its own (not system-wide).
venv="$repo/var/webhooks-venv"
if ! "$venv/bin/python" -c 'import standardwebhooks' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q standardwebhooks==1.1.0
fi

fail() { echo "webhooks: $*" >&2; for log in "$work"/*.log; do echo "--- $log" >&2; tail -40 "$log" >&2; done; exit 1; }

# The receiver: started and stopped by the test (down = nothing listens on its port).
rport="$(pk_free_port)"
secret="whsec_$(openssl rand -base64 32)"
received="$work/received.jsonl"
: >"$received"
receiver_pid=
receiver_start() { # [receiver options…]
    "$venv/bin/python" "$repo/scripts/test/webhook-receiver.py" "$rport" "$secret" "$received" "$@" >>"$work/receiver.log" 2>&1 &
    receiver_pid=$!
    for _ in $(seq 50); do
        curl -s -o /dev/null -X POST --data up "http://127.0.0.1:$rport/_mode" && return 0
        sleep 0.1
    done
    fail "the receiver did not start"
}
receiver_stop() { # (wait returns the killed receiver's status: not a failure)
    if [[ -n $receiver_pid ]]; then kill "$receiver_pid" 2>/dev/null && { wait "$receiver_pid" 2>/dev/null || true; }; fi
    receiver_pid=
}
pk_at_exit receiver_stop

printf '%s\n' "$secret" >secret
# A provider for identity.*, the StoreKit test CA for appstore.*, a software App Attest device for appattest.*.
passkeyd-idp keygen --dir idp --kid webhook-key-1 >/dev/null
passkeyd-softkey appattest device --device device.json --root-pem soft-root.pem
cat >webhooks.json <<JSON
[{"id": "app", "url": "http://127.0.0.1:$rport/passkeyd-events", "secret_file": "$work/secret"}]
JSON
common=(PASSKEYD_MIGRATIONS="$repo/Migrations" PASSKEYD_ORIGINS="http://localhost:8080" PASSKEYD_ADMIN_KEYS=webhook-admin-key
    PASSKEYD_LOG_LEVEL="${PASSKEYD_LOG_LEVEL:-warning}" PASSKEYD_METRICS=on
    PASSKEYD_SESSIONS=on PASSKEYD_SESSION_ISSUER=https://login.example.com PASSKEYD_SESSION_AUDIENCES=https://api.example.com
    PASSKEYD_WEBHOOKS_FILE="$work/webhooks.json" PASSKEYD_WEBHOOKS_UNSAFE_ALLOW_PRIVATE=on
    PASSKEYD_WEBHOOKS_POLL_INTERVAL=200 PASSKEYD_WEBHOOKS_TIMEOUT=3
    PASSKEYD_IDTOKEN_PROVIDERS=apple PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS=com.example.app PASSKEYD_IDTOKEN_APPLE_JWKS_FILE="$work/idp/jwks.json"
    PASSKEYD_APPSTORE_BUNDLE_ID=com.example PASSKEYD_APPSTORE_ENVIRONMENTS=Sandbox
    PASSKEYD_APPSTORE_ROOT_FILES="$vectors/storekit/certs/testCA.pem"
    PASSKEYD_APPATTEST_APP_IDS=ABCDE12345.com.example.app PASSKEYD_APPATTEST_ROOT_FILE="$work/soft-root.pem")
ADMIN=(-H "Authorization: Bearer webhook-admin-key")

receiver_start
pk_start one "${common[@]}"
one=$PK_URL
API=$one

expect() { # expect STATUS METHOD PATH [curl args…]: the body; fails on another status
    local want=$1 method=$2 path=$3; shift 3
    local out status
    out=$(curl -s -w '\n%{http_code}' -X "$method" "$API$path" "$@") || fail "$method $path: curl failed"
    status=${out##*$'\n'}
    [[ $status == "$want" ]] || fail "$method $path: HTTP $status, wanted $want: ${out%$'\n'*}"
    printf '%s' "${out%$'\n'*}"
}

# register NAME: a user with a passkey (user.created, credential.registered); prints "user_id credential_id"
register() {
    expect 200 POST /v1/registration/begin --json "{\"user\":{\"name\":\"$1\"}}" | passkeyd-softkey register --key "$1.json" >"$1.finish.json"
    expect 201 POST /v1/registration/finish --json @"$1.finish.json" | jq -r '.user.id + " " + .credential.id'
}

# expected_ids USER_ID…: the webhook-ids of every audit event of these users (evt_<audit id>), sorted
expected_ids() {
    local user
    for user in "$@"; do
        expect 200 GET "/v1/admin/audit-events?user=$user&limit=200" "${ADMIN[@]}" | jq -r '.events[] | "evt_" + .id'
    done | sort -u
}

# wait_for IDS_FILE SECONDS: until the receiver has verified every webhook-id in IDS_FILE
wait_for() {
    local deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        jq -r 'select(.verified) | .id' "$received" | sort -u >have.txt
        comm -23 "$1" have.txt >missing.txt
        [[ -s missing.txt ]] || return 0
        sleep 0.5
    done
    fail "not delivered within $2 s: $(tr '\n' ' ' <missing.txt)"
}

# --- 1. every event type of the walkthrough arrives, signed -------------------------------------------------
name="hook-$(date +%s%N)"
read -r user credential < <(register "$name")
expect 200 PATCH "/v1/admin/credentials/$credential" "${ADMIN[@]}" --json '{"nickname":"work laptop"}' >/dev/null
expect 200 POST /v1/authentication/begin --json '{}' | passkeyd-softkey sign --key "$name.json" >assert.json
access=$(expect 200 POST /v1/authentication/finish --json @assert.json | jq -r .session.accessToken)
expect 204 POST /v1/sessions/revoke -H "Authorization: Bearer $access" >/dev/null
read -r _ second < <(expect 200 POST /v1/registration/begin --json "{\"user\":{\"id\":\"$user\"}}" \
    | passkeyd-softkey register --key "$name-2.json" | expect 201 POST /v1/registration/finish --json @- | jq -r '.user.id + " " + .credential.id')
# identity.linked (the backend names the user by id), then identity.unlinked by an administrator.
begin=$(expect 200 POST /v1/idtoken/begin --json '{"provider":"apple"}')
token=$(passkeyd-idp token --dir idp --iss https://appleid.apple.com --aud com.example.app \
    --sub "001234.$name" --nonce "$(jq -r .providerNonce <<<"$begin")")
expect 200 POST /v1/idtoken/finish --json "{\"session\":\"$(jq -r .session <<<"$begin")\",\"provider\":\"apple\",\"idToken\":\"$token\",\"user\":{\"id\":\"$user\"}}" \
    | jq -e '.linked == true' >/dev/null || fail "linking an Apple account"
identity=$(expect 200 GET "/v1/admin/users/$user/identities" "${ADMIN[@]}" | jq -r '.identities[0].id')
expect 204 DELETE "/v1/admin/users/$user/identities/$identity" "${ADMIN[@]}" >/dev/null
# appstore.entitlement_changed: a purchase made with the user's appAccountToken.
account_token=$(expect 200 GET "/v1/users/$user/entitlements" | jq -r .appAccountToken)
passkeyd-softkey storekit transaction --certs "$vectors/storekit/certs" --id "$(date +%s%N)" --token "$account_token" --days 30 >purchase.jws
expect 201 POST /v1/appstore/transactions --json "{\"userId\":\"$user\",\"signedTransaction\":\"$(cat purchase.jws)\"}" >/dev/null
# appattest.key_registered: a key attested for the user.
challenge=$(expect 200 POST /v1/appattest/challenge --json '{}' | jq -r .challenge)
passkeyd-softkey appattest attest --device device.json --key appattest-key.json --app-id ABCDE12345.com.example.app --challenge "$challenge" >attest.json
expect 201 POST /v1/appattest/attestations --json "$(jq -c --arg c "$challenge" --arg u "$user" '. + {challenge: $c, userId: $u}' attest.json)" >/dev/null
expect 204 DELETE "/v1/admin/credentials/$second" "${ADMIN[@]}" >/dev/null
expect 204 DELETE "/v1/admin/users/$user" "${ADMIN[@]}" >/dev/null
expected_ids "$user" >phase1.txt
wait_for phase1.txt 30
types=$(jq -r --slurpfile ids <(jq -R . phase1.txt) 'select(.verified and (.id | IN($ids[]))) | .type' "$received" | sort -u | tr '\n' ' ')
for type in user.created credential.registered credential.renamed session.revoked identity.linked identity.unlinked \
    appstore.entitlement_changed appattest.key_registered credential.deleted user.deleted; do
    [[ " $types " == *" $type "* ]] || fail "no verified $type delivery (got: $types)"
done
jq -e -s 'all(.[]; .verified and .content_type == "application/json" and (.user_agent | startswith("passkeyd/")) and (.overlap | not))' \
    "$received" >/dev/null || fail "a delivery did not verify or lacked its headers: $(jq -c 'select(.verified | not)' "$received" | head -3)"
jq -e -s --arg user "$user" 'all(.[] | select(.type == "user.deleted" and .data.user_id == $user); .data.actor | startswith("admin:"))' \
    "$received" >/dev/null || fail "user.deleted payload"
# No secret in any payload: not the signing secret, not the admin key, not an access token.
! grep -qF -e "${secret#whsec_}" -e webhook-admin-key -e "$access" "$received" || fail "a payload carries a secret"
echo "webhooks: all ten event types arrived signed and verified ($(wc -l <phase1.txt) events)"

# --- 2. receiver down for a while, then up: nothing lost ---------------------------------------------------
receiver_stop
users=()
for i in 1 2 3; do
    read -r u _ < <(register "$name-down-$i")
    users+=("$u")
done
# Longer than the first two retries (up to 5 s, then up to 25 s after it): some attempts fail for sure.
sleep 8
receiver_start
expected_ids "${users[@]}" >phase2.txt
wait_for phase2.txt 90
jq -e -s 'group_by(.id) | all(.[]; (map(.data) | unique | length) == 1)' "$received" >/dev/null \
    || fail "a webhook-id was delivered with different bodies"
metrics=$(curl -sf "$one/metrics")
grep -qE '^passkeyd_webhook_deliveries_total\{endpoint="app",outcome="retry"\} [1-9]' <<<"$metrics" \
    || fail "no retry counted: $(grep webhook <<<"$metrics")"
echo "webhooks: receiver down 8 s then up: all $(wc -l <phase2.txt) events arrived, duplicates only with the same webhook-id"

# --- 3. two instances on one database: no concurrent double sends ----------------------------------------
receiver_stop
receiver_start --delay 0.3
pk_start two "${common[@]}"
two=$PK_URL
users=()
for i in $(seq 12); do
    [[ $((i % 2)) == 0 ]] && API=$two || API=$one
    read -r u _ < <(register "$name-two-$i")
    users+=("$u")
done
API=$one
expected_ids "${users[@]}" >phase3.txt
wait_for phase3.txt 90
jq -e -s 'all(.[]; .overlap | not)' "$received" >/dev/null || fail "a delivery was sent twice concurrently: $(jq -c 'select(.overlap)' "$received" | head -3)"
for url in "$one" "$two"; do
    curl -sf "$url/metrics" | grep -qE '^passkeyd_webhook_deliveries_total\{endpoint="app",outcome="delivered"\} [1-9]' \
        || fail "$url delivered nothing"
done
echo "webhooks: two instances delivered $(wc -l <phase3.txt) events, none concurrently twice"

# --- 4. a hanging receiver does not slow sign-ins -------------------------------------------------------
receiver_stop
receiver_start
read -r _ _ < <(register "$name-latency")
signins() { # N: the finish times of N sign-ins, in ms, sorted
    local i
    for i in $(seq "$1"); do
        expect 200 POST /v1/authentication/begin --json '{}' | passkeyd-softkey sign --key "$name-latency.json" >assert.json
        curl -s -o /dev/null -w '%{time_total}\n' -X POST "$API/v1/authentication/finish" --json @assert.json
    done | awk '{ printf "%d\n", $1 * 1000 }' | sort -n
}
median() { sed -n "$((($(wc -l <"$1") + 1) / 2))p" "$1"; }
signins 21 >before.txt
curl -sf -X POST --data hang "http://127.0.0.1:$rport/_mode"
for i in $(seq 10); do register "$name-hang-$i" >/dev/null; done
sleep 1
signins 21 >during.txt
before=$(median before.txt) during=$(median during.txt)
echo "webhooks: sign-in finish median ${before} ms with the receiver answering, ${during} ms while it hangs"
((during <= 2 * before + 30)) || fail "sign-ins slowed down while the receiver hangs: ${before} ms -> ${during} ms"
receiver_stop
echo "webhooks: delivery end to end passed"
