# Shared by scripts/test/smoke.sh and scripts/test/idtoken-smoke.sh (sourced, not run): start passkeyd in the background on
# 127.0.0.1:$port with an admin key and wait until it is ready, and the `expect` / `fail` helpers of the walkthroughs.
#
# Needs: $port, $repo, $work, $smoke_name (the prefix of failure messages); passkeyd on PATH and the environment it
# should run with already exported. Sets: $server (its pid), $API, ADMIN (curl arguments with the admin key).
export PASSKEYD_LISTEN="127.0.0.1:$port" PASSKEYD_ADMIN_KEYS="smoke-admin-key" PASSKEYD_MIGRATIONS="$repo/Migrations"
export PASSKEYD_ORIGINS="http://localhost:8080" PASSKEYD_LOG_LEVEL="${PASSKEYD_LOG_LEVEL:-warning}"
passkeyd 2>"$work/passkeyd.log" &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -sf "127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done

API="http://127.0.0.1:$port"
ADMIN=(-H "Authorization: Bearer smoke-admin-key")
fail() { echo "$smoke_name: $*" >&2; cat "$work/passkeyd.log" >&2; exit 1; }
expect() { # expect STATUS  METHOD PATH [curl args…]: prints the body, fails on another status
    local want=$1 method=$2 path=$3; shift 3
    local out status
    out=$(curl -s -w '\n%{http_code}' -X "$method" "$API$path" "$@") || fail "$method $path: curl failed"
    status=${out##*$'\n'}
    [[ $status == "$want" ]] || fail "$method $path: HTTP $status, wanted $want: ${out%$'\n'*}"
    printf '%s' "${out%$'\n'*}"
}
