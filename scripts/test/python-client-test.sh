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

work="$(mktemp -d)"
server=""
stop() {
    [[ -n "$server" ]] && { kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
    rm -rf "$work"
}
trap stop EXIT
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
database=passkeyd_python_client
psql "$PASSKEYD_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database" >/dev/null
url="${PASSKEYD_DATABASE_URL%/*}/$database"
api_key="python-api-$(openssl rand -hex 16)"
admin_key="python-admin-$(openssl rand -hex 16)"
origin="http://localhost:$port"
env PASSKEYD_DATABASE_URL="$url" PASSKEYD_MIGRATIONS="$repo/Migrations" "$bin/passkeyd" migrate >"$work/migrate.log" 2>&1
openssl rand -base64 32 >"$work/kek"
env PASSKEYD_DATABASE_URL="$url" PASSKEYD_LISTEN="127.0.0.1:$port" PASSKEYD_RP_ID=localhost PASSKEYD_ORIGINS="$origin" \
    PASSKEYD_MIGRATIONS="$repo/Migrations" PASSKEYD_API_KEYS="$api_key" PASSKEYD_ADMIN_KEYS="$admin_key" \
    PASSKEYD_SESSIONS=on PASSKEYD_KEY_ENCRYPTION_KEY_FILE="$work/kek" \
    PASSKEYD_LOG_LEVEL=warning "$bin/passkeyd" >"$work/passkeyd.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done

export PASSKEYD_URL="http://127.0.0.1:$port" PASSKEYD_API_KEY="$api_key" PASSKEYD_ADMIN_KEY="$admin_key"
export PASSKEYD_SOFTKEY="$bin/passkeyd-softkey" PASSKEYD_ORIGIN="$origin"
cd "$repo/clients/python"
"$venv/bin/pytest" -q -p no:cacheprovider tests examples/django_passkeys/tests \
    || { echo "python-client-test: failed; passkeyd log:" >&2; tail -20 "$work/passkeyd.log" >&2; exit 1; }
echo "python-client-test: passed"
