#!/usr/bin/env bash
# The load benchmark (README "Load benchmark"; issue 6): a release passkeyd against the local PostgreSQL, driven
# over loopback by passkeyd-loadgen (Sources/PasskeyLoadGen). Not part of the test command or CI.
#
# It runs on the durable cluster (scripts/postgres.sh --durable: stock fsync, synchronous_commit and full_page_writes,
# pg_stat_statements loaded) unless --non-durable says otherwise. The summary leads with server CPU (passkeyd +
# PostgreSQL's process tree) per complete sign-in and per registration at the highest concurrency, then the statement
# profile of those two phases (pg_stat_statements) and table health (pg_stat_user_tables); then the environment,
# with the durability settings read back from the server (SHOW), then every phase.
#
#   scripts/loadbench.sh [--non-durable] [--quick] [--million] [--repeats R] [--seconds S] [--soak S] [--credentials N] [--concurrency 16,64]
#                        [--perf | --perf-phase P] [--instances 1,2,3] [--compare-binary FILE [--compare-label TEXT] [--compare-sql SQL] | --compare-go]
#                        [--table-ceremonies] [--out FILE]
#
#   --table-ceremonies
#                    passkeyd without ceremony keys: ceremonies in the ceremonies table (the default gives passkeyd a
#                    key-encryption key of the run's own, so ceremonies are stateless: sealed challenges)
#   --non-durable    the throwaway dev/test cluster instead (scripts/postgres.sh: fsync, synchronous_commit and
#                    full_page_writes off; no pg_stat_statements, so no statement profile): the title, every heading
#                    and every figure row of the summary say NON-DURABLE (so does any run whose server reports one of
#                    those settings off)
#   --quick          3 s phases, 5,000 pre-signed finishes per concurrency, no soak (a smoke run of the benchmark)
#   --million        a second database of 1,000,000 credentials (passkeyd_loadbench_million) with its own passkeyd,
#                    both prepared before measuring; after the main run's phases the load generator alternates
#                    short rounds 10k, 1M, 10k, 1M, … (--repeats each, default 3) of pre-signed finishes and begin +
#                    finish at the highest concurrency and reports medians and their ratio (interleaved, so the
#                    machine's noise hits both sides alike)
#   --compare-binary FILE
#                    before/after: a second passkeyd, the build FILE (e.g. a release binary of an older commit), on a
#                    second database of the same size (passkeyd_loadbench_compare); after the main run's phases the
#                    load generator alternates rounds this build, FILE, this build, … (--repeats each) of pre-signed
#                    finishes, begin + finish and registration at the highest concurrency and reports the medians of
#                    throughput and server CPU per operation with their ratios; --compare-label names FILE's side;
#                    --compare-sql SQL runs SQL on the second database after its migration (e.g. the same build with
#                    a trigger dropped: what one schema object costs per operation)
#   --compare-go     --compare-binary with the Go reference server of issue 29 (scripts/bench/go-reference: duo-labs
#                    webauthn + pgx, three autocommit statements per sign-in finish), built here with Debian's Go
#                    packages (installed if missing); its database is migrated by this passkeyd (it uses passkeyd's
#                    users and credentials tables, its ceremonies in a table of its own)
#   --repeats R      rounds per side and phase of the --million, --compare-binary or --compare-go comparison (default 3)
#   --seconds S      duration cap of each phase (default 10); every phase is also capped in request count
#   --soak S         mixed authentication at the highest concurrency for S seconds at the end, then RSS again
#                    (the issue asks for 300); default 0 (none)
#   --credentials N  users + credentials of the main run (default 10000)
#   --perf           `perf record -g` of passkeyd during the pre-signed phase at the highest concurrency (needs perf,
#                    Debian linux-perf); var/loadbench/perf.data, top symbols in var/loadbench/perf-top.txt
#   --perf-phase P   --perf of phase P instead: presigned, mixed (begin + sign + finish) or registration
#   --instances LIST after the main run, for each N in LIST: N passkeyd processes on N free ports sharing one fresh
#                    database, the load generator spreading over them (a ceremony begun on one instance finishes on
#                    another); pre-signed, begin + finish and registration at the highest concurrency, same phase
#                    limits; then a table of the N runs with ratios to 1 instance
# Every phase reports CPU per operation: passkeyd's (/proc/PID/stat), PostgreSQL's (the postmaster's whole process
# tree, reaped children included) and the load generator's, each divided by the operations the phase completed.
#   --out FILE       the Markdown summary (default var/loadbench/summary.md); copy it to BENCHMARKS.md to commit
#
# Environment: PASSKEYD_PG_PORT (scripts/postgres.sh; default 25433 for the durable cluster, 25432 with --non-durable),
# LOADBENCH_SCRATCH (swift build --scratch-path, default .build).
#
# Steps: install what is missing, build passkeyd and passkeyd-loadgen in release mode, start scripts/postgres.sh
# --durable (with --non-durable: scripts/postgres.sh) and read its durability settings back, (re)create and migrate
# the database passkeyd_loadbench (with --million also passkeyd_loadbench_million; dev data in database "passkeyd" is
# never touched), start passkeyd on a free loopback port (with --million a second one on the second database; log
# level warning, metrics on, challenge TTL 3600 s so pre-signed ceremonies outlive long runs), run the load generator
# (given the same RP id and origin: rp_id, origin and challenge_ttl below are the one place they are set), stop
# passkeyd, put the summary together (the title, the load generator's lead var/loadbench/lead.md, then environment.md
# and phases.md) and stop PostgreSQL if this script started it.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
export PATH="/opt/swift/usr/bin:$PATH"

