#!/usr/bin/env bash
# The App Store walkthrough of docs/app-store.md ("App Store purchases, verified offline"), run for real against a passkeyd
# process (scripts/dev.sh test runs it after scripts/test/session-smoke.sh).
#
#   scripts/test/appstore-smoke.sh BIN_DIR    BIN_DIR holds passkeyd and passkeyd-softkey; PASSKEYD_DATABASE_URL must be set
#
# Starts passkeyd on a free loopback port trusting the App Store Server Library's TEST root (the
# vectors' apple/storekit/certs/testCA.pem; never in production) for bundle com.example in Sandbox; posts Apple's
# own test notification and the generated vectors (refused with their codes), a purchase made for the signed-up user
# (passkeyd-softkey storekit, signed with the published test leaf key), a refund notification and its replay, and
# reads the entitlements after each.
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/appstore-smoke.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
vectors="${PASSKEYD_VECTORS:-$repo/../shared/vectors}/apple/storekit"
[[ -f $vectors/certs/testCA.pem ]] || { echo "appstore-smoke: no vectors at $vectors" >&2; exit 1; }
# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
export PATH="$bin:$PATH"
cd "$work"
ln -s "$vectors" storekit

# --- docs: App Store on (keep in step with docs/app-store.md "App Store purchases, verified offline") ---
export PASSKEYD_APPSTORE_BUNDLE_ID=com.example PASSKEYD_APPSTORE_ENVIRONMENTS=Sandbox
export PASSKEYD_APPSTORE_ROOT_FILES="$work/storekit/certs/testCA.pem"
smoke_name=appstore-smoke
# shellcheck source=scripts/lib/smoke.sh
source "$repo/scripts/lib/smoke.sh"
name="kim-$(date +%s%N)"

expect 200 POST /v1/registration/begin --json "{\"user\":{\"name\":\"$name\"}}" | passkeyd-softkey register --key kim.json >finish.json
USER=$(expect 201 POST /v1/registration/finish --json @finish.json | jq -r .user.id)
TOKEN=$(expect 200 GET "/v1/users/$USER/entitlements" | jq -r .appAccountToken)
[[ $TOKEN =~ ^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]] || fail "appAccountToken $TOKEN"

# Apple's own test notification (App Store Server Library test data): verified, stored, 200.
expect 200 POST /v1/appstore/notifications --json "{\"signedPayload\":\"$(cat storekit/signed/testNotification.jws)\"}" \
    | jq -e '.notificationType == "TEST"' >/dev/null || fail "Apple's test notification"
# The generated vectors: a purchase made for another account, another bundle, a two-certificate chain.
for case in valid-subscription:appstore_app_account_token_mismatch wrong-bundle:appstore_bundle_id_mismatch \
    chain-length-2:appstore_chain_length_invalid tampered-payload:appstore_signature_invalid; do
    expect 422 POST /v1/appstore/transactions --json "{\"userId\":\"$USER\",\"signedTransaction\":\"$(cat "storekit/generated/${case%%:*}.jws")\"}" \
        | jq -e ".error.code == \"${case#*:}\"" >/dev/null || fail "${case%%:*} must be refused with ${case#*:}"
done

# The app bought a monthly subscription for kim (appAccountToken = kim's token); the backend posts it.
TX=$(date +%s%N)   # the App Store's transaction id
passkeyd-softkey storekit transaction --certs storekit/certs --id "$TX" --token "$TOKEN" --days 30 >purchase.jws
expect 201 POST /v1/appstore/transactions --json "{\"userId\":\"$USER\",\"signedTransaction\":\"$(cat purchase.jws)\"}" \
    | jq -e '.stored == "inserted" and .entitlements[0].status == "active"' >/dev/null || fail "the purchase"
expect 200 GET "/v1/users/$USER/entitlements" | jq -e '.entitlements[0].productId == "com.example.monthly"' >/dev/null \
    || fail "entitlements after the purchase"

# Apple refunds it: a REFUND notification carries the transaction re-signed with revocationDate.
passkeyd-softkey storekit transaction --certs storekit/certs --id "$TX" --token "$TOKEN" --days 30 --revoked yes \
    --signed-offset-ms 1000 >refunded.jws
passkeyd-softkey storekit notification --certs storekit/certs --type REFUND --uuid "refund-$TX" --transaction refunded.jws >refund.jws
expect 200 POST /v1/appstore/notifications --json "{\"signedPayload\":\"$(cat refund.jws)\"}" \
    | jq -e '.duplicate == false and .userId == null' >/dev/null || fail "the refund notification"
expect 200 GET "/v1/users/$USER/entitlements" | jq -e '.entitlements == [] and .inactive[0].status == "revoked"' >/dev/null \
    || fail "entitlements after the refund"
# Apple retries (or someone replays) the same notification: 200, nothing applied again.
expect 200 POST /v1/appstore/notifications --json "{\"signedPayload\":\"$(cat refund.jws)\"}" | jq -e '.duplicate == true' >/dev/null \
    || fail "the replay"

metrics=$(curl -sf "$API/metrics") || fail "metrics: GET failed"
grep -q '^passkeyd_appstore_notifications_total{type="REFUND",outcome="duplicate"} 1' <<<"$metrics" \
    || fail "metrics: $(grep appstore <<<"$metrics")"
kill -TERM "$server"
wait "$server" || fail "passkeyd did not exit cleanly on SIGTERM"
echo "appstore-smoke: App Store walkthrough passed against a running passkeyd"
