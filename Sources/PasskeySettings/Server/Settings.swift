public import Foundation
public import LibPQ
public import Logging
import PasskeyMetadata
public import PasskeyStore
public import WebAuthnCore

/// Everything `passkeyd` reads from its environment, parsed and validated at start.
///
/// Every variable is optional except `PASSKEYD_DATABASE_URL`; each is declared once in ``ConfigurationCatalog`` (the
/// reference: `passkeyd config`, docs/configuration.md) and read through its declaration. Values of key variables and
/// of the database URL never appear in errors or warnings. The parts are read in the domains' files (Passkeys/,
/// Identity/, Sessions/, AppStore/, AppAttest/, SelfService/; limits in LimitSettings.swift); the HTTP layer's view of
/// them is PasskeyServerSupport's `Settings.http`.
public struct Settings: Sendable {
    public var host: String
    public var port: Int
    /// libpq connection string (may contain a password: never log it).
    public var databaseURL: String
    public var poolSize: Int
    /// `PASSKEYD_DATABASE_READ_URL`: a hot standby that stateless begins read from (may contain a password: never log
    /// it); nil: begins read the primary.
    public var databaseReadURL: String?
    /// `PASSKEYD_DATABASE_READ_POOL_SIZE`: connections to the standby.
    public var readPoolSize: Int
    /// `PASSKEYD_DB_BATCH_LANES`: concurrent authentication finishes run in batches on at most this many pooled
    /// connections at a time (one read and one write statement per batch), and uncapped begins' inserts and verified
    /// registrations of sealed challenges (one statement per batch) and stateless begins' user reads (one statement
    /// per batch) on as many more each; 0 = each on its own
    /// connection lease. Default: one per two cores, at most half the pool.
    public var batchLanes: Int
    /// `PASSKEYD_DB_GENERIC_PLANS`: `plan_cache_mode = force_generic_plan` on every connection (off by default: a
    /// generic plan made while a table was nearly empty can stay a sequential scan until the next ANALYZE).
    public var databaseGenericPlans: Bool
    /// `PASSKEYD_DB_CONNECT_TIMEOUT`: libpq `connect_timeout` in seconds (per host), unless the URL sets one.
    public var databaseConnectTimeout: Int
    /// `PASSKEYD_DB_STATEMENT_TIMEOUT`: `statement_timeout` set on every pooled connection; `nil` (0) = leave
    /// the server's setting.
    public var databaseStatementTimeout: Duration?
    /// `PASSKEYD_DB_POOL_TIMEOUT`: longest a request waits for a free pooled connection.
    public var databasePoolTimeout: Duration
    /// `PASSKEYD_SHUTDOWN_TIMEOUT`: after SIGTERM/SIGINT, how long in-flight requests may take before they are
    /// cancelled.
    public var shutdownTimeout: Duration
    public var migrations: URL
    public var relyingParty: RelyingParty
    /// Bearer keys for the ceremony endpoints; empty = open.
    public var apiKeys: [String]
    /// Bearer keys for the admin API; empty = admin API disabled.
    public var adminKeys: [String]
    public var logLevel: Logger.Level
    /// Serve `/metrics` and record metrics.
    public var metricsEnabled: Bool
    /// Where the FIDO metadata BLOB and its root come from (`PASSKEYD_MDS_BLOB`, `PASSKEYD_MDS_ROOT`), when
    /// configured; the loaded index is already in `relyingParty.attestation.metadata`. The executable reloads it.
    public var metadataSource: MetadataSource?

    /// The files behind the metadata index.
    public struct MetadataSource: Sendable, Hashable {
        public var blobPath: String
        public var rootPEMPaths: [String]

