#!/usr/bin/env bash
# The libFuzzer targets (Sources/PasskeyFuzz): build them with the address sanitizer, seed each from the shared
# test vectors and run each for a while.
#
#   scripts/fuzz.sh [--time SECONDS] [--jobs N] [--timeout SECONDS] [TARGET…]      (also: scripts/dev.sh fuzz …)
#
#   --time SECONDS     how long each target runs (default 60)
#   --jobs N           how many targets run at once (default 1: one after another)
#   --timeout SECONDS  libFuzzer's limit for one input, wall clock (default 10; long runs beside other work
#                      want more: a starved process is not a slow input)
#   TARGET             cbor authdata cose-key attestation json base64 jws idtoken appstore appattest sealed (default: all, in that order)
#
# Builds `passkeyd-fuzz` in release mode with `-DFUZZING -sanitize=fuzzer,address` under .build-fuzz (never .build),
# writes the seed corpora from ../shared/vectors (PASSKEYD_VECTORS overrides) to var/fuzz/seeds/TARGET, keeps what
# each target finds in var/fuzz/corpus/TARGET across runs, logs to var/fuzz-logs/TARGET-TIME.log and prints, per
# target: executions, exec/s, final cov/ft, corpus size, and the finding. A crash, leak, timeout or out-of-memory
# makes the script fail; the input is kept under var/fuzz/artifacts/TARGET/ (replay it with the normal build:
# `passkeyd-fuzz run TARGET FILE`).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
export PATH="/opt/swift/usr/bin:$PATH"

all_targets=(cbor authdata cose-key attestation json base64 jws idtoken appstore appattest sealed)
seconds=60
jobs=1
input_timeout=10
targets=()
while (($#)); do
    case "$1" in
    --time) seconds="${2:?--time needs seconds}"; shift 2 ;;
    --time=*) seconds="${1#--time=}"; shift ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --jobs=*) jobs="${1#--jobs=}"; shift ;;
    --timeout) input_timeout="${2:?--timeout needs seconds}"; shift 2 ;;
    --timeout=*) input_timeout="${1#--timeout=}"; shift ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
    esac
done
((${#targets[@]})) || targets=("${all_targets[@]}")
for target in "${targets[@]}"; do
    [[ " ${all_targets[*]} " == *" $target "* ]] || { echo "fuzz.sh: unknown target $target (${all_targets[*]})" >&2; exit 2; }
done
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: --time takes whole seconds" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --jobs takes a positive number" >&2; exit 2; }
[[ "$input_timeout" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --timeout takes whole seconds" >&2; exit 2; }

vectors="${PASSKEYD_VECTORS:-$repo/../shared/vectors}"
[[ -d "$vectors/registration" ]] || { echo "fuzz.sh: no test vectors at $vectors" >&2; exit 2; }

# libFuzzer's runtime ships with the toolchain (lib/swift/clang/lib/linux/libclang_rt.fuzzer-*.a).
echo "fuzz.sh: building passkeyd-fuzz (release, -sanitize=fuzzer,address, .build-fuzz)" >&2
# shellcheck disable=SC2054  # the comma is -sanitize's list, not an array separator
build=(swift build -c release --scratch-path .build-fuzz --product passkeyd-fuzz
    -Xswiftc -DFUZZING -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-experimental-feature -Xswiftc Extern)
nice -n 10 "${build[@]}" 2>&1 | grep -v "Cannot export local symbol" >&2
binary=.build-fuzz/release/passkeyd-fuzz

work=var/fuzz
logs=var/fuzz-logs
mkdir -p "$work" "$logs"
rm -rf "$work/seeds"
ASAN_OPTIONS=detect_leaks=0 "$binary" seeds "$vectors" "$work/seeds" >/dev/null

# Findings are reported by libFuzzer and the sanitizer; Swift's own backtracer would only slow a crash down.
export SWIFT_BACKTRACE=enable=no
export PASSKEYD_FUZZ_ROOTS="$vectors/roots"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
# One target: run it, then write its summary line (and whether it found something) next to its log.
fuzz_one() {
    local target="$1"
    local corpus="$work/corpus/$target"
    local artifacts="$work/artifacts/$target"
    local log="$logs/$target-$stamp.log"
    mkdir -p "$corpus" "$artifacts" "$work/seeds/$target"
    echo "fuzz.sh: $target for ${seconds}s (log $log)" >&2
    local status=0
    # The fuzzer's CPU seconds (user + system, bash's `time`), so a run that shared the machine says how much fuzzing
    # it actually got.
    local TIMEFORMAT='%3U %3S'
    { time PASSKEYD_FUZZ_TARGET="$target" timeout -k 30 $((seconds + 600)) nice -n 10 "$binary" \
        -max_total_time="$seconds" -timeout="$input_timeout" -rss_limit_mb=2048 -malloc_limit_mb=2048 -detect_leaks=1 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "$work/seeds/$target" >"$log" 2>&1 || status=$?; } 2>"$log.cpu"
    local cpu
    cpu="$(awk '{ printf "%d", $1 + $2 }' "$log.cpu" 2>/dev/null || echo '?')"

    local done_line executions rate rss cov ft corp finding kind artifact
    done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)"
    [[ -n "$done_line" ]] || done_line="$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -1 || true)"
    executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
    rss="$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)"
    cov="$(grep -oE 'cov: [0-9]+' <<<"$done_line" | tail -1 | cut -d' ' -f2)"
    ft="$(grep -oE 'ft: [0-9]+' <<<"$done_line" | tail -1 | cut -d' ' -f2)"
    corp="$(grep -oE 'corp: [0-9]+/[0-9]+[A-Za-z]*' <<<"$done_line" | tail -1 | cut -d' ' -f2)"
    if ((status == 0)); then
        finding="none"
    else
        kind="$(grep -oE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer): [a-z-]+|SUMMARY: libFuzzer: [a-z-]+|Fatal error: .*' "$log" | head -1 || true)"
        artifact="$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)"
        finding="exit $status: ${kind:-see log}; input ${artifact:-none written}"
        : >"$log.failed"
    fi
    printf '%-12s %6ss  cpu %6ss  execs %-10s exec/s %-7s cov %-6s ft %-6s corpus %-12s rss %sMB  finding: %s\n' \
        "$target" "$seconds" "$cpu" "${executions:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
        "${corp:-?}" "${rss:-?}" "$finding" >"$log.summary"
    cat "$log.summary" >&2
}

running=0
for target in "${targets[@]}"; do
    if ((jobs == 1)); then
        fuzz_one "$target"
    else
        fuzz_one "$target" &
        running=$((running + 1))
        if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
    fi
done
wait || true

failed=0
summary=()
for target in "${targets[@]}"; do
    log="$logs/$target-$stamp.log"
    summary+=("$(cat "$log.summary" 2>/dev/null || echo "$target: no summary (see $log)")")
    [[ -e "$log.summary" && ! -e "$log.failed" ]] || failed=1
done

echo
echo "fuzz.sh summary ($stamp, ${seconds}s per target, $jobs at once, ${input_timeout}s per input; logs in $logs/*-$stamp.log)"
printf '%s\n' "${summary[@]}"
if ((failed)); then
    echo "fuzz.sh: FINDINGS above (inputs under $work/artifacts/)" >&2
    exit 1
fi
