#!/usr/bin/env bash
# Throwaway local PostgreSQL 15 for development and integration tests, and a durable one for the load benchmark.
#
#   scripts/postgres.sh [--durable] start     create the cluster + database "passkeyd" if missing, start it, wait until ready
#   scripts/postgres.sh [--durable] stop      stop it (fast shutdown); no-op when not running
#   scripts/postgres.sh [--durable] status    print "running port=N dir=D" (exit 0) or "stopped dir=D" (exit 3)
#   scripts/postgres.sh [--durable] url       print a libpq connection URI, e.g. postgresql://postgres@127.0.0.1:25432/passkeyd
#   scripts/postgres.sh [--durable] destroy   stop it and delete the cluster
#
# Two clusters, each with its own directory and default port; every command acts on one of them:
#   (default)   the dev/test cluster: <repo>/var/postgres, port 25432. Durability is switched off (fsync,
#               synchronous_commit, full_page_writes) because the data is throwaway.
#   --durable   the load benchmark's cluster (scripts/loadbench.sh): <repo>/var/postgres-durable, port 25433. Stock
#               durability: fsync, synchronous_commit and full_page_writes are not overridden (PostgreSQL's defaults,
#               on), so a commit waits for its WAL flush as on a production server. Also shared_preload_libraries =
#               'pg_stat_statements' with pg_stat_statements.track = all, the extension created in the databases
#               "postgres" and "passkeyd" (the statement profile of the benchmark's summary). The module ships in
#               Debian's postgresql-15 (which postgresql-contrib depends on).
#
# Where a cluster lives: <root>/{data,run,log}, <root> as above (the repo's /var/ is gitignored).
# The server listens only on a unix socket in <root>/run and on 127.0.0.1:$PASSKEYD_PG_PORT (default 25432, or
# 25433 with --durable). Authentication is "trust" for local and loopback connections: never expose these clusters.
#
# Running as root (as this machine does): initdb refuses root, so the server runs as the "postgres" OS user
# (created with useradd if missing). If that user cannot reach <repo>/var/postgres (a parent directory is not
# world-traversable) or the socket path would be too long for a unix socket, the cluster is put in
# /tmp/passkeyd-pg-<hash of the repo path> (with --durable /tmp/passkeyd-pg-durable-<hash>) instead and <root>
# becomes a symlink to it.
# Run as a non-root user, the server simply runs as that user.
#
# Environment:
#   PASSKEYD_PG_PORT           TCP port on 127.0.0.1 (default 25432, with --durable 25433; outside Linux's ephemeral range 32768-60999 so a restart can rebind it); read at start, `url` reports the running port
#   PASSKEYD_PG_DIR            put the cluster here instead of <repo>/var/postgres (or <repo>/var/postgres-durable);
#                              the mode's settings are written there on every start
#   PASSKEYD_PG_BINDIR         PostgreSQL binaries (default /usr/lib/postgresql/15/bin)
#   PASSKEYD_PG_START_TIMEOUT  seconds to wait for readiness (default 30)
#   PASSKEYD_PG_SHARED_BUFFERS shared_buffers (default 128MB, PostgreSQL's own; the load benchmark sets 1GB)
#
# This script installs nothing: the project's setup script installs the Debian package `postgresql-15`.
set -euo pipefail

readonly DB_NAME="passkeyd"
readonly DB_USER="postgres"
readonly OS_USER="postgres"
DURABLE=0
if [ "${1:-}" = "--durable" ]; then
    DURABLE=1
    shift
fi
if [ "$DURABLE" -eq 1 ]; then
    PORT="${PASSKEYD_PG_PORT:-25433}"
else
    PORT="${PASSKEYD_PG_PORT:-25432}"
fi
BINDIR="${PASSKEYD_PG_BINDIR:-/usr/lib/postgresql/15/bin}"
START_TIMEOUT="${PASSKEYD_PG_START_TIMEOUT:-30}"
SHARED_BUFFERS="${PASSKEYD_PG_SHARED_BUFFERS:-128MB}"

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
if [ "$DURABLE" -eq 1 ]; then
    DEFAULT_ROOT="$REPO/var/postgres-durable"
else
    DEFAULT_ROOT="$REPO/var/postgres"
fi

die() {
    printf 'postgres.sh: %s\n' "$*" >&2
    exit 1
}

usage() {
    printf 'usage: %s [--durable] start|stop|status|url|destroy\n' "$0" >&2
    exit 2
}

is_root() { [ "$(id -u)" -eq 0 ]; }

check_binaries() {
    local tool
    for tool in initdb pg_ctl pg_isready postgres psql; do
        [ -x "$BINDIR/$tool" ] || die "missing $BINDIR/$tool: install the Debian package postgresql-15 (the setup script does), or set PASSKEYD_PG_BINDIR"
    done
}