        public init(blobPath: String, rootPEMPaths: [String]) {
            self.blobPath = blobPath
            self.rootPEMPaths = rootPEMPaths
        }
    }
    /// Serve the FIDO conformance transport binding (`PASSKEYD_FIDO_CONFORMANCE=on`); off by default.
    public var fidoConformance: Bool
    /// Serve the demo page under `/demo` (`PASSKEYD_DEMO`, off by default).
    public var demoPage: Bool
    /// Things that are allowed but probably wrong (unknown variables, short keys, ...), for the start-up log.
    public var warnings: [String]
    /// Connection limits of the HTTP server (`PASSKEYD_HTTP_*`).
    public var serverLimits: ServerLimitSettings
    /// Request rate limits (`PASSKEYD_RATE_LIMIT_*`, `PASSKEYD_CLIENT_ADDRESS_HEADER`, `PASSKEYD_TRUSTED_PROXY_HOPS`).
    public var rateLimits: RateLimitSettings
    /// Bounds on pending ceremonies (`PASSKEYD_PENDING_PER_USER`, `PASSKEYD_PENDING_MAX`).
    public var ceremonyCaps: CeremonyCaps
    /// The keys of stateless ceremonies (`PASSKEYD_CEREMONY_KEY_*`, or the key-encryption key; CeremonyKeySettings.swift);
    /// nil: ceremonies are kept in the pending-ceremony table.
    public var ceremonyKeys: CeremonyKeySettings?
    /// `PASSKEYD_CLOCK_SKEW`: how far instances' clocks may disagree.
    public var clockSkew: TimeInterval
    /// ID-token sign-in providers (`PASSKEYD_IDTOKEN_*`; IdentitySettings.swift).
    public var identity: IdentitySettings
    /// Sessions after sign-in (`PASSKEYD_SESSION*`; SessionSettings.swift); nil when off.
    public var sessions: SessionSettings?
    /// App Store signed data (`PASSKEYD_APPSTORE_*`; AppStoreSettings.swift); nil when off.
    public var appStore: AppStoreSettings?
    /// App Attest (`PASSKEYD_APPATTEST_*`; AppAttestSettings.swift); nil when off.
    public var appAttest: AppAttestSettings?
    /// Native apps and related origins (`PASSKEYD_APPLE_APP_IDS`, `PASSKEYD_ANDROID_APPS`, `PASSKEYD_RELATED_ORIGINS`;
    /// AssociationSettings.swift): the `/.well-known/` documents, and the Android apps' origins.
    public var association: AssociationSettings
    /// Provider names by AAGUID (`PASSKEYD_PROVIDER_NAMES_FILE`; ProviderNameSettings.swift); nil when unset.
    public var providerNames: ProviderNameSettings?
    /// Automatic upgrades, the self-service API, extension limits (UpgradeSettings.swift).
    public var upgrades: UpgradeSettings
    /// Webhook delivery (`PASSKEYD_WEBHOOKS_*`; Events/WebhookSettings.swift); nil when no endpoints file is set.
    public var webhooks: WebhookSettings?

    /// The serving pool's bounds: the connect, statement and pool timeouts, plus a client-side lease bound of
    /// connect timeout + statement timeout + 1 s (for a server that stops answering, where the statement timeout
    /// never fires); no lease bound when the statement timeout is off.
    public var poolConfiguration: PGPool.Configuration {
        PGPool.Configuration(
            connectTimeout: databaseConnectTimeout, statementTimeout: databaseStatementTimeout, forceGenericPlans: databaseGenericPlans,
            acquireTimeout: databasePoolTimeout,
            leaseTimeout: databaseStatementTimeout.map { $0 + .seconds(databaseConnectTimeout + 1) })
    }

    /// The standby's pool: the serving pool's bounds, read-only (`default_transaction_read_only = on`).
    public var readPoolConfiguration: PGPool.Configuration {
        var configuration = poolConfiguration
        configuration.readOnly = true
        return configuration
    }