invocation="scripts/loadbench.sh${*:+ $*}"
seconds=10 soak=0 credentials=10000 concurrency=16,64 presigned=40000 warmup=3 million=0 repeats=3 perf=0 perf_phase=presigned instances=""
compare_binary="" compare_label="" compare_sql="" compare_go=0 durable=1 table_ceremonies=0
out="$repo/var/loadbench/summary.md"
while (($#)); do
    case "$1" in
    --non-durable) durable=0 ;;
    --table-ceremonies) table_ceremonies=1 ;;
    --quick) seconds=3 presigned=5000 warmup=1 soak=0 ;;
    --million) million=1 ;;
    --repeats) repeats="$2"; shift ;;
    --seconds) seconds="$2"; shift ;;
    --soak) soak="$2"; shift ;;
    --credentials) credentials="$2"; shift ;;
    --concurrency) concurrency="$2"; shift ;;
    --perf) perf=1 ;;
    --perf-phase) perf=1 perf_phase="$2"; shift ;;
    --instances) instances="$2"; shift ;;
    --compare-binary) compare_binary="$2"; shift ;;
    --compare-label) compare_label="$2"; shift ;;
    --compare-sql) compare_sql="$2"; shift ;;
    --compare-go) compare_go=1 ;;
    --out) out="$2"; shift ;;
    *) echo "usage: scripts/loadbench.sh [--non-durable] [--quick] [--million] [--repeats R] [--seconds S] [--soak S] [--credentials N] [--concurrency 16,64] [--perf | --perf-phase P] [--instances 1,2,3] [--compare-binary FILE [--compare-label TEXT] [--compare-sql SQL] | --compare-go] [--table-ceremonies] [--out FILE]" >&2; exit 2 ;;
    esac
    shift
done
[[ -z $compare_sql || -n $compare_binary || $compare_go == 1 ]] || { echo "loadbench: --compare-sql needs --compare-binary or --compare-go" >&2; exit 2; }
if ((compare_go)); then
    [[ -z $compare_binary ]] || { echo "loadbench: --compare-go and --compare-binary each name the second side; pick one" >&2; exit 2; }
    ((!million)) || { echo "loadbench: --million and --compare-go each need the second side; pick one" >&2; exit 2; }
elif [[ -n $compare_binary ]]; then
    ((million)) && { echo "loadbench: --million and --compare-binary each need the second side; pick one" >&2; exit 2; }
    [[ -x $compare_binary ]] || { echo "loadbench: --compare-binary $compare_binary is not an executable" >&2; exit 2; }
    compare_binary="$(cd "$(dirname "$compare_binary")" && pwd)/$(basename "$compare_binary")"
    compare_label="${compare_label:-$(basename "$compare_binary")}"
