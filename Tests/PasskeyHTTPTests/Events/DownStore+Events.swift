import Foundation
import PasskeyStore

/// The outbox of a store that is down (ObservabilityTests.swift) fails too.
extension DownStore: EventStore {
    func syncWebhookEndpoints(_ endpoints: [WebhookEndpointConfig]) async throws(StoreError) { throw error }
    func webhookEndpoints() async throws(StoreError) -> [WebhookEndpointState] { throw error }
    func setWebhookEndpointPaused(id: String, paused: Bool) async throws(StoreError) -> Bool { throw error }
    func leaseWebhookDeliveries(owner: String, limit: Int, leaseSeconds: Int) async throws(StoreError) -> [WebhookDelivery] { throw error }
    func recordAttempt(delivery id: Int64, owner: String, outcome: WebhookAttemptOutcome) async throws(StoreError) -> Bool { throw error }
    func webhookDeliveries(_ query: WebhookDeliveryQuery) async throws(StoreError) -> [WebhookDelivery] { throw error }
    func redeliver(delivery id: Int64) async throws(StoreError) -> Bool { throw error }
    func outboxStats() async throws(StoreError) -> OutboxStats { throw error }
}
