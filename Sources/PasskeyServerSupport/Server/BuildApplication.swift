import AsyncHTTPClient
public import Foundation
public import Hummingbird
public import IdentityCore
public import Logging
public import Metrics
public import PasskeyApp
import PasskeyBuildInfo
public import PasskeyHTTP
public import PasskeyStore
public import SealedState
public import ServiceLifecycle
public import WebAuthnCore

/// Every store protocol one passkeyd instance uses; `PostgresPasskeyStore` (the executable's) and
/// `InMemoryPasskeyStore` (the tests') are both one.
public typealias ApplicationStore = PasskeyStore & IdentityStore & ProviderTokenStore & SessionStore & AppStoreStore & AppAttestStore & EventStore
    & CeremonyKeyStore

/// What ``buildApplication(settings:store:dependencies:)`` does not derive from ``Settings``: the process-wide
/// parts the executable chooses (logger, metrics) and the ones a test replaces (clock, randomness, identity
/// providers' keys).
public struct ApplicationDependencies: Sendable {
    public var logger: Logger
    /// Where every counter and timer goes. The executable passes its Prometheus factory when metrics are on.
    public var metricsFactory: any MetricsFactory
    /// The text served at `GET /metrics`; nil = no `/metrics` route. Only used when `settings.metricsEnabled`.
    public var metricsExporter: (@Sendable () -> [UInt8])?
    /// The clock every use case reads (and the identity providers' key caches).
    public var now: @Sendable () -> Date
    /// The randomness of ceremony challenges.
    public var challengeSource: any ChallengeSource
    /// The signing keys of an ID-token provider; nil = from its settings (a URL, a file or discovery, fetched with
    /// one shared HTTP client).
    public var providerKeys: (@Sendable (IdentitySettings.Provider) throws -> any ProviderKeySource)?
    /// The pending-ceremony count the purge reads to speed up near `PASSKEYD_PENDING_MAX`
    /// (`PostgresPasskeyStore.refreshCeremonyCount`); nil = the purge runs on its 60-second schedule only.
    public var ceremonyCount: (@Sendable () async throws -> Int)?
    /// `passkeyd rotate-session-key`: add a signing key at start even when none is due.
    public var forceSessionKeyRotation: Bool
    /// Where stateless begins read the user they name (`PASSKEYD_DATABASE_READ_URL`: the executable's
    /// `PostgresReadStore` on a hot standby); nil = the store. Unused when ceremonies are kept in the table.
    public var readReplica: (any PasskeyReadStore)?
    /// Tests only: a fixed ceremony key ring (stateless ceremonies without ceremony keys from settings); nil takes
    /// the keys the settings configure, if any.
    public var ceremonyKeyRing: CeremonyKeyRing?
    /// Tests only: false keeps ceremonies on the pending-ceremony table even when the settings configure ceremony keys
    /// (a key-encryption key or key files), for tests of what only the table has (its caps).
    public var ceremonyKeysFromSettings: Bool
    /// Tests only: where webhook deliveries go; nil = HTTPS with the settings' URL policy.
    public var webhookTransport: (any WebhookTransport)?
    /// A span per request, per store call and per WebAuthn verification through the bootstrapped tracer: the
    /// executable sets it when ``TraceExport`` is on (the store's spans are the store's own setting). Off: none built.
    public var tracing = false

    public init(
        logger: Logger = Logger(label: "passkeyd"), metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance,
        metricsExporter: (@Sendable () -> [UInt8])? = nil, now: @escaping @Sendable () -> Date = { Date() },
        challengeSource: any ChallengeSource = SystemChallengeSource(),
        providerKeys: (@Sendable (IdentitySettings.Provider) throws -> any ProviderKeySource)? = nil,
        ceremonyCount: (@Sendable () async throws -> Int)? = nil, forceSessionKeyRotation: Bool = false,
        ceremonyKeyRing: CeremonyKeyRing? = nil, ceremonyKeysFromSettings: Bool = true, readReplica: (any PasskeyReadStore)? = nil,
        webhookTransport: (any WebhookTransport)? = nil
    ) {
        self.webhookTransport = webhookTransport
        self.readReplica = readReplica
        self.ceremonyKeyRing = ceremonyKeyRing
        self.ceremonyKeysFromSettings = ceremonyKeysFromSettings
        self.logger = logger
        self.metricsFactory = metricsFactory
        self.metricsExporter = metricsExporter
        self.now = now
        self.challengeSource = challengeSource
        self.providerKeys = providerKeys
        self.ceremonyCount = ceremonyCount
        self.forceSessionKeyRotation = forceSessionKeyRotation
    }
}

