public import Foundation
public import Logging
public import Metrics
public import PasskeyStore
public import ServiceLifecycle
public import WebhookCore

/// One configured endpoint as the dispatcher needs it: where to POST, and the secrets to sign with (the first is
/// the current one; a second is sent too during a rotation, so receivers may switch at their pace).
public struct WebhookEndpoint: Sendable, Hashable {
    public let id: String
    public let url: String
    public let secrets: [WebhookSecret]

    public init(id: String, url: String, secrets: [WebhookSecret]) {
        precondition(!secrets.isEmpty, "an endpoint signs with at least one secret")
        self.id = id
        self.url = url
        self.secrets = secrets
    }
}

/// How the dispatcher works; the defaults are the documented ones.
public struct WebhookDispatchPolicy: Sendable, Hashable {
    /// When to retry and when to give up.
    public var retry = WebhookRetryPolicy()
    /// The longest one attempt may take (connect, send, answer).
    public var timeout: Duration = .seconds(10)
    /// Attempts in flight at once per instance (each for a different (endpoint, user) pair).
    public var concurrency = 8
    /// The wait between lease rounds while nothing is due.
    public var pollInterval: Duration = .seconds(1)
    /// How often the outbox gauges are refreshed.
    public var statsInterval: Duration = .seconds(15)

    public init() {}

    /// A lease outlives the attempt it covers (the attempt's timeout and 30 s), so no other instance takes a delivery
    /// while it is being sent; one that dies mid-attempt lets it go when the lease runs out (then it is sent again,
    /// with the same webhook-id).
    var leaseSeconds: Int { Int(timeout.components.seconds) + 30 }
}

/// Sends the outbox's deliveries, off the request path: a loop that leases due deliveries (as `owner`, random per
/// instance), sends up to ``WebhookDispatchPolicy/concurrency`` at once through the transport, each signed per
/// Standard Webhooks, records each attempt's outcome (delivered; retried at the schedule's next time; failed) and,
/// when nothing is due, waits the poll interval. A swift-service-lifecycle `Service`: on a graceful shutdown it stops
/// leasing, lets the attempts in flight finish (each within its timeout) and returns.
///
/// Metrics: `passkeyd_webhook_deliveries_total{endpoint,outcome}` per attempt (`delivered`, `retry`, `failed`,
/// `lease_lost`), `passkeyd_webhook_pending` and `passkeyd_webhook_oldest_pending_seconds` (from the store's
/// outbox statistics, every `statsInterval`).
public struct WebhookDispatcher: Service, CustomStringConvertible {
    public let description = "webhook delivery"
    let store: any EventStore
    let transport: any WebhookTransport
    let endpoints: [String: WebhookEndpoint]
    let policy: WebhookDispatchPolicy
    /// This instance's name on its leases.
    public let owner: String
    let userAgent: String
    let logger: Logger
    let factory: any MetricsFactory
    let now: @Sendable () -> Date
    let random: @Sendable () -> Double
    let pending: Gauge
    let oldestAge: Gauge
    /// The settings' endpoints, made the store's before the first lease (retried each poll interval while the
    /// database is unreachable, so an instance started during an outage delivers once it is back); nil: already done.
    let syncFirst: [WebhookEndpointConfig]?

    public static let deliveriesMetric = "passkeyd_webhook_deliveries_total"
    public static let pendingMetric = "passkeyd_webhook_pending"
    public static let oldestPendingMetric = "passkeyd_webhook_oldest_pending_seconds"

