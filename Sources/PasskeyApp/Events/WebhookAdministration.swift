public import PasskeyStore

/// The admin API's use cases for the webhooks' outbox: the endpoints as the store knows them, an endpoint's
/// deliveries (paged), redelivering one, pausing and resuming an endpoint. What does not exist is an ``AdminError``.
public struct WebhookAdministration: Sendable {
    let store: any EventStore

    public init(store: any EventStore) {
        self.store = store
    }

    /// Every endpoint, removed ones too, by id.
    public func endpoints() async throws -> [WebhookEndpointState] {
        try await store.webhookEndpoints()
    }

    /// A page of an endpoint's deliveries in id order, and whether more follow.
    /// - Throws: ``AdminError/Code/webhookEndpointUnknown``.
    public func deliveries(_ query: WebhookDeliveryQuery) async throws -> (page: [WebhookDelivery], more: Bool) {
        guard try await store.webhookEndpoints().contains(where: { $0.id == query.endpointID }) else {
            throw AdminError(.webhookEndpointUnknown, "no webhook endpoint has this id")
        }
        var query = query
        let limit = query.limit
        query.limit += 1
        let deliveries = try await store.webhookDeliveries(query)
        return (Array(deliveries.prefix(limit)), deliveries.count > limit)
    }

    /// Makes a delivery pending and due now (attempts are kept).
    /// - Throws: ``AdminError/Code/webhookDeliveryUnknown``.
    public func redeliver(_ id: Int64) async throws {
        guard try await store.redeliver(delivery: id) else { throw AdminError(.webhookDeliveryUnknown, "no delivery has this id") }
    }

    /// Pauses (deliveries wait) or resumes an endpoint.
    /// - Throws: ``AdminError/Code/webhookEndpointUnknown`` (also for an endpoint removed from the settings).
    public func setPaused(_ id: String, _ paused: Bool) async throws {
        guard try await store.setWebhookEndpointPaused(id: id, paused: paused) else {
            throw AdminError(.webhookEndpointUnknown, "no webhook endpoint in the settings has this id")
        }
    }
}
