# shellcheck shell=bash disable=SC2154  # install_missing and browser_test_packages are scripts/dev.sh's
# The stage runner of `scripts/dev.sh test` (sourced by scripts/dev.sh, which defines install_missing and
# browser_test_packages; the table of stages is scripts/test/stages.sh).
#
#   scripts/dev.sh test                  every stage, in order (what CI runs: .ci/run)
#   scripts/dev.sh test STAGE…           just these (in the table's order), after the set-up they need
#   scripts/dev.sh test --from STAGE     STAGE and every stage after it (resume after a failure)
#   scripts/dev.sh test --list           the stages in order, with what each needs and does
#
# Before the first stage: the Debian packages of the test command. Before each stage: what it needs and this run
# has not set up yet (PostgreSQL, the debug build, the release build; see scripts/test/stages.sh). Every set-up
# step and stage gets a header; at the end (also after a failure or Ctrl-C) a summary line for each with its time.
# The run stops at the first failing set-up step or stage, names it and exits with its status.

stage_names=()
stage_needs=()
stage_descriptions=()
stage_commands=()

# stage NAME NEEDS DESCRIPTION COMMAND: one row of the table (scripts/test/stages.sh)
stage() {
    (($# == 4)) || { echo "stages.sh: stage ${1:-?}: wants NAME NEEDS DESCRIPTION COMMAND" >&2; exit 2; }
    [[ $1 =~ ^[a-z0-9][a-z0-9-]*$ ]] || { echo "stages.sh: stage name '$1': lower-case letters, digits and -" >&2; exit 2; }
    ! _stages_index "$1" >/dev/null || { echo "stages.sh: stage $1 is in the table twice" >&2; exit 2; }
    local need
    for need in $2; do
        case "$need" in
        pg | debug | release | -) ;;
        *) echo "stages.sh: stage $1: unknown need '$need'" >&2; exit 2 ;;
        esac
    done
    stage_names+=("$1")
    stage_needs+=("$2")
    stage_descriptions+=("$3")
    stage_commands+=("$4")
}

stages_list() {
    local i
    for i in "${!stage_names[@]}"; do
        printf '%3d  %-16s %-12s %s\n' $((i + 1)) "${stage_names[i]}" "${stage_needs[i]// /,}" "${stage_descriptions[i]}"
    done
}

