#!/usr/bin/env python3
"""A minimal OTLP/HTTP trace receiver for scripts/test/traces-test.sh.

    otlp-receiver.py PORT_FILE SPANS_FILE

Listens on 127.0.0.1 (a free port, written to PORT_FILE once listening), accepts POST /v1/traces with an
ExportTraceServiceRequest in protobuf (gzip or not; decoded with opentelemetry-proto from PyPI) and appends one JSON
line per span to SPANS_FILE: trace_id, span_id, parent_span_id (hex; "" for a root), name, kind, service (the
resource's service.name), attributes (strings, ints, bools), status_code. Anything else is answered 404 or 400 and
recorded nowhere. Runs until killed.
"""
import gzip
import http.server
import json
import sys

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def main():
    port_file, spans_file = sys.argv[1], sys.argv[2]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            if self.path != "/v1/traces":
                self.send_error(404)
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            if not self.headers.get("Content-Type", "").startswith("application/x-protobuf"):
                self.send_error(400, "protobuf only")
                return
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            with open(spans_file, "a", encoding="utf-8") as out:
                for resource_spans in request.resource_spans:
                    resource = {a.key: value(a.value) for a in resource_spans.resource.attributes}
                    for scope_spans in resource_spans.scope_spans:
                        for span in scope_spans.spans:
                            out.write(json.dumps({
                                "trace_id": span.trace_id.hex(),
                                "span_id": span.span_id.hex(),
                                "parent_span_id": span.parent_span_id.hex(),
                                "name": span.name,
                                "kind": span.kind,
                                "service": resource.get("service.name"),
                                "attributes": {a.key: value(a.value) for a in span.attributes},
                                "status_code": span.status.code,
                            }) + "\n")
            reply = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file, "w", encoding="utf-8") as out:
        out.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
