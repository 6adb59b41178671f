#!/usr/bin/env bash
# The curl walkthrough of docs/getting-started.md ("Try it"), run for real against a passkeyd process (a stage of scripts/dev.sh test).
#
#   scripts/test/smoke.sh BIN_DIR    BIN_DIR holds passkeyd and passkeyd-softkey; PASSKEYD_DATABASE_URL must be set
#
# Starts passkeyd on a free loopback port with an admin key, then: register alice with a software
# passkey, sign in with her name and discoverably, register a second passkey (the first is excluded), list users
# and credentials through the admin API, rename, delete, and check a deleted passkey no longer signs in.
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/smoke.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
export PATH="$bin:$PATH"
smoke_name=smoke
# shellcheck source=scripts/lib/smoke.sh
source "$repo/scripts/lib/smoke.sh"
cd "$work"
name="smoke-$(date +%s%N)"

# --- docs: register, sign in, manage (keep in step with docs/getting-started.md "Try it") ---
expect 200 POST /v1/registration/begin --json "{\"user\":{\"name\":\"$name\",\"displayName\":\"Alice\"}}" \
    | passkeyd-softkey register --key alice.json --nickname laptop >finish.json
expect 201 POST /v1/registration/finish --json @finish.json >registered.json
user_id=$(jq -r .user.id registered.json)
first=$(jq -r .credential.id registered.json)

expect 200 POST /v1/authentication/begin --json "{\"user\":{\"name\":\"$name\"}}" \
    | passkeyd-softkey sign --key alice.json >assert.json
[[ $(expect 200 POST /v1/authentication/finish --json @assert.json | jq -r .userVerified) == true ]] || fail "userVerified"
expect 400 POST /v1/authentication/finish --json @assert.json | jq -e '.error.code == "challenge_unknown_or_expired"' >/dev/null \
    || fail "a replayed finish must be refused"

expect 200 POST /v1/authentication/begin --json '{}' | passkeyd-softkey sign --key alice.json >assert.json
expect 200 POST /v1/authentication/finish --json @assert.json | jq -e ".credential.id == \"$first\"" >/dev/null || fail "discoverable"

# A taken name is not a way into that account: 409 user_exists. A second passkey names the user by id.
expect 409 POST /v1/registration/begin --json "{\"user\":{\"name\":\"$name\"}}" | jq -e '.error.code == "user_exists"' >/dev/null \
    || fail "a taken name must be refused"
expect 200 POST /v1/registration/begin --json "{\"user\":{\"id\":\"$user_id\"}}" >begin2.json
jq -e ".publicKey.excludeCredentials[0].id == \"$first\"" begin2.json >/dev/null || fail "excludeCredentials"
passkeyd-softkey register --key alice2.json --algorithm EdDSA <begin2.json | expect 201 POST /v1/registration/finish --json @- >/dev/null

expect 200 GET "/v1/admin/users?name=$name&limit=10" "${ADMIN[@]}" | jq -e ".users[0].id == \"$user_id\"" >/dev/null || fail "list users"
[[ $(expect 200 GET "/v1/admin/users/$user_id/credentials" "${ADMIN[@]}" | jq '.credentials | length') == 2 ]] || fail "two credentials"
expect 200 PATCH "/v1/admin/credentials/$first" "${ADMIN[@]}" --json '{"nickname":"work laptop"}' \
    | jq -e '.credential.nickname == "work laptop"' >/dev/null || fail "rename"
expect 200 GET "/v1/admin/credentials/$first" "${ADMIN[@]}" | jq -e '.credential.signCount >= 2' >/dev/null || fail "counter"
expect 204 DELETE "/v1/admin/credentials/$first" "${ADMIN[@]}" >/dev/null
expect 200 POST /v1/authentication/begin --json '{}' | passkeyd-softkey sign --key alice.json >assert.json
expect 404 POST /v1/authentication/finish --json @assert.json >/dev/null
expect 401 GET /v1/admin/users >/dev/null
expect 204 DELETE "/v1/admin/users/$user_id" "${ADMIN[@]}" >/dev/null
expect 404 GET "/v1/admin/users/$user_id" "${ADMIN[@]}" >/dev/null
expect 200 GET "/v1/admin/audit-events?user=$user_id" "${ADMIN[@]}" \
    | jq -e '[.events[].event] == ["user.created","credential.registered","credential.registered","credential.renamed","credential.deleted","credential.deleted","user.deleted"]' >/dev/null \
    || fail "audit trail"
expect 200 GET /openapi.json | jq -e '.openapi' >/dev/null || fail "openapi"
# Read whole, then search: `curl | grep -q` fails under pipefail when grep exits before curl has written everything.
metrics=$(curl -sf "$API/metrics") || fail "metrics: GET failed"
grep -q '^passkeyd_requests_total' <<<"$metrics" || fail "metrics"
# The release binary says what it is (VERSION and the commit it was built from), on the command line and in /metrics.
version=$(tr -d ' \n' <"$repo/VERSION")
revision=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
[[ $(passkeyd --version) == "passkeyd $version (revision $revision)" ]] \
    || fail "passkeyd --version: '$(passkeyd --version)', not 'passkeyd $version (revision $revision)'"
grep -qE "^passkeyd_build_info\{version=\"$version\",revision=\"$revision\"\} 1(\.0)?$" <<<"$metrics" \
    || fail "metrics: no passkeyd_build_info for $version at $revision"
kill -TERM "$server"
wait "$server" || fail "passkeyd did not exit cleanly on SIGTERM"
echo "smoke: walkthrough passed against a running passkeyd"
