# shellcheck shell=bash disable=SC2016  # the commands are single-quoted on purpose: the runner expands them
# The stages of `scripts/dev.sh test`, in the order it runs them: the one place that lists them (sourced by
# scripts/dev.sh; the runner is scripts/lib/stages.sh).
#
#   stage NAME NEEDS DESCRIPTION COMMAND
#
# NEEDS, set up once, when the first stage that needs it runs (after the test command's Debian packages):
#   pg       the throwaway PostgreSQL (scripts/postgres.sh start; PASSKEYD_PG_PORT picks its port), its URL in
#            $PASSKEYD_TEST_DATABASE_URL (exported); stopped at the end if this run started it
#   debug    the debug build with the tests (swift build --build-tests)
#   release  the release builds of passkeyd, passkeyd-softkey and passkeyd-idp, their directory in $release_bin
#            (PASSKEYD_TEST_BIN_DIR=DIR: use the binaries in DIR instead, and build nothing)
#   -        nothing
# COMMAND is run by bash (set -euo pipefail) in a subshell, from the repository root.

stage layers "-" "the module graph: layers, imports, no use case in HTTP, no source file over 500 lines (scripts/test/layers.py)" \
    'python3 scripts/test/layers.py'
stage docs "-" "the documentation site: mkdocs build --strict, broken links and anchors fail (scripts/test/docs.sh)" \
    'bash scripts/test/docs.sh'
stage swift-test "pg debug" "the XCTest suites (swift test), PostgreSQL ones included" \
    'swift test --skip-build'
stage sealed-http "pg debug" "the HTTP suites again with stateless ceremonies (PASSKEYD_TEST_SEALED_CHALLENGES=1: sealed challenges, no ceremony rows)" \
    'PASSKEYD_TEST_SEALED_CHALLENGES=1 swift test --skip-build --filter PasskeyHTTPTests'
stage smoke "pg release" "docs curl walkthrough: register, sign in, admin API (scripts/test/smoke.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/smoke.sh "$release_bin"'
stage idtoken-smoke "pg release" "docs ID-token walkthrough (scripts/test/idtoken-smoke.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/idtoken-smoke.sh "$release_bin"'
stage session-smoke "pg release" "docs sessions walkthrough, tokens checked by PyJWT (scripts/test/session-smoke.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/session-smoke.sh "$release_bin"'
stage upgrade-smoke "pg release" "docs 'Moving people to passkeys' walkthrough (scripts/test/upgrade-smoke.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/upgrade-smoke.sh "$release_bin"'
stage appstore-smoke "pg release" "docs App Store walkthrough (scripts/test/appstore-smoke.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/appstore-smoke.sh "$release_bin"'
stage appattest-smoke "pg release" "docs App Attest walkthrough (scripts/test/appattest-smoke.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/appattest-smoke.sh "$release_bin"'
stage e2e "pg release" "browser tests of the demo page in headless Chromium (scripts/test/e2e.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/e2e.sh "$release_bin"'
stage contract "pg release" "API contract test: schemathesis against openapi.json (scripts/test/contract-test.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/contract-test.sh "$release_bin"'
stage python-client "pg release" "Python client and its Django example (scripts/test/python-client-test.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/python-client-test.sh "$release_bin"'
stage typescript-client "pg release" "TypeScript client: build fresh, unit tests, live against passkeyd (scripts/test/typescript-client-test.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/typescript-client-test.sh "$release_bin"'
stage swift-client "pg release" "Swift client package, coverage and live walkthroughs (scripts/test/swift-client-test.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/swift-client-test.sh "$release_bin"'
stage webhooks "pg release" "webhook delivery: all ten event types verified by the standardwebhooks package, receiver down then up, two instances, a hanging receiver (scripts/test/webhook-test.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/webhook-test.sh "$release_bin"'
stage shutdown "pg release" "SIGTERM under load: nothing acknowledged lost (scripts/test/shutdown-test.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/shutdown-test.sh "$release_bin"'
stage failover "release" "primary/standby failover under load, its own clusters (scripts/test/failover-test.sh)" \
    'scripts/test/failover-test.sh "$release_bin"'
stage replica "release" "begins on a streaming standby: primary stopped, replay paused, standby stopped, ~10 s (scripts/test/replica-test.sh)" \
    'scripts/test/replica-test.sh "$release_bin"'
stage traces "pg release" "X-Request-Id on every answer; a sign-in's OTLP trace under the caller's traceparent, an opentelemetry-proto receiver (scripts/test/traces-test.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/traces-test.sh "$release_bin"'
stage flood "pg release" "bounded begin flood, ~55 s (scripts/test/flood-test.sh)" \
    'PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/flood-test.sh "$release_bin"'
stage fuzz "-" "each libFuzzer target for 10 s, its own ASan build (scripts/fuzz.sh --time 10)" \
    'scripts/fuzz.sh --time 10'
