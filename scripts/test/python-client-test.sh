#!/usr/bin/env bash
# The Python client's tests (clients/python; issues 16 and 28): the checks that need no server (every operation of
# openapi.json has its method in both clients, the generated modules are current, the retry rules), then both
# clients and the Django example against a real passkeyd (release build) on PostgreSQL with sessions, ID tokens
# (passkeyd-idp as the provider), the App Store (passkeyd-softkey storekit, the vectors' TEST root), App Attest
# (passkeyd-softkey appattest), the app-association documents and the conformance binding on, with passkeyd-softkey
# as the authenticator. Installs the client (httpx, and pytest, Django from PyPI) into var/python-client-venv.
#
#   scripts/test/python-client-test.sh BIN_DIR    BIN_DIR holds passkeyd, passkeyd-softkey and passkeyd-idp;
#                                                 PASSKEYD_DATABASE_URL must be set
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
# shellcheck source=scripts/lib/client-passkeyd.sh
source "$repo/scripts/lib/client-passkeyd.sh"
pk_init
pk_start_for_clients python-client
export PASSKEYD_LIVE_REQUIRED=1  # the live tests fail rather than skip
cd "$repo/clients/python"
"$venv/bin/pytest" -q -p no:cacheprovider tests examples/django_passkeys/tests \
    || { echo "python-client-test: failed; passkeyd log:" >&2; tail -20 "$work/passkeyd.log" >&2; exit 1; }
echo "python-client-test: passed"
