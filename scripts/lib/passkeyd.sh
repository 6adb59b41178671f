# shellcheck shell=bash disable=SC2034,SC2154  # sets PK_* for the caller; $bin and $work are the caller's
# Sourced by the stage scripts (scripts/test/*.sh): passkeyd processes on free loopback ports, and the clean-up of
# everything a stage started, on every way out (normal end, failure under set -e, Ctrl-C, SIGTERM).
#
#   pk_init                     make $work (a fresh temporary directory) and install the EXIT/INT/TERM trap; export
#                               PASSKEYD_KEY_ENCRYPTION_KEY_FILE (unless set): the shared var/kek (scripts/lib/kek.sh), so
#                               every passkeyd runs stateless ceremonies, and every stage on the shared test database
#                               opens the ceremony and session keys the others sealed (`pk_start NAME -u
#                               PASSKEYD_KEY_ENCRYPTION_KEY_FILE` starts one without); call once, before anything else of
#                               this file
#   pk_free_port                print a TCP port on 127.0.0.1 that is free now (the kernel's choice: bind port 0)
#   pk_start NAME [-u VAR…] [VAR=VALUE…]
#                               start "$bin/passkeyd" in the background under env(1) with these arguments (variables
#                               unset, then set) and PASSKEYD_LISTEN=127.0.0.1:<a free port>; "@PORT@" in a VALUE is that port (for
#                               PASSKEYD_ORIGINS=http://localhost:@PORT@). Output (stdout and stderr) goes to
#                               $work/NAME.log. Waits until GET /readyz answers 2xx (PK_READY_TIMEOUT seconds, default
#                               30); if passkeyd exits first because the port was taken in the meantime, tries again on
#                               another port (3 times); otherwise prints the log and exits 1. Sets PK_PORT, PK_PID and
#                               PK_URL (http://127.0.0.1:PORT). The process is a child of the calling shell: `wait
#                               "$PK_PID"` gives its exit status.
#   pk_at_exit COMMAND          run COMMAND (a string, eval'd) at exit, after the passkeyd processes are stopped and
#                               before $work is removed; hooks run in reverse order of registration
#
# At exit: every passkeyd started here that is still running gets SIGTERM, then SIGKILL after PK_STOP_TIMEOUT seconds
# (default 30); the hooks run; $work is removed. The exit status of the script is kept.
#
# Needs: $bin (the directory holding passkeyd), python3, curl, openssl.

pk_pids=()
pk_hooks=()
_pk_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/lib/kek.sh
source "$_pk_repo/scripts/lib/kek.sh"

pk_init() {
    work="$(mktemp -d)"
    trap _pk_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    PASSKEYD_KEY_ENCRYPTION_KEY_FILE="${PASSKEYD_KEY_ENCRYPTION_KEY_FILE:-$(dev_kek "$_pk_repo")}"
    export PASSKEYD_KEY_ENCRYPTION_KEY_FILE
}

pk_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

pk_at_exit() { pk_hooks+=("$1"); }

# _pk_alive PID: the process exists and is not a zombie (kill -0 succeeds on an exited, unreaped child).
_pk_alive() {
    local stat state
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
    state="${stat##*) }"
    [[ ${state%% *} != Z ]]
}

pk_start() {
    local name=$1
    shift
    local log="$work/$name.log" attempt port pid assignment deadline
    local assignments=()
    for attempt in 1 2 3; do
        port="$(pk_free_port)"
        assignments=()
        for assignment in "$@"; do assignments+=("${assignment//@PORT@/$port}"); done
        env "${assignments[@]}" PASSKEYD_LISTEN="127.0.0.1:$port" "$bin/passkeyd" >"$log" 2>&1 &
        pid=$!
        pk_pids+=("$pid")
        deadline=$((SECONDS + ${PK_READY_TIMEOUT:-30}))
        while ((SECONDS < deadline)); do
            if curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$port/readyz"; then
                PK_PORT=$port PK_PID=$pid PK_URL="http://127.0.0.1:$port"
                return 0
            fi
            _pk_alive "$pid" || break
            sleep 0.2
        done
        if _pk_alive "$pid"; then
            echo "passkeyd ($name) did not become ready on port $port within ${PK_READY_TIMEOUT:-30} s; its log:" >&2
            cat "$log" >&2
            exit 1
        fi
        wait "$pid" 2>/dev/null || true
        if ((attempt < 3)) && grep -qiE 'address already in use|errno: 98' "$log"; then
            echo "passkeyd ($name): port $port was taken meanwhile; another port" >&2
            continue
        fi
        echo "passkeyd ($name) exited before it was ready (port $port); its log:" >&2
        cat "$log" >&2
        exit 1
    done
}

_pk_cleanup() {
    local status=$? pid i
    trap - EXIT INT TERM
    set +e
    for pid in "${pk_pids[@]}"; do _pk_alive "$pid" && kill -TERM "$pid" 2>/dev/null; done
    local deadline=$((SECONDS + ${PK_STOP_TIMEOUT:-30}))
    for pid in "${pk_pids[@]}"; do
        while _pk_alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
        _pk_alive "$pid" && { echo "passkeyd (pid $pid) still running ${PK_STOP_TIMEOUT:-30} s after SIGTERM: SIGKILL" >&2; kill -KILL "$pid" 2>/dev/null; }
        wait "$pid" 2>/dev/null
    done
    for ((i = ${#pk_hooks[@]} - 1; i >= 0; i--)); do eval "${pk_hooks[i]}"; done
    [[ -n ${work:-} && -d $work ]] && rm -rf "$work"
    exit "$status"
}
