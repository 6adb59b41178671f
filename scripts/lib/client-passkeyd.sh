# shellcheck shell=bash disable=SC2034,SC2154  # sets PASSKEYD_* for the caller; $bin, $repo and $work are the caller's
# Sourced by the client stages (scripts/test/{python,typescript,swift}-client-test.sh), after scripts/lib/passkeyd.sh
# and pk_init: one passkeyd with every feature the clients' live tests walk through, and the environment they read.
#
#   pk_start_for_clients NAME   a fresh database passkeyd_NAME (dashes as underscores) on $PASSKEYD_DATABASE_URL's server, migrated; then
#                               passkeyd (pk_start passkeyd: its log is $work/passkeyd.log) with API and admin keys, sessions (a key-encryption key in
#                               $work/kek), ID tokens from a test identity provider for "apple" (passkeyd-idp keygen
#                               in $work/idp), the App Store's TEST root from the vectors, App Attest with a software
#                               device's root (passkeyd-softkey appattest device) beside Apple's, the app-association
#                               documents and the FIDO conformance binding.
#
# Exports what the live tests read: PASSKEYD_URL, PASSKEYD_API_KEY, PASSKEYD_ADMIN_KEY, PASSKEYD_ORIGIN (the allowed
# origin http://localhost:PORT), PASSKEYD_SOFTKEY and PASSKEYD_IDP (the binaries), PASSKEYD_IDP_DIR,
# PASSKEYD_IDP_AUDIENCE, PASSKEYD_STOREKIT_CERTS, PASSKEYD_APPATTEST_DEVICE, PASSKEYD_APPATTEST_APP_ID.
# Needs: $bin (passkeyd, passkeyd-softkey, passkeyd-idp), $repo, $work, PASSKEYD_DATABASE_URL, psql, openssl, and the
# vectors at ../shared/vectors (PASSKEYD_VECTORS overrides).

pk_start_for_clients() {
    local name=$1
    local vectors="${PASSKEYD_VECTORS:-$repo/../shared/vectors}/apple"
    [[ -f $vectors/storekit/certs/testCA.pem ]] || { echo "$name: no vectors at $vectors" >&2; exit 1; }
    local database="passkeyd_${name//-/_}"
    psql "$PASSKEYD_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database" >/dev/null
    local url="${PASSKEYD_DATABASE_URL%/*}/$database"
    local api_key admin_key
    api_key="$name-api-$(openssl rand -hex 16)"
    admin_key="$name-admin-$(openssl rand -hex 16)"
    env PASSKEYD_DATABASE_URL="$url" PASSKEYD_MIGRATIONS="$repo/Migrations" "$bin/passkeyd" migrate >"$work/migrate.log" 2>&1
    openssl rand -base64 32 >"$work/kek"
    "$bin/passkeyd-idp" keygen --dir "$work/idp" --kid "$name" >/dev/null
    "$bin/passkeyd-softkey" appattest device --device "$work/appattest-device.json" --root-pem "$work/appattest-root.pem"
    cat "$vectors/appattest/certs/Apple_App_Attestation_Root_CA.pem" "$work/appattest-root.pem" >"$work/appattest-roots.pem"
    local app_id=ABCDE12345.com.example.app
    pk_start passkeyd PASSKEYD_DATABASE_URL="$url" PASSKEYD_RP_ID=localhost \
        PASSKEYD_ORIGINS="http://localhost:@PORT@,https://shop.example" PASSKEYD_RELATED_ORIGINS=https://shop.example \
        PASSKEYD_MIGRATIONS="$repo/Migrations" PASSKEYD_API_KEYS="$api_key" PASSKEYD_ADMIN_KEYS="$admin_key" \
        PASSKEYD_SESSIONS=on PASSKEYD_KEY_ENCRYPTION_KEY_FILE="$work/kek" PASSKEYD_LOG_LEVEL=warning \
        PASSKEYD_IDTOKEN_PROVIDERS=apple PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS=com.example.app \
        PASSKEYD_IDTOKEN_APPLE_JWKS_FILE="$work/idp/jwks.json" \
        PASSKEYD_APPSTORE_BUNDLE_ID=com.example PASSKEYD_APPSTORE_ENVIRONMENTS=Sandbox \
        PASSKEYD_APPSTORE_ROOT_FILES="$vectors/storekit/certs/testCA.pem" \
        PASSKEYD_APPATTEST_APP_IDS="$app_id" PASSKEYD_APPATTEST_ROOT_FILE="$work/appattest-roots.pem" \
        PASSKEYD_APPLE_APP_IDS="$app_id" \
        PASSKEYD_ANDROID_APPS="com.example.app=$(printf 'AB%.0s' {1..32})" \
        PASSKEYD_FIDO_CONFORMANCE=on
    export PASSKEYD_URL="$PK_URL" PASSKEYD_API_KEY="$api_key" PASSKEYD_ADMIN_KEY="$admin_key"
    export PASSKEYD_ORIGIN="http://localhost:$PK_PORT" PASSKEYD_SOFTKEY="$bin/passkeyd-softkey"
    export PASSKEYD_IDP="$bin/passkeyd-idp" PASSKEYD_IDP_DIR="$work/idp" PASSKEYD_IDP_AUDIENCE=com.example.app
    export PASSKEYD_STOREKIT_CERTS="$vectors/storekit/certs"
    export PASSKEYD_APPATTEST_DEVICE="$work/appattest-device.json" PASSKEYD_APPATTEST_APP_ID="$app_id"
}
