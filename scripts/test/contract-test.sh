#!/usr/bin/env bash
# The API contract test (issue 16): schemathesis (PyPI, in a venv under var/) runs property-based requests from the
# served /openapi.json against the release passkeyd on the real PostgreSQL, in two configurations:
#   full     every feature on (API and admin keys, sessions, ID tokens, App Store, App Attest, the FIDO conformance
#            binding, the /.well-known/ documents, metrics, provider names)
#   minimal  nothing optional (no keys, no admin API, no features): the served document must shrink to match
# and fails on any mismatch between what the document says and what the server answers (status codes, content
# types, headers, response schemas, undeclared methods, server errors). Configuration: e2e/schemathesis.toml.
#
#   scripts/test/contract-test.sh BIN_DIR     BIN_DIR holds passkeyd and passkeyd-idp; PASSKEYD_DATABASE_URL must be set
#
# Environment: CONTRACT_MAX_EXAMPLES (default 40 per operation and phase), SCHEMATHESIS_VERSION (default 4.32.5).
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/contract-test.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
vectors="${PASSKEYD_VECTORS:-$repo/../shared/vectors}"
venv="$repo/var/contract-venv"
python=/usr/bin/python3  # Debian's (python3-venv); scripts/dev.sh test installs it
[[ -x "$python" ]] || python=python3
version="${SCHEMATHESIS_VERSION:-4.32.5}"
if [[ ! -x "$venv/bin/st" ]] || ! "$venv/bin/st" --version 2>/dev/null | grep -q "$version"; then
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
fi
# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init

# start NAME [VAR=VALUE…]: a passkeyd on a free port of its own database (created fresh), ready; sets $port
start() {
    local name=$1
    shift
    local database="passkeyd_contract_$name"
    psql "$PASSKEYD_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database" >/dev/null
    local url="${PASSKEYD_DATABASE_URL%/*}/$database"
    env PASSKEYD_DATABASE_URL="$url" PASSKEYD_MIGRATIONS="$repo/Migrations" "$bin/passkeyd" migrate >"$work/$name-migrate.log" 2>&1
    pk_start "$name" -u PASSKEYD_API_KEYS -u PASSKEYD_ADMIN_KEYS PASSKEYD_DATABASE_URL="$url" \
        PASSKEYD_RP_ID=localhost PASSKEYD_ORIGINS="http://localhost:@PORT@" PASSKEYD_MIGRATIONS="$repo/Migrations" \
        PASSKEYD_LOG_LEVEL=error PASSKEYD_RATE_LIMIT_CLIENT=off PASSKEYD_RATE_LIMIT_API_KEY=off PASSKEYD_RATE_LIMIT_USER=off \
        PASSKEYD_RATE_LIMIT_ADMIN=off "$@"
    port=$PK_PORT
}

# run NAME: schemathesis against the passkeyd on $port
run() {
    local name=$1 report="$repo/var/contract/$1"
    mkdir -p "$report"
    echo "contract-test: $name configuration on port $port"
    (cd "$work" && CONTRACT_API_KEY="$api_key" CONTRACT_ADMIN_KEY="$admin_key" \
        "$venv/bin/st" --config-file "$repo/e2e/schemathesis.toml" run "http://127.0.0.1:$port/openapi.json" \
        --max-examples "${CONTRACT_MAX_EXAMPLES:-40}" --seed 1 --report junit --report-dir "$report") \
        || { echo "contract-test: $name: mismatches (report in $report; server log follows)" >&2; tail -20 "$work/$name.log" >&2; exit 1; }
}

api_key="contract-api-$(openssl rand -hex 16)"
admin_key="contract-admin-$(openssl rand -hex 16)"
openssl rand -base64 32 >"$work/kek"
"$bin/passkeyd-idp" keygen --dir "$work/idp" --kid contract-key >/dev/null
cat "$vectors/apple/appattest/certs/Apple_App_Attestation_Root_CA.pem" >"$work/appattest-root.pem"
printf '{"fbfc3007-154e-4ecc-8c0b-6e020557d7bd": {"name": "iCloud Keychain"}}\n' >"$work/providers.json"

start full PASSKEYD_API_KEYS="$api_key" PASSKEYD_ADMIN_KEYS="$admin_key" PASSKEYD_METRICS=on \
    PASSKEYD_SESSIONS=on PASSKEYD_KEY_ENCRYPTION_KEY_FILE="$work/kek" \
    PASSKEYD_SESSION_ISSUER=https://login.example.com PASSKEYD_SESSION_AUDIENCES=https://api.example.com \
    PASSKEYD_IDTOKEN_PROVIDERS=apple PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS=com.example.app \
    PASSKEYD_IDTOKEN_APPLE_JWKS_FILE="$work/idp/jwks.json" \
    PASSKEYD_APPSTORE_BUNDLE_ID=com.example PASSKEYD_APPSTORE_ENVIRONMENTS=Sandbox \
    PASSKEYD_APPSTORE_ROOT_FILES="$vectors/apple/storekit/certs/testCA.pem" \
    PASSKEYD_APPATTEST_APP_IDS=ABCDE12345.com.example.app PASSKEYD_APPATTEST_ROOT_FILE="$work/appattest-root.pem" \
    PASSKEYD_FIDO_CONFORMANCE=on PASSKEYD_APPLE_APP_IDS=ABCDE12345.com.example.app \
    PASSKEYD_ANDROID_APPS="com.example.app=$(printf 'AB%.0s' $(seq 32))" \
    PASSKEYD_PROVIDER_NAMES_FILE="$work/providers.json"
run full
start minimal PASSKEYD_METRICS=off
run minimal
echo "contract-test: no mismatch in either configuration"
