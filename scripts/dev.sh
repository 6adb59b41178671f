#!/usr/bin/env bash
# passkeyd developer entry point: the two commands of the README.
#
#   scripts/dev.sh run    install what is missing, start PostgreSQL under ./var, build, migrate, serve (with the
#                         key-encryption key var/kek, made once: stateless ceremonies; scripts/lib/kek.sh)
#   scripts/dev.sh test [--list] [--from STAGE | STAGE…]
#                         the test suite, stage by stage (the table: scripts/test/stages.sh; the runner:
#                         scripts/lib/stages.sh): the Debian packages (browser_test_packages too), a throwaway
#                         PostgreSQL, the debug build and `swift test`, then release builds and, against them, the
#                         docs walkthroughs (scripts/test/*-smoke.sh), the browser tests of the demo page in
#                         headless Chromium (scripts/test/e2e.sh), the API contract test, the Python and TypeScript
#                         clients, SIGTERM under load, a primary/standby failover, a bounded begin flood, and each
#                         fuzz target for 10 s.
#                         With no argument every stage (CI); STAGE… just those; --from STAGE from there on; --list
#                         prints the stages
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

debian_packages=(pkg-config libssl-dev libcbor-dev libpq-dev postgresql postgresql-contrib curl jq openssl)
# Only for the test command: the browser tests (e2e/browser_test.py) and the independent JWT verifier (e2e/verify_jwt.py).
# python3-venv for the API contract test's schemathesis (PyPI, into var/contract-venv). nodejs and node-typescript (tsc
# 4.8) for the TypeScript client (scripts/test/typescript-client-test.sh): node-typescript depends on nodejs:any, so a
# nodejs already installed from elsewhere (Node 20 from NodeSource, say) is kept; otherwise Debian's (Node 18) comes.
browser_test_packages=(chromium chromium-driver python3-selenium python3-pytest python3-jwt python3-cryptography python3-venv
    nodejs node-typescript)

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
    # The development key-encryption key (var/kek, made on first use and kept with the database under var/): passkeyd
    # seals its ceremony keys (stateless ceremonies) and session signing keys under it.
    # shellcheck source=scripts/lib/kek.sh
    source scripts/lib/kek.sh
    PASSKEYD_KEY_ENCRYPTION_KEY_FILE="${PASSKEYD_KEY_ENCRYPTION_KEY_FILE:-$(dev_kek "$repo")}"
    export PASSKEYD_KEY_ENCRYPTION_KEY_FILE
    swift build -c release --product passkeyd
    swift build -c release --product passkeyd-softkey
    swift build -c release --product passkeyd-idp
    echo "passkeyd: PostgreSQL at $PASSKEYD_DATABASE_URL; serving on ${PASSKEYD_LISTEN:-127.0.0.1:8080}" >&2
    exec "$(swift build -c release --show-bin-path)/passkeyd"
    ;;
test)
    # The stage runner (scripts/lib/stages.sh) over the table of stages (scripts/test/stages.sh).
    # shellcheck source=scripts/lib/stages.sh
    source scripts/lib/stages.sh
    # shellcheck source=scripts/test/stages.sh
    source scripts/test/stages.sh
    run_stages "${@:2}"
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
    echo "usage: scripts/dev.sh run | test [--list] [--from STAGE | STAGE…] | bench | loadbench | fuzz" >&2
    exit 2
    ;;
esac