/// One passkeyd instance: its use cases, its HTTP application and its background services, wired from settings.
public struct PasskeydApplication: Sendable {
    public let ceremonies: CeremonyService
    public let identity: IdentityService?
    public let sessions: SessionService?
    public let appStore: AppStoreService?
    public let appAttest: AppAttestService?
    /// The keys of stateless ceremonies; nil when ceremonies are kept in the pending-ceremony table.
    public let ceremonyKeys: CeremonyKeys?
    /// Every route ``http`` serves, as `METHOD /path` (`GET /v1/admin/users/{userId}`): what the router registered for
    /// these settings.
    public let routes: [String]
    /// The HTTP server (listening on the settings' address with their connection limits once run).
    public let http: Application<RouterResponder<PasskeyRequestContext>>
    /// The background work (purges, key rotation, the revocation drain, file reloads), each a `Service` to run in
    /// the same `ServiceGroup` as ``http`` (listed before it, so a graceful shutdown stops the server first).
    public let background: [BackgroundService]
    /// Webhook delivery (`PASSKEYD_WEBHOOKS_FILE`); nil when no endpoint is configured.
    public let webhooks: WebhookDispatcher?
    let httpClient: HTTPClient?
    let webhookClient: HTTPClient?

    /// The services in the order a `ServiceGroup` should run them: background first, the HTTP server last.
    public var services: [any Service] {
        background.map { $0 as any Service } + (webhooks.map { [$0 as any Service] } ?? []) + [http]
    }

    /// Closes what the application opened itself (the identity providers' and the webhooks' HTTP clients). The store
    /// is the caller's.
    public func shutdown() async {
        try? await httpClient?.shutdown()
        try? await webhookClient?.shutdown()
    }
}

