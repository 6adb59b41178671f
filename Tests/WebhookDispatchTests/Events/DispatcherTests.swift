import COSECrypto
import Foundation
import Logging
@testable import PasskeyApp
import PasskeyStore
import Synchronization
import Testing
import WebhookCore

/// A receiver in the test: answers what `answer` says, records every request (and checks that no delivery is in
/// flight twice at once).
final class RecordingTransport: WebhookTransport {
    struct Received: Sendable {
        let request: WebhookRequest
        let result: WebhookTransportResult
    }

    private let state = Mutex<(received: [Received], inFlight: Set<String>, overlaps: Int)>(([], [], 0))
    let answer: @Sendable (WebhookRequest) -> WebhookTransportResult
    let delay: Duration

    init(delay: Duration = .zero, answer: @escaping @Sendable (WebhookRequest) -> WebhookTransportResult = { _ in .answered(statusCode: 204, retryAfter: nil) }) {
        self.answer = answer
        self.delay = delay
    }

    var received: [Received] { state.withLock { $0.received } }
    var overlaps: Int { state.withLock { $0.overlaps } }

    func send(_ request: WebhookRequest, timeout: Duration) async -> WebhookTransportResult {
        let key = request.endpointID + " " + (request.headers["webhook-id"] ?? "")
        state.withLock { if !$0.inFlight.insert(key).inserted { $0.overlaps += 1 } }
        if delay > .zero { try? await Task.sleep(for: delay) }
        let result = Task.isCancelled ? .noAnswer("cancelled") : answer(request)
        state.withLock {
            $0.inFlight.remove(key)
            $0.received.append(Received(request: request, result: result))
        }
        return result
    }
}