# The durable cluster preloads pg_stat_statements: its module must be installed (Debian: postgresql-15 ships it).
check_pg_stat_statements() {
    [ -f "$BINDIR/../lib/pg_stat_statements.so" ] \
        || die "missing $BINDIR/../lib/pg_stat_statements.so (--durable preloads it): install the Debian package postgresql-contrib"
}

check_port() {
    case "$PORT" in
        '' | *[!0-9]*) die "PASSKEYD_PG_PORT must be a number, got '$PORT'" ;;
    esac
    if [ "$PORT" -lt 1024 ] || [ "$PORT" -gt 65535 ]; then
        die "PASSKEYD_PG_PORT must be in 1024...65535, got $PORT"
    fi
}

# Runs a command as the server's OS user (postgres when we are root, else ourselves), from / so that an
# unreadable current directory does not matter.
as_server_user() {
    if is_root; then
        (cd / && runuser -u "$OS_USER" -- "$@")
    else
        (cd / && "$@")
    fi
}

ensure_os_user() {
    is_root || return 0
    if ! id -u "$OS_USER" >/dev/null 2>&1; then
        command -v useradd >/dev/null 2>&1 || die "OS user '$OS_USER' is missing and useradd is not available"
        useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$OS_USER" \
            || die "could not create OS user '$OS_USER'"
    fi
}

# Can the server user use $1 as the cluster root? It must reach the directory, and the socket path
# (<root>/run/.s.PGSQL.<port>) must fit in sockaddr_un (107 bytes on Linux; keep a margin).
root_is_usable() {
    local root="$1" probe
    [ "${#root}" -le 80 ] || return 1
    is_root || return 0
    # The deepest existing ancestor must be traversable by the server user; directories we create are 0755.
    probe="$root"
    while [ ! -e "$probe" ]; do probe="$(dirname "$probe")"; done
    runuser -u "$OS_USER" -- test -x "$probe" 2>/dev/null
}

fallback_root() {
    local hash
    hash="$(printf '%s' "$REPO" | sha256sum | cut -c1-12)"
    if [ "$DURABLE" -eq 1 ]; then
        printf '/tmp/passkeyd-pg-durable-%s' "$hash"
    else
        printf '/tmp/passkeyd-pg-%s' "$hash"
    fi
}

# Sets PGROOT. With "create", also decides on the fallback and creates the symlink; without it, only looks.
resolve_root() {
    local mode="${1:-}"
    if [ -n "${PASSKEYD_PG_DIR:-}" ]; then
        PGROOT="$PASSKEYD_PG_DIR"
    elif [ -L "$DEFAULT_ROOT" ]; then
        PGROOT="$(readlink -m "$DEFAULT_ROOT")"
    elif [ -e "$DEFAULT_ROOT" ] || [ "$mode" != create ] || root_is_usable "$DEFAULT_ROOT"; then
        PGROOT="$DEFAULT_ROOT"
    else
        PGROOT="$(fallback_root)"
        mkdir -p "$REPO/var"
        ln -sfn "$PGROOT" "$DEFAULT_ROOT"
    fi
    DATA="$PGROOT/data"
    RUNDIR="$PGROOT/run"
    LOGFILE="$PGROOT/log/postgres.log"
}

is_running() {
    [ -f "$DATA/PG_VERSION" ] || return 1
    as_server_user "$BINDIR/pg_ctl" status -D "$DATA" >/dev/null 2>&1
}

# Port of the running server, read from postmaster.pid (line 4), else the configured one.
running_port() {
    local p=""
    if [ -r "$DATA/postmaster.pid" ]; then
        p="$(sed -n '4p' "$DATA/postmaster.pid" 2>/dev/null || true)"
    fi
    case "$p" in
        '' | *[!0-9]*) printf '%s' "$PORT" ;;
        *) printf '%s' "$p" ;;
    esac
}

sql_quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/''/g")"; }

