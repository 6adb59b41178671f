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
client="$repo/clients/swift"

python3 "$client/tools/generate-error-codes.py" --check
(cd "$client" && swift build --build-tests)

# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
# shellcheck source=scripts/lib/client-passkeyd.sh
source "$repo/scripts/lib/client-passkeyd.sh"
pk_init
pk_start_for_clients swift-client
export PASSKEYD_LIVE_REQUIRED=1  # the live tests fail rather than skip
cd "$client"
swift test --skip-build \
    || { echo "swift-client-test: failed; passkeyd log:" >&2; tail -20 "$work/passkeyd.log" >&2; exit 1; }
echo "swift-client-test: passed"
