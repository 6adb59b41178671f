#!/usr/bin/env python3
"""Bounded begin flood against a running passkeyd (driven by scripts/test/flood-test.sh; Python 3 standard library only).

    flood-load.py   configuration from the environment (set by flood-test.sh):
        FLOOD_API            http://127.0.0.1:PORT of the passkeyd under test (it must trust X-Forwarded-For)
        FLOOD_PID            its process id (RSS from /proc/PID/status; gone = crashed)
        FLOOD_PSQL           the psql binary; FLOOD_DB_URL the database URL
        FLOOD_SOFTKEY        the passkeyd-softkey binary; FLOOD_WORK a scratch directory
        FLOOD_CAP            PASSKEYD_PENDING_MAX of that passkeyd; FLOOD_TTL its PASSKEYD_CHALLENGE_TTL
        FLOOD_RUN            a unique prefix for user names
        FLOOD_THREADS        flood connections (keep-alive, one per thread; default 16)
        FLOOD_PHASE_A_SECONDS / FLOOD_PHASE_B_SECONDS / FLOOD_DRAIN_SECONDS   (defaults 5 / 30 / 15)
        FLOOD_PHASE_A_ADDRESSES / FLOOD_PHASE_B_ADDRESSES                     (defaults 2 / 5000)
        FLOOD_RSS_BOUND_MB   allowed VmRSS growth over the warm-up figure (default 64)
        FLOOD_CAP_SLACK      rows over the cap tolerated (default 8: one save in flight per pooled connection)

Timeline: warm-up (the legitimate user and the targeted user register; a short mixed burst so that pools and
buffers exist), then the RSS baseline; phase A (few client addresses: the per-address limit answers 429
rate_limited), phase B (thousands of addresses: the global cap answers 503 ceremony_capacity_reached), then a drain
with no load while the purge removes what expires. Throughout, a legitimate client from its own address signs in by
name every 0.5 s (begin, passkeyd-softkey sign, finish) and a sampler records every 0.5 s the ceremonies table
(rows, expired rows not yet purged, age of the oldest expired row) and passkeyd's VmRSS.

Flood mix per request: 50 % discoverable sign-in begins `{}`, 20 % sign-in begins naming one targeted existing
user (per-user pending cap: 429 too_many_pending_ceremonies), 30 % registration begins for a new name each.

Stateless ceremonies (FLOOD_STATELESS=1: passkeyd has ceremony keys, so a begin writes nothing): there are no
pending-ceremony caps to reach; phase B goes on until the flood has sent FLOOD_MIN_REQUESTS (default 100,000)
requests or 240 s passed, and the sampler counts every row a ceremony can leave (`ceremonies` plus
`consumed_challenges`). It fails when that count ever exceeds what the legitimate client's finishes and the set-up
wrote (a begin wrote something), on any 5xx or transport error, or when phase A saw no 429 rate_limited.

Prints a summary; exits 1 when the table ever held more rows than the cap, a 5xx other than 503
ceremony_capacity_reached (or a transport error) appeared, passkeyd disappeared, or VmRSS grew by more than the
bound over the warm-up figure; 2 when the set-up failed (the legitimate client could not register).
"""
import collections
import http.client
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
import urllib.parse

