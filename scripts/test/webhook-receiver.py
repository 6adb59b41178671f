#!/usr/bin/env python3
"""A webhook receiver for scripts/test/webhook-test.sh: verifies every delivery with the reference implementation of
Standard Webhooks (the `standardwebhooks` package from PyPI), never with passkeyd's code, and records it.

    webhook-receiver.py PORT SECRET LOG [--mode up|hang] [--delay SECONDS]

Every POST is verified (signature and timestamp tolerance); one JSON line per request is appended to LOG:
{"id", "type", "data", "verified", "error", "overlap", "user_agent", "content_type", "start", "end"}. `overlap` is
true when another request with the same webhook-id was in flight at the same time (a concurrent double send).
Answers 204 when verified, 400 when not. `--delay` holds each answer that long (so overlaps would show);
`--mode hang` holds every request for an hour (a receiver that accepts connections and never answers).
The mode can be changed while running: `POST /_mode` with body `up` or `hang`.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

port, secret, log_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
options = sys.argv[4:]
state = {"mode": "up", "delay": 0.0}
if "--mode" in options:
    state["mode"] = options[options.index("--mode") + 1]
if "--delay" in options:
    state["delay"] = float(options[options.index("--delay") + 1])
webhook = Webhook(secret)
lock = threading.Lock()
in_flight = {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path == "/_mode":
            state["mode"] = body.decode().strip()
            self.answer(204)
            return
        start = time.time()
        msg_id = self.headers.get("webhook-id", "")
        with lock:
            overlap = in_flight.get(msg_id, 0) > 0
            in_flight[msg_id] = in_flight.get(msg_id, 0) + 1
        try:
            if state["mode"] == "hang":
                time.sleep(3600)
            record = {"id": msg_id, "verified": False, "error": None, "overlap": overlap,
                      "user_agent": self.headers.get("user-agent"), "content_type": self.headers.get("content-type"),
                      "start": start}
            try:
                payload = webhook.verify(body, dict(self.headers.items()))
                record.update(verified=True, type=payload.get("type"), data=payload.get("data"), timestamp=payload.get("timestamp"))
            except (WebhookVerificationError, ValueError) as error:
                record["error"] = str(error)
            if state["delay"]:
                time.sleep(state["delay"])
            record["end"] = time.time()
            with lock, open(log_path, "a") as log:
                log.write(json.dumps(record) + "\n")
            self.answer(204 if record["verified"] else 400)
        finally:
            with lock:
                in_flight[msg_id] -= 1

    def answer(self, status):
        self.send_response(status)
        self.send_header("content-length", "0")
        self.end_headers()


server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
server.daemon_threads = True
server.serve_forever()
