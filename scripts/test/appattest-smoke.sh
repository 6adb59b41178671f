#!/usr/bin/env bash
# The App Attest walkthrough of docs/app-attest.md ("App Attest"), run for real against a passkeyd process (scripts/dev.sh test
# runs it after scripts/test/appstore-smoke.sh).
#
#   scripts/test/appattest-smoke.sh BIN_DIR    BIN_DIR holds passkeyd and passkeyd-softkey; PASSKEYD_DATABASE_URL must be set
#
# Starts passkeyd on a free loopback port trusting Apple's App Attestation Root CA (from the
# vectors) and the root of a software App Attest device (passkeyd-softkey appattest; tests only); posts Apple's
# documentation sample (a real attestation whose credential certificate expired in April 2026: refused at the chain),
# then attests a key of the software device, asserts with it, and shows each refusal the walkthrough names.
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/appattest-smoke.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
vectors="${PASSKEYD_VECTORS:-$repo/../shared/vectors}/apple/appattest"
[[ -f $vectors/certs/Apple_App_Attestation_Root_CA.pem ]] || { echo "appattest-smoke: no vectors at $vectors" >&2; exit 1; }
# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
export PATH="$bin:$PATH"
cd "$work"
ln -s "$vectors" appattest

# --- docs: App Attest on (keep in step with docs/app-attest.md "App Attest") ---
passkeyd-softkey appattest device --device device.json --root-pem soft-root.pem
cat appattest/certs/Apple_App_Attestation_Root_CA.pem soft-root.pem >roots.pem
export PASSKEYD_APPATTEST_APP_IDS=ABCDE12345.com.example.app,1234567890.com.example.myapp
export PASSKEYD_APPATTEST_ROOT_FILE="$work/roots.pem"
smoke_name=appattest-smoke
# shellcheck source=scripts/lib/smoke.sh
source "$repo/scripts/lib/smoke.sh"
APP=ABCDE12345.com.example.app

# Apple's documentation sample: a real attestation, now past its credential certificate's three days.
CHALLENGE=$(expect 200 POST /v1/appattest/challenge --json '{}' | jq -r .challenge)
expect 422 POST /v1/appattest/attestations --json "{\"keyId\":\"zgSY9YSD+7TaDXssY6WlOPVS1K3Lmk+pFhlcSWE+ZV0=\",\"attestationObject\":\"$(tr -d '\n' <appattest/apple-doc-2026/attestation-object.b64)\",\"challenge\":\"$CHALLENGE\"}" \
    | jq -e '.error.code == "appattest_chain_invalid"' >/dev/null || fail "Apple's expired sample must be refused at the chain"

# The software device attests a new key for a fresh challenge.
CHALLENGE=$(expect 200 POST /v1/appattest/challenge --json '{}' | jq -r .challenge)
passkeyd-softkey appattest attest --device device.json --key key.json --app-id $APP --challenge "$CHALLENGE" >attest.json
KEY_ID=$(jq -r .keyId attest.json)
expect 201 POST /v1/appattest/attestations --json "$(jq -c --arg c "$CHALLENGE" '. + {challenge: $c}' attest.json)" \
    | jq -e ".keyId == \"$KEY_ID\" and .counter == 0 and .environment == \"production\"" >/dev/null || fail "attestation"
expect 400 POST /v1/appattest/attestations --json "$(jq -c --arg c "$CHALLENGE" '. + {challenge: $c}' attest.json)" \
    | jq -e '.error.code == "appattest_challenge_invalid"' >/dev/null || fail "a used challenge must be refused"
# A development build is refused unless PASSKEYD_APPATTEST_ALLOW_DEVELOPMENT=on.
CHALLENGE=$(expect 200 POST /v1/appattest/challenge --json '{}' | jq -r .challenge)
passkeyd-softkey appattest attest --device device.json --key dev-key.json --app-id $APP --challenge "$CHALLENGE" --development yes >dev.json
expect 422 POST /v1/appattest/attestations --json "$(jq -c --arg c "$CHALLENGE" '. + {challenge: $c}' dev.json)" \
    | jq -e '.error.code == "appattest_aaguid_mismatch"' >/dev/null || fail "a development key must be refused"

# An assertion: clientData is the app's JSON with the challenge in it; the counter only goes up.
CHALLENGE=$(expect 200 POST /v1/appattest/challenge --json '{}' | jq -r .challenge)
passkeyd-softkey appattest assert --device device.json --key key.json --app-id $APP --counter 1 \
    --client-data "{\"action\":\"buy\",\"challenge\":\"$CHALLENGE\"}" >assert.json
expect 200 POST /v1/appattest/assertions --json @assert.json | jq -e '.counter == 1' >/dev/null || fail "assertion"
expect 400 POST /v1/appattest/assertions --json @assert.json | jq -e '.error.code == "appattest_challenge_invalid"' >/dev/null \
    || fail "a replayed assertion must be refused"
CHALLENGE=$(expect 200 POST /v1/appattest/challenge --json '{}' | jq -r .challenge)
passkeyd-softkey appattest assert --device device.json --key key.json --app-id $APP --counter 1 \
    --client-data "{\"action\":\"buy\",\"challenge\":\"$CHALLENGE\"}" >again.json
expect 422 POST /v1/appattest/assertions --json @again.json | jq -e '.error.code == "appattest_counter_not_increasing"' >/dev/null \
    || fail "an old counter must be refused"

metrics=$(curl -sf "$API/metrics") || fail "metrics: GET failed"
grep -q '^passkeyd_appattest_total{operation="assertion",outcome="accepted"} 1' <<<"$metrics" \
    || fail "metrics: $(grep appattest <<<"$metrics")"
kill -TERM "$server"
wait "$server" || fail "passkeyd did not exit cleanly on SIGTERM"
echo "appattest-smoke: App Attest walkthrough passed against a running passkeyd"