API = os.environ["FLOOD_API"]
PID = int(os.environ["FLOOD_PID"])
PSQL = os.environ["FLOOD_PSQL"]
DB_URL = os.environ["FLOOD_DB_URL"]
SOFTKEY = os.environ["FLOOD_SOFTKEY"]
WORK = os.environ["FLOOD_WORK"]
CAP = int(os.environ["FLOOD_CAP"])
TTL = int(os.environ["FLOOD_TTL"])
RUN = os.environ["FLOOD_RUN"]
THREADS = int(os.environ.get("FLOOD_THREADS", "16"))
PHASE_A = float(os.environ.get("FLOOD_PHASE_A_SECONDS", "5"))
PHASE_B = float(os.environ.get("FLOOD_PHASE_B_SECONDS", "30"))
DRAIN = float(os.environ.get("FLOOD_DRAIN_SECONDS", "15"))
A_ADDRESSES = int(os.environ.get("FLOOD_PHASE_A_ADDRESSES", "2"))
B_ADDRESSES = int(os.environ.get("FLOOD_PHASE_B_ADDRESSES", "5000"))
RSS_BOUND_MB = float(os.environ.get("FLOOD_RSS_BOUND_MB", "64"))
# Rows over the cap tolerated (default 0: the cap is meant to be exact; concurrent saves that each count the table
# below the cap can pass it by up to the number in flight, at most PASSKEYD_POOL_SIZE).
CAP_SLACK = int(os.environ.get("FLOOD_CAP_SLACK", "8"))
STATELESS = os.environ.get("FLOOD_STATELESS") == "1"
MIN_REQUESTS = int(os.environ.get("FLOOD_MIN_REQUESTS", "100000"))

LEGIT_ADDRESS = "198.51.100.7"  # the legitimate client's own address (its own rate-limit bucket)
SETUP_ADDRESS = "198.51.100.8"
parsed = urllib.parse.urlsplit(API)
HOST, PORT = parsed.hostname, parsed.port
CODE = re.compile(rb'"code"\s*:\s*"([^"]*)"')

T0 = time.monotonic()
phase = "warmup"  # warmup → A → B → drain; written by the main thread only
stop_flood = threading.Event()
stop_all = threading.Event()


def now():
    return time.monotonic() - T0


class Client:
    """One keep-alive HTTP/1.1 connection; reconnects after a transport error."""

    def __init__(self):
        self.conn = None

    def post(self, path, body, address):
        payload = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "X-Forwarded-For": address}
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, PORT, timeout=15)
            try:
                self.conn.request("POST", path, payload, headers)
                response = self.conn.getresponse()
                data = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.conn.close()
                    self.conn = None
                return response.status, data, response.getheader("Retry-After")
            except (OSError, http.client.HTTPException) as error:
                if self.conn is not None:
                    self.conn.close()
                self.conn = None
                # A keep-alive connection the server closed while idle: retry once on a new one.
                if attempt == 0 and isinstance(error, (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)):
                    continue
                return 0, repr(error).encode(), None
        return 0, b"unreachable", None


def code_of(data):
    match = CODE.search(data)
    return match.group(1).decode() if match else "-"


def softkey(command, key, begin_body):
    result = subprocess.run([SOFTKEY, command, "--key", key], input=begin_body, capture_output=True, timeout=20)
    if result.returncode != 0:
        raise RuntimeError(f"passkeyd-softkey {command}: {result.stderr.decode(errors='replace')[:300]}")
    return json.loads(result.stdout)


def register(client, name, key, address):
    status, data, _ = client.post("/v1/registration/begin", {"user": {"name": name, "displayName": name}}, address)
    if status != 200:
        raise RuntimeError(f"registration begin for {name}: {status} {data[:200]!r}")
    finish = softkey("register", key, data)
    status, data, _ = client.post("/v1/registration/finish", finish, address)
    if status != 201:
        raise RuntimeError(f"registration finish for {name}: {status} {data[:200]!r}")


# ---- flood -------------------------------------------------------------------------------------------------------

# (phase, kind, status, code) → count; per thread, merged at the end. Retry-After presence on 429/503 too.
flood_counts = [collections.Counter() for _ in range(THREADS)]
missing_retry_after = [collections.Counter() for _ in range(THREADS)]
phase_b_addresses = [f"10.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}" for n in range(1, B_ADDRESSES + 1)]
phase_a_addresses = [f"203.0.113.{n}" for n in range(1, A_ADDRESSES + 1)]
TARGET = f"{RUN}-target"


