#!/usr/bin/env bash
# The Swift client's tests (clients/swift, its own package; issue 28): the checks that need no server (every
# operation of openapi.json has its method and every method an operation, requests and answers against the schemas,
# the error codes, the retry rules), then the live walkthroughs against a real passkeyd (release build) on PostgreSQL
# with sessions, ID tokens (passkeyd-idp as the provider), the App Store (passkeyd-softkey storekit, the vectors' TEST
# root), App Attest (passkeyd-softkey appattest), the app-association documents and the conformance binding on, with
# passkeyd-softkey as the authenticator. Builds the package (debug, its own .build) before starting passkeyd.
#
#   scripts/test/swift-client-test.sh BIN_DIR     BIN_DIR holds passkeyd, passkeyd-softkey and passkeyd-idp;
#                                                 PASSKEYD_DATABASE_URL must be set
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/swift-client-test.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
vectors="${PASSKEYD_VECTORS:-$repo/../shared/vectors}/apple"
[[ -f $vectors/storekit/certs/testCA.pem ]] || { echo "swift-client-test: no vectors at $vectors" >&2; exit 1; }
client="$repo/clients/swift"

python3 "$client/tools/generate-error-codes.py" --check
(cd "$client" && swift build --build-tests)

# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
database=passkeyd_swift_client
psql "$PASSKEYD_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database" >/dev/null
url="${PASSKEYD_DATABASE_URL%/*}/$database"
api_key="swift-api-$(openssl rand -hex 16)"
admin_key="swift-admin-$(openssl rand -hex 16)"
env PASSKEYD_DATABASE_URL="$url" PASSKEYD_MIGRATIONS="$repo/Migrations" "$bin/passkeyd" migrate >"$work/migrate.log" 2>&1
openssl rand -base64 32 >"$work/kek"
# The features the live tests walk through: a test identity provider for "apple", the App Store's TEST root, a
# software App Attest device's root (with Apple's), the app-association documents.
"$bin/passkeyd-idp" keygen --dir "$work/idp" --kid swift-client-test >/dev/null
"$bin/passkeyd-softkey" appattest device --device "$work/appattest-device.json" --root-pem "$work/appattest-root.pem"
cat "$vectors/appattest/certs/Apple_App_Attestation_Root_CA.pem" "$work/appattest-root.pem" >"$work/appattest-roots.pem"
app_id=ABCDE12345.com.example.app
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
port=$PK_PORT

export PASSKEYD_URL="http://127.0.0.1:$port" PASSKEYD_API_KEY="$api_key" PASSKEYD_ADMIN_KEY="$admin_key"
export PASSKEYD_SOFTKEY="$bin/passkeyd-softkey" PASSKEYD_ORIGIN="http://localhost:$port"
export PASSKEYD_IDP="$bin/passkeyd-idp" PASSKEYD_IDP_DIR="$work/idp"
export PASSKEYD_STOREKIT_CERTS="$vectors/storekit/certs"
export PASSKEYD_APPATTEST_DEVICE="$work/appattest-device.json" PASSKEYD_APPATTEST_APP_ID="$app_id"
export PASSKEYD_LIVE_REQUIRED=1  # the live tests fail rather than skip
cd "$client"
swift test --skip-build \
    || { echo "swift-client-test: failed; passkeyd log:" >&2; tail -20 "$work/passkeyd.log" >&2; exit 1; }
echo "swift-client-test: passed"
