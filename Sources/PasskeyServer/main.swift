// passkeyd: the WebAuthn relying-party service.
//
//   passkeyd           apply pending migrations (under an advisory lock), then serve
//   passkeyd migrate   apply pending migrations and exit
//   passkeyd rotate-session-key
//                      add a new access-token signing key now (sessions on, database keys) and exit
//   passkeyd config [--markdown]
//                      print the reference of every variable (docs/configuration.md's tables with --markdown) and exit
//
// Configuration comes from the environment (see docs/configuration.md; declared, parsed and validated by
// PasskeySettings). Logs are JSON Lines on stderr.
import PasskeyApp
import AsyncHTTPClient
import COSECrypto
import Foundation
import Hummingbird
import IdentityCore
import LibPQ
import Logging
import Metrics
import NIOCore
import NIOPosix
import PasskeyHTTP
import PasskeyMetadata
import PasskeyServerSupport
import PasskeyStore
import PasskeyStorePostgres
import Prometheus
import ProviderKeys
import ServiceLifecycle
import SessionCore
import UnixSignals
import WebAuthnCore

// `passkeyd config [--markdown]`, `passkeyd --help`: the configuration reference, before anything else.
if let command = ConfigurationCatalog.Command(CommandLine.arguments.dropFirst()) {
    print(command.output, terminator: "")
    exit(command.status)
}

// Swift concurrency's global executor becomes NIO's event loops (the loops Hummingbird serves on): a request's
// handler task then runs on the loop that owns its connection, instead of hopping to the default cooperative pool
// and back for every await. Must be the first thing the process does. Nothing on the global executor may block:
// libpq calls run on `libpqThreads` below.
NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

let arguments = CommandLine.arguments.dropFirst()

// Configuration errors go to stderr as plain text, before logging is set up; they never contain key values.
let settings: Settings
do {
    settings = try Settings.load()
} catch {
    FileHandle.standardError.write(Data("passkeyd: configuration error: \(error)\n".utf8))
    exit(2)
}

let logLevel = settings.logLevel
LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: logLevel) }
let logger = Logger(label: "passkeyd")
for warning in settings.warnings { logger.warning("configuration warning", metadata: ["detail": .string(warning)]) }

// One thread per pooled connection: libpq blocks, so fewer threads than connections would cap the number of
// statements in flight (NIO's shared blocking pool has one thread per core).
let libpqThreads = NIOThreadPool(numberOfThreads: settings.poolSize)
libpqThreads.start()

