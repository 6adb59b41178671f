import COSECrypto
import Foundation
import IdentityCore
import Logging
import Metrics
import PasskeyServerSupport
import PasskeyStore
import PostgresTestSupport
import SealedState

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

    /// No request rate limits and no pending-ceremony caps: what the in-process harnesses ran with while they wired
    /// their instances by hand (`HTTPConfiguration`'s and the stores' defaults); tests of those bounds set their own.
    static let unbounded: [String: String] = [
        "PASSKEYD_RATE_LIMIT_USER": "off", "PASSKEYD_RATE_LIMIT_ADMIN": "off", "PASSKEYD_RATE_LIMIT_METRICS": "off",
        "PASSKEYD_PENDING_PER_USER": "0", "PASSKEYD_PENDING_MAX": "0",
    ]

    /// ``settings(_:)`` over ``unbounded``.
    static func unboundedSettings(_ environment: [String: String] = [:]) throws -> Settings {
        try settings(unbounded.merging(environment) { _, new in new })
    }

    /// A logger that keeps quiet unless a test wants the lines.
    static var quietLogger: Logger {
        var logger = Logger(label: "passkeyd-test")
        logger.logLevel = .critical
        return logger
    }

    /// An in-memory store bounded as the executable bounds its PostgreSQL one: the settings' pending-ceremony caps
    /// (`PASSKEYD_PENDING_*`) and whether deletions revoke sessions (`PASSKEYD_SESSION_REVOKE_ON_DELETE`).
    static func store(for settings: Settings, now: @escaping @Sendable () -> Date = { Date() }) -> InMemoryPasskeyStore {
        InMemoryPasskeyStore(caps: settings.ceremonyCaps, revokeSessionsOnDelete: settings.sessions?.revokeOnDelete ?? true, now: now)
    }

    /// An instance on `store` with `settings` (``settings(_:)``, changed as the test needs).
    static func build(
        _ settings: Settings, store: some ApplicationStore, now: @escaping @Sendable () -> Date = { Date() },
        metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance, metricsExporter: (@Sendable () -> [UInt8])? = nil,
        providerKeys: (@Sendable (IdentitySettings.Provider) throws -> any ProviderKeySource)? = nil,
        ceremonyCount: (@Sendable () async throws -> Int)? = nil, logger: Logger = TestPasskeyd.quietLogger,
        ceremonyKeyRing: CeremonyKeyRing? = TestPasskeyd.defaultCeremonyKeyRing
    ) async throws -> PasskeydApplication {
        try await buildApplication(
            settings: settings, store: store,
            dependencies: ApplicationDependencies(
                logger: logger, metricsFactory: metricsFactory, metricsExporter: metricsExporter, now: now, providerKeys: providerKeys,
                ceremonyCount: ceremonyCount, ceremonyKeyRing: ceremonyKeyRing, ceremonyKeysFromSettings: !ceremonyTable))
    }

    /// A ring of one ceremony key, valid from 2000 to 2100 (stateless ceremonies in tests whatever their clock).
    static let ceremonyKeyRing = CeremonyKeyRing(keys: [
        try! CeremonyKey(
            id: 0x7e57, secret: Array(repeating: 0x5e, count: 32), activatesAt: Date(timeIntervalSince1970: 946_684_800),
            retiresAt: Date(timeIntervalSince1970: 4_102_444_800))
    ])

    /// The ring instances get unless a test chooses: ``ceremonyKeyRing`` with `PASSKEYD_TEST_SEALED_CHALLENGES=1`
    /// (stateless ceremonies), none otherwise (the pending-ceremony table).
    static var defaultCeremonyKeyRing: CeremonyKeyRing? { sealed ? ceremonyKeyRing : nil }

    /// Whether instances run stateless ceremonies by default (tests whose expectations differ by mode ask this).
    static var sealed: Bool { sealedByEnvironment && !ceremonyTable }
    private static let sealedByEnvironment = ProcessInfo.processInfo.environment["PASSKEYD_TEST_SEALED_CHALLENGES"] == "1"

    /// Set (`TestPasskeyd.$ceremonyTable.withValue(true) { … }`) around a test of what only the pending-ceremony
    /// table has (its caps): instances built inside get no ceremony keys.
    @TaskLocal static var ceremonyTable = false
}

/// Files the settings of a test instance name (trust roots, keys, a metadata BLOB): written under the temporary
/// directory, each under a fresh name.
enum TestFiles {
    /// A new file holding `bytes`; its path.
    static func write(_ bytes: [UInt8], name: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-test-\(UUID().uuidString)-\(name)")
        try Data(bytes).write(to: url)
        return url.path
    }

    /// A new file holding `text`; its path.
    static func write(_ text: String, name: String) throws -> String { try write(Array(text.utf8), name: name) }

    /// `certificates` as a PEM file; its path.
    static func pem(_ certificates: [Certificate], name: String = "roots.pem") throws -> String {
        try write(certificates.map(pem).joined(), name: name)
    }

    /// `key` as a PEM PKCS#8 file (an Apple `.p8`, a session signing key); its path.
    static func pem(_ key: PrivateKey, name: String = "key.pem") throws -> String {
        try write(
            "-----BEGIN PRIVATE KEY-----\n" + Data(key.pkcs8DER()).base64EncodedString(options: [.lineLength64Characters])
                + "\n-----END PRIVATE KEY-----\n",
            name: name)
    }

    /// A key-encryption key file (`PASSKEYD_KEY_ENCRYPTION_KEY_FILE`: 32 bytes in base64) holding `key`; its path.
    static func keyEncryptionKey(_ key: [UInt8] = SecureRandom.bytes(count: 32)) throws -> String {
        try write(Data(key).base64EncodedString() + "\n", name: "kek")
    }

    /// One certificate's PEM block.
    static func pem(_ certificate: Certificate) -> String {
        let base64 = Data(certificate.derEncoded).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }
}
