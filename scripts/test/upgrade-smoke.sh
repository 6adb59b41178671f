#!/usr/bin/env bash
# The "Moving people to passkeys" walkthrough of docs/upgrades.md, run for real against a passkeyd process (scripts/dev.sh test
# runs it after scripts/test/session-smoke.sh).
#
#   scripts/test/upgrade-smoke.sh BIN_DIR    BIN_DIR holds passkeyd and passkeyd-softkey; PASSKEYD_DATABASE_URL must be set
#
# Starts passkeyd on a free loopback port with sessions on; a backend's password user gets a
# passkeyd account (POST /v1/users) and an automatic upgrade (mediation conditional) answered with UP=0 and UV=0 by
# passkeyd-softkey; the next sign-in with UV=1 establishes UV; the person then manages their passkeys with the
# access token (/v1/me: list, add with extensions, rename, the last one refused, delete), and the metrics count it.
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/upgrade-smoke.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
export PATH="$bin:$PATH"
cd "$work"

# --- docs: sessions on (keep in step with docs/upgrades.md "Moving people to passkeys") ---
# The docs make a key-encryption key (openssl rand -base64 32 >kek); here it is pk_init's, the shared var/kek: the test
# database keeps the ceremony keys the other stages sealed under it.
export PASSKEYD_SESSIONS=on
smoke_name=upgrade-smoke
# shellcheck source=scripts/lib/smoke.sh
source "$repo/scripts/lib/smoke.sh"
name="ann-$(date +%s%N)"

# 1. The backend signed Ann in with her password. Once: her passkeyd account, no sign-in method yet.
ANN=$(expect 201 POST /v1/users --json "{\"name\":\"$name\"}" | jq -r .user.id)
expect 409 POST /v1/users --json "{\"name\":\"$name\"}" | jq -e '.error.code == "user_exists"' >/dev/null || fail "a taken name"

# 2. Right after that sign-in, an automatic upgrade: the options ask UV preferred; the provider answers UP=0, UV=0.
expect 200 POST /v1/registration/begin --json "{\"user\":{\"id\":\"$ANN\"},\"mediation\":\"conditional\"}" >upgrade.json
jq -e '.mediation == "conditional" and .publicKey.authenticatorSelection.userVerification == "preferred"' upgrade.json >/dev/null \
    || fail "upgrade options: $(cat upgrade.json)"
passkeyd-softkey register --key ann.json --up 0 --uv 0 <upgrade.json >finish.json
expect 201 POST /v1/registration/finish --json @finish.json >upgraded.json
jq -e '.credential.createdBy == "conditional" and .credential.userVerified == false' upgraded.json >/dev/null \
    || fail "upgraded credential: $(cat upgraded.json)"
FIRST=$(jq -r .credential.id upgraded.json)
# The same silent answer to a normal ceremony is refused (UP is required), and a new name cannot be upgraded.
expect 200 POST /v1/registration/begin --json "{\"user\":{\"id\":\"$ANN\"}}" | passkeyd-softkey register --key x.json --up 0 --uv 0 >silent.json
expect 422 POST /v1/registration/finish --json @silent.json | jq -e '.error.code == "user_not_present"' >/dev/null || fail "UP=0 normal ceremony"
expect 400 POST /v1/registration/begin --json '{"user":{"name":"newcomer"},"mediation":"conditional"}' \
    | jq -e '.error.code == "conditional_create_needs_user_id"' >/dev/null || fail "a new name upgraded"

# 3. The next sign-in with the passkey verifies the user: UV is established; the answer has a session.
expect 200 POST /v1/authentication/begin --json '{}' | passkeyd-softkey sign --key ann.json >assert.json
expect 200 POST /v1/authentication/finish --json @assert.json >signin.json
ACCESS=$(jq -r .session.accessToken signin.json)
AUTH=(-H "Authorization: Bearer $ACCESS")

# 4. Her settings screen, with the access token only (no API key).
expect 200 GET /v1/me/credentials "${AUTH[@]}" >mine.json
jq -e '.credentials | length == 1 and .[0].createdBy == "conditional" and .[0].userVerified == true' mine.json >/dev/null \
    || fail "own credentials: $(cat mine.json)"
expect 409 DELETE "/v1/me/credentials/$FIRST" "${AUTH[@]}" | jq -e '.error.code == "last_sign_in_method"' >/dev/null || fail "last method"
expect 200 POST /v1/me/registration/begin "${AUTH[@]}" --json '{"extensions":{"credProps":true,"prf":{}}}' \
    | passkeyd-softkey register --key ann2.json >finish2.json
expect 201 POST /v1/me/registration/finish "${AUTH[@]}" --json @finish2.json >added.json
jq -e '.credential.extensions == {"discoverable":true,"largeBlobSupported":null,"prfEnabled":true} and (has("session") | not)' added.json >/dev/null \
    || fail "added: $(cat added.json)"
SECOND=$(jq -r .credential.id added.json)
expect 200 PATCH "/v1/me/credentials/$SECOND" "${AUTH[@]}" --json '{"nickname":"new phone"}' \
    | jq -e '.credential.nickname == "new phone"' >/dev/null || fail "rename"
expect 401 GET /v1/me/credentials | jq -e '.error.code == "unauthorized"' >/dev/null || fail "no token"
expect 204 DELETE "/v1/me/credentials/$FIRST" "${AUTH[@]}" >/dev/null
# That passkey started this session: deleting it ended the session.
expect 401 GET /v1/me/credentials "${AUTH[@]}" | jq -e '.error.code == "session_revoked"' >/dev/null || fail "session after deletion"
# The trail: her changes, then the end of the session that passkey started (an event of its own, for webhooks).
expect 200 GET "/v1/admin/audit-events?user=$ANN" "${ADMIN[@]}" >audit.json
jq -e "[.events[] | select(.actor == \"user:$ANN\") | .event] == [\"credential.registered\",\"credential.renamed\",\"credential.deleted\",\"session.revoked\"]" audit.json >/dev/null \
    || fail "audit: $(cat audit.json)"
jq -e '[.events[] | select(.event == "session.revoked") | .details.reason] == ["credential_deleted"]' audit.json >/dev/null \
    || fail "session.revoked reason: $(cat audit.json)"

metrics=$(curl -sf "$API/metrics") || fail "metrics: GET failed"
for event in 'begun"} 1' 'registered"} 1' 'uv_established"} 1'; do
    grep -q "^passkeyd_upgrades_total{event=\"$event" <<<"$metrics" || fail "metrics: $(grep upgrades_total <<<"$metrics")"
done
kill -TERM "$server"
wait "$server" || fail "passkeyd did not exit cleanly on SIGTERM"
echo "upgrade-smoke: 'Moving people to passkeys' walkthrough passed against a running passkeyd"