do {
    // Migrations get their own connection without the serving bounds: a migration (or the wait for another
    // instance's migration lock) may take longer than a request's statement timeout.
    let migrationPool = PGPool(
        url: settings.databaseURL, size: 1, threadPool: libpqThreads,
        configuration: .init(connectTimeout: settings.databaseConnectTimeout))
    let applied: [Migration]
    do {
        applied = try await Migrator(directory: settings.migrations).migrate(using: migrationPool)
    } catch {
        await migrationPool.shutdown()
        throw error
    }
    await migrationPool.shutdown()
    for migration in applied { logger.info("applied migration", metadata: ["migration": .string(migration.description)]) }
    if arguments.first == "migrate" {
        exit(0)
    }
    let pool = PGPool(url: settings.databaseURL, size: settings.poolSize, threadPool: libpqThreads, configuration: settings.poolConfiguration)

    var http = settings.http
    if settings.metricsEnabled {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[RequestMetricNames.duration] = RequestMetricNames.durationBuckets
        MetricsSystem.bootstrap(factory)
        let poolMetrics = PoolMetrics(pool: pool, factory: factory)
        http.metricsFactory = factory
        http.metricsExporter = {
            poolMetrics.update()
            return registry.emitToBuffer()
        }
    } else {
        http.metricsFactory = NOOPMetricsHandler.instance
    }

    let store = PostgresPasskeyStore(
        pool: pool, caps: settings.ceremonyCaps, revokeSessionsOnDelete: settings.sessions?.revokeOnDelete ?? true,
        batchLanes: settings.batchLanes)
    var service = CeremonyService(relyingParty: settings.relyingParty, store: store)
    service.pendingUpgradesPerUser = settings.upgrades.pendingUpgradesPerUser

    // Sessions after sign-in: signing keys from the database (sealed, shared by instances, rotated) or files.
    var sessions: SessionService?
    if let config = settings.sessions {
        let source: SessionKeySource = switch config.keys {
        case .database(let kek, let interval): .database(keyEncryptionKey: kek, rotationInterval: interval)
        case .files(let keys): .files(keys)
        }
        let keys = SessionKeys(source: source, store: store, policy: config.policy, logger: logger)
        var session = SessionService(policy: config.policy, store: store, keys: keys, logger: logger, metricsFactory: MetricsSystem.factory)
        session.issueOnRegistration = config.issueOnRegistration
        session.cookie.name = config.cookieName
        try await keys.rotateIfDue(force: arguments.first == "rotate-session-key")
        sessions = session
    }
    // App Store signed data: verified offline against the configured Apple root, kept in PostgreSQL.
    let appStore = settings.appStore.map { AppStoreService(policy: $0.policy, store: store, metricsFactory: MetricsSystem.factory) }
    // App Attest: present when PASSKEYD_APPATTEST_APP_IDS is set.
    let appAttest = settings.appAttest.map {
        AppAttestService(configuration: $0.configuration, store: store, challengeTimeout: $0.challengeTimeout, metricsFactory: MetricsSystem.factory)
    }
    if arguments.first == "rotate-session-key" {
        guard let sessions, case .database = settings.sessions?.keys else {
            FileHandle.standardError.write(Data("passkeyd: rotate-session-key needs PASSKEYD_SESSIONS=on without PASSKEYD_SESSION_KEY_FILES\n".utf8))
            exit(2)
        }
        let ring = try await sessions.keys.current(force: true)
        print(String(decoding: ring.jwks(at: Date()), as: UTF8.self))
        exit(0)
    }

    // ID-token providers: their keys from a URL (cached, refetch-limited), a file, or discovery. One HTTP client for
    // all of them, created only when one needs the network; redirects are not followed (a JWKS URL is exact).
    var httpClient: HTTPClient?
    var identity: IdentityService?
    var appleCodeExchange: AppleCodeExchange?
    if !settings.identity.providers.isEmpty {
        var keyConfiguration = RemoteKeySource.Configuration()
        keyConfiguration.minRefetchInterval = settings.identity.refetchInterval
        func client() -> HTTPClient {
            if let httpClient { return httpClient }
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.timeout = .init(connect: .seconds(5), read: .seconds(5))
            let created = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            httpClient = created
            return created
        }
        var providers: [IdentityProvider] = []
        for provider in settings.identity.providers {
            let keys: any ProviderKeySource
            switch provider.keys {
            case .url(let url):
                keys = try RemoteKeySource(url: url, httpClient: client(), configuration: keyConfiguration, logger: logger)
            case .file(let path):
                keys = try FileKeySource(path: path, minReloadInterval: settings.identity.refetchInterval, logger: logger)
            case .discovery(let issuer):
                keys = DiscoveryKeySource(
                    discovery: try OIDCDiscovery(issuer: issuer), httpClient: client(), configuration: keyConfiguration, logger: logger)
            }
            providers.append(IdentityProvider(profile: provider.profile, keys: keys))
        }
        // Sign in with Apple's authorization code: redeemed for a refresh token, kept sealed, revoked by the drain below
        // when its user or identity is deleted.
        if let apple = settings.identity.appleCodeExchange {
            let endpoint = try AppleTokenClient(
                tokenURL: apple.tokenURL, revokeURL: apple.revokeURL, httpClient: client(), timeout: 5, logger: logger)
            appleCodeExchange = try AppleCodeExchange(
                clientSecret: try AppleClientSecret(teamID: apple.teamID, keyID: apple.keyID, privateKey: apple.privateKey),
                endpoint: endpoint, tokens: store, keyEncryptionKey: apple.keyEncryptionKey)
        }
        identity = IdentityService(
            providers: providers, ceremonies: store, identities: store, sessionTimeout: settings.identity.sessionTimeout,
            appleCodeExchange: appleCodeExchange)
    }
    // The background work, as services of the same group as the HTTP server (which is listed last, so a graceful
    // shutdown closes it first and then stops these).
    var background: [BackgroundService] = []
    // Purge expired ceremonies (every 60 s, every 5 s near the total cap).
    background.append(CeremonyPurge(
        store: store, total: settings.ceremonyCaps.total, logger: logger, refreshCount: { try await store.refreshCeremonyCount() }
    ).service)
    // Revoke queued provider tokens (deleted users, unlinked identities, replaced tokens) every 30 s.
    if let appleCodeExchange {
        background.append(
            TokenRevocationDrain(exchange: appleCodeExchange, logger: logger, metricsFactory: MetricsSystem.factory).service(every: .seconds(30)))
    }
    // Sessions: key rotation when due, ended sessions and retired keys purged, every 10 minutes.
    if let sessions { background.append(sessions.maintenance(logger: logger)) }
    // App Store notification UUIDs past their retention, every hour.
    if let appStore, let retention = settings.appStore?.notificationRetention {
        background.append(appStore.notificationPurge(retention: retention, logger: logger))
    }
    // Reload the provider names file and the FIDO metadata BLOB when their file is replaced (e.g. by a daily cron
    // download): every 10 minutes the file's modification time is checked; a newer file that parses (a BLOB: that
    // verifies, with a higher serial) replaces what the service uses, one that does not is logged and the previous
    // one stays. Past the metadata's nextUpdate a warning is logged once per check.
    if let providerNames = settings.providerNames {
        service.replaceProviderNames(providerNames.names)
        let ceremonies = service
        background.append(FileReload.service("provider names reload", path: providerNames.path) { changed in
            guard changed else { return }
            do {
                let names = try ProviderNameSettings.read(providerNames.path)
                ceremonies.replaceProviderNames(names)
                logger.info("provider names reloaded", metadata: ["entries": .stringConvertible(names.count)])
            } catch {
                logger.warning(
                    "provider names not reloaded; keeping the previous ones", metadata: ["reason": .string(String(describing: error))])
            }
        })
    }
    if let source = settings.metadataSource {
        let ceremonies = service
        background.append(FileReload.service("metadata BLOB reload", path: source.blobPath) { changed in
            if changed {
                do {
                    let index = try MetadataLoader.load(blobPath: source.blobPath, rootPEMPaths: source.rootPEMPaths)
                    if index.serialNumber > ceremonies.relyingParty.attestation.metadata?.serialNumber ?? Int.min {
                        ceremonies.replaceMetadata(index)
                        logger.info(
                            "metadata BLOB reloaded",
                            metadata: ["serial": .stringConvertible(index.serialNumber), "entries": .stringConvertible(index.entries.count)])
                    }
                } catch {
                    logger.warning(
                        "metadata BLOB not reloaded; keeping the previous one",
                        metadata: ["reason": .string(Settings.metadataFailure(error))])
                }
            }
            if let current = ceremonies.relyingParty.attestation.metadata, current.nextUpdate < Date() {
                logger.warning(
                    "metadata BLOB is past its nextUpdate; download a new one",
                    metadata: ["next_update": .string("\(current.nextUpdate)")])
            }
        })
    }
    let rp = settings.relyingParty
    logger.info(
        "passkeyd starting",
        metadata: [
            "listen": .string("\(settings.host):\(settings.port)"), "rp_id": .string(rp.id),
            "origins": .array(rp.allowedOrigins.sorted().map { .string($0) }),
            "algorithms": .array(rp.algorithms.algorithms.map { .string($0.name) }),
            "attestation": .string(rp.attestation.requirement.configurationName),
            "trust_roots": .array(rp.attestation.trustAnchors.keys.sorted().map { .string($0) }),
            "metadata_entries": .stringConvertible(rp.attestation.metadata?.entries.count ?? 0),
            "api_keys": .stringConvertible(settings.apiKeys.count), "admin_api": .stringConvertible(!settings.adminKeys.isEmpty),
            "metrics": .stringConvertible(settings.metricsEnabled), "pool_size": .stringConvertible(settings.poolSize),
            "fido_conformance": .stringConvertible(settings.fidoConformance),
            "idtoken_providers": .array(settings.identity.providers.map { .string($0.profile.name) }),
            "sessions": .stringConvertible(sessions != nil),
            "appstore": .stringConvertible(appStore != nil),
            "appattest": .stringConvertible(appAttest != nil),
        ])
    let app = Application(
        router: buildRouter(
            service: service, identity: identity, sessions: sessions, appStore: appStore, appAttest: appAttest, configuration: http),
        server: settings.httpServerLimits.server,
        configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "passkeyd"),
        logger: logger)
    // SIGTERM / SIGINT: the listener closes (new connections are refused), idle keep-alive connections are
    // closed, requests in flight finish and their connections close after the response; past
    // PASSKEYD_SHUTDOWN_TIMEOUT the remaining ones are cancelled. Then the background services stop, the pool
    // closes its connections, and the process exits with 0.
    // The group shuts its services down in reverse order: the HTTP server first, then the background services.
    var lifecycle = ServiceGroupConfiguration(
        services: background.map { .init(service: $0) } + [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    lifecycle.maximumGracefulShutdownDuration = settings.shutdownTimeout
    lifecycle.maximumCancellationDuration = .seconds(5)
    try await ServiceGroup(configuration: lifecycle).run()
    logger.info("passkeyd stopping: HTTP server and background services stopped; closing the database pool")
    await pool.shutdown()
    try? await httpClient?.shutdown()
    try? await libpqThreads.shutdownGracefully()
    logger.info("passkeyd stopped", metadata: ["pool_open_connections": .stringConvertible(pool.stats.open)])
} catch {
    logger.critical("passkeyd stopped", metadata: ["error": .string("\(error)")])
    exit(1)
}
