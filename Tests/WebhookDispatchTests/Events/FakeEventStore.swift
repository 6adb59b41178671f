import Foundation
import PasskeyStore
import Synchronization

/// A value shared with escaping closures (a Mutex cannot be captured by them).
final class Box<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }
}

/// A clock the test moves.
final class TestClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// The outbox as EventStore documents it, in memory, for the dispatcher's tests (the PostgreSQL store and its
/// in-memory twin are the outbox branch's): deliveries with leases, due times, and one in flight per (endpoint, user).
actor FakeEventStore: EventStore {
    struct Row {
        var delivery: WebhookDelivery
        var leaseOwner: String?
        var leaseUntil: Date?
    }

    let clock: TestClock
    private(set) var rows: [Row] = []
    private(set) var attempts: [(id: Int64, owner: String, outcome: WebhookAttemptOutcome)] = []
    private(set) var leaseCalls = 0
    private var nextID: Int64 = 1

    init(clock: TestClock) { self.clock = clock }

    func add(_ event: AuditEvent, endpoint: String = "app") {
        rows.append(Row(delivery: WebhookDelivery(
            id: nextID, endpointID: endpoint, event: event, status: .pending, attempts: 0, nextAttemptAt: event.occurredAt,
            lastAttemptAt: nil, lastStatusCode: nil, lastError: nil, deliveredAt: nil)))
        nextID += 1
    }

    func syncWebhookEndpoints(_ endpoints: [WebhookEndpointConfig]) async throws(StoreError) {}
    func webhookEndpoints() async throws(StoreError) -> [WebhookEndpointState] { [] }
    func setWebhookEndpointPaused(id: String, paused: Bool) async throws(StoreError) -> Bool { false }

    func leaseWebhookDeliveries(owner: String, limit: Int, leaseSeconds: Int) async throws(StoreError) -> [WebhookDelivery] {
        leaseCalls += 1
        let now = clock.now
        var busy = Set<String>()  // (endpoint, user) pairs whose oldest pending delivery is already decided
        var leased: [WebhookDelivery] = []
        for index in rows.indices where rows[index].delivery.status == .pending {
            let delivery = rows[index].delivery
            let pair = delivery.endpointID + "/" + (delivery.event.userHandle.map { Data($0).base64EncodedString() } ?? "-\(delivery.id)")
            guard busy.insert(pair).inserted else { continue }
            guard leased.count < limit, (delivery.nextAttemptAt ?? now) <= now else { continue }
            if let until = rows[index].leaseUntil, until > now { continue }
            rows[index].leaseOwner = owner
            rows[index].leaseUntil = now + TimeInterval(leaseSeconds)
            leased.append(delivery)
        }
        return leased
    }

    func recordAttempt(delivery id: Int64, owner: String, outcome: WebhookAttemptOutcome) async throws(StoreError) -> Bool {
        guard let index = rows.firstIndex(where: { $0.delivery.id == id }), rows[index].leaseOwner == owner,
              let until = rows[index].leaseUntil, until > clock.now
        else { return false }
        attempts.append((id, owner, outcome))
        let old = rows[index].delivery
        let now = clock.now
        var status = WebhookDeliveryStatus.pending
        var next: Date?
        var code: Int?
        var error: String?
        var deliveredAt: Date?
        switch outcome {
        case .delivered(let statusCode): status = .delivered; code = statusCode; deliveredAt = now
        case .retry(let at, let statusCode, let text): next = at; code = statusCode; error = text
        case .failed(let statusCode, let text): status = .failed; code = statusCode; error = text
        }
        rows[index].delivery = WebhookDelivery(
            id: id, endpointID: old.endpointID, event: old.event, status: status, attempts: old.attempts + 1, nextAttemptAt: next,
            lastAttemptAt: now, lastStatusCode: code, lastError: error, deliveredAt: deliveredAt)
        rows[index].leaseOwner = nil
        rows[index].leaseUntil = nil
        return true
    }

    func webhookDeliveries(_ query: WebhookDeliveryQuery) async throws(StoreError) -> [WebhookDelivery] { rows.map(\.delivery) }
    func redeliver(delivery id: Int64) async throws(StoreError) -> Bool { false }

    func outboxStats() async throws(StoreError) -> OutboxStats {
        let pending = rows.filter { $0.delivery.status == .pending }
        return OutboxStats(pending: pending.count, oldestPendingSince: pending.map(\.delivery.event.occurredAt).min())
    }

    func statuses() -> [WebhookDeliveryStatus] { rows.map(\.delivery.status) }
}