fi
if [[ -n $instances && ! $instances =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]]; then
    echo "loadbench: --instances needs a list of positive numbers, e.g. 1,2,3" >&2
    exit 2
fi

packages=(pkg-config libssl-dev libcbor-dev libpq-dev postgresql postgresql-contrib curl python3)
((perf)) && packages+=(linux-perf)
((compare_go)) && packages+=(golang-go golang-github-duo-labs-webauthn-dev golang-github-jackc-pgx-v4-dev)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "loadbench: installing ${missing[*]}" >&2
    sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

scratch=(--scratch-path "${LOADBENCH_SCRATCH:-$repo/.build}")
echo "loadbench: building passkeyd and passkeyd-loadgen (release)" >&2
swift build "${scratch[@]}" -c release --product passkeyd >&2
swift build "${scratch[@]}" -c release --product passkeyd-loadgen >&2
bin="$(swift build "${scratch[@]}" -c release --show-bin-path)"
# The second side's database is migrated by the binary compared, or for the Go reference by this passkeyd.
compare_migrator="$compare_binary"
if ((compare_go)); then
    # GOPATH mode over Debian's source packages (/usr/share/gocode): no module proxy needed.
    echo "loadbench: building the Go reference (scripts/bench/go-reference)" >&2
    compare_binary="$(realpath -m "${LOADBENCH_SCRATCH:-$repo/.build}")/go-reference/go-reference"
    (cd scripts/bench/go-reference && GO111MODULE=off GOPATH=/usr/share/gocode go build -o "$compare_binary" .)
    compare_label="Go reference (duo-labs webauthn + pgx)"
    compare_migrator="$bin/passkeyd"
fi

# The cluster: the durable one (stock durability, pg_stat_statements), or with --non-durable the dev/test one.
pg=(scripts/postgres.sh --durable)
((durable)) || pg=(scripts/postgres.sh)
started_pg=0
"${pg[@]}" status >/dev/null 2>&1 || started_pg=1
# Sized like a production server's (PostgreSQL's 128MB default would not hold the 1M-credential table and index
# it reads from; a PostgreSQL that is already running keeps its own setting, reported in the summary).
export PASSKEYD_PG_SHARED_BUFFERS="${PASSKEYD_PG_SHARED_BUFFERS:-1GB}"
"${pg[@]}" start
pg_url="$("${pg[@]}" url)"
admin_url="${pg_url%/*}/postgres"
bench_url="${pg_url%/*}/passkeyd_loadbench"
million_url="${pg_url%/*}/passkeyd_loadbench_million"
compare_url="${pg_url%/*}/passkeyd_loadbench_compare"
# The postmaster: PostgreSQL's CPU is that of its process tree.
pg_dir="$("${pg[@]}" status | sed -n 's/^running .* dir=//p')"
pg_pid="$(head -1 "$pg_dir/data/postmaster.pid")"
export PSQL="${PSQL:-/usr/lib/postgresql/15/bin/psql}"

# What the server really does, read back (a cluster already running keeps the settings it was started with): the
# environment section prints these, and with any of them off every heading and figure row says NON-DURABLE.
pg_setting() { "$PSQL" -X -tA -d "$admin_url" -c "SHOW $1" | head -1; }
fsync="$(pg_setting fsync)" synchronous_commit="$(pg_setting synchronous_commit)" full_page_writes="$(pg_setting full_page_writes)"
tag=""
if ((!durable)) || [[ $fsync != on || $full_page_writes != on || $synchronous_commit == off ]]; then tag="NON-DURABLE "; fi
if ((durable)) && [[ -n $tag ]]; then
    echo "loadbench: the durable cluster reports fsync $fsync, synchronous_commit $synchronous_commit, full_page_writes $full_page_writes: labelled NON-DURABLE" >&2
