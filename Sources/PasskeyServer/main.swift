// passkeyd: the WebAuthn relying-party service.
//
//   passkeyd           apply pending migrations (under an advisory lock), then serve
//   passkeyd migrate   apply pending migrations and exit
//   passkeyd rotate-session-key
//                      add a new access-token signing key now (sessions on, database keys) and exit
//   passkeyd --version print the version and source revision and exit
//   passkeyd config [--markdown]
//                      print the reference of every variable (docs/configuration.md's tables with --markdown) and exit
//
// Configuration comes from the environment (see docs/configuration.md; declared, parsed and validated by
// PasskeySettings) and wired by PasskeyServerSupport.buildApplication. Logs are JSON Lines on stderr.
import PasskeyApp
import PasskeyBuildInfo
import COSECrypto
import Foundation
import IdentityCore
import LibPQ
import Logging
import Metrics
import NIOCore
import NIOPosix
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStorePostgres
import Prometheus
import ServiceLifecycle
import SessionCore
import UnixSignals
import WebAuthnCore

// `passkeyd --version`: the version and source revision; `passkeyd config [--markdown]`, `passkeyd --help`: the
// configuration reference. Before anything else.
if Array(CommandLine.arguments.dropFirst()) == ["--version"] {
    print(BuildInfo.description)
    exit(0)
}
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

// Traces (OTEL_* variables, docs/operations.md "Traces"): off unless configured; then the global tracer exports over
// OTLP/HTTP and its service (export, flush at shutdown) runs in the service group below.
let traceExport: (any Service)?
do {
    traceExport = try TraceExport.bootstrap(environment: ProcessInfo.processInfo.environment, logger: logger)
} catch {
    FileHandle.standardError.write(Data("passkeyd: configuration error: \(error)\n".utf8))
    exit(2)
}
let tracing = traceExport != nil

// One thread per pooled connection: libpq blocks, so fewer threads than connections would cap the number of
// statements in flight (NIO's shared blocking pool has one thread per core).
let libpqThreads = NIOThreadPool(numberOfThreads: settings.poolSize + (settings.databaseReadURL == nil ? 0 : settings.readPoolSize))
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
    // PASSKEYD_DATABASE_READ_URL: a small read-only pool on the standby for the begins' reads (opened lazily, so an
    // unreachable standby does not stop the start; begins then read the primary).
    let readPool = settings.databaseReadURL.map {
        PGPool(url: $0, size: settings.readPoolSize, threadPool: libpqThreads, configuration: settings.readPoolConfiguration)
    }

    var metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance
    var metricsExporter: (@Sendable () -> [UInt8])?
    if settings.metricsEnabled {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[RequestMetricNames.duration] = RequestMetricNames.durationBuckets
        MetricsSystem.bootstrap(factory)
        let poolMetrics = PoolMetrics(pool: pool, factory: factory)
        let readPoolMetrics = readPool.map { PoolMetrics(pool: $0, factory: factory, prefix: "passkeyd_db_read_pool") }
        metricsFactory = factory
        metricsExporter = {
            poolMetrics.update()
            readPoolMetrics?.update()
            return registry.emitToBuffer()
        }
    }

    let store = PostgresPasskeyStore(
        pool: pool, caps: settings.ceremonyCaps, revokeSessionsOnDelete: settings.sessions?.revokeOnDelete ?? true,
        batchLanes: settings.batchLanes, tracing: tracing)
    var dependencies = ApplicationDependencies(
        logger: logger, metricsFactory: metricsFactory, metricsExporter: metricsExporter,
        ceremonyCount: { try await store.refreshCeremonyCount() },
        forceSessionKeyRotation: arguments.first == "rotate-session-key",
        readReplica: readPool.map { PostgresReadStore(pool: $0, tracing: tracing) })
    dependencies.tracing = tracing
    let passkeyd = try await buildApplication(settings: settings, store: store, dependencies: dependencies)
    if arguments.first == "rotate-session-key" {
        guard let sessions = passkeyd.sessions, case .database = settings.sessions?.keys else {
            FileHandle.standardError.write(Data("passkeyd: rotate-session-key needs PASSKEYD_SESSIONS=on without PASSKEYD_SESSION_KEY_FILES\n".utf8))
            exit(2)
        }
        let ring = try await sessions.keys.current(force: true)
        print(String(decoding: ring.jwks(at: Date()), as: UTF8.self))
        exit(0)
    }
    let rp = settings.relyingParty
    logger.info(
        "passkeyd starting",
        metadata: [
            "version": .string(BuildInfo.version), "revision": .string(BuildInfo.revision),
            "listen": .string("\(settings.host):\(settings.port)"), "rp_id": .string(rp.id),
            "origins": .array(rp.allowedOrigins.sorted().map { .string($0) }),
            "algorithms": .array(rp.algorithms.algorithms.map { .string($0.name) }),
            "attestation": .string(rp.attestation.requirement.configurationName),
            "trust_roots": .array(rp.attestation.trustAnchors.keys.sorted().map { .string($0) }),
            "metadata_entries": .stringConvertible(rp.attestation.metadata?.entries.count ?? 0),
            "api_keys": .stringConvertible(settings.apiKeys.count), "admin_api": .stringConvertible(!settings.adminKeys.isEmpty),
            "metrics": .stringConvertible(settings.metricsEnabled), "pool_size": .stringConvertible(settings.poolSize),
            "read_pool_size": .stringConvertible(passkeyd.ceremonies.replicaReads == nil ? 0 : settings.readPoolSize),
            "fido_conformance": .stringConvertible(settings.fidoConformance),
            "idtoken_providers": .array(settings.identity.providers.map { .string($0.profile.name) }),
            "sessions": .stringConvertible(passkeyd.sessions != nil),
            "appstore": .stringConvertible(passkeyd.appStore != nil),
            "appattest": .stringConvertible(passkeyd.appAttest != nil),
            "webhooks": .stringConvertible(passkeyd.webhooks != nil),
            "tracing": .stringConvertible(tracing),
        ])
    // SIGTERM / SIGINT: the listener closes (new connections are refused), idle keep-alive connections are
    // closed, requests in flight finish and their connections close after the response; past
    // PASSKEYD_SHUTDOWN_TIMEOUT the remaining ones are cancelled. Then the background services stop, the pool
    // closes its connections, and the process exits with 0.
    // The group shuts its services down in reverse order: the HTTP server first, then the background services, then
    // the trace export (listed first: it flushes the spans of the last requests before it stops).
    var lifecycle = ServiceGroupConfiguration(
        services: ([traceExport].compactMap { $0 } + passkeyd.services).map { .init(service: $0) },
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    lifecycle.maximumGracefulShutdownDuration = settings.shutdownTimeout
    lifecycle.maximumCancellationDuration = .seconds(5)
    try await ServiceGroup(configuration: lifecycle).run()
    logger.info("passkeyd stopping: HTTP server and background services stopped; closing the database pool")
    await pool.shutdown()
    await readPool?.shutdown()
    await passkeyd.shutdown()
    try? await libpqThreads.shutdownGracefully()
    logger.info("passkeyd stopped", metadata: ["pool_open_connections": .stringConvertible(pool.stats.open)])
} catch {
    logger.critical("passkeyd stopped", metadata: ["error": .string("\(error)")])
    exit(1)
}