def flood_worker(index):
    rng = random.Random(index)
    client = Client()
    counts = flood_counts[index]
    n = 0
    while not stop_flood.is_set():
        current = phase
        if current not in ("warmup", "A", "B"):
            time.sleep(0.01)
            continue
        if current == "B":
            address = rng.choice(phase_b_addresses)
        elif current == "A":
            address = rng.choice(phase_a_addresses)
        else:
            address = f"192.0.2.{index + 1}"
        roll = rng.random()
        if roll < 0.5:
            kind, path, body = "auth{}", "/v1/authentication/begin", {}
        elif roll < 0.7:
            kind, path, body = "auth-target", "/v1/authentication/begin", {"user": {"name": TARGET}}
        else:
            n += 1
            name = f"{RUN}-f{index}-{n}"
            kind, path, body = "register-new", "/v1/registration/begin", {"user": {"name": name, "displayName": name}}
        status, data, retry_after = client.post(path, body, address)
        code = "-" if status == 200 else code_of(data) if status else "transport:" + data.decode(errors="replace")[:60]
        counts[(current, kind, status, code)] += 1
        if status in (429, 503) and not retry_after:
            missing_retry_after[index][(status, code)] += 1
        if current == "warmup" and sum(counts.values()) >= 10:
            # Warm-up: ten requests per connection, then wait for phase A.
            while phase == "warmup" and not stop_flood.is_set():
                time.sleep(0.01)


# ---- legitimate client --------------------------------------------------------------------------------------------

legit_log = []  # (phase, t, begin status, begin code, finish status, seconds for begin+sign+finish)


def legit_worker(name, key):
    client = Client()
    next_at = now()
    while not stop_all.is_set():
        next_at += 0.5
        current, started = phase, now()
        status, data, _ = client.post("/v1/authentication/begin", {"user": {"name": name}}, LEGIT_ADDRESS)
        begin_code, finish_status = ("-" if status == 200 else code_of(data)), None
        if status == 200:
            try:
                body = softkey("sign", key, data)
                finish_status, fdata, _ = client.post("/v1/authentication/finish", body, LEGIT_ADDRESS)
                if finish_status != 200:
                    begin_code = "finish:" + code_of(fdata)
            except Exception as error:  # noqa: BLE001 (recorded, not fatal)
                finish_status, begin_code = -1, f"softkey: {error}"[:80]
        legit_log.append((current, started, status, begin_code, finish_status, now() - started))
        delay = next_at - now()
        if delay > 0:
            stop_all.wait(delay)
        else:
            next_at = now()


# ---- sampler ------------------------------------------------------------------------------------------------------

samples = []  # (phase, t, rows, expired rows, oldest expired age s, rss kB or None)
# Stateless: every row a ceremony can leave (a finish records its challenge; a begin writes nothing).
STATELESS_SQL = "SELECT (SELECT count(*) FROM ceremonies) + (SELECT count(*) FROM consumed_challenges), 0, 0"
SAMPLE_SQL = STATELESS_SQL if STATELESS else ("SELECT count(*), count(*) FILTER (WHERE expires_at <= now()), "
              "coalesce(round(extract(epoch FROM now() - min(expires_at) FILTER (WHERE expires_at <= now())), 1), 0) "
              "FROM ceremonies")


def psql(sql):
    result = subprocess.run([PSQL, DB_URL, "-X", "-A", "-t", "-F", " ", "-c", sql], capture_output=True, timeout=10)
    if result.returncode != 0:
        raise RuntimeError(result.stderr.decode(errors="replace"))
    return result.stdout.decode().split()


