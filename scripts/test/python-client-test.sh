#!/usr/bin/env bash
# The Python client's tests (clients/python; issue 16): the openapi.json checks, then the client and the Django
# example against a real passkeyd (release build) on PostgreSQL, with passkeyd-softkey as the authenticator.
# Installs the client (and pytest, Django from PyPI) into var/python-client-venv.
#
#   scripts/test/python-client-test.sh BIN_DIR    BIN_DIR holds passkeyd and passkeyd-softkey; PASSKEYD_DATABASE_URL must be set
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/python-client-test.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python=/usr/bin/python3  # Debian's (python3-venv); scripts/dev.sh test installs it
[[ -x "$python" ]] || python=python3
venv="$repo/var/python-client-venv"
if [[ ! -x "$venv/bin/pytest" ]]; then
    rm -rf "$venv"
    "$python" -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -e "$repo/clients/python[test,django]"

# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
database=passkeyd_python_client
psql "$PASSKEYD_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database" >/dev/null
url="${PASSKEYD_DATABASE_URL%/*}/$database"
api_key="python-api-$(openssl rand -hex 16)"
admin_key="python-admin-$(openssl rand -hex 16)"
env PASSKEYD_DATABASE_URL="$url" PASSKEYD_MIGRATIONS="$repo/Migrations" "$bin/passkeyd" migrate >"$work/migrate.log" 2>&1
openssl rand -base64 32 >"$work/kek"
pk_start passkeyd PASSKEYD_DATABASE_URL="$url" PASSKEYD_RP_ID=localhost PASSKEYD_ORIGINS="http://localhost:@PORT@" \
    PASSKEYD_MIGRATIONS="$repo/Migrations" PASSKEYD_API_KEYS="$api_key" PASSKEYD_ADMIN_KEYS="$admin_key" \
    PASSKEYD_SESSIONS=on PASSKEYD_KEY_ENCRYPTION_KEY_FILE="$work/kek" PASSKEYD_LOG_LEVEL=warning
port=$PK_PORT
origin="http://localhost:$port"

export PASSKEYD_URL="http://127.0.0.1:$port" PASSKEYD_API_KEY="$api_key" PASSKEYD_ADMIN_KEY="$admin_key"
export PASSKEYD_SOFTKEY="$bin/passkeyd-softkey" PASSKEYD_ORIGIN="$origin"
cd "$repo/clients/python"
"$venv/bin/pytest" -q -p no:cacheprovider tests examples/django_passkeys/tests \
    || { echo "python-client-test: failed; passkeyd log:" >&2; tail -20 "$work/passkeyd.log" >&2; exit 1; }
echo "python-client-test: passed"
