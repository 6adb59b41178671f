# shellcheck shell=bash disable=SC2034,SC2154  # sets pg_* for the caller; uses its $repo, $work and fail()
# Sourced by the stage scripts that need a primary and a streaming standby of their own (failover-test.sh,
# replica-test.sh): two PostgreSQL 15 clusters on 127.0.0.1, under var/NAME (or /tmp when the postgres user cannot
# reach var/), the standby a `pg_basebackup -R` of the primary.
#
#   pg_pair_init NAME        set pgbin (PASSKEYD_PG_BINDIR, default /usr/lib/postgresql/15/bin), pg_root, pg_primary,
#                            pg_standby; register the clusters' stop at exit (pk_at_exit)
#   pg_pair_start P1 P2 [SYNC_NAMES]
#                            make and start the primary on P1 with a database `passkeyd`, the standby (cluster_name
#                            standby1) on P2, then set the primary's synchronous_standby_names to SYNC_NAMES (empty:
#                            asynchronous) and wait until the standby streams; sets psql1 / psql2 (psql on each, as
#                            arrays) and pg_state (application_name:state:sync_state of pg_stat_replication)
#   pg_pair_stop             stop both clusters (immediate), if running
#   as_pg COMMAND…           run COMMAND as the clusters' OS user (postgres when root)
#
# Needs: pk_init done (scripts/lib/passkeyd.sh), $repo, and a fail() of the caller's (prints and exits 1).

as_pg() { if [[ $(id -u) == 0 ]]; then (cd / && runuser -u postgres -- "$@"); else (cd / && "$@"); fi; }

pg_pair_init() {
    pgbin="${PASSKEYD_PG_BINDIR:-/usr/lib/postgresql/15/bin}"
    pg_root="$repo/var/$1"
    if [[ $(id -u) == 0 ]]; then
        id -u postgres >/dev/null 2>&1 || useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin postgres
        mkdir -p "$repo/var"
        runuser -u postgres -- test -x "$repo/var" 2>/dev/null || pg_root="/tmp/passkeyd-$1-$(printf '%s' "$repo" | sha256sum | cut -c1-12)"
    fi
    pg_primary="$pg_root/primary"
    pg_standby="$pg_root/standby"
    pk_at_exit pg_pair_stop
}

pg_pair_stop() {
    local dir
    for dir in "$pg_primary" "$pg_standby"; do
        [[ -f $dir/postmaster.pid ]] && { as_pg "$pgbin/pg_ctl" stop -D "$dir" -m immediate -w -t 20 >/dev/null 2>&1 || true; }
    done
    return 0
}

# _pg_pair_conf DIR PORT NAME SYNC_NAMES: the settings of these tests, in DIR/pair.conf
_pg_pair_conf() {
    as_pg tee "$1/pair.conf" >/dev/null <<CONF
listen_addresses = '127.0.0.1'
port = $2
unix_socket_directories = '$1'
cluster_name = '$3'
wal_level = replica
max_wal_senders = 4
hot_standby = on
synchronous_standby_names = '$4'
synchronous_commit = on
fsync = off
full_page_writes = off
max_connections = 50
log_min_messages = warning
CONF
}

pg_pair_start() {
    local p1=$1 p2=$2 sync_names=${3:-} want
    pg_pair_stop   # left over from an interrupted run
    rm -rf "$pg_root"
    mkdir -p "$pg_root"
    chmod 0755 "$pg_root"
    [[ $(id -u) == 0 ]] && chown postgres: "$pg_root"
    as_pg "$pgbin/initdb" -D "$pg_primary" -U postgres --auth=trust --encoding=UTF8 --no-locale --no-instructions >"$work/initdb.log" 2>&1 \
        || { cat "$work/initdb.log" >&2; fail "initdb"; }
    printf "\ninclude = 'pair.conf'\n" | as_pg tee -a "$pg_primary/postgresql.conf" >/dev/null
    _pg_pair_conf "$pg_primary" "$p1" primary ""   # synchronous once the standby exists (CREATE DATABASE would wait for it)
    as_pg "$pgbin/pg_ctl" start -D "$pg_primary" -l "$pg_root/primary.log" -w -t 30 >/dev/null || fail "primary did not start"
    psql1=("$pgbin/psql" -X -q -h 127.0.0.1 -p "$p1" -U postgres)
    timeout 30 "${psql1[@]}" -d postgres -c "CREATE DATABASE passkeyd" >/dev/null || fail "CREATE DATABASE"
    as_pg "$pgbin/pg_basebackup" -h 127.0.0.1 -p "$p1" -U postgres -D "$pg_standby" -R -X stream -c fast >"$work/basebackup.log" 2>&1 \
        || { cat "$work/basebackup.log" >&2; fail "pg_basebackup"; }
    _pg_pair_conf "$pg_standby" "$p2" standby1 ""   # the standby has no standby of its own: promoted, it must not wait for one
    as_pg "$pgbin/pg_ctl" start -D "$pg_standby" -l "$pg_root/standby.log" -w -t 30 >/dev/null || fail "standby did not start"
    psql2=("$pgbin/psql" -X -q -h 127.0.0.1 -p "$p2" -U postgres)
    _pg_pair_conf "$pg_primary" "$p1" primary "$sync_names"
    as_pg "$pgbin/pg_ctl" reload -D "$pg_primary" >/dev/null
    want="standby1:streaming:$([[ -n $sync_names ]] && echo sync || echo async)"
    pg_state=""
    for _ in $(seq 100); do
        pg_state=$("${psql1[@]}" -d postgres -A -t -c "SELECT application_name || ':' || state || ':' || sync_state FROM pg_stat_replication")
        [[ $pg_state == "$want" ]] && break
        sleep 0.1
    done
    return 0
}
