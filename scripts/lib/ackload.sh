# shellcheck shell=bash
# Sourced by scripts/test/shutdown-test.sh and scripts/test/failover-test.sh: a bounded load of registrations and sign-ins
# against a passkeyd at $API, recording every finish that passkeyd acknowledged, and a check of those against the
# database.
#
#   ackload_worker ID WORK STOPFILE DEADLINE   loop until STOPFILE exists or `date +%s` ≥ DEADLINE (or, with
#                                              ACKLOAD_STOP_ON_REFUSED=1, until a connection is refused):
#                                              register a NEW user (unique name, one passkey), then sign in with it
#                                              ${ACKLOAD_SIGNINS:-3} times ({"user":{"name"}}); every request's
#                                              outcome is appended to WORK/log.ID
#   ackload_check PSQL_ARGS… < /dev/null       compares the logs with the database (see below)
#
# Log lines: KIND START END HTTP CURL_EXIT CREDENTIAL_ID COUNTER, KIND one of regbegin, regfinish, authbegin,
# authfinish; START/END in seconds since the epoch (ns precision); HTTP 000 when curl got no response
# (CURL_EXIT 7: connection refused, 52/56: connection closed or reset); CREDENTIAL_ID (base64url) and COUNTER
# (the signCount passkeyd returned) only on 2xx finishes, "-" otherwise.
#
# Needs curl, jq and passkeyd-softkey on PATH; user names are "$ACKLOAD_PREFIX-ID-N".

ackload_request() { # ackload_request LOGFILE KIND BODY_FILE PATH OUT_FILE: POST, log, print the HTTP status
    local log=$1 kind=$2 body=$3 path=$4 out=$5 start end status rc
    start=$(date +%s.%N)
    status=$(curl -s -o "$out" -w '%{http_code}' --max-time 30 -H 'Content-Type: application/json' --data-binary "@$body" "$API$path")
    rc=$?
    end=$(date +%s.%N)
    local id="-" counter="-"
    if [[ $status == 2* && $kind == *finish ]]; then
        id=$(jq -r '.credential.id' "$out" 2>/dev/null || echo "?")
        counter=$(jq -r '.credential.signCount' "$out" 2>/dev/null || echo "?")
    fi
    echo "$kind $start $end $status $rc $id $counter" >>"$log"
    echo "$status"
}

ackload_worker() {
    local me=$1 work=$2 stop=$3 deadline=$4 n=0 status name key
    local dir="$work/w$me" log="$work/log.$me"
    mkdir -p "$dir"
    : >"$log"
    while [[ ! -e $stop ]] && (($(date +%s) < deadline)); do
        n=$((n + 1))
        name="$ACKLOAD_PREFIX-$me-$n"
        key="$dir/key-$n.json"
        printf '{"user":{"name":"%s","displayName":"load %s"}}' "$name" "$name" >"$dir/regbegin.json"
        status=$(ackload_request "$log" regbegin "$dir/regbegin.json" /v1/registration/begin "$dir/begin.out")
        [[ ${ACKLOAD_STOP_ON_REFUSED:-0} == 1 && $status == 000 ]] && return 0
        [[ $status == 200 ]] || { sleep 0.05; continue; }
        passkeyd-softkey register --key "$key" <"$dir/begin.out" >"$dir/finish.json" 2>/dev/null || continue
        status=$(ackload_request "$log" regfinish "$dir/finish.json" /v1/registration/finish "$dir/finish.out")
        [[ ${ACKLOAD_STOP_ON_REFUSED:-0} == 1 && $status == 000 ]] && return 0
        [[ $status == 201 ]] || { sleep 0.05; continue; }
        local i
        for ((i = 0; i < ${ACKLOAD_SIGNINS:-3}; i++)); do
            [[ -e $stop ]] && return 0
            printf '{"user":{"name":"%s"}}' "$name" >"$dir/authbegin.json"
            status=$(ackload_request "$log" authbegin "$dir/authbegin.json" /v1/authentication/begin "$dir/abegin.out")
            [[ ${ACKLOAD_STOP_ON_REFUSED:-0} == 1 && $status == 000 ]] && return 0
            [[ $status == 200 ]] || { sleep 0.05; continue; }
            passkeyd-softkey sign --key "$key" <"$dir/abegin.out" >"$dir/assert.json" 2>/dev/null || continue
            status=$(ackload_request "$log" authfinish "$dir/assert.json" /v1/authentication/finish "$dir/afinish.out")
            [[ ${ACKLOAD_STOP_ON_REFUSED:-0} == 1 && $status == 000 ]] && return 0
            [[ $status == 200 ]] || sleep 0.05
        done
    done
}

# ackload_check WORK PSQL_COMMAND…: reads every credential whose user name starts with $ACKLOAD_PREFIX from the
# database (through the psql command given), then for every acknowledged registration (201) checks the credential
# exists, and for every acknowledged sign-in (200) that its stored sign_count ≥ the acknowledged counter.
# Prints "acknowledged registrations R, acknowledged sign-ins A, missing credentials M, counters behind B" and sets
# ACKLOAD_REGISTRATIONS, ACKLOAD_SIGNINS_ACKED, ACKLOAD_MISSING, ACKLOAD_BEHIND.
ackload_check() {
    local work=$1
    shift
    "$@" -X -q -A -t -F ' ' -c "SELECT rtrim(translate(encode(c.id, 'base64'), '+/', '-_'), '='), c.sign_count
        FROM credentials c JOIN users u ON u.id = c.user_id WHERE u.name LIKE '${ACKLOAD_PREFIX}-%'" >"$work/db.txt"
    cat "$work"/log.* >"$work/all.log"
    local result
    result=$(awk '
        FNR == NR { stored[$1] = $2; next }
        $1 == "regfinish" && $4 == 201 { registrations++; if (!($6 in stored)) { missing++; print "missing " $6 > "/dev/stderr" } }
        $1 == "authfinish" && $4 == 200 {
            signins++
            if (!($6 in stored)) { missing++; print "missing " $6 > "/dev/stderr" }
            else if (stored[$6] + 0 < $7 + 0) { behind++; print "behind " $6 " stored " stored[$6] " acknowledged " $7 > "/dev/stderr" }
        }
        END { printf "%d %d %d %d\n", registrations, signins, missing, behind }
    ' "$work/db.txt" "$work/all.log")
    read -r ACKLOAD_REGISTRATIONS ACKLOAD_SIGNINS_ACKED ACKLOAD_MISSING ACKLOAD_BEHIND <<<"$result"
    echo "acknowledged registrations $ACKLOAD_REGISTRATIONS, acknowledged sign-ins $ACKLOAD_SIGNINS_ACKED, missing credentials $ACKLOAD_MISSING, counters behind $ACKLOAD_BEHIND"
}
