import AsyncHTTPClient
import Logging
import Metrics
import PasskeyApp
import PasskeyBuildInfo
import PasskeyStore

/// Webhook delivery from ``WebhookSettings``: the store's endpoints made to match the settings at start (also when
/// none are configured, so removed ones stop collecting deliveries), and, when endpoints are configured, the
/// dispatcher with its own HTTP client.
struct WebhookAssembly {
    var dispatcher: WebhookDispatcher?
    var httpClient: HTTPClient?

    init(settings: WebhookSettings?, store: some ApplicationStore, dependencies: ApplicationDependencies) async throws {
        let logger = dependencies.logger
        // The outbox is an EventStore; a store without one (none before the outbox lands) cannot deliver.
        guard let events = store as Any as? any EventStore else {
            if settings != nil { throw WebhookAssemblyError(description: "PASSKEYD_WEBHOOKS_FILE: this store keeps no outbox of events") }
            return
        }
        try await events.syncWebhookEndpoints(settings?.storeEndpoints ?? [])
        guard let settings else { return }
        let transport: any WebhookTransport
        if let override = dependencies.webhookTransport {
            transport = override
        } else {
            let client = WebhookHTTPTransport.makeClient()
            httpClient = client
            transport = WebhookHTTPTransport(client: client, policy: settings.urlPolicy, logger: logger)
        }
        dispatcher = WebhookDispatcher(
            store: events, transport: transport, endpoints: settings.endpoints, policy: settings.policy,
            userAgent: "passkeyd/\(BuildInfo.version)", logger: logger, metricsFactory: dependencies.metricsFactory, now: dependencies.now)
        logger.info(
            "webhook delivery on",
            metadata: ["endpoints": .array(settings.endpoints.map { .string($0.id) }), "owner": .string(dispatcher?.owner ?? "")])
    }
}

struct WebhookAssemblyError: Error, CustomStringConvertible {
    let description: String
}