stages_usage() {
    cat <<'EOF'
usage: scripts/dev.sh test [--list] [--from STAGE | STAGE…]

  (no argument)   run every stage in order (what CI runs)
  STAGE…          run just these stages (in the table's order), after the set-up they need
  --from STAGE    run STAGE and every stage after it (resume after a failure)
  --list          print the stages in order: number, name, needs, description

Needs are set up once, before the first stage that needs them: pg (scripts/postgres.sh; PASSKEYD_PG_PORT picks
its port), debug (swift build --build-tests), release (release builds of passkeyd, passkeyd-softkey and
passkeyd-idp; PASSKEYD_TEST_BIN_DIR=DIR uses the binaries in DIR instead). The table: scripts/test/stages.sh.
EOF
}

_stages_index() { # _stages_index NAME: print its index, or fail
    local i
    for i in "${!stage_names[@]}"; do
        [[ ${stage_names[i]} == "$1" ]] && { echo "$i"; return 0; }
    done
    return 1
}

_stages_unknown() {
    echo "scripts/dev.sh test: unknown stage '$1'; the stages are:" >&2
    stages_list >&2
    exit 2
}

_stages_clock() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# Summary rows: "KIND|NAME|SECONDS|RESULT"; the step running now, if any: _stages_current="KIND|NAME", since _stages_began.
_stages_rows=()
_stages_current=""
_stages_began=0
_stages_started_pg=0
_stages_t0=$SECONDS
_stages_passed=""
_stages_selected=()

_stages_header() { # _stages_header KIND NAME TEXT
    printf '\n==> %s %s: %s\n' "$1" "$2" "$3"
    _stages_current="$1|$2"
    _stages_began=$SECONDS
}

_stages_done() { # _stages_done RESULT
    _stages_rows+=("$_stages_current|$((SECONDS - _stages_began))|$1")
    _stages_current=""
}

_stages_summary() {
    local row kind name seconds result ran=" "
    printf '\n==> summary (scripts/dev.sh test, %s in all)\n' "$(_stages_clock $((SECONDS - _stages_t0)))"
    for row in "${_stages_rows[@]}"; do
        IFS='|' read -r kind name seconds result <<<"$row"
        printf '  %-7s %-26s %7s  %s\n' "$kind" "$name" "$(_stages_clock "$seconds")" "$result"
        [[ $kind == stage ]] && ran+="$name "
    done
    for name in "${_stages_selected[@]}"; do
        [[ $ran == *" $name "* ]] || printf '  %-7s %-26s %7s  %s\n' stage "$name" - "not run"
    done
}

# At exit, whatever the way out: the summary (with the step that was running, if one was), PostgreSQL stopped if
# this run started it, and the exit status kept.
_stages_exit() {
    local status=$?
    trap - EXIT INT TERM
    set +e
    local failed="$_stages_current"
    if [[ -n $failed ]]; then
        if ((status == 130 || status == 143)); then _stages_done "INTERRUPTED"; else _stages_done "FAILED (exit $status)"; fi
    fi
    ((${#_stages_rows[@]})) && _stages_summary
    if ((_stages_started_pg)); then
        scripts/postgres.sh stop || echo "scripts/dev.sh test: could not stop PostgreSQL (scripts/postgres.sh stop)" >&2
    fi
    if [[ -n $failed ]]; then
        local kind=${failed%%|*} name=${failed#*|}
        local what="FAILED"
        ((status == 130 || status == 143)) && what="INTERRUPTED"
        if [[ $kind == stage ]]; then
            echo "scripts/dev.sh test: $what at stage $name (exit $status); again alone: scripts/dev.sh test $name;" \
                "resume: scripts/dev.sh test --from $name" >&2
        else
            echo "scripts/dev.sh test: $what at set-up step '$name' (exit $status)" >&2
        fi
        ((status != 0)) || status=1
    elif ((status == 0)) && [[ -n $_stages_passed ]]; then
        echo "scripts/dev.sh test: $_stages_passed"
    fi
    exit "$status"
}

# Set-up steps run in this shell (they set variables); a failing command ends the run through set -e and the trap.
_stages_need() {
    case "$1" in
    -) ;;
    pg)
        ((_stages_have_pg)) && return 0
        _stages_header set-up postgres "scripts/postgres.sh start (port ${PASSKEYD_PG_PORT:-25432})"
        scripts/postgres.sh status >/dev/null 2>&1 || _stages_started_pg=1
        scripts/postgres.sh start
        PASSKEYD_TEST_DATABASE_URL="$(scripts/postgres.sh url)"
        export PASSKEYD_TEST_DATABASE_URL
        echo "PostgreSQL at $PASSKEYD_TEST_DATABASE_URL"
        _stages_have_pg=1
        _stages_done ok
        ;;
    debug)
        ((_stages_have_debug)) && return 0
        _stages_header set-up debug-build "swift build --build-tests"
        swift build --build-tests
        _stages_have_debug=1
        _stages_done ok
        ;;
    release)
        [[ -n $release_bin ]] && return 0
        if [[ -n ${PASSKEYD_TEST_BIN_DIR:-} ]]; then
            _stages_header set-up release-build "none: PASSKEYD_TEST_BIN_DIR=$PASSKEYD_TEST_BIN_DIR"
            local product
            for product in passkeyd passkeyd-softkey passkeyd-idp; do
                [[ -x $PASSKEYD_TEST_BIN_DIR/$product ]] || { echo "no $product in $PASSKEYD_TEST_BIN_DIR" >&2; exit 1; }
            done
            release_bin="$(cd "$PASSKEYD_TEST_BIN_DIR" && pwd)"
        else
            # The release build `run` uses (the optimiser has crashed on code the debug build accepts).
            _stages_header set-up release-build "swift build -c release: passkeyd, passkeyd-softkey, passkeyd-idp"
            swift build -c release --product passkeyd
            swift build -c release --product passkeyd-softkey
            swift build -c release --product passkeyd-idp
            release_bin="$(swift build -c release --show-bin-path)"
        fi
        _stages_done ok
        ;;
    esac
}
_stages_have_pg=0
_stages_have_debug=0
release_bin=""

run_stages() {
    local list=0 from="" names=() i
    while (($#)); do
        case "$1" in
        -l | --list) list=1 ;;
        --from) from="${2:-}"; [[ -n $from ]] || { echo "scripts/dev.sh test: --from needs a stage" >&2; exit 2; }; shift ;;
        --from=*) from="${1#--from=}" ;;
        -h | --help) stages_usage; exit 0 ;;
        -*) echo "scripts/dev.sh test: unknown option $1" >&2; stages_usage >&2; exit 2 ;;
        *) names+=("$1") ;;
        esac
        shift
    done
    if ((list)); then
        stages_list
        exit 0
    fi
    [[ -z $from || ${#names[@]} == 0 ]] || { echo "scripts/dev.sh test: give --from STAGE or stage names, not both" >&2; exit 2; }

    # The selection, checked before anything is installed, started or built.
    local selected=() all=0
    [[ ${#names[@]} == 0 && -z $from ]] && all=1
    for i in "${!stage_names[@]}"; do selected[i]=$all; done
    local name first
    for name in "${names[@]}"; do
        i=$(_stages_index "$name") || _stages_unknown "$name"
        selected[i]=1
    done
    if [[ -n $from ]]; then
        first=$(_stages_index "$from") || _stages_unknown "$from"
        for ((i = first; i < ${#stage_names[@]}; i++)); do selected[i]=1; done
    fi
    for i in "${!stage_names[@]}"; do ((selected[i])) && _stages_selected+=("${stage_names[i]}"); done
    local count=${#_stages_selected[@]}

    trap _stages_exit EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM

    _stages_header set-up packages "Debian packages of the test command (installs what is missing)"
    install_missing "${browser_test_packages[@]}"
    _stages_done ok

    local n=0 need status
    for i in "${!stage_names[@]}"; do
        ((selected[i])) || continue
        n=$((n + 1))
        for need in ${stage_needs[i]}; do _stages_need "$need"; done
        _stages_header stage "${stage_names[i]}" "[$n/$count] ${stage_descriptions[i]}"
        set +e
        (
            set -euo pipefail
            eval "${stage_commands[i]}"
        )
        status=$?
        set -e
        ((status == 0)) || exit "$status"
        _stages_done ok
    done
    _stages_passed="$count of ${#stage_names[@]} stages passed"
}