    public init(
        store: any EventStore, transport: any WebhookTransport, endpoints: [WebhookEndpoint], policy: WebhookDispatchPolicy = .init(),
        userAgent: String, logger: Logger, metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance,
        owner: String = "passkeyd-" + UUID().uuidString.lowercased(), now: @escaping @Sendable () -> Date = { Date() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, syncFirst: [WebhookEndpointConfig]? = nil
    ) {
        self.syncFirst = syncFirst
        self.store = store
        self.transport = transport
        self.endpoints = Dictionary(endpoints.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.policy = policy
        self.userAgent = userAgent
        self.logger = logger
        self.factory = metricsFactory
        self.owner = owner
        self.now = now
        self.random = random
        pending = Gauge(label: Self.pendingMetric, factory: metricsFactory)
        oldestAge = Gauge(label: Self.oldestPendingMetric, factory: metricsFactory)
    }

    public func run() async throws {
        if let syncFirst {
            var synced = false
            while !synced, !Task.isShuttingDownGracefully, !Task.isCancelled {
                do {
                    try await store.syncWebhookEndpoints(syncFirst)
                    synced = true
                } catch {
                    logger.warning(
                        "synchronising the webhook endpoints failed; trying again",
                        metadata: ["reason": .string(String(describing: error).prefix(300).description)])
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: policy.pollInterval) }
                }
            }
        }
        var lastStats: ContinuousClock.Instant?
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            if lastStats.map({ $0.duration(to: .now) >= policy.statsInterval }) ?? true {
                await refreshStats()
                lastStats = .now
            }
            let sent = await round()
            // A full round: more may be due at once; otherwise wait (a graceful shutdown ends the wait).
            if sent < policy.concurrency {
                do {
                    try await cancelWhenGracefulShutdown { try await Task.sleep(for: policy.pollInterval) }
                } catch {
                    // Cancelled: shutting down (the loop's condition ends it).
                }
            }
        }
    }

    /// One lease round: leases up to `concurrency` due deliveries, sends them all at once, records each outcome.
    /// Returns how many were leased. Failures of the store are logged (the next round tries again).
    @discardableResult
    public func round() async -> Int {
        let leased: [WebhookDelivery]
        do {
            leased = try await store.leaseWebhookDeliveries(owner: owner, limit: policy.concurrency, leaseSeconds: policy.leaseSeconds)
        } catch {
            logger.warning("leasing webhook deliveries failed", metadata: ["reason": .string(String(describing: error).prefix(300).description)])
            return 0
        }
        await withTaskGroup(of: Void.self) { group in
            for delivery in leased {
                group.addTask { await deliver(delivery) }
            }
        }
        return leased.count
    }

    /// One attempt of one leased delivery, and its record.
    func deliver(_ delivery: WebhookDelivery) async {
        let outcome: WebhookAttemptOutcome
        if let endpoint = endpoints[delivery.endpointID] {
            let result = await attempt(delivery, to: endpoint)
            outcome = self.outcome(of: result, for: delivery)
        } else {
            // Leased for an endpoint this instance does not know (its settings lag another instance's): leave it to
            // an instance that does, a little later.
            outcome = .retry(at: now() + 60, statusCode: nil, error: "endpoint \(delivery.endpointID) is not configured on \(owner)")
        }
        let recorded: Bool
        do {
            recorded = try await store.recordAttempt(delivery: delivery.id, owner: owner, outcome: outcome)
        } catch {
            logger.warning(
                "recording a webhook attempt failed", metadata: ["delivery": .stringConvertible(delivery.id), "reason": .string(String(describing: error).prefix(300).description)])
            return
        }
        let name: String
        switch outcome {
        case _ where !recorded: name = "lease_lost"
        case .delivered: name = "delivered"
        case .retry: name = "retry"
        case .failed(let status, let error):
            name = "failed"
            logger.warning(
                "webhook delivery failed for good", metadata: [
                    "delivery": .stringConvertible(delivery.id), "endpoint": .string(delivery.endpointID),
                    "webhook_id": .string(WebhookPayload.webhookID(of: delivery.event)), "status": .string(status.map(String.init) ?? "none"),
                    "reason": .string(error),
                ])
        }
        Counter(label: Self.deliveriesMetric, dimensions: [("endpoint", delivery.endpointID), ("outcome", name)], factory: factory).increment()
    }

    /// Signs and sends, within the timeout (enforced here too, should a transport not keep it).
    func attempt(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint) async -> WebhookTransportResult {
        let payload = WebhookPayload(delivery.event)
        let timestamp = Int64(now().timeIntervalSince1970.rounded(.down))
        let signature: String
        do {
            signature = try WebhookSignature.sign(id: payload.webhookID, timestamp: timestamp, body: payload.body, secrets: endpoint.secrets)
        } catch {
            return .noAnswer("signing failed: \(error)")
        }
        let request = WebhookRequest(
            endpointID: endpoint.id, url: endpoint.url,
            headers: [
                "content-type": "application/json", "user-agent": userAgent, "webhook-id": payload.webhookID,
                "webhook-timestamp": String(timestamp), "webhook-signature": signature,
            ],
            body: payload.body)
        let transport = transport
        let timeout = policy.timeout
        return await withTaskGroup(of: WebhookTransportResult?.self) { group in
            group.addTask { await transport.send(request, timeout: timeout) }
            group.addTask {
                try? await Task.sleep(for: timeout + .seconds(1))
                return Task.isCancelled ? nil : .noAnswer("timed out after \(timeout)")
            }
            var result: WebhookTransportResult = .noAnswer("cancelled")
            if let first = await group.next(), let first { result = first }
            group.cancelAll()
            return result
        }
    }

    /// The record of an attempt's result: 2xx delivered; 410 failed; anything else retried on the schedule, or
    /// failed once the retry window has passed since the delivery became pending (its event, or a redelivery).
    func outcome(of result: WebhookTransportResult, for delivery: WebhookDelivery) -> WebhookAttemptOutcome {
        let status: Int?
        let error: String
        var retryAfter: TimeInterval?
        switch result {
        case .answered(let code, let retryAfterHeader):
            switch WebhookAnswer(statusCode: code) {
            case .delivered: return .delivered(statusCode: code)
            case .final: return .failed(statusCode: code, error: "answered \(code): the endpoint is gone for good")
            case .retry: break
            }
            status = code
            error = "answered \(code)"
            retryAfter = WebhookAnswer.retryAfter(retryAfterHeader)
        case .noAnswer(let reason):
            status = nil
            error = String(reason.prefix(500))
        }
        let attempts = delivery.attempts + 1
        let at = now()
        guard let next = policy.retry.nextAttempt(attempts: attempts, since: delivery.pendingSince, now: at, retryAfter: retryAfter, random: random)
        else {
            return .failed(statusCode: status, error: "\(error); gave up after \(attempts) attempts")
        }
        return .retry(at: next, statusCode: status, error: error)
    }

    func refreshStats() async {
        do {
            let stats = try await store.outboxStats()
            pending.record(stats.pending)
            oldestAge.record(stats.oldestPendingSince.map { max(0, now().timeIntervalSince($0)) } ?? 0)
        } catch {
            logger.debug("reading the outbox statistics failed", metadata: ["reason": .string(String(describing: error).prefix(300).description)])
        }
    }
}
