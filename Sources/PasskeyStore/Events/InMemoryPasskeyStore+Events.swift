public import Foundation

/// A delivery as the in-memory store keeps it: the listed value's fields plus the lease.
struct DeliveryRecord: Sendable {
    var delivery: WebhookDelivery
    var leaseOwner: String?
    var leaseUntil: Date?

    func with(
        status: WebhookDeliveryStatus, attempts: Int? = nil, nextAttemptAt: Date?, lastAttemptAt: Date?? = nil, lastStatusCode: Int?? = nil,
        lastError: String?? = nil, deliveredAt: Date?, pendingSince: Date? = nil
    ) -> WebhookDelivery {
        WebhookDelivery(
            id: delivery.id, endpointID: delivery.endpointID, event: delivery.event, status: status, attempts: attempts ?? delivery.attempts,
            nextAttemptAt: nextAttemptAt, lastAttemptAt: lastAttemptAt ?? delivery.lastAttemptAt,
            lastStatusCode: lastStatusCode ?? delivery.lastStatusCode, lastError: lastError ?? delivery.lastError, deliveredAt: deliveredAt,
            pendingSince: pendingSince ?? delivery.pendingSince)
    }
}

extension InMemoryPasskeyStore: EventStore {
    /// One delivery per endpoint that is not removed and whose filter names the event's type (the trigger of
    /// `Migrations/0015_events.sql`), in endpoint id order.
    func fanOut(_ event: AuditEvent) {
        for endpoint in webhookEndpointRecords.values.sorted(by: { $0.id < $1.id })
        where !endpoint.removed && (endpoint.events?.contains(event.kind) ?? true) {
            let id = Int64(deliveryRecords.count + 1)
            deliveryRecords[id] = DeliveryRecord(
                delivery: WebhookDelivery(
                    id: id, endpointID: endpoint.id, event: event, status: .pending, attempts: 0, nextAttemptAt: event.occurredAt,
                    lastAttemptAt: nil, lastStatusCode: nil, lastError: nil, deliveredAt: nil, pendingSince: event.occurredAt))
        }
    }

    public func syncWebhookEndpoints(_ endpoints: [WebhookEndpointConfig]) {
        let listed = Set(endpoints.map(\.id))
        for endpoint in endpoints {
            webhookEndpointRecords[endpoint.id] = WebhookEndpointState(
                id: endpoint.id, url: endpoint.url, events: endpoint.events, paused: webhookEndpointRecords[endpoint.id]?.paused ?? false,
                removed: false)
        }
        for endpoint in webhookEndpointRecords.values where !listed.contains(endpoint.id) {
            webhookEndpointRecords[endpoint.id] = WebhookEndpointState(
                id: endpoint.id, url: endpoint.url, events: endpoint.events, paused: endpoint.paused, removed: true)
        }
    }

    public func webhookEndpoints() -> [WebhookEndpointState] {
        webhookEndpointRecords.values.sorted { $0.id < $1.id }
    }

    public func setWebhookEndpointPaused(id: String, paused: Bool) -> Bool {
        guard let endpoint = webhookEndpointRecords[id], !endpoint.removed else { return false }
        webhookEndpointRecords[id] = WebhookEndpointState(
            id: endpoint.id, url: endpoint.url, events: endpoint.events, paused: paused, removed: false)
        return true
    }

    public func leaseWebhookDeliveries(owner: String, limit: Int, leaseSeconds: Int) -> [WebhookDelivery] {
        let current = now()
        let pending = deliveryRecords.values.filter { $0.delivery.status == .pending }
        /// The earliest pending event of each (endpoint, user) pair.
        var first: [String: Int64] = [:]
        for record in pending {
            guard let user = record.delivery.event.userHandle else { continue }
            let key = record.delivery.endpointID + "/" + user.map { String($0) }.joined(separator: ".")
            first[key] = min(first[key] ?? .max, record.delivery.event.id)
        }
        let candidates = pending.filter { record in
            let delivery = record.delivery
            guard let endpoint = webhookEndpointRecords[delivery.endpointID], !endpoint.paused, !endpoint.removed,
                (delivery.nextAttemptAt ?? .distantFuture) <= current, (record.leaseUntil.map { $0 <= current } ?? true)
            else { return false }
            guard let user = delivery.event.userHandle else { return true }
            return first[delivery.endpointID + "/" + user.map { String($0) }.joined(separator: ".")] == delivery.event.id
        }.sorted { $0.delivery.id < $1.delivery.id }.prefix(max(0, limit))
        let until = current.addingTimeInterval(TimeInterval(max(1, leaseSeconds)))
        for record in candidates {
            deliveryRecords[record.delivery.id]?.leaseOwner = owner
            deliveryRecords[record.delivery.id]?.leaseUntil = until
        }
        return candidates.map(\.delivery)
    }

    public func recordAttempt(delivery id: Int64, owner: String, outcome: WebhookAttemptOutcome) -> Bool {
        guard let record = deliveryRecords[id], record.leaseOwner == owner, record.delivery.status == .pending else { return false }
        let current = now()
        let updated = switch outcome {
        case .delivered(let code):
            record.with(
                status: .delivered, attempts: record.delivery.attempts + 1, nextAttemptAt: nil, lastAttemptAt: current,
                lastStatusCode: .some(code), lastError: .some(nil), deliveredAt: current)
        case .retry(let at, let code, let error):
            record.with(
                status: .pending, attempts: record.delivery.attempts + 1, nextAttemptAt: at, lastAttemptAt: current,
                lastStatusCode: .some(code), lastError: .some(String(error.prefix(500))), deliveredAt: nil)
        case .failed(let code, let error):
            record.with(
                status: .failed, attempts: record.delivery.attempts + 1, nextAttemptAt: nil, lastAttemptAt: current,
                lastStatusCode: .some(code), lastError: .some(String(error.prefix(500))), deliveredAt: nil)
        }
        deliveryRecords[id] = DeliveryRecord(delivery: updated, leaseOwner: nil, leaseUntil: nil)
        return true
    }

    public func webhookDeliveries(_ query: WebhookDeliveryQuery) -> [WebhookDelivery] {
        deliveryRecords.values.map(\.delivery).filter { delivery in
            delivery.endpointID == query.endpointID && (query.status.map { delivery.status == $0 } ?? true)
                && (query.after.map { delivery.id > $0 } ?? true)
        }.sorted { $0.id < $1.id }.prefix(max(0, query.limit)).map { $0 }
    }

    public func redeliver(delivery id: Int64) -> Bool {
        guard let record = deliveryRecords[id] else { return false }
        let current = now()
        let pending = record.delivery.status == .pending
        let due = pending ? min(record.delivery.nextAttemptAt ?? current, current) : current
        deliveryRecords[id]?.delivery = record.with(
            status: .pending, nextAttemptAt: due, deliveredAt: nil, pendingSince: pending ? record.delivery.pendingSince : current)
        return true
    }

    public func outboxStats() -> OutboxStats {
        let pending = deliveryRecords.values.filter { record in
            guard record.delivery.status == .pending, let endpoint = webhookEndpointRecords[record.delivery.endpointID] else { return false }
            return !endpoint.paused && !endpoint.removed
        }
        return OutboxStats(pending: pending.count, oldestPendingSince: pending.map(\.delivery.pendingSince).min())
    }
}

/// base64url without padding, for the ids in events' `details`.
func base64url(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
