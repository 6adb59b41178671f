#!/usr/bin/env bash
# Builds the documentation site (MkDocs + Material, mkdocs.yml) with --strict: a broken link or anchor, a page
# left out of the navigation, or an API reference that cannot be generated from
# Sources/PasskeyHTTP/Resources/openapi.json fails the build. The tools come from PyPI, pinned in
# docs/requirements.txt, into var/docs-venv (made on first use). The site goes to site/ (ignored by git).
#
#   bash scripts/test/docs.sh            build once
#   bash scripts/test/docs.sh serve      the same site on http://127.0.0.1:8000 while editing
set -euo pipefail
export NO_MKDOCS_2_WARNING=1   # Material's end-of-life banner; the pins are deliberate

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
venv=var/docs-venv
requirements=docs/requirements.txt

fail() { echo "docs: FAILED: $*" >&2; exit 1; }

if [[ ! -x $venv/bin/mkdocs ]] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
    echo "docs: installing $requirements into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv" || fail "python3 -m venv (Debian: apt-get install python3-venv)"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$requirements" \
        || fail "pip install -r $requirements"
    "$venv/bin/pip" check >/dev/null || fail "pip check: the pinned set is inconsistent"
    cp "$requirements" "$venv/requirements.txt"
fi

if [[ ${1:-} == serve ]]; then
    exec "$venv/bin/mkdocs" serve --strict
fi

log=var/docs-build.log
if "$venv/bin/mkdocs" build --strict --clean >"$log" 2>&1; then
    cat "$log"
    pages=$(find site -name '*.html' | wc -l)
    echo "docs: OK: mkdocs build --strict passed, $pages HTML pages in site/"
else
    cat "$log"
    fail "mkdocs build --strict (see the warnings above; each is an error under --strict)"
fi
