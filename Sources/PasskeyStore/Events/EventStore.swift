public import Foundation

// The outbox of events for the app backend (issue 30). The events ARE the audit trail's rows (`audit_events`,
// written by the same statement as the change they describe, so an event exists exactly when its change committed);
// a statement trigger fans each new row out to one delivery per configured webhook endpoint whose filter matches, in
// the same transaction. Schema: `Migrations/0015_events.sql`.

/// A webhook endpoint as configured by the operator (settings), synchronised into the store at start-up.
/// The signing secret is never stored: it stays in the settings.
public struct WebhookEndpointConfig: Sendable, Hashable {
    /// The operator's stable name for it (letters, digits, `-`, `_`; at most 64).
    public let id: String
    /// Where deliveries are POSTed (already checked against the URL policy).
    public let url: String
    /// The event types it receives; nil: every type.
    public let events: Set<AuditEventKind>?

    public init(id: String, url: String, events: Set<AuditEventKind>?) {
        self.id = id
        self.url = url
        self.events = events
    }
}

/// An endpoint as the store knows it.
public struct WebhookEndpointState: Sendable, Hashable {
    public let id: String
    public let url: String
    public let events: Set<AuditEventKind>?
    /// Paused by an administrator: deliveries accumulate and are not sent until resumed.
    public let paused: Bool
    /// No longer in the settings: nothing new is fanned out to it and nothing is sent.
    public let removed: Bool

    public init(id: String, url: String, events: Set<AuditEventKind>?, paused: Bool, removed: Bool) {
        self.id = id
        self.url = url
        self.events = events
        self.paused = paused
        self.removed = removed
    }
}

public enum WebhookDeliveryStatus: String, Sendable, Hashable, CaseIterable {
    /// Waiting for its first or next attempt.
    case pending
    /// A 2xx answer was received.
    case delivered
    /// Retries exhausted (or refused for good); an administrator can redeliver it.
    case failed
}

/// One event for one endpoint.
public struct WebhookDelivery: Sendable, Hashable {
    /// The delivery's id (the admin API's handle). The `webhook-id` header is the event's id, not this.
    public let id: Int64
    public let endpointID: String
    public let event: AuditEvent
    public let status: WebhookDeliveryStatus
    /// Attempts made so far.
    public let attempts: Int
    public let nextAttemptAt: Date?
    public let lastAttemptAt: Date?
    /// The HTTP status of the last attempt, when one was received.
    public let lastStatusCode: Int?
    /// Why the last attempt failed (never a secret, at most 500 characters).
    public let lastError: String?
    public let deliveredAt: Date?
    /// When the delivery last became pending: its creation, or the redelivery that made a delivered or failed one
    /// pending again. The retry window counts from here.
    public let pendingSince: Date

    public init(
        id: Int64, endpointID: String, event: AuditEvent, status: WebhookDeliveryStatus, attempts: Int, nextAttemptAt: Date?,
        lastAttemptAt: Date?, lastStatusCode: Int?, lastError: String?, deliveredAt: Date?, pendingSince: Date? = nil
    ) {
        self.id = id
        self.endpointID = endpointID
        self.event = event
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.lastStatusCode = lastStatusCode
        self.lastError = lastError
        self.deliveredAt = deliveredAt
        self.pendingSince = pendingSince ?? event.occurredAt
    }
}

/// What an attempt came to, recorded by ``EventStore/recordAttempt(delivery:owner:outcome:)``.
public enum WebhookAttemptOutcome: Sendable, Hashable {
    /// A 2xx answer.
    case delivered(statusCode: Int)
    /// Try again at `retryAt` (status nil: no HTTP answer, e.g. a timeout or a refused connection).
    case retry(at: Date, statusCode: Int?, error: String)
    /// Give up: retries exhausted or the endpoint refused for good.
    case failed(statusCode: Int?, error: String)
}

/// Which deliveries to list: ordered by id, after the cursor `after`.
public struct WebhookDeliveryQuery: Sendable, Hashable {
    public var endpointID: String
    public var status: WebhookDeliveryStatus?
    public var after: Int64?
    public var limit: Int

    public init(endpointID: String, status: WebhookDeliveryStatus? = nil, after: Int64? = nil, limit: Int = 50) {
        self.endpointID = endpointID
        self.status = status
        self.after = after
        self.limit = limit
    }
}

/// The outbox's health, for the metrics.
public struct OutboxStats: Sendable, Hashable {
    /// Pending deliveries of endpoints that are neither paused nor removed.
    public let pending: Int
    /// When the oldest of those became pending (``WebhookDelivery/pendingSince``; nil: none pending).
    public let oldestPendingSince: Date?

    public init(pending: Int, oldestPendingSince: Date?) {
        self.pending = pending
        self.oldestPendingSince = oldestPendingSince
    }
}

/// The outbox: endpoints, the deliveries fanned out to them, and the leases that let several instances deliver
/// without sending one delivery concurrently. Every method is atomic.
public protocol EventStore: Sendable {
    /// Makes the store's endpoints match the settings: the listed ones are created or updated (URL, filter; the
    /// paused flag is kept), every other one is marked removed. Fan-out starts with the next committed event.
    func syncWebhookEndpoints(_ endpoints: [WebhookEndpointConfig]) async throws(StoreError)

    func webhookEndpoints() async throws(StoreError) -> [WebhookEndpointState]

    /// Pauses or resumes an endpoint; false when no such endpoint (or a removed one).
    func setWebhookEndpointPaused(id: String, paused: Bool) async throws(StoreError) -> Bool

    /// Leases up to `limit` due deliveries to `owner` for `leaseSeconds`: pending, due (`next_attempt_at` ≤ now),
    /// not leased by anyone else (or the lease ran out), of an endpoint neither paused nor removed, and the oldest
    /// pending delivery of its (endpoint, user) pair, so one user's events reach an endpoint in order. Oldest first.
    func leaseWebhookDeliveries(owner: String, limit: Int, leaseSeconds: Int) async throws(StoreError) -> [WebhookDelivery]

    /// Records an attempt of a delivery leased by `owner` and releases the lease; false (nothing changed) when the
    /// lease is no longer `owner`'s.
    func recordAttempt(delivery id: Int64, owner: String, outcome: WebhookAttemptOutcome) async throws(StoreError) -> Bool

    func webhookDeliveries(_ query: WebhookDeliveryQuery) async throws(StoreError) -> [WebhookDelivery]

    /// Makes a delivered or failed delivery pending again, due now (attempts are kept); false when unknown.
    func redeliver(delivery id: Int64) async throws(StoreError) -> Bool

    func outboxStats() async throws(StoreError) -> OutboxStats
}