@Suite("Webhook dispatcher")
struct DispatcherTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let secret = try! WebhookSecret(key: (0..<32).map { UInt8($0) })
    static let endpoint = WebhookEndpoint(id: "app", url: "https://hooks.example.com/passkeyd", secrets: [secret])

    static func event(_ id: Int64, _ kind: AuditEventKind = .credentialRegistered, user: UInt8 = 1, at time: Date = start) -> AuditEvent {
        AuditEvent(
            id: id, occurredAt: time, kind: kind, context: AuditContext(requestID: "req-\(id)", actor: "api:0123456789abcdef", clientAddress: "203.0.113.9"),
            userHandle: [user, user], credentialID: [9, 9, UInt8(id % 256)], details: kind == .sessionRevoked ? ["reason": "sign_out"] : [:])
    }

    static func dispatcher(_ store: FakeEventStore, _ transport: some WebhookTransport, clock: TestClock, owner: String = "one", concurrency: Int = 8) -> WebhookDispatcher {
        var policy = WebhookDispatchPolicy()
        policy.concurrency = concurrency
        policy.timeout = .seconds(2)
        return WebhookDispatcher(
            store: store, transport: transport, endpoints: [endpoint], policy: policy, userAgent: "passkeyd/test", logger: Logger(label: "test"),
            owner: owner, now: { clock.now }, random: { 0.5 })
    }

    @Test("every event kind arrives once, signed (verifies), with the Standard Webhooks headers and body")
    func everyKindArrivesSigned() async throws {
        let clock = TestClock(Self.start)
        let store = FakeEventStore(clock: clock)
        for (index, kind) in AuditEventKind.allCases.enumerated() { await store.add(Self.event(Int64(index + 1), kind, user: UInt8(index))) }
        let transport = RecordingTransport()
        let dispatcher = Self.dispatcher(store, transport, clock: clock, concurrency: 100)
        #expect(await dispatcher.round() == AuditEventKind.allCases.count)
        #expect(await store.statuses().allSatisfy { $0 == .delivered })
        let received = transport.received
        #expect(received.count == AuditEventKind.allCases.count)
        var types: Set<String> = []
        for item in received {
            let headers = item.request.headers
            #expect(headers["content-type"] == "application/json")
            #expect(headers["user-agent"] == "passkeyd/test")
            #expect(headers["webhook-timestamp"] == "1800000000")
            let id = try #require(headers["webhook-id"])
            try WebhookSignature.verify(
                id: id, timestamp: try #require(headers["webhook-timestamp"]), signature: try #require(headers["webhook-signature"]),
                body: item.request.body, secret: Self.secret, now: clock.now)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(item.request.body)) as? [String: Any])
            let type = try #require(json["type"] as? String)
            types.insert(type)
            #expect(json["timestamp"] as? String == "2027-01-15T08:00:00.000Z")
            let data = try #require(json["data"] as? [String: Any])
            #expect(id.hasPrefix("evt_"))
            #expect(data["request_id"] as? String == "req-\(id.dropFirst(4))")
            #expect(data["actor"] as? String == "api:0123456789abcdef")
            #expect(data["user_id"] is String && data["credential_id"] is String && data["identity_id"] is NSNull)
            #expect(data["client_address"] == nil)
            if type == "session.revoked" { #expect(data["reason"] as? String == "sign_out") }
        }
        #expect(types == Set(AuditEventKind.allCases.map(\.rawValue)))
    }

    @Test("the payload is stable: same bytes and webhook-id for the same event; details never replace the ids")
    func payloadIsStable() {
        let event = AuditEvent(
            id: 77, occurredAt: Self.start, kind: .appStoreEntitlementChanged, context: .system, userHandle: [1], credentialID: nil,
            details: ["product_id": "pro", "user_id": "spoofed"])
        let payload = WebhookPayload(event)
        #expect(payload == WebhookPayload(event))
        #expect(payload.webhookID == "evt_77")
        #expect(String(decoding: payload.body, as: UTF8.self) == #"{"data":{"actor":"system","credential_id":null,"identity_id":null,"product_id":"pro","request_id":null,"user_id":"AQ"},"timestamp":"2027-01-15T08:00:00.000Z","type":"appstore.entitlement_changed"}"#)
    }

    @Test("a receiver down for a while, then up: every event arrives, in order per user, duplicates only with the same webhook-id")
    func downThenUp() async throws {
        let clock = TestClock(Self.start)
        let store = FakeEventStore(clock: clock)
        for id in 1...30 { await store.add(Self.event(Int64(id), user: UInt8(id % 3))) }
        let up = Box(false)
        // While down: connection refused, 503, 500 with a body that was lost, alternately.
        let transport = RecordingTransport { request in
            if up.value { return .answered(statusCode: 200, retryAfter: nil) }
            return Int(request.headers["webhook-id"]!.dropFirst(4))! % 2 == 0 ? .noAnswer("connection refused") : .answered(statusCode: 503, retryAfter: nil)
        }
        let dispatcher = Self.dispatcher(store, transport, clock: clock)
        for _ in 0..<40 {  // down for about 3 hours
            await dispatcher.round()
            clock.advance(300)
        }
        #expect(await store.statuses().allSatisfy { $0 == .pending })
        up.value = true
        var rounds = 0
        while rounds < 200, await store.statuses().contains(.pending) {
            await dispatcher.round()
            clock.advance(600)
            rounds += 1
        }
        #expect(await store.statuses().allSatisfy { $0 == .delivered })
        let delivered = transport.received.filter { if case .answered(200, _) = $0.result { true } else { false } }
        let ids = delivered.map { $0.request.headers["webhook-id"]! }
        #expect(Set(ids) == Set((1...30).map { "evt_\($0)" }))
        #expect(ids.count == 30)
        // Per user, in event order (the store hands out only the oldest pending delivery of each user).
        for user in 0..<3 {
            let order = ids.map { Int($0.dropFirst(4))! }.filter { $0 % 3 == user }
            #expect(order == order.sorted())
        }
        // Every attempt of one event carried that event's one webhook-id and the same body.
        let bodies = Dictionary(grouping: transport.received, by: { $0.request.headers["webhook-id"]! })
        for (_, attempts) in bodies { #expect(Set(attempts.map(\.request.body)).count == 1) }
    }

    @Test("two dispatchers on one outbox: each event sent, never the same delivery concurrently")
    func twoInstances() async throws {
        let clock = TestClock(Self.start)
        let store = FakeEventStore(clock: clock)
        for id in 1...60 { await store.add(Self.event(Int64(id), user: UInt8(id % 7))) }
        let transport = RecordingTransport(delay: .milliseconds(5))
        let one = Self.dispatcher(store, transport, clock: clock, owner: "one", concurrency: 4)
        let two = Self.dispatcher(store, transport, clock: clock, owner: "two", concurrency: 4)
        var rounds = 0
        while rounds < 100, await store.statuses().contains(.pending) {
            async let a = one.round()
            async let b = two.round()
            _ = await (a, b)
            rounds += 1
        }
        #expect(await store.statuses().allSatisfy { $0 == .delivered })
        #expect(transport.overlaps == 0)
        #expect(transport.received.count == 60)
        let owners = Set(await store.attempts.map(\.owner))
        #expect(owners == ["one", "two"])
    }

    @Test("outcomes: 410 fails at once, 4xx is retried on the schedule, the window's end fails, Retry-After is honoured; a redelivery's window starts at the redelivery")
    func outcomes() async throws {
        let clock = TestClock(Self.start)
        let store = FakeEventStore(clock: clock)
        let dispatcher = Self.dispatcher(store, RecordingTransport(), clock: clock)
        let fresh = WebhookDelivery(
            id: 1, endpointID: "app", event: Self.event(1), status: .pending, attempts: 0, nextAttemptAt: nil, lastAttemptAt: nil,
            lastStatusCode: nil, lastError: nil, deliveredAt: nil)
        #expect(dispatcher.outcome(of: .answered(statusCode: 410, retryAfter: nil), for: fresh) == .failed(statusCode: 410, error: "answered 410: the endpoint is gone for good"))
        #expect(dispatcher.outcome(of: .answered(statusCode: 204, retryAfter: nil), for: fresh) == .delivered(statusCode: 204))
        #expect(dispatcher.outcome(of: .answered(statusCode: 404, retryAfter: nil), for: fresh) == .retry(at: Self.start + 3.75, statusCode: 404, error: "answered 404"))
        #expect(dispatcher.outcome(of: .answered(statusCode: 429, retryAfter: "120"), for: fresh) == .retry(at: Self.start + 120, statusCode: 429, error: "answered 429"))
        #expect(dispatcher.outcome(of: .noAnswer("timed out"), for: fresh) == .retry(at: Self.start + 3.75, statusCode: nil, error: "timed out"))
        clock.advance(86_400)
        guard case .failed(nil, let reason) = dispatcher.outcome(of: .noAnswer("connection refused"), for: fresh) else {
            Issue.record("not failed after the window")
            return
        }
        #expect(reason.contains("connection refused"))
        // The same day-old event redelivered now: a window of its own, so a failed attempt is retried.
        let redelivered = WebhookDelivery(
            id: 1, endpointID: "app", event: Self.event(1), status: .pending, attempts: 7, nextAttemptAt: nil, lastAttemptAt: nil,
            lastStatusCode: nil, lastError: nil, deliveredAt: nil, pendingSince: clock.now)
        guard case .retry = dispatcher.outcome(of: .noAnswer("connection refused"), for: redelivered) else {
            Issue.record("a redelivery failed after one attempt")
            return
        }
        clock.advance(86_400)
        guard case .failed = dispatcher.outcome(of: .noAnswer("connection refused"), for: redelivered) else {
            Issue.record("not failed after the redelivery's window")
            return
        }
    }

    @Test("a receiver that hangs: the attempt ends at the timeout, is retried, and the next round is not held up")
    func hangingReceiver() async throws {
        let clock = TestClock(Self.start)
        let store = FakeEventStore(clock: clock)
        await store.add(Self.event(1))
        let hanging = RecordingTransport(delay: .seconds(3600))
        var policy = WebhookDispatchPolicy()
        policy.timeout = .milliseconds(200)
        let dispatcher = WebhookDispatcher(
            store: store, transport: hanging, endpoints: [Self.endpoint], policy: policy, userAgent: "passkeyd/test",
            logger: Logger(label: "test"), owner: "one", now: { clock.now }, random: { 0 })
        let began = ContinuousClock.now
        #expect(await dispatcher.round() == 1)
        // The transport would hang for an hour; the round ends at the 200 ms timeout. The bound is far above that
        // but far below the hang: the full suite once took 34 s here on two cores, where synchronous tests of other
        // suites (libpq calls) block the cooperative pool's two threads.
        #expect(began.duration(to: .now) < .seconds(600))
        let attempt = try #require(await store.attempts.first)
        guard case .retry(_, nil, _) = attempt.outcome else {
            Issue.record("expected a retry, got \(attempt.outcome)")
            return
        }
    }

    @Test("a delivery for an endpoint this instance does not know is put back for another instance, not sent")
    func unknownEndpoint() async throws {
        let clock = TestClock(Self.start)
        let store = FakeEventStore(clock: clock)
        await store.add(Self.event(1), endpoint: "other")
        let transport = RecordingTransport()
        #expect(await Self.dispatcher(store, transport, clock: clock).round() == 1)
        #expect(transport.received.isEmpty)
        #expect(await store.statuses() == [.pending])
    }
}