init_cluster() {
    mkdir -p "$PGROOT" "$PGROOT/log" "$RUNDIR"
    chmod 0755 "$PGROOT"
    if is_root; then
        chown "$OS_USER:" "$PGROOT/log" "$RUNDIR"
    fi
    if [ ! -f "$DATA/PG_VERSION" ]; then
        rm -rf "$DATA"
        mkdir -p "$DATA"
        chmod 0700 "$DATA"
        if is_root; then chown "$OS_USER:" "$DATA"; fi
        as_server_user "$BINDIR/initdb" --pgdata="$DATA" --username="$DB_USER" --auth=trust \
            --encoding=UTF8 --no-locale --no-instructions >"$PGROOT/log/initdb.log" 2>&1 \
            || { cat "$PGROOT/log/initdb.log" >&2; die "initdb failed (log: $PGROOT/log/initdb.log)"; }
        printf "\ninclude_if_exists = 'passkeyd.conf'\n" | as_server_user tee -a "$DATA/postgresql.conf" >/dev/null
    fi
    # Rewritten on every start so that the port, socket directory and mode follow the environment. max_connections
    # 300: the test suite runs its PostgreSQL suites in parallel, each with its own pools (100 ran out at ~520 tests).
    local kind mode_settings
    if [ "$DURABLE" -eq 1 ]; then
        # Stock durability: fsync, synchronous_commit and full_page_writes stay at PostgreSQL's defaults (on).
        kind="durable benchmark"
        mode_settings="shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all"
    else
        kind="throwaway"
        mode_settings="fsync = off
synchronous_commit = off
full_page_writes = off"
    fi
    as_server_user tee "$DATA/passkeyd.conf" >/dev/null <<EOF
# Written by scripts/postgres.sh on every start: local $kind cluster, do not edit.
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = $(sql_quote "$RUNDIR")
unix_socket_permissions = 0777
$mode_settings
max_connections = 300
shared_buffers = $(sql_quote "$SHARED_BUFFERS")
log_min_messages = warning
log_min_error_statement = panic
EOF
}

wait_ready() {
    local deadline=$((SECONDS + START_TIMEOUT))
    local grace=$((SECONDS + 5))
    until "$BINDIR/pg_isready" -q -h "$RUNDIR" -p "$(running_port)" -U "$DB_USER" -d postgres; do
        if [ "$SECONDS" -ge "$grace" ] && ! is_running; then
            tail -n 20 "$LOGFILE" >&2 2>/dev/null || true
            die "server exited during startup (log: $LOGFILE)"
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            tail -n 20 "$LOGFILE" >&2 2>/dev/null || true
            die "server not ready after ${START_TIMEOUT}s (log: $LOGFILE)"
        fi
        sleep 0.2
    done
}

ensure_database() {
    local psql=("$BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$RUNDIR" -p "$(running_port)" -U "$DB_USER")
    if [ "$("${psql[@]}" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = $(sql_quote "$DB_NAME")")" != 1 ]; then
        "${psql[@]}" -d postgres -c "CREATE DATABASE \"$DB_NAME\" ENCODING 'UTF8' TEMPLATE template0" >/dev/null \
            || die "could not create database $DB_NAME"
    fi
    if [ "$DURABLE" -eq 1 ]; then
        local db
        for db in postgres "$DB_NAME"; do
            "${psql[@]}" -d "$db" -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null \
                || die "could not create the extension pg_stat_statements in database $db"
        done
    fi
}

cmd_start() {
    check_binaries
    if [ "$DURABLE" -eq 1 ]; then check_pg_stat_statements; fi
    check_port
    ensure_os_user
    resolve_root create
    mkdir -p "$PGROOT"
    exec 9>"$PGROOT/.lock"
    flock -w 60 9 || die "another postgres.sh holds $PGROOT/.lock"
    if ! is_running; then
        init_cluster
        # 9>&-: the postmaster must not inherit (and keep holding) the lock.
        # -w: return once the server accepts connections (with -W, the pid file may not exist yet and a
        # status check right after could wrongly report the server as gone).
        as_server_user "$BINDIR/pg_ctl" start -D "$DATA" -l "$LOGFILE" -w -t "$START_TIMEOUT" -s >/dev/null 9>&- \
            || { tail -n 20 "$LOGFILE" >&2 2>/dev/null || true; die "pg_ctl start failed (log: $LOGFILE)"; }
    fi
    wait_ready
    ensure_database
}

cmd_stop() {
    check_binaries
    resolve_root
    is_running || return 0
    as_server_user "$BINDIR/pg_ctl" stop -D "$DATA" -m fast -w -t 60 -s >/dev/null || die "pg_ctl stop failed (log: $LOGFILE)"
}

cmd_status() {
    check_binaries
    resolve_root
    if is_running; then
        printf 'running port=%s dir=%s\n' "$(running_port)" "$PGROOT"
    else
        printf 'stopped dir=%s\n' "$PGROOT"
        exit 3
    fi
}

cmd_url() {
    resolve_root
    printf 'postgresql://%s@127.0.0.1:%s/%s\n' "$DB_USER" "$(running_port)" "$DB_NAME"
}

cmd_destroy() {
    cmd_stop
    resolve_root
    case "$PGROOT" in
        "$DEFAULT_ROOT" | /tmp/passkeyd-pg-*) ;;
        *) die "refusing to delete $PGROOT (set outside the repo via PASSKEYD_PG_DIR): delete it by hand" ;;
    esac
    rm -rf "$PGROOT"
    if [ -L "$DEFAULT_ROOT" ]; then rm -f "$DEFAULT_ROOT"; fi
}

[ "$#" -eq 1 ] || usage
case "$1" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    url) cmd_url ;;
    destroy) cmd_destroy ;;
    *) usage ;;
esac