/// Builds one passkeyd instance from its settings on `store`: the use cases of every configured domain, the router,
/// the HTTP server and the background services. The executable and the tests call this one function; only the
/// store, the database pool and the metrics backend are chosen outside it.
public func buildApplication(
    settings: Settings, store: some ApplicationStore, dependencies: ApplicationDependencies = .init()
) async throws -> PasskeydApplication {
    let logger = dependencies.logger
    let now = dependencies.now
    let factory = dependencies.metricsFactory
    // What this process is: a gauge of 1 whose labels are the version and the source revision.
    Gauge(
        label: "passkeyd_build_info", dimensions: [("version", BuildInfo.version), ("revision", BuildInfo.revision)],
        factory: factory
    ).record(1)

    var ceremonies = CeremonyService(
        relyingParty: settings.relyingParty, store: store, challengeSource: dependencies.challengeSource, now: now)
    ceremonies.pendingUpgradesPerUser = settings.upgrades.pendingUpgradesPerUser
    if let providerNames = settings.providerNames { ceremonies.replaceProviderNames(providerNames.names) }
    // Stateless ceremonies: each begin seals its state into the challenge under the ceremony keys, which every instance
    // shares (in the database, sealed under the key-encryption key, or from files). Loaded here: a start whose keys
    // cannot be loaded fails. Without keys (keyRing nil), the pending-ceremony table. A test's fixed ring replaces them.
    ceremonies.clockSkew = settings.clockSkew
    ceremonies.tracing = dependencies.tracing
    var ceremonyKeys: CeremonyKeys?
    if let ring = dependencies.ceremonyKeyRing {
        ceremonies.keyRing = { ring }
        logger.info("ceremonies are stateless under a fixed ceremony key ring (tests)", metadata: ["ceremonies": "stateless"])
    } else if dependencies.ceremonyKeysFromSettings {
        ceremonyKeys = try await CeremonyKeyAssembly.build(settings: settings, store: store, logger: logger, now: now)
        if let ceremonyKeys {
            ceremonies.keyRing = { ceremonyKeys.ring() }
            ceremonies.sealingKeyRing = { await ceremonyKeys.sealingRing() }
            ceremonies.reloadKeyRing = { await ceremonyKeys.reloadForUnknownKey() }
        }
    }

    // A read replica (PASSKEYD_DATABASE_READ_URL) serves the reads of stateless begins, which write nothing; begins on
    // the ceremony table write, so without ceremony keys it is not used.
    if let replica = dependencies.readReplica {
        if ceremonies.keyRing != nil {
            ceremonies.replicaReads = ReplicaReads(replica: replica, logger: logger, metricsFactory: factory)
            logger.info("begins read the user they name from the read replica", metadata: ["read_replica": "on"])
        } else {
            logger.warning(
                "the read replica is not used: without ceremony keys begins write their ceremony, so they read and write the primary",
                metadata: ["read_replica": "off"])
        }
    }

    // Sessions after sign-in: signing keys from the database (sealed, shared by instances, rotated) or files.
    var sessions: SessionService?
    if let config = settings.sessions {
        let source: SessionKeySource = switch config.keys {
        case .database(let kek, let interval): .database(keyEncryptionKey: kek, rotationInterval: interval)
        case .files(let keys): .files(keys)
        }
        let keys = SessionKeys(source: source, store: store, policy: config.policy, logger: logger, now: now)
        var session = SessionService(policy: config.policy, store: store, keys: keys, logger: logger, metricsFactory: factory, now: now)
        session.issueOnRegistration = config.issueOnRegistration
        session.cookie.name = config.cookieName
        try await keys.rotateIfDue(force: dependencies.forceSessionKeyRotation)
        sessions = session
    }
    // App Store signed data: verified offline against the configured Apple root.
    let appStore = settings.appStore.map { AppStoreService(policy: $0.policy, store: store, metricsFactory: factory, now: now) }
    // App Attest: present when PASSKEYD_APPATTEST_APP_IDS is set.
    var appAttest = settings.appAttest.map {
        AppAttestService(configuration: $0.configuration, store: store, challengeTimeout: $0.challengeTimeout, metricsFactory: factory, now: now)
    }
    // ID-token providers and Sign in with Apple's code exchange.
    var identity = try IdentityAssembly(settings: settings.identity, store: store, dependencies: dependencies)
    // Stateless ID-token sessions and App Attest challenges under the passkey ceremonies' keys and skew (issue 29).
    // Whatever gave the passkey ceremonies their ring (the ceremony keys, or a test's fixed ring) gives it here too.
    identity.service?.keyRing = ceremonies.keyRing
    appAttest?.keyRing = ceremonies.keyRing
    identity.service?.sealingKeyRing = ceremonies.sealingKeyRing
    appAttest?.sealingKeyRing = ceremonies.sealingKeyRing
    identity.service?.clockSkew = ceremonies.clockSkew
    appAttest?.clockSkew = ceremonies.clockSkew

    var http = settings.http
    http.metricsFactory = factory
    http.tracing = dependencies.tracing
    http.metricsExporter = settings.metricsEnabled ? dependencies.metricsExporter : nil
    let router = buildRouter(
        service: ceremonies, identity: identity.service, sessions: sessions, appStore: appStore, appAttest: appAttest,
        webhooks: WebhookAdministration(store: store), configuration: http)
    let application = Application(
        router: router, server: settings.httpServerLimits.server,
        configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "passkeyd"),
        logger: logger)

    // The background work, each on its own schedule.
    var background: [BackgroundService] = []
    // Expired ceremonies: every 60 s, every 5 s near the total cap.
    background.append(CeremonyPurge(
        store: store, total: settings.ceremonyCaps.total, logger: logger, refreshCount: dependencies.ceremonyCount ?? { 0 }
    ).service)
    // Ceremony keys in the database: reread (and the next one added when due) every 60 s, retired ones deleted.
    if let maintenance = ceremonyKeys?.maintenance() { background.append(maintenance) }
    // Queued provider tokens (deleted users, unlinked identities, replaced tokens) revoked every 30 s.
    if let exchange = identity.appleCodeExchange {
        background.append(TokenRevocationDrain(exchange: exchange, logger: logger, metricsFactory: factory).service(every: .seconds(30)))
    }
    // Sessions: key rotation when due, ended sessions and retired keys purged, every 10 minutes.
    if let sessions { background.append(sessions.maintenance(logger: logger)) }
    // App Store notification UUIDs past their retention, every hour.
    if let appStore, let retention = settings.appStore?.notificationRetention {
        background.append(appStore.notificationPurge(retention: retention, logger: logger))
    }
    // The provider names file and the FIDO metadata BLOB, reread when replaced.
    if let providerNames = settings.providerNames {
        background.append(PasskeyFileReloads.providerNames(providerNames, into: ceremonies, logger: logger))
    }
    if let source = settings.metadataSource {
        background.append(PasskeyFileReloads.metadata(source, into: ceremonies, logger: logger, now: now))
    }

    // Webhook delivery: the store's endpoints synchronised with the settings, and the dispatcher when there are any.
    let webhooks = try await WebhookAssembly(settings: settings.webhooks, store: store, dependencies: dependencies)

    return PasskeydApplication(
        ceremonies: ceremonies, identity: identity.service, sessions: sessions, appStore: appStore, appAttest: appAttest,
        ceremonyKeys: ceremonyKeys, routes: router.routes.map { "\($0.method.rawValue) \($0.path)" }, http: application, background: background,
        webhooks: webhooks.dispatcher, httpClient: identity.httpClient, webhookClient: webhooks.httpClient)
}
