#!/usr/bin/env bash
# The ID-token walkthrough of docs/id-tokens.md ("Native sign-in with an ID token"), run for real against a passkeyd process
# (scripts/dev.sh test runs it after scripts/test/smoke.sh).
#
#   scripts/test/idtoken-smoke.sh BIN_DIR    BIN_DIR holds passkeyd, passkeyd-idp and passkeyd-softkey;
#                                       PASSKEYD_DATABASE_URL must be set
#
# Makes a test provider key with passkeyd-idp, starts passkeyd on a free loopback port with Apple
# configured to that key (a JWKS file), then: a first sign-in creates the user, the same session again is refused,
# a second sign-in is the same user, a passkey user links an Apple identity by id, the admin API lists and unlinks
# it, and the audit trail and the metrics say so.
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/idtoken-smoke.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
export PATH="$bin:$PATH"
cd "$work"

# --- docs: the provider's key (keep in step with docs/id-tokens.md "Native sign-in with an ID token") ---
passkeyd-idp keygen --dir idp --kid test-key-1 >/dev/null

export PASSKEYD_IDTOKEN_PROVIDERS=apple PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS=com.example.app
export PASSKEYD_IDTOKEN_APPLE_JWKS_FILE="$work/idp/jwks.json"
smoke_name=idtoken-smoke
# shellcheck source=scripts/lib/smoke.sh
source "$repo/scripts/lib/smoke.sh"
subject="001234.abcdef.$(date +%s%N)"

expect 200 POST /v1/idtoken/begin --json '{"provider":"apple"}' >begin.json
# The session is 16 bytes (22 characters) on the ceremonies table, a sealed box (58–60 bytes, 78–80 characters) with
# ceremony keys, which the test stages give passkeyd.
jq -e '(.providerNonce | length) == 64 and ((.session | length) == 22 or (.session | length) >= 78)' begin.json >/dev/null || fail "begin: $(cat begin.json)"
TOKEN=$(passkeyd-idp token --dir idp --iss https://appleid.apple.com --aud com.example.app \
    --sub "$subject" --nonce "$(jq -r .providerNonce begin.json)" --email me@privaterelay.appleid.com)
finish() { printf '{"session":"%s","provider":"apple","idToken":"%s"%s}' "$(jq -r .session begin.json)" "$TOKEN" "${1:-}"; }
expect 201 POST /v1/idtoken/finish --json "$(finish)" >first.json
jq -e ".created == true and .identity.subject == \"$subject\" and .identity.issuer == \"https://appleid.apple.com\"" first.json >/dev/null \
    || fail "first sign-in: $(cat first.json)"
user_id=$(jq -r .user.id first.json)
expect 400 POST /v1/idtoken/finish --json "$(finish)" | jq -e '.error.code == "idtoken_session_unknown"' >/dev/null \
    || fail "a used session must be refused"
# The raw nonce where Apple's rule wants its hash: refused (and that session is used up too).
expect 200 POST /v1/idtoken/begin --json '{"provider":"apple"}' >begin.json
TOKEN=$(passkeyd-idp token --dir idp --iss https://appleid.apple.com --aud com.example.app --sub "$subject" --nonce "$(jq -r .nonce begin.json)")
expect 422 POST /v1/idtoken/finish --json "$(finish)" | jq -e '.error.code == "idtoken_nonce_mismatch"' >/dev/null || fail "raw nonce"
# Signing in again: the same user.
expect 200 POST /v1/idtoken/begin --json '{"provider":"apple"}' >begin.json
TOKEN=$(passkeyd-idp token --dir idp --iss https://appleid.apple.com --aud com.example.app --sub "$subject" --nonce "$(jq -r .providerNonce begin.json)")
expect 200 POST /v1/idtoken/finish --json "$(finish)" | jq -e ".created == false and .user.id == \"$user_id\"" >/dev/null || fail "second sign-in"

# Alice signs up with a passkey, then links her Apple account: the backend names her by id.
expect 200 POST /v1/registration/begin --json "{\"user\":{\"name\":\"alice-$subject\"}}" \
    | passkeyd-softkey register --key alice.json >register.json
ALICE=$(expect 201 POST /v1/registration/finish --json @register.json | jq -r .user.id)
expect 200 POST /v1/idtoken/begin --json '{"provider":"apple"}' >begin.json
TOKEN=$(passkeyd-idp token --dir idp --iss https://appleid.apple.com --aud com.example.app \
    --sub "alice.$subject" --nonce "$(jq -r .providerNonce begin.json)")
expect 200 POST /v1/idtoken/finish --json "$(finish ",\"user\":{\"id\":\"$ALICE\"}")" \
    | jq -e ".linked == true and .user.id == \"$ALICE\"" >/dev/null || fail "link by id"
identity=$(expect 200 GET "/v1/admin/users/$ALICE/identities" "${ADMIN[@]}" | jq -r '.identities[0].id')
[[ -n $identity && $identity != null ]] || fail "admin identities"
expect 204 DELETE "/v1/admin/users/$ALICE/identities/$identity" "${ADMIN[@]}" >/dev/null
expect 200 GET "/v1/admin/audit-events?user=$ALICE" "${ADMIN[@]}" \
    | jq -e '[.events[].event] == ["user.created","credential.registered","identity.linked","identity.unlinked"]' >/dev/null \
    || fail "audit trail"
metrics=$(curl -sf "$API/metrics") || fail "metrics: GET failed"
grep -q '^passkeyd_idtoken_signins_total{.*provider="apple".*outcome="success"' <<<"$metrics" || fail "metrics: $(grep idtoken <<<"$metrics")"
kill -TERM "$server"
wait "$server" || fail "passkeyd did not exit cleanly on SIGTERM"
echo "idtoken-smoke: ID-token walkthrough passed against a running passkeyd"
