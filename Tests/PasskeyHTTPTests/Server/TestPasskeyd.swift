import Foundation
import IdentityCore
import Logging
import Metrics
import PasskeyServerSupport
import PostgresTestSupport

/// The tests' passkeyd instances: built by ``buildApplication(settings:store:dependencies:)``, the executable's own
/// wiring, from settings read the way the service reads its environment.
enum TestPasskeyd {
    /// What every test instance starts from: the relying party `Flow` and `Harness` use, the repository's
    /// migrations, and a database URL that is never opened (the store is the test's).
    static let baseEnvironment: [String: String] = [
        "PASSKEYD_DATABASE_URL": "postgresql://unused.invalid/passkeyd",
        "PASSKEYD_MIGRATIONS": TestDatabase.migrations.path,
        "PASSKEYD_RP_ID": "http.passkeyd.test",
        "PASSKEYD_RP_NAME": "passkeyd",
        "PASSKEYD_ORIGINS": "https://http.passkeyd.test",
    ]

    /// `environment` over ``baseEnvironment``, parsed and validated by `Settings` (a configuration error fails the
    /// test that asked for it).
    static func settings(_ environment: [String: String] = [:]) throws -> Settings {
        try Settings(baseEnvironment.merging(environment) { _, new in new })
    }

    /// A logger that keeps quiet unless a test wants the lines.
    static var quietLogger: Logger {
        var logger = Logger(label: "passkeyd-test")
        logger.logLevel = .critical
        return logger
    }

    /// An instance on `store` with `settings` (``settings(_:)``, changed as the test needs).
    static func build(
        _ settings: Settings, store: some ApplicationStore, now: @escaping @Sendable () -> Date = { Date() },
        metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance, metricsExporter: (@Sendable () -> [UInt8])? = nil,
        providerKeys: (@Sendable (IdentitySettings.Provider) throws -> any ProviderKeySource)? = nil,
        logger: Logger = TestPasskeyd.quietLogger
    ) async throws -> PasskeydApplication {
        try await buildApplication(
            settings: settings, store: store,
            dependencies: ApplicationDependencies(
                logger: logger, metricsFactory: metricsFactory, metricsExporter: metricsExporter, now: now, providerKeys: providerKeys))
    }
}