    /// Parses and validates `environment` (no config file handling; see ``load(environment:)``).
    public init(_ environment: [String: String]) throws(ConfigurationError) {
        let reader = Reader(environment: environment)
        var warnings: [String] = []

        (host, port) = try Self.listen(reader.text(.listen))

        guard let url = reader.value(.databaseURL) else {
            throw ConfigurationError(.databaseURL, "required: a libpq URI (postgresql://…) or key=value connection string")
        }
        guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") || url.contains("=") else {
            throw ConfigurationError(.databaseURL, "not a libpq URI (postgresql://…) or key=value connection string")
        }
        databaseURL = url
        poolSize = try reader.integer(.poolSize)
        databaseReadURL = reader.value(.databaseReadURL)
        if let readURL = databaseReadURL,
            !(readURL.hasPrefix("postgresql://") || readURL.hasPrefix("postgres://") || readURL.contains("="))
        {
            throw ConfigurationError(.databaseReadURL, "not a libpq URI (postgresql://…) or key=value connection string")
        }
        readPoolSize = try reader.integer(.databaseReadPoolSize)
        // One lane per two cores: on this project's 2-core benchmark machine one lane used 10-13% less server CPU per
        // sign-in than two at the same throughput (larger batches); more cores verify more batches at once.
        let defaultLanes = min(max(1, ProcessInfo.processInfo.activeProcessorCount / 2), poolSize / 2)
        batchLanes = try reader.integer(.databaseBatchLanes, whenUnset: defaultLanes)
        databaseGenericPlans = try reader.boolean(.databaseGenericPlans)
        if batchLanes * 2 > poolSize {
            throw ConfigurationError(
                .databaseBatchLanes, "at most half of PASSKEYD_POOL_SIZE (\(poolSize)): finishes and begins each hold up to this many connections")
        }
        databaseConnectTimeout = try reader.integer(.databaseConnectTimeout)
        let statementTimeout = try reader.integer(.databaseStatementTimeout)
        databaseStatementTimeout = statementTimeout == 0 ? nil : .milliseconds(statementTimeout)
        databasePoolTimeout = .milliseconds(try reader.integer(.databasePoolTimeout))
        shutdownTimeout = .seconds(try reader.integer(.shutdownTimeout))
        let migrationsPath = reader.text(.migrations)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: migrationsPath, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ConfigurationError(.migrations, "no directory at \(migrationsPath)")
        }
        migrations = URL(fileURLWithPath: migrationsPath)

        // Passkeys (Passkeys/): the relying party, its origins and apps, attestation and metadata, provider names.
        let passkeys = try Self.relyingParty(reader, warnings: &warnings)
        relyingParty = passkeys.relyingParty
        association = passkeys.association
        metadataSource = passkeys.metadataSource
        providerNames = try ProviderNameSettings.load(reader)

        // Access and limits (LimitSettings.swift), logging and metrics, conformance.
        (apiKeys, adminKeys) = try Self.accessKeys(reader, warnings: &warnings)
        logLevel = Self.level(named: try reader.choice(.logLevel))
        metricsEnabled = try reader.boolean(.metrics)
        fidoConformance = try reader.boolean(.fidoConformance)
        if fidoConformance {
            warnings.append(
                "PASSKEYD_FIDO_CONFORMANCE: the FIDO conformance endpoints /attestation/* and /assertion/* are served; for conformance testing only"
                    + (apiKeys.isEmpty ? "" : " (they require an API key like /v1; the conformance tools send none)"))
        }
        serverLimits = try Self.serverLimits(reader)
        rateLimits = try Self.rateLimits(reader, warnings: &warnings)
        ceremonyCaps = try Self.ceremonyCaps(reader)
        clockSkew = TimeInterval(try reader.integer(.clockSkew))
        ceremonyKeys = try CeremonyKeySettings.load(reader, warnings: &warnings)
        if databaseReadURL != nil, ceremonyKeys == nil {
            warnings.append(
                "PASSKEYD_DATABASE_READ_URL: not used without ceremony keys (PASSKEYD_KEY_ENCRYPTION_KEY_FILE or PASSKEYD_CEREMONY_KEY_FILES): begins then write their ceremony, so they read and write the primary")
        }

        // The other domains.
        identity = try IdentitySettings(reader, warnings: &warnings)
        sessions = try SessionSettings.load(reader, rpID: relyingParty.id, warnings: &warnings)
        upgrades = try UpgradeSettings(reader, warnings: &warnings)
        relyingParty.conditionalCreate = upgrades.conditionalCreate
        appStore = try AppStoreSettings.load(reader, warnings: &warnings)
        appAttest = try AppAttestSettings.load(reader, warnings: &warnings)
        webhooks = try WebhookSettings.load(reader, warnings: &warnings)
        if apiKeys.isEmpty, appStore != nil || appAttest != nil {
            warnings.append(
                "PASSKEYD_API_KEYS: unset, so the App Store and App Attest routes are open: anyone can read a user's entitlements, post purchases and attach App Attest keys by user id; development only")
        }

        demoPage = try reader.boolean(.demo)
        if demoPage {
            warnings.append("PASSKEYD_DEMO: the demo page is on: anyone who reaches /demo can register passkeys (no API key); not for production")
        }

        self.warnings = warnings + ConfigurationCatalog.unknownVariableWarnings(environment.keys)
    }

    // MARK: parts

    /// `host:port`, `[v6 address]:port`.
    static func listen(_ text: String) throws(ConfigurationError) -> (String, Int) {
        let problem = ConfigurationError(.listen, "expected host:port (e.g. 0.0.0.0:8080 or [::]:8080), got \"\(text)\"")
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port)
        else { throw problem }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "[" || $0 == "]" }) else { throw problem }
        return (host, port)
    }

    /// A level of ``ConfigVariable/logLevel``'s choices.
    static func level(named name: String) -> Logger.Level {
        guard let level = Logger.Level(rawValue: name) else { preconditionFailure("PASSKEYD_LOG_LEVEL declares \(name), not a log level") }
        return level
    }

    /// Bytes as upper-case hex joined by colons (`1C:B9:…`), as certificate fingerprints are shown.
    static func colonHex(_ bytes: some Collection<UInt8>) -> String {
        bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// A metadata loading failure as one line (codes and the loader's reason; no secrets are involved).
    public static func metadataFailure(_ error: any Error) -> String {
        switch error {
        case let error as MetadataLoaderError: error.debugDescription
        case let error as WebAuthnError: "\(error.code.rawValue): \(error.reason)"
        default: String(describing: error)
        }
    }
}
