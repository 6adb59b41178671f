#!/usr/bin/env bash
# The TypeScript client's tests (clients/typescript; issue 28): the build checked fresh (the types generated from
# openapi.json, dist/ compiled by Debian's tsc, the demo page's copy of the browser helper; the type tests), the
# unit tests (coverage of openapi.json's operations, answers and errors, the browser helper) with `node --test`, then
# the live tests (test/live.test.mjs and the README's example): the client against a real passkeyd (release build) on
# PostgreSQL with every feature the clients' live tests use (scripts/lib/client-passkeyd.sh), passkeyd-softkey as the
# authenticator. Needs Debian's nodejs and node-typescript (scripts/dev.sh test installs them); no npm.
#
#   scripts/test/typescript-client-test.sh BIN_DIR    BIN_DIR holds passkeyd, passkeyd-softkey and passkeyd-idp;
#                                                     PASSKEYD_DATABASE_URL must be set
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/typescript-client-test.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
client="$repo/clients/typescript"
echo "typescript-client-test: node $(node --version), $(tsc --version)"

# Fresh: regenerating and recompiling changes no committed file; the type tests compile.
node "$client/scripts/build.mjs" --check
# The unit tests (no server).
(cd "$client" && node --test test/coverage.test.mjs test/client.test.mjs test/browser.test.mjs)

# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
# shellcheck source=scripts/lib/client-passkeyd.sh
source "$repo/scripts/lib/client-passkeyd.sh"
pk_init
pk_start_for_clients typescript-client
(cd "$client" && node --test test/live.test.mjs test/readme.test.mjs) \
    || { echo "typescript-client-test: failed; passkeyd log:" >&2; tail -20 "$work/passkeyd.log" >&2; exit 1; }
echo "typescript-client-test: passed"
