# shellcheck shell=bash disable=SC2034,SC2154  # sets $server, $port, ADMIN for the caller; uses its $repo, $work, $smoke_name
# Shared by the README walkthroughs scripts/test/{smoke,idtoken-smoke,session-smoke,upgrade-smoke,appstore-smoke,
# appattest-smoke}.sh (sourced, not run): start passkeyd in the background on a free loopback port with an admin key
# (scripts/lib/passkeyd.sh) and wait until it is ready, and the `expect` / `fail` helpers of the walkthroughs.
#
# Needs: pk_init done (scripts/lib/passkeyd.sh sourced; $work), $bin, $repo, $smoke_name (the prefix of failure
# messages); the environment passkeyd should run with already exported. Sets: $server (its pid), $port, $API, ADMIN
# (curl arguments with the admin key); exports PASSKEYD_LISTEN (for later passkeyd commands of the walkthrough).
export PASSKEYD_ADMIN_KEYS="smoke-admin-key" PASSKEYD_MIGRATIONS="$repo/Migrations"
export PASSKEYD_ORIGINS="http://localhost:8080" PASSKEYD_LOG_LEVEL="${PASSKEYD_LOG_LEVEL:-warning}"
pk_start passkeyd
server=$PK_PID
port=$PK_PORT
export PASSKEYD_LISTEN="127.0.0.1:$port"

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