fi
# The statement profile: pg_stat_statements in the "postgres" database (postgres.sh --durable creates it there),
# if the server preloads it.
statements_args=()
if [[ $(pg_setting shared_preload_libraries) == *pg_stat_statements* ]]; then
    "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$admin_url" -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
    statements_args=(--statements-url "$admin_url")
fi

work="$repo/var/loadbench"
mkdir -p "$work" "$(dirname "$out")"
chmod 0755 "$work"  # the CSV files are read by psql (this user), never by the server
servers=()  # the running passkeyd processes; start_server adds one, stop_servers stops them all
cleanup() {
    for pid in "${servers[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    if ((started_pg)); then "${pg[@]}" stop || true; fi
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# The relying party: passkeyd gets it through its environment, the load generator as --rp-id and --origin (it seeds
# credentials for this RP id and claims this origin); pre-signed ceremonies are begun over HTTP, so they live as long
# as passkeyd's challenge lifetime says (an hour: long enough for any phase).
rp_id=localhost origin="http://localhost:8080" challenge_ttl=3600
export PASSKEYD_LOG_LEVEL=warning PASSKEYD_METRICS=on PASSKEYD_CHALLENGE_TTL="$challenge_ttl" PASSKEYD_MIGRATIONS="$repo/Migrations"
export PASSKEYD_ORIGINS="$origin" PASSKEYD_RP_ID="$rp_id"
# Stateless ceremonies (sealed challenges) need ceremony keys: a key-encryption key of this run's own (the benchmark
# databases are made afresh, so their ceremony keys are sealed under it). --table-ceremonies runs without: ceremonies
# in the ceremonies table, as a passkeyd without keys runs them.
if ((table_ceremonies)); then
    unset PASSKEYD_KEY_ENCRYPTION_KEY_FILE PASSKEYD_CEREMONY_KEY_FILES
    ceremony_mode="stored in the ceremonies table (--table-ceremonies)"
else
    mkdir -p "$work"
    (umask 077 && openssl rand -base64 32 >"$work/kek")
    export PASSKEYD_KEY_ENCRYPTION_KEY_FILE="$work/kek"
    ceremony_mode="stateless (sealed challenges, ceremony keys under a key-encryption key)"
fi
echo "loadbench: ceremonies $ceremony_mode" >&2
unset PASSKEYD_API_KEYS PASSKEYD_ADMIN_KEYS PASSKEYD_CONFIG_FILE

# (Re)creates and migrates a database: passkeyd_loadbench, or the one named by $1 (migrated by the binary $2).
fresh_database() {
    local name="${1:-passkeyd_loadbench}"
    "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$admin_url" -c "DROP DATABASE IF EXISTS $name" \
        -c "CREATE DATABASE $name ENCODING 'UTF8' TEMPLATE template0" >/dev/null
    PASSKEYD_DATABASE_URL="${pg_url%/*}/$name" "${2:-$bin/passkeyd}" migrate 2>>"$work/passkeyd.log"
}

# Starts one more passkeyd on $bench_url (or the database URL $1; the binary $2, default this build) and waits until
# it is ready (so the next free_port cannot hand out its port): sets port and server, adds it to servers.
start_server() {
    port="$(free_port)"
    PASSKEYD_DATABASE_URL="${1:-$bench_url}" PASSKEYD_LISTEN="127.0.0.1:$port" "${2:-$bin/passkeyd}" 2>>"$work/passkeyd.log" &
    server=$!
    servers+=("$server")
    for _ in $(seq 150); do curl -sf "127.0.0.1:$port/readyz" >/dev/null && return 0; sleep 0.2; done
    echo "loadbench: passkeyd did not become ready; log: $work/passkeyd.log" >&2
    exit 1
}

stop_servers() {
    local pid
    for pid in "${servers[@]}"; do kill -TERM "$pid"; done
    for pid in "${servers[@]}"; do wait "$pid" || { echo "loadbench: passkeyd did not exit cleanly" >&2; exit 1; }; done
    servers=()
}

# The --instances table from the load generator's results-instances-N.json: rates with their ratio to 1 instance
# (or to the first N listed), finish p99s, errors of all phases (warm-up included), cross-instance ceremonies.
instances_table() {
    # shellcheck disable=SC2086  # one argument per instance count
    python3 - "$1" "$(nproc)" "$work" ${instances//,/ } <<'PY'
import json, os, sys
top, cores, work, counts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
runs = {n: json.load(open(f"{work}/results-instances-{n}.json")) for n in counts}
base_n = "1" if "1" in runs else counts[0]
base = runs[base_n]
def rate(r, key):
    value, first = r.get(f"{key}{top}_rate"), base.get(f"{key}{top}_rate")
    if value is None: return "–"
    return f"{value:.0f} ({value / first:.2f}×)" if first else f"{value:.0f}"
def p99(r, key):
    value = r.get(f"{key}{top}_p99")
    return "–" if value is None else f"{value:.1f}"
tag = os.environ.get("LOADBENCH_TAG", "")
print(f"### {tag}Instances: 1 database, N passkeyd processes, concurrency {top}")
print()
print(f"All instances share this machine's {cores} cores with PostgreSQL and the load generator, so more instances show "
      "the cost of coordinating through PostgreSQL (ceremonies begun on one instance, finished on another), not "
      "horizontal scaling. Ratios are to the " + ("1-instance run" if base_n == "1" else f"{base_n}-instance run") +
      ". Each run's section above has its details; passkeyd CPU and RSS there are sums over the instances.")
print()
print("| instances | auth finish pre-signed req/s | auth begin + finish pairs/s | registration pairs/s "
      "| finish p99 ms (pre-signed / begin + finish / registration) | errors | cross-instance ceremonies |")
print("|---:|---:|---:|---:|---|---:|---:|")
for n in counts:
    r = runs[n]
    errors = sum(v for k, v in r.items() if k.endswith("_errors"))
    cross = sum(r.get(f"{k}{top}_cross", 0) for k in ("mixed", "registration"))
    done = sum(r.get(f"{k}{top}_completed", 0) for k in ("mixed", "registration"))
    print(f"| {tag}{n} | {rate(r, 'presigned')} | {rate(r, 'mixed')} | {rate(r, 'registration')} "
          f"| {p99(r, 'presigned')} / {p99(r, 'mixed')} / {p99(r, 'registration')} | {errors:.0f} | {cross:.0f} of {done:.0f} |")
print()
PY
}

# --- the summary's parts: its title, then lead.md (the load generator's), environment.md, phases.md ---
title="$work/title.md" environment="$work/environment.md" phases="$work/phases.md" lead="$work/lead.md"
rm -f "$title" "$environment" "$phases" "$lead"
{
    if [[ -n $tag ]]; then
        echo "# Load benchmark — NON-DURABLE"
        echo
        echo "> **NON-DURABLE.** Measured with fsync $fsync, synchronous_commit $synchronous_commit, full_page_writes $full_page_writes (read back from the server): a commit does not wait for its WAL to reach the disk, so PostgreSQL's share and the rates are not those of a production server."
    else
        echo "# Load benchmark"
    fi
    echo
    echo "Written by \`$invocation\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift Migrations || echo ' (with uncommitted changes)')."
    echo
} >"$title"
{
    echo "## ${tag}Environment"
    echo
    echo "| machine | |"
    echo "|---|---|"
    echo "| CPUs (\`nproc\`) | $(nproc) |"
    echo "| CPU model | $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') |"
    echo "| RAM | $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) |"
    echo "| kernel | $(uname -sr) |"
    echo "| Swift | $(swift --version 2>/dev/null | head -1) |"
    echo "| PostgreSQL | $(pg_setting server_version) (\`${pg[*]}\`, $pg_dir; shared_buffers $(pg_setting shared_buffers); shared_preload_libraries '$(pg_setting shared_preload_libraries)') |"
    echo "| durability (\`SHOW\` after start) | fsync **$fsync**, synchronous_commit **$synchronous_commit**, full_page_writes **$full_page_writes**${tag:+ — **NON-DURABLE**} |"
    echo "| storage under the cluster | $(df -h --output=source,fstype "$pg_dir/data/" 2>/dev/null | tail -1 | tr -s ' ') |"
    echo "| passkeyd | release build, pool size ${PASSKEYD_POOL_SIZE:-8}, log level warning, metrics on, on 127.0.0.1 |"
    if ((compare_go)); then
        echo "| Go reference | $(go version | cut -d' ' -f3), duo-labs webauthn $(dpkg-query -W -f='${Version}' golang-github-duo-labs-webauthn-dev), pgx $(dpkg-query -W -f='${Version}' golang-github-jackc-pgx-v4-dev), pool size ${PASSKEYD_POOL_SIZE:-8} |"
    fi
    echo
} >"$environment"
echo "## ${tag}Phases" >"$phases"
echo >>"$phases"

loadgen=("$bin/passkeyd-loadgen" --database-url "$bench_url" --rp-id "$rp_id" --origin "$origin"
    --postgres-pid "$pg_pid" --concurrency "$concurrency" --seconds "$seconds" --presigned "$presigned" --warmup "$warmup"
    --work-dir "$work" --out "$phases")
if [[ -n $tag ]]; then loadgen+=(--non-durable); fi

fresh_database
compare_args=()
if ((million)); then
    # Both databases and both passkeyd processes before anything is measured; the idle one costs nothing.
    fresh_database passkeyd_loadbench_million
    start_server "$million_url"
    compare_args=(--compare-url "http://127.0.0.1:$port" --compare-server-pid "$server" --compare-database-url "$million_url"
        --compare-credentials 1000000 --repeats "$repeats")
elif [[ -n $compare_binary ]]; then
    fresh_database passkeyd_loadbench_compare "$compare_migrator"
    [[ -z $compare_sql ]] || "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$compare_url" -c "$compare_sql" >/dev/null
    start_server "$compare_url" "$compare_binary"
    this="this build ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift Migrations || echo ' + changes'))"
    compare_args=(--compare-url "http://127.0.0.1:$port" --compare-server-pid "$server" --compare-database-url "$compare_url"
        --compare-credentials "$credentials" --repeats "$repeats" --compare-labels "$this,$compare_label")
fi
start_server
perf_args=()
if ((perf)); then
    command -v perf >/dev/null || { echo "loadbench: --perf needs perf (Debian linux-perf)" >&2; exit 2; }
    perf_args=(--perf-output "$work/perf.data" --perf-phase "$perf_phase")
fi
"${loadgen[@]}" --url "http://127.0.0.1:$port" --server-pid "$server" --credentials "$credentials" --soak "$soak" \
    --label "$credentials credentials" --results "$work/results-main.json" --lead-out "$lead" "${statements_args[@]}" \
    "${perf_args[@]}" "${compare_args[@]}"
if ((perf)); then
    perf report -i "$work/perf.data" --no-children --sort symbol --stdio --percent-limit 1.5 2>/dev/null \
        | grep -E '^ +[0-9.]+%' | head -25 >"$work/perf-top.txt" || true
    echo "loadbench: perf profile of passkeyd in $work/perf.data (top symbols: $work/perf-top.txt)" >&2
fi
stop_servers

if [[ -n $instances ]]; then
    top="$(tr , '\n' <<<"$concurrency" | sort -n | tail -1)"
    for n in ${instances//,/ }; do
        fresh_database
        urls=()
        for _ in $(seq "$n"); do start_server; urls+=("http://127.0.0.1:$port"); done
        "${loadgen[@]}" --concurrency "$top" --url "$(IFS=,; echo "${urls[*]}")" --server-pid "$(IFS=,; echo "${servers[*]}")" \
            --credentials "$credentials" --phases presigned,mixed,registration --label "$n × passkeyd, one database, concurrency $top" \
            --results "$work/results-instances-$n.json"
        stop_servers
    done
    LOADBENCH_TAG="$tag" instances_table "$top" >>"$phases"
fi
cat "$title" "$lead" "$environment" "$phases" >"$out"
echo "loadbench: ${tag}summary in $out" >&2
