import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import PasskeyHTTP
import PasskeyServerSupport
import Testing
import WebAuthnModel
import WebAuthnTestSupport

/// `X-Request-Id` (issue 30): on every answer; a sane incoming id honoured and carried by the request's log lines and
/// audit row; any other replaced by one passkeyd makes.
@Suite("Observability: X-Request-Id")
struct RequestIDTests {
    static let adminKey = "reqid-admin-key-5e1f0c9b7a3d2468"
    static let requestID = HTTPField.Name("X-Request-Id")!

    struct Answer {
        let status: Int
        let id: String?
        let body: [UInt8]
    }

    static func app(_ environment: [String: String] = [:], logs: LogCapture = LogCapture()) async throws
        -> Application<RouterResponder<PasskeyRequestContext>>
    {
        let settings = try TestPasskeyd.unboundedSettings(
            ["PASSKEYD_ORIGINS": Harness.origin, "PASSKEYD_ADMIN_KEYS": adminKey].merging(environment) { _, new in new })
        return try await TestPasskeyd.build(settings, store: TestPasskeyd.store(for: settings), logger: logs.logger()).http
    }

    static func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, body: [UInt8]? = nil, id: String? = nil,
        headers: HTTPFields = [:]
    ) async throws -> Answer {
        var headers = headers
        if let id { headers[requestID] = id }
        return try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) }) { response in
            Answer(status: Int(response.status.code), id: response.headers[requestID], body: Array(response.body.readableBytesView))
        }
    }

    @Test("every answer carries one: success, JSON error, 404, 405, 413, 429, health; distinct per request")
    func everyAnswer() async throws {
        try await Self.app(["PASSKEYD_RATE_LIMIT_USER": "1/min:1"]).test(.router) { client in
            var ids: [String] = []
            func check(_ answer: Answer, _ status: Int, _ what: String) {
                #expect(answer.status == status, "\(what): \(answer.status)")
                #expect(answer.id.map(RequestObservationMiddleware.isSane) == true, "\(what): \(answer.id ?? "no X-Request-Id")")
                if let id = answer.id { ids.append(id) }
            }
            let user = Array(#"{"user":{"name":"rita"}}"#.utf8)
            check(try await Self.send(client, .post, "/v1/authentication/begin", body: user), 200, "success")
            check(try await Self.send(client, .post, "/v1/authentication/begin", body: user), 429, "rate limited")
            check(try await Self.send(client, .post, "/v1/authentication/begin", body: Array("{".utf8)), 400, "malformed JSON")
            check(try await Self.send(client, .get, "/v1/nowhere"), 404, "no route")
            check(try await Self.send(client, .get, "/v1/authentication/begin"), 405, "wrong method")
            check(try await Self.send(client, .post, "/v1/authentication/begin", body: Array(repeating: 0x20, count: 70_000)), 413, "oversize")
            check(try await Self.send(client, .get, "/v1/admin/users"), 401, "admin without key")
            check(try await Self.send(client, .get, "/healthz"), 200, "health")
            check(try await Self.send(client, .get, "/openapi.json"), 200, "API document")
            #expect(Set(ids).count == ids.count, "one id per request: \(ids)")
        }
    }

    @Test("a sane incoming id is echoed, logged and stored in the audit row; an insane one is replaced")
    func incoming() async throws {
        let logs = LogCapture()
        let sane = "req-2026.11/29:abc+def=_0"
        try await Self.app(logs: logs).test(.router) { client in
            // A sign-up under the caller's id: the answer echoes it, the audit rows (two events) carry it.
            let begin = try await Self.send(client, .post, "/v1/registration/begin", body: Array(#"{"user":{"name":"ida"}}"#.utf8), id: sane)
            #expect(begin.status == 200 && begin.id == sane)
            let options = try JSONDecoder().decode(PublicKeyWrapper<CreationOptionsJSON>.self, from: Data(begin.body)).publicKey
            let (response, _) = try SoftAuthenticator.register(options: options, knobs: RegistrationKnobs(origin: Harness.origin))
            let finish = try await Self.send(
                client, .post, "/v1/registration/finish", body: Array(try JSONEncoder().encode(FinishRegistration(credential: response, nickname: nil))),
                id: sane)
            #expect(finish.status == 201 && finish.id == sane)
            let audit = try await Self.send(
                client, .get, "/v1/admin/audit-events", headers: [.authorization: "Bearer \(Self.adminKey)"])
            let events = (try JSONSerialization.jsonObject(with: Data(audit.body)) as? [String: Any])?["events"] as? [[String: Any]] ?? []
            #expect(events.count == 2 && events.allSatisfy { $0["requestId"] as? String == sane }, "\(events)")

            // Refused ids: empty, too long, a space, a quote, a newline-free control character, non-ASCII.
            for insane in ["", String(repeating: "a", count: 129), "two words", "quote\"d", "tab\there", "caf\u{e9}", "<script>"] {
                let answer = try await Self.send(client, .get, "/healthz", id: insane)
                #expect(answer.id != nil && answer.id != insane, "\(insane.debugDescription) → \(answer.id ?? "none")")
                #expect(answer.id.map(RequestObservationMiddleware.isSane) == true)
            }
            let longest = String(repeating: "Z", count: 128)
            #expect(try await Self.send(client, .get, "/healthz", id: longest).id == longest)
            // An error answer echoes it too (and its log line carries it).
            let failed = try await Self.send(client, .post, "/v1/authentication/finish", body: Array("{}".utf8), id: "failing-1")
            #expect(failed.status == 400 && failed.id == "failing-1")
        }
        let lines = logs.all.filter { $0.metadata["hb.request.id"] == sane }
        #expect(lines.contains { $0.message == "audit" }, "the audit log lines carry the caller's id")
        #expect(logs.all.contains { $0.message == "request failed" && $0.metadata["hb.request.id"] == "failing-1" })
    }

    @Test("trace export: off unless configured; OTEL_SDK_DISABLED wins; only OTLP over HTTP")
    func traceExportDecision() throws {
        #expect(try TraceExport.decide([:]) == .off)
        #expect(try TraceExport.decide(["OTEL_SERVICE_NAME": "x", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"]) == .off)
        #expect(try TraceExport.decide(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"]) == .otlp)
        #expect(try TraceExport.decide(["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"]) == .otlp)
        #expect(try TraceExport.decide(["OTEL_EXPORTER_OTLP_ENDPOINT": " "]) == .off)
        #expect(try TraceExport.decide(["OTEL_TRACES_EXPORTER": "otlp"]) == .otlp)
        #expect(try TraceExport.decide(["OTEL_TRACES_EXPORTER": "OTLP", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"]) == .otlp)
        #expect(try TraceExport.decide(["OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"]) == .off)
        #expect(try TraceExport.decide(["OTEL_SDK_DISABLED": "TRUE", "OTEL_TRACES_EXPORTER": "otlp"]) == .off)
        #expect(try TraceExport.decide(["OTEL_SDK_DISABLED": "false", "OTEL_TRACES_EXPORTER": "otlp"]) == .otlp)
        #expect(throws: TraceExport.ConfigurationError.self) { try TraceExport.decide(["OTEL_TRACES_EXPORTER": "zipkin"]) }
        #expect(throws: TraceExport.ConfigurationError.self) {
            try TraceExport.decide(["OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"])
        }
    }
}
