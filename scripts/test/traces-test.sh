#!/usr/bin/env bash
# Request ids and traces (issue 30), against release passkeyd processes and an OTLP/HTTP receiver
# (scripts/test/otlp-receiver.py: opentelemetry-proto from PyPI, in a venv under var/).
#
#   scripts/test/traces-test.sh BIN_DIR    BIN_DIR holds passkeyd and passkeyd-softkey; PASSKEYD_DATABASE_URL must be set
#
# 1. Without OTEL_* variables: every answer carries X-Request-Id (a sane incoming one echoed), the start line says
#    tracing is off. With OTEL_SDK_DISABLED=true and an endpoint that points at the receiver: a sign-in exports nothing.
# 2. With OTEL_EXPORTER_OTLP_ENDPOINT at the receiver: a passkey sign-in (begin, finish by passkeyd-softkey) whose
#    finish carries a caller's traceparent; after SIGTERM (the spans are flushed at shutdown: the batch delay is left
#    at its 5 s default) the receiver holds one trace with the caller's trace id: the request span
#    `authentication_finish` (server, parent the caller's span id, route, method, status, the answer's request id),
#    a `store.*` span and the `webauthn.verify_authentication` span, both children of the request span.
set -euo pipefail
bin="$(cd "${1:?usage: scripts/test/traces-test.sh BIN_DIR}" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
: "${PASSKEYD_DATABASE_URL:?set PASSKEYD_DATABASE_URL}"

venv="$repo/var/otlp-venv"
version="${OTLP_PROTO_VERSION:-1.45.2}"
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('opentelemetry-proto') != '$version')" 2>/dev/null; then
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "opentelemetry-proto==$version"
fi

