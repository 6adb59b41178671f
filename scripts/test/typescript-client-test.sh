#!/usr/bin/env bash
# The TypeScript client's tests (clients/typescript; issue 28): the build checked fresh (the types generated from
# openapi.json, dist/ compiled by Debian's tsc, the demo page's copy of the browser helper; the type tests), the
# unit tests (coverage of openapi.json's operations, answers and errors, the browser helper) with `node --test`, then
# the live test: the client against a real passkeyd (release build) on PostgreSQL with API and admin keys, sessions,
# Apple ID tokens signed by passkeyd-idp's key and App Store with the test certificates, passkeyd-softkey as the
# authenticator. Needs Debian's nodejs and node-typescript (scripts/dev.sh test installs them); no npm.
#
#   scripts/test/typescript-client-test.sh BIN_DIR    BIN_DIR holds passkeyd, passkeyd-softkey and passkeyd-idp;
#                                                     PASSKEYD_DATABASE_URL must be set
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/typescript-client-test.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
client="$repo/clients/typescript"
vectors="${PASSKEYD_VECTORS:-$repo/../shared/vectors}/apple/storekit"
[[ -f $vectors/certs/testCA.pem ]] || { echo "typescript-client-test: no vectors at $vectors" >&2; exit 1; }
echo "typescript-client-test: node $(node --version), $(tsc --version)"

# Fresh: regenerating and recompiling changes no committed file; the type tests compile.
node "$client/scripts/build.mjs" --check
# The unit tests (no server).
(cd "$client" && node --test test/coverage.test.mjs test/client.test.mjs test/browser.test.mjs)

# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
database=passkeyd_typescript_client
psql "$PASSKEYD_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database" >/dev/null
url="${PASSKEYD_DATABASE_URL%/*}/$database"
api_key="ts-api-$(openssl rand -hex 16)"
admin_key="ts-admin-$(openssl rand -hex 16)"
env PASSKEYD_DATABASE_URL="$url" PASSKEYD_MIGRATIONS="$repo/Migrations" "$bin/passkeyd" migrate >"$work/migrate.log" 2>&1
openssl rand -base64 32 >"$work/kek"
"$bin/passkeyd-idp" keygen --dir "$work/idp" --kid ts-key-1 >/dev/null
pk_start passkeyd PASSKEYD_DATABASE_URL="$url" PASSKEYD_RP_ID=localhost PASSKEYD_ORIGINS="http://localhost:@PORT@" \
    PASSKEYD_MIGRATIONS="$repo/Migrations" PASSKEYD_API_KEYS="$api_key" PASSKEYD_ADMIN_KEYS="$admin_key" \
    PASSKEYD_SESSIONS=on PASSKEYD_KEY_ENCRYPTION_KEY_FILE="$work/kek" \
    PASSKEYD_IDTOKEN_PROVIDERS=apple PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS=com.example.app \
    PASSKEYD_IDTOKEN_APPLE_JWKS_FILE="$work/idp/jwks.json" \
    PASSKEYD_APPSTORE_BUNDLE_ID=com.example PASSKEYD_APPSTORE_ENVIRONMENTS=Sandbox \
    PASSKEYD_APPSTORE_ROOT_FILES="$vectors/certs/testCA.pem" PASSKEYD_LOG_LEVEL=warning

export PASSKEYD_URL="$PK_URL" PASSKEYD_API_KEY="$api_key" PASSKEYD_ADMIN_KEY="$admin_key"
export PASSKEYD_ORIGIN="http://localhost:$PK_PORT" PASSKEYD_SOFTKEY="$bin/passkeyd-softkey" PASSKEYD_IDP="$bin/passkeyd-idp"
export PASSKEYD_IDP_DIR="$work/idp" PASSKEYD_IDP_AUDIENCE=com.example.app PASSKEYD_STOREKIT_CERTS="$vectors/certs"
(cd "$client" && node --test test/live.test.mjs test/readme.test.mjs) \
    || { echo "typescript-client-test: failed; passkeyd log:" >&2; tail -20 "$work/passkeyd.log" >&2; exit 1; }
echo "typescript-client-test: passed"
