#!/usr/bin/env bash
# passkeyd developer entry point: the two README commands.
#
#   scripts/dev.sh run    install what is missing, start PostgreSQL under ./var, build, migrate, serve
#   scripts/dev.sh test   same set-up, then the whole test suite against a throwaway PostgreSQL, then release builds
#                         and, against them, the README's curl walkthrough (scripts/test/smoke.sh) and the browser tests
#                         of the demo page in headless Chromium (scripts/test/e2e.sh; installs browser_test_packages too),
#                         the API contract test (scripts/test/contract-test.sh: schemathesis against openapi.json), the
#                         Python client and its Django example against passkeyd (scripts/test/python-client-test.sh),
#                         SIGTERM under load (scripts/test/shutdown-test.sh), a primary/standby failover under load
#                         (scripts/test/failover-test.sh) and a bounded begin flood (scripts/test/flood-test.sh)
#   scripts/dev.sh bench  release build of the engine benchmark, then run it
#   scripts/dev.sh loadbench [--quick] [--million] [--soak S] …
#                         the load benchmark (scripts/loadbench.sh): release passkeyd + PostgreSQL + passkeyd-loadgen
#   scripts/dev.sh fuzz [--time S] [--jobs N] [--timeout S] [TARGET…]
#                         the libFuzzer targets (scripts/fuzz.sh); the test command runs each for 10 s
#
# Works on a fresh Debian bookworm machine as root (or with sudo available). Swift itself is expected
# at /opt/swift or on PATH (it is not a Debian package).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
export PATH="/opt/swift/usr/bin:$PATH"

debian_packages=(pkg-config libssl-dev libcbor-dev libpq-dev postgresql postgresql-contrib curl jq)
# Only for the test command: the browser tests (e2e/browser_test.py) and the independent JWT verifier (e2e/verify_jwt.py).
# python3-venv for the API contract test's schemathesis (PyPI, into var/contract-venv).
browser_test_packages=(chromium chromium-driver python3-selenium python3-pytest python3-jwt python3-cryptography python3-venv)

install_missing() {  # install_missing [EXTRA_PACKAGE…]: debian_packages and these, where missing
    local missing=()
    for package in "${debian_packages[@]}" "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if ((${#missing[@]})); then
        echo "passkeyd: installing ${missing[*]}" >&2
        local sudo=""
        [[ $(id -u) -eq 0 ]] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
    command -v swift >/dev/null || { echo "passkeyd: swift not found (expected /opt/swift/usr/bin)" >&2; exit 1; }
}

case "${1:-}" in
run)
    install_missing
    scripts/postgres.sh start
    export PASSKEYD_DATABASE_URL="${PASSKEYD_DATABASE_URL:-$(scripts/postgres.sh url)}"
    swift build -c release --product passkeyd
    swift build -c release --product passkeyd-softkey
    swift build -c release --product passkeyd-idp
    echo "passkeyd: PostgreSQL at $PASSKEYD_DATABASE_URL; serving on ${PASSKEYD_LISTEN:-127.0.0.1:8080}" >&2
    exec "$(swift build -c release --show-bin-path)/passkeyd"
    ;;
test)
    install_missing "${browser_test_packages[@]}"
    scripts/postgres.sh start
    trap 'scripts/postgres.sh stop || true' EXIT
    export PASSKEYD_TEST_DATABASE_URL="$(scripts/postgres.sh url)"
    swift build --build-tests
    swift test --skip-build
    # The release build `run` uses (the optimiser has crashed on code the debug build accepts), then the README's
    # curl walkthrough and the demo page in a real browser against those release binaries.
    swift build -c release --product passkeyd
    swift build -c release --product passkeyd-softkey
    swift build -c release --product passkeyd-idp
    release_bin="$(swift build -c release --show-bin-path)"
    PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/smoke.sh "$release_bin"
    PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/idtoken-smoke.sh "$release_bin"
    PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/session-smoke.sh "$release_bin"
    PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/upgrade-smoke.sh "$release_bin"
    PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/appstore-smoke.sh "$release_bin"
    PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/appattest-smoke.sh "$release_bin"
    PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/e2e.sh "$release_bin"
    PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/contract-test.sh "$release_bin"
    PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/python-client-test.sh "$release_bin"
    PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/shutdown-test.sh "$release_bin"
    scripts/test/failover-test.sh "$release_bin"   # its own primary + synchronous standby clusters
    PASSKEYD_DATABASE_URL="$PASSKEYD_TEST_DATABASE_URL" scripts/test/flood-test.sh "$release_bin"
    # Each libFuzzer target briefly (scripts/fuzz.sh: address sanitizer, seeded from ../shared/vectors).
    scripts/fuzz.sh --time 10
    ;;
bench)
    install_missing
    swift build -c release --product passkeyd-bench
    "$(swift build -c release --show-bin-path)/passkeyd-bench" "${@:2}"
    ;;
loadbench)
    exec scripts/loadbench.sh "${@:2}"
    ;;
fuzz)
    install_missing
    exec scripts/fuzz.sh "${@:2}"
    ;;
*)
    echo "usage: scripts/dev.sh run|test|bench|loadbench|fuzz" >&2
    exit 2
    ;;
esac