# shellcheck source=scripts/lib/passkeyd.sh
source "$repo/scripts/lib/passkeyd.sh"
pk_init
cd "$work"
fail() { echo "traces: $*" >&2; for log in "$work"/*.log; do echo "--- $log" >&2; tail -n 40 "$log" >&2; done; exit 1; }

# The receiver: a free port, spans as JSON lines in spans.jsonl.
"$venv/bin/python" "$repo/scripts/test/otlp-receiver.py" receiver.port spans.jsonl >receiver.log 2>&1 &
receiver=$!
pk_at_exit "kill $receiver 2>/dev/null; wait $receiver 2>/dev/null"
for _ in $(seq 50); do [[ -s receiver.port ]] && break; sleep 0.1; done
[[ -s receiver.port ]] || fail "the OTLP receiver did not start"
otlp="http://127.0.0.1:$(cat receiver.port)"
touch spans.jsonl

common=(PASSKEYD_DATABASE_URL="$PASSKEYD_DATABASE_URL" PASSKEYD_MIGRATIONS="$repo/Migrations" PASSKEYD_ORIGINS=http://localhost:8080
    PASSKEYD_LOG_LEVEL=info)
otel_unset=(-u OTEL_SDK_DISABLED -u OTEL_TRACES_EXPORTER -u OTEL_EXPORTER_OTLP_ENDPOINT -u OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    -u OTEL_EXPORTER_OTLP_PROTOCOL -u OTEL_EXPORTER_OTLP_TRACES_PROTOCOL)

# call METHOD URL OUT [curl args…]: the body to OUT, the headers to OUT.headers; prints the status.
call() {
    local method=$1 url=$2 out=$3
    shift 3
    curl -s -o "$out" -D "$out.headers" -w '%{http_code}' -X "$method" "$url" "$@"
}
request_id() { tr -d '\r' <"$1.headers" | awk -F': ' 'tolower($1) == "x-request-id" { print $2 }'; }

# sign_in URL NAME [curl args for the finish…]: registers NAME's passkey and signs in with it; the finish's answer in
# finish.out (headers in finish.out.headers).
sign_in() {
    local url=$1 name=$2 status
    shift 2
    status=$(call POST "$url/v1/registration/begin" reg.out --json "{\"user\":{\"name\":\"$name\"}}")
    [[ $status == 200 ]] || fail "registration begin: $status $(cat reg.out)"
    "$bin/passkeyd-softkey" register --key "$name.json" <reg.out >reg-finish.json
    status=$(call POST "$url/v1/registration/finish" reg-done.out --json @reg-finish.json)
    [[ $status == 201 ]] || fail "registration finish: $status $(cat reg-done.out)"
    status=$(call POST "$url/v1/authentication/begin" auth.out --json '{}')
    [[ $status == 200 ]] || fail "authentication begin: $status $(cat auth.out)"
    "$bin/passkeyd-softkey" sign --key "$name.json" <auth.out >auth-finish.json
    status=$(call POST "$url/v1/authentication/finish" finish.out --json @auth-finish.json "$@")
    [[ $status == 200 ]] || fail "authentication finish: $status $(cat finish.out)"
}

# --- 1. tracing off ---
pk_start untraced "${otel_unset[@]}" "${common[@]}"
grep -q '"tracing":false' "$work/untraced.log" || fail "the start line must say tracing is off"
sign_in "$PK_URL" "rid-$(date +%s%N)"
[[ -n $(request_id finish.out) ]] || fail "no X-Request-Id on a sign-in"
[[ $(call GET "$PK_URL/healthz" h.out -H 'X-Request-Id: caller-id-42') == 200 && $(request_id h.out) == caller-id-42 ]] \
    || fail "a sane incoming X-Request-Id must be echoed: $(cat h.out.headers)"
[[ $(call GET "$PK_URL/nowhere" nf.out -H 'X-Request-Id: bad id') == 404 ]] || fail "404 expected"
made=$(request_id nf.out)
[[ -n $made && $made != "bad id" ]] || fail "an insane X-Request-Id must be replaced: '$made'"
[[ $(call POST "$PK_URL/v1/authentication/begin" big.out --data-binary @<(head -c 70000 /dev/zero | tr '\0' ' ') \
    -H 'Content-Type: application/json') == 413 && -n $(request_id big.out) ]] || fail "413 without X-Request-Id"
kill -TERM "$PK_PID"
wait "$PK_PID" || fail "passkeyd (untraced) did not exit cleanly"

pk_start disabled "${otel_unset[@]}" "${common[@]}" OTEL_SDK_DISABLED=true OTEL_EXPORTER_OTLP_ENDPOINT="$otlp"
grep -q '"tracing":false' "$work/disabled.log" || fail "OTEL_SDK_DISABLED=true must turn tracing off"
sign_in "$PK_URL" "off-$(date +%s%N)" -H "traceparent: 00-$(openssl rand -hex 16)-$(openssl rand -hex 8)-01"
kill -TERM "$PK_PID"
wait "$PK_PID" || fail "passkeyd (disabled) did not exit cleanly"
[[ ! -s spans.jsonl ]] || fail "spans were exported with tracing off: $(head -c 500 spans.jsonl)"

# --- 2. tracing on ---
trace_id=$(openssl rand -hex 16)
parent_id=$(openssl rand -hex 8)
pk_start traced "${otel_unset[@]}" "${common[@]}" OTEL_EXPORTER_OTLP_ENDPOINT="$otlp"
grep -q '"tracing":true' "$work/traced.log" || fail "the start line must say tracing is on"
sign_in "$PK_URL" "trace-$(date +%s%N)" -H "traceparent: 00-$trace_id-$parent_id-01" -H 'X-Request-Id: signin-7'
[[ $(request_id finish.out) == signin-7 ]] || fail "X-Request-Id not echoed with tracing on"
kill -TERM "$PK_PID"
wait "$PK_PID" || fail "passkeyd (traced) did not exit cleanly"

"$venv/bin/python" - "$trace_id" "$parent_id" spans.jsonl <<'EOF' || fail "the trace is not as expected (spans above)"
import json, sys
trace_id, parent_id, path = sys.argv[1:]
spans = [json.loads(line) for line in open(path)]
mine = [s for s in spans if s["trace_id"] == trace_id]
for s in mine:
    print(f'  {s["name"]:34} span {s["span_id"]} parent {s["parent_span_id"] or "-":16} kind {s["kind"]} {s["attributes"]}')
def need(condition, what):
    if not condition:
        print(f"traces: {what}", file=sys.stderr)
        sys.exit(1)
requests = [s for s in mine if s["name"] == "authentication_finish"]
need(len(requests) == 1, f"one authentication_finish span in the caller's trace, got {len(requests)} of {len(spans)} spans")
request = requests[0]
need(request["parent_span_id"] == parent_id, "the request span's parent must be the caller's span")
need(request["kind"] == 2, "the request span is a server span")
need(request["service"] == "passkeyd", f"service.name: {request['service']}")
attributes = request["attributes"]
need(attributes.get("http.request.method") == "POST" and attributes.get("http.route") == "/v1/authentication/finish"
     and attributes.get("http.response.status_code") == 200 and attributes.get("passkeyd.request_id") == "signin-7",
     f"request span attributes: {attributes}")
children = [s for s in mine if s["parent_span_id"] == request["span_id"]]
store = [s for s in children if s["name"].startswith("store.")]
need(store and all(s["kind"] == 3 and s["attributes"].get("db.system.name") == "postgresql" for s in store),
     "a store span (client, db.system.name postgresql) under the request span")
need(any(s["name"] == "webauthn.verify_authentication" for s in children), "the verification span under the request span")
others = [s for s in spans if s["trace_id"] != trace_id and s["parent_span_id"] == "" and s["name"] == "authentication_begin"]
need(others, "the begin (no traceparent) is a trace of its own")
for s in spans:
    text = json.dumps(s)
    need("signin-7" not in text or s is request, "the request id only on the request span")
print(f"traces: {len(mine)} spans in the caller's trace, {len(spans)} in all")
EOF
echo "traces: X-Request-Id on every answer; nothing exported unless configured; a sign-in is one trace under the caller's traceparent"