def rss_kb():
    try:
        with open(f"/proc/{PID}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def sampler():
    next_at = now()
    while not stop_all.is_set():
        current, t = phase, now()
        try:
            rows, expired, oldest = psql(SAMPLE_SQL)
            samples.append((current, t, int(rows), int(expired), float(oldest), rss_kb()))
        except Exception as error:  # noqa: BLE001
            samples.append((current, t, None, None, None, rss_kb()))
            print(f"flood-test: sample at {t:.1f} s failed: {error}", file=sys.stderr)
        next_at += 0.5
        stop_all.wait(max(0, next_at - now()))


def progress(label):
    last = samples[-1] if samples else None
    totals = collections.Counter()
    for counts in flood_counts:
        for (p, _, status, _), count in list(counts.items()):
            totals[status] += count
    legit_ok = sum(1 for entry in legit_log if entry[4] == 200)
    if last:
        print(f"flood-test: t={now():5.1f}s {label:<6} rows {last[2]} (expired {last[3]}) rss {last[5]} kB; "
              f"flood statuses {dict(sorted(totals.items()))}; legit sign-ins ok {legit_ok}/{len(legit_log)}", flush=True)


def main():
    global phase
    setup = Client()
    legit_name, legit_key = f"{RUN}-legit", os.path.join(WORK, "legit.json")
    try:
        register(setup, legit_name, legit_key, LEGIT_ADDRESS)
        register(setup, TARGET, os.path.join(WORK, "target.json"), SETUP_ADDRESS)
    except Exception as error:  # noqa: BLE001
        print(f"flood-test: FAIL: set-up: {error}", file=sys.stderr)
        return 2
    threads = [threading.Thread(target=sampler, daemon=True),
               threading.Thread(target=legit_worker, args=(legit_name, legit_key), daemon=True)]
    threads += [threading.Thread(target=flood_worker, args=(i,), daemon=True) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    # Warm-up: the legitimate client's first sign-ins and ten flood requests per connection, ~2 s.
    time.sleep(2.0)
    rss_warm = rss_kb()
    schedule = [("A", PHASE_A), ("B", PHASE_B)]
    phase_times = {"warmup": (0.0, now())}
    for name, seconds in schedule:
        start = now()
        phase = name
        end = start + seconds
        while now() < end or (STATELESS and name == "B" and flood_total() < MIN_REQUESTS and now() < start + 240):
            time.sleep(min(5.0, max(0.5, end - now())))
            progress(name)
        phase_times[name] = (start, now())
    phase = "drain"
    stop_flood.set()
    drain_start = now()
    flood_end_db = psql("SELECT extract(epoch FROM now())")[0]
    rows_at_flood_end = samples[-1][2] if samples else None
    # Drain: until every row the flood may have written (expires_at ≤ flood end + TTL) is gone, or the budget ends.
    drained_at, rows_at_drain_end = None, None
    next_progress = drain_start + 5
    while not STATELESS and now() < drain_start + DRAIN:
        time.sleep(0.5)
        left, rows_at_drain_end = map(int, psql(
            f"SELECT count(*) FILTER (WHERE expires_at <= to_timestamp({flood_end_db}) + interval '{TTL + 1} seconds'), "
            "count(*) FROM ceremonies"))
        if left == 0:
            drained_at = now()
            break
        if now() >= next_progress:
            progress("drain")
            next_progress += 5
    phase_times["drain"] = (drain_start, now())
    stop_all.set()
    for thread in threads:
        thread.join(timeout=20)
    rss_end = rss_kb()
    alive = rss_end is not None
    return report(rss_warm, rss_end, alive, phase_times, rows_at_flood_end, drain_start, drained_at, rows_at_drain_end)


def flood_total():
    return sum(sum(counts.values()) for counts in list(flood_counts))


def report(rss_warm, rss_end, alive, phase_times, rows_at_flood_end, drain_start, drained_at, rows_at_drain_end):
    failures = []
    counts = collections.Counter()
    for c in flood_counts:
        counts.update(c)
    retry = collections.Counter()
    for c in missing_retry_after:
        retry.update(c)
    good = [s for s in samples if s[2] is not None]
    max_rows = max((s[2] for s in good), default=None)
    max_rows_at = next((s[1] for s in good if s[2] == max_rows), None)
    first_over = next((s for s in good if s[2] > CAP), None)
    rss_values = [s[5] for s in samples if s[5] is not None and s[1] >= phase_times["warmup"][1]]
    rss_peak = max(rss_values, default=None)

    print(f"flood-test: cap PASSKEYD_PENDING_MAX={CAP}, TTL {TTL} s, {THREADS} flood connections; phases (s since start): "
          + ", ".join(f"{p} {a:.1f}-{b:.1f}" for p, (a, b) in phase_times.items()))
    for p in ("warmup", "A", "B"):
        per = collections.Counter()
        kinds = collections.Counter()
        for (ph, kind, status, code), count in counts.items():
            if ph == p:
                per[(status, code)] += count
                kinds[kind] += count
        total = sum(per.values())
        seconds = phase_times[p][1] - phase_times[p][0]
        addresses = {"warmup": THREADS, "A": A_ADDRESSES, "B": B_ADDRESSES}[p]
        detail = ", ".join(f"{s} {c}: {n}" for (s, c), n in sorted(per.items()))
        print(f"flood-test: phase {p}: {total} flood requests in {seconds:.1f} s ({total / max(seconds, 0.001):.0f}/s) "
              f"from {addresses} addresses; {detail}")
        for kind in sorted(kinds):
            by = collections.Counter()
            for (ph, k, status, code), count in counts.items():
                if ph == p and k == kind:
                    by[(status, code)] += count
            print(f"flood-test: phase {p}:   {kind} {kinds[kind]}: " + ", ".join(f"{s} {c}: {n}" for (s, c), n in sorted(by.items())))
    for p in ("warmup", "A", "B", "drain"):
        entries = [e for e in legit_log if e[0] == p]
        if not entries:
            continue
        ok = [e for e in entries if e[4] == 200]
        failed = collections.Counter(f"{e[2]} {e[3]}" for e in entries if e[4] != 200)
        slowest = max(e[5] for e in entries)
        print(f"flood-test: legitimate sign-ins in {p}: {len(ok)} ok, {len(entries) - len(ok)} failed"
              + (f" ({', '.join(f'{k}: {n}' for k, n in sorted(failed.items()))})" if failed else "")
              + f"; slowest {slowest * 1000:.0f} ms")
    per_phase_rows = ", ".join(
        f"{p} {max((s[2] for s in good if s[0] == p), default='-')}" for p in ("warmup", "A", "B", "drain"))
    print(f"flood-test: ceremonies table: max {max_rows} rows (at {max_rows_at:.1f} s) vs cap {CAP}; max per phase: {per_phase_rows}; "
          f"{len(good)} samples")
    print("flood-test: table rows every second (t s:rows): " + " ".join(f"{s[1]:.0f}:{s[2]}" for s in good[::2]))
    expired_during_flood = [s for s in good if s[0] in ("A", "B")]
    if expired_during_flood:
        print(f"flood-test: purge under the flood: at most {max(s[3] for s in expired_during_flood)} expired rows waiting, "
              f"oldest expired row at most {max(s[4] for s in expired_during_flood):.1f} s past its expiry")
    drain_samples = [s for s in good if s[0] == "drain"]
    if not STATELESS:
        print(f"flood-test: drain: {rows_at_flood_end} rows at the flood's end; "
              + (f"every row the flood wrote expired and purged {drained_at - drain_start:.1f} s after it ({rows_at_drain_end} rows then)"
                 if drained_at is not None else
                 f"after {phase_times['drain'][1] - drain_start:.1f} s (the budget) "
                 f"{drain_samples[-1][2] if drain_samples else '?'} rows left, {drain_samples[-1][3] if drain_samples else '?'} of them expired "
                 f"(oldest {drain_samples[-1][4] if drain_samples else '?'} s past expiry)")
              + (f"; drain samples (t s: rows/expired) " + " ".join(f"{s[1]:.0f}:{s[2]}/{s[3]}" for s in drain_samples[::2])
                 if drain_samples else ""))
    growth_mb = (rss_peak - rss_warm) / 1024 if rss_peak and rss_warm else None
    print(f"flood-test: passkeyd VmRSS: {rss_warm / 1024:.1f} MB after warm-up, peak {rss_peak / 1024:.1f} MB, "
          f"end {rss_end / 1024 if rss_end else float('nan'):.1f} MB (growth {growth_mb:.1f} MB; bound {RSS_BOUND_MB:.0f} MB)"
          if rss_warm and rss_peak else "flood-test: passkeyd VmRSS: unavailable")
    if retry:
        print(f"flood-test: 429/503 answers without Retry-After: {dict(retry)}")

    if not alive:
        failures.append("passkeyd is gone (crashed?)")
    # Stateless: rows come only from finishes: the legitimate client's sign-ins and the two set-up registrations.
    written_limit = len(legit_log) + 2
    if max_rows is None:
        failures.append("no table sample succeeded")
    elif STATELESS:
        # Rows other stages left in the shared database are there from the start (and may be purged meanwhile):
        # what counts is the growth over the first sample.
        grown = max_rows - good[0][2]
        print(f"flood-test: stateless: {flood_total()} flood begins; rows in ceremonies + consumed_challenges grew by at "
              f"most {grown} (from {good[0][2]}), against {written_limit} finishes by the legitimate client and the set-up")
        if grown > written_limit:
            failures.append(f"{grown} new ceremony rows, more than the {written_limit} finishes wrote: a begin wrote a row")
        if flood_total() < MIN_REQUESTS:
            failures.append(f"only {flood_total()} flood requests, fewer than {MIN_REQUESTS}")
    elif max_rows > CAP + CAP_SLACK:
        failures.append(f"the ceremonies table held {max_rows} rows, over the cap {CAP}"
                        + (f" + {CAP_SLACK} tolerated" if CAP_SLACK else "")
                        + f" (first over the cap at {first_over[1]:.1f} s: {first_over[2]} rows)")
    allowed_503 = not STATELESS  # stateless: no capacity to reach, so no 5xx at all
    bad = {k: n for k, n in counts.items()
           if k[2] == 0 or (k[2] >= 500 and not (allowed_503 and k[2] == 503 and k[3] == "ceremony_capacity_reached"))}
    bad_legit = [e for e in legit_log
                 if e[2] == 0 or (e[2] >= 500 and not (allowed_503 and e[2] == 503 and e[3] == "ceremony_capacity_reached"))]
    if bad or bad_legit:
        failures.append(f"unexpected 5xx or transport errors: {bad} {bad_legit[:5]}")
    if growth_mb is None or growth_mb > RSS_BOUND_MB:
        failures.append(f"VmRSS grew by {growth_mb} MB over the warm-up figure (bound {RSS_BOUND_MB} MB)")
    if retry:
        failures.append("429/503 answers without Retry-After")
    # The test must have exercised what it claims to.
    if not any(k[0] == "A" and k[2] == 429 and k[3] == "rate_limited" for k in counts):
        failures.append("phase A saw no 429 rate_limited (the per-address limit was not exercised)")
    if not STATELESS and not any(k[0] == "B" and k[2] == 503 for k in counts):
        failures.append("phase B saw no 503 ceremony_capacity_reached (the global cap was not exercised)")
    if not STATELESS and not any(k[2] == 429 and k[3] == "too_many_pending_ceremonies" for k in counts):
        failures.append("no 429 too_many_pending_ceremonies (the per-user cap was not exercised)")
    if not any(e[0] == "warmup" and e[4] == 200 for e in legit_log):
        failures.append("the legitimate client never signed in before the flood")
    for failure in failures:
        print(f"flood-test: FAIL: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
