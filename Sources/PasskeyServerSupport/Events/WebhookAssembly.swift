import AsyncHTTPClient
import Logging
import Metrics
import PasskeyApp
import PasskeyBuildInfo
import PasskeyStore

/// Webhook delivery from ``WebhookSettings``: the store's endpoints made to match the settings (when endpoints are
/// configured, by the dispatcher before its first lease; when none are, here at start, so removed ones stop
/// collecting deliveries), and, when endpoints are configured, the dispatcher with its own HTTP client.
struct WebhookAssembly {
    var dispatcher: WebhookDispatcher?
    var httpClient: HTTPClient?

    init(settings: WebhookSettings?, store: some ApplicationStore, dependencies: ApplicationDependencies) async throws {
        let logger = dependencies.logger
        let events: any EventStore = store
        guard let settings else {
            // No endpoint configured: the store's are marked removed so they stop collecting deliveries. A database
            // that is down at start must not stop the start (every other part waits for it too): logged, done at the
            // next start.
            do {
                try await events.syncWebhookEndpoints([])
            } catch {
                logger.warning(
                    "marking the webhook endpoints removed failed; endpoints no longer configured keep collecting deliveries until the next start",
                    metadata: ["reason": .string(String(describing: error).prefix(300).description)])
            }
            return
        }
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
            userAgent: "passkeyd/\(BuildInfo.version)", logger: logger, metricsFactory: dependencies.metricsFactory, now: dependencies.now,
            syncFirst: settings.storeEndpoints)
        logger.info(
            "webhook delivery on",
            metadata: ["endpoints": .array(settings.endpoints.map { .string($0.id) }), "owner": .string(dispatcher?.owner ?? "")])
    }
}
