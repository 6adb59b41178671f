#!/usr/bin/env bash
# The sessions walkthrough of docs/sessions.md ("Sessions after sign-in"), run for real against a passkeyd process
# (scripts/dev.sh test runs it after scripts/test/idtoken-smoke.sh).
#
#   scripts/test/session-smoke.sh BIN_DIR    BIN_DIR holds passkeyd and passkeyd-softkey; PASSKEYD_DATABASE_URL must be set
#
# Starts passkeyd on a free loopback port with sessions on, signs in with passkeyd-softkey, and
# checks the access token with an independent verifier (e2e/verify_jwt.py: PyJWT + cryptography, Debian's
# python3-jwt), including its refusals (tampered, expired, wrong aud, unknown kid); refreshes (the retired refresh
# token then revokes the session), hands off to a "web view" (exchange once; twice is refused), introspects, signs
# out, and rotates the signing key with `passkeyd rotate-session-key` (the old token still verifies, both keys published).
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/session-smoke.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
export PATH="$bin:$PATH"
verify() { /usr/bin/python3 "$repo/e2e/verify_jwt.py" "$@"; }
cd "$work"

# --- docs: sessions on (keep in step with docs/sessions.md "Sessions after sign-in") ---
# The docs make a key-encryption key (openssl rand -base64 32 >kek); here it is pk_init's, the shared var/kek: the test
# database keeps the ceremony keys the other stages sealed under it.
export PASSKEYD_SESSIONS=on
export PASSKEYD_SESSION_ISSUER=https://login.example.com PASSKEYD_SESSION_AUDIENCES=https://api.example.com
smoke_name=session-smoke
# shellcheck source=scripts/lib/smoke.sh
source "$repo/scripts/lib/smoke.sh"
name="sam-$(date +%s%N)"

expect 200 POST /v1/registration/begin --json "{\"user\":{\"name\":\"$name\"}}" | passkeyd-softkey register --key sam.json >finish.json
expect 201 POST /v1/registration/finish --json @finish.json >/dev/null
expect 200 POST /v1/authentication/begin --json '{}' | passkeyd-softkey sign --key sam.json >assert.json
expect 200 POST /v1/authentication/finish --json @assert.json >signin.json
jq -e '.session.tokenType == "Bearer" and .session.expiresIn == 600 and (.session.refreshToken | startswith("pkd_rt_"))' signin.json >/dev/null \
    || fail "sign-in answer: $(cat signin.json)"
ACCESS=$(jq -r .session.accessToken signin.json)
REFRESH=$(jq -r .session.refreshToken signin.json)

# Any backend verifies the access token with a standard JWT library and the published keys.
curl -sf "$API/.well-known/jwks.json" >jwks.json
verify jwks.json "$ACCESS" https://login.example.com https://api.example.com >claims.json || fail "PyJWT refused the access token"
jq -e ".sub == $(jq .user.id signin.json) and .amr == [\"hwk\",\"user\",\"mfa\"] and .exp - .iat == 600" claims.json >/dev/null \
    || fail "claims: $(cat claims.json)"
verify --negatives jwks.json "$ACCESS" https://login.example.com https://api.example.com >negatives.txt || fail "$(cat negatives.txt)"

# Refresh: a new pair; the retired refresh token presented again revokes the whole session.
expect 200 POST /v1/sessions/refresh --json "{\"refreshToken\":\"$REFRESH\"}" >refreshed.json
NEXT=$(jq -r .session.refreshToken refreshed.json)
[[ $NEXT != "$REFRESH" ]] || fail "refresh returned the same token"
expect 401 POST /v1/sessions/refresh --json "{\"refreshToken\":\"$REFRESH\"}" | jq -e '.error.code == "refresh_token_reused"' >/dev/null \
    || fail "reuse must be refused"
expect 401 POST /v1/sessions/refresh --json "{\"refreshToken\":\"$NEXT\"}" | jq -e '.error.code == "session_inactive"' >/dev/null \
    || fail "the family must be revoked after reuse"

# Sign in again, hand off to a web view: a one-time code, exchanged once for a session of its own.
expect 200 POST /v1/authentication/begin --json '{}' | passkeyd-softkey sign --key sam.json >assert.json
ACCESS=$(expect 200 POST /v1/authentication/finish --json @assert.json | jq -r .session.accessToken)
CODE=$(expect 201 POST /v1/handoff -H "Authorization: Bearer $ACCESS" --json '{}' | jq -r .code)
expect 200 POST /v1/handoff/exchange --json "{\"code\":\"$CODE\"}" >web.json
verify jwks.json "$(jq -r .session.accessToken web.json)" https://login.example.com https://api.example.com >/dev/null || fail "web view token"
expect 400 POST /v1/handoff/exchange --json "{\"code\":\"$CODE\"}" | jq -e '.error.code == "handoff_code_unknown"' >/dev/null \
    || fail "a second exchange must be refused"

# Introspection (for backends that prefer asking), then sign-out: the token's session is no longer active.
expect 200 POST /v1/sessions/introspect --json "{\"token\":\"$ACCESS\"}" | jq -e '.active == true' >/dev/null || fail "introspect"
expect 204 POST /v1/sessions/revoke -H "Authorization: Bearer $ACCESS" >/dev/null
expect 200 POST /v1/sessions/introspect --json "{\"token\":\"$ACCESS\"}" | jq -e '.active == false' >/dev/null || fail "revoked"

# Rotate the signing key (a second process on the same database): the new key is published at once and signs
# ten minutes later; tokens of the old key keep verifying.
passkeyd rotate-session-key 2>>"$work/passkeyd.log" | jq -e '.keys | length == 2' >/dev/null || fail "rotate-session-key"
sleep 1
for _ in $(seq 70); do
    curl -sf "$API/.well-known/jwks.json" >jwks2.json
    jq -e '.keys | length == 2' jwks2.json >/dev/null && break
    sleep 1
done
jq -e '.keys | length == 2' jwks2.json >/dev/null || fail "the new key is not published: $(cat jwks2.json)"
verify jwks2.json "$(jq -r .session.accessToken web.json)" https://login.example.com https://api.example.com >/dev/null \
    || fail "a token of the old key must verify after the rotation"

metrics=$(curl -sf "$API/metrics") || fail "metrics: GET failed"
grep -q '^passkeyd_sessions_total{event="reused"} 1' <<<"$metrics" || fail "metrics: $(grep sessions_total <<<"$metrics")"
kill -TERM "$server"
wait "$server" || fail "passkeyd did not exit cleanly on SIGTERM"
echo "session-smoke: sessions walkthrough passed against a running passkeyd (tokens checked by PyJWT)"
