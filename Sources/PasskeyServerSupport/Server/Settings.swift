import COSECrypto
public import Foundation
public import LibPQ
public import Logging
public import PasskeyHTTP
import PasskeyMetadata
public import PasskeyStore
public import WebAuthnCore

/// A configuration problem, naming the variable. Never contains a key or the database URL.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The environment variable at fault.
    public let variable: String
    /// What is wrong, for a human.
    public let problem: String

    public init(_ variable: String, _ problem: String) {
        self.variable = variable
        self.problem = problem
    }

    public var description: String { "\(variable): \(problem)" }
}

/// Everything `passkeyd` reads from its environment, parsed and validated at start.
///
/// Every variable is optional except `PASSKEYD_DATABASE_URL`; see ``Settings/variables`` for the list. Values
/// of key variables and of the database URL never appear in errors or warnings.
public struct Settings: Sendable {
    public var host: String
    public var port: Int
    /// libpq connection string (may contain a password: never log it).
    public var databaseURL: String
    public var poolSize: Int
    /// `PASSKEYD_DB_BATCH_LANES`: concurrent authentication finishes run in batches on at most this many pooled
    /// connections at a time (one read and one write statement per batch), and uncapped begins' inserts on as many
    /// more; 0 = each on its own connection lease. Default: one per two cores, at most half the pool.
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
    public var serverLimits: ServerLimits
    /// Request rate limits (`PASSKEYD_RATE_LIMIT_*`, `PASSKEYD_CLIENT_ADDRESS_HEADER`, `PASSKEYD_TRUSTED_PROXY_HOPS`).
    public var rateLimits: RateLimits
    /// Bounds on pending ceremonies (`PASSKEYD_PENDING_PER_USER`, `PASSKEYD_PENDING_MAX`).
    public var ceremonyCaps: CeremonyCaps
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

    /// The serving pool's bounds: the connect, statement and pool timeouts, plus a client-side lease bound of
    /// connect timeout + statement timeout + 1 s (for a server that stops answering, where the statement timeout
    /// never fires); no lease bound when the statement timeout is off.
    public var poolConfiguration: PGPool.Configuration {
        PGPool.Configuration(
            connectTimeout: databaseConnectTimeout, statementTimeout: databaseStatementTimeout, forceGenericPlans: databaseGenericPlans,
            acquireTimeout: databasePoolTimeout,
            leaseTimeout: databaseStatementTimeout.map { $0 + .seconds(databaseConnectTimeout + 1) })
    }

    /// The HTTP layer's settings (keys, limits); the executable adds the metrics factory and exporter.
    public var http: HTTPConfiguration {
        var http = HTTPConfiguration(
            apiKeys: apiKeys, adminKeys: adminKeys, conformanceBinding: fidoConformance, demoPage: demoPage, rateLimits: rateLimits,
            wellKnown: association.documents)
        http.selfService = upgrades.selfService
        http.extensionLimits = upgrades.extensionLimits
        return http
    }

    /// The variables this service reads.
    public static let variables: [String] = [
        "PASSKEYD_CONFIG_FILE", "PASSKEYD_LISTEN", "PASSKEYD_DATABASE_URL", "PASSKEYD_POOL_SIZE", "PASSKEYD_DB_BATCH_LANES", "PASSKEYD_DB_GENERIC_PLANS", "PASSKEYD_MIGRATIONS",
        "PASSKEYD_RP_ID", "PASSKEYD_RP_NAME", "PASSKEYD_ORIGINS", "PASSKEYD_USER_VERIFICATION", "PASSKEYD_CHALLENGE_TTL",
        "PASSKEYD_API_KEYS", "PASSKEYD_ADMIN_KEYS", "PASSKEYD_LOG_LEVEL", "PASSKEYD_ALGORITHMS", "PASSKEYD_ATTESTATION",
        "PASSKEYD_ATTESTATION_CONVEYANCE", "PASSKEYD_METRICS", "PASSKEYD_AAGUID_ALLOW", "PASSKEYD_AAGUID_DENY",
        "PASSKEYD_MDS_BLOB", "PASSKEYD_MDS_ROOT", "PASSKEYD_MDS_REFUSED_STATUSES",
        "PASSKEYD_FIDO_CONFORMANCE", "PASSKEYD_UNSAFE_POLICIES", "PASSKEYD_DEMO",
        "PASSKEYD_HTTP_IDLE_TIMEOUT", "PASSKEYD_HTTP_READ_TIMEOUT", "PASSKEYD_HTTP_MAX_HEADER_BYTES",
        "PASSKEYD_RATE_LIMIT_CLIENT", "PASSKEYD_RATE_LIMIT_API_KEY", "PASSKEYD_RATE_LIMIT_USER", "PASSKEYD_RATE_LIMIT_ADMIN",
        "PASSKEYD_RATE_LIMIT_METRICS", "PASSKEYD_CLIENT_ADDRESS_HEADER", "PASSKEYD_TRUSTED_PROXY_HOPS",
        "PASSKEYD_PENDING_PER_USER", "PASSKEYD_PENDING_MAX",
        "PASSKEYD_DB_CONNECT_TIMEOUT", "PASSKEYD_DB_STATEMENT_TIMEOUT", "PASSKEYD_DB_POOL_TIMEOUT", "PASSKEYD_SHUTDOWN_TIMEOUT",
        "PASSKEYD_KEY_ENCRYPTION_KEY_FILE",
    ]
    /// `PASSKEYD_UNSAFE_POLICIES`: the named departures from W3C verification that the FIDO conformance tools
    /// expect, with what each one accepts. Never for production.
    public static let unsafePolicies: [(name: String, effect: String)] = [
        ("allow-missing-user-presence", "ceremonies with the UP flag clear are accepted (W3C §7.1 step 14, §7.2 step 16 refuse them)"),
        ("trust-last-certificate", "the last x5c certificate is trusted as an anchor (anyone can mint a chain that passes)"),
        ("test-tpm-manufacturers", "tpm AIK certificates with test manufacturer ids (id:FFFFF1D0, id:00000000) are accepted"),
        ("android-key-software-enforced", "android-key origin/purpose may be software-enforced (keys outside a TEE)"),
    ]
    /// `PASSKEYD_TRUST_ROOTS_<FORMAT>`: PEM roots per attestation format.
    public static let trustRootsPrefix = "PASSKEYD_TRUST_ROOTS_"
    /// Attestation formats that carry certificate chains, hence take trust roots (`fmt` identifiers).
    public static let trustRootFormats = ["packed", "fido-u2f", "tpm", "android-key", "android-safetynet", "apple"]
    /// Prefixes of variables used by the development scripts and tests, not by the service (not warned about).
    static let foreignPrefixes = ["PASSKEYD_PG_", "PASSKEYD_TEST_", "PASSKEYD_BENCH", "PASSKEYD_VECTORS"]

    /// Reads the process environment, merged over `PASSKEYD_CONFIG_FILE` when set (the environment wins).
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError) -> Settings {
        var merged = environment
        var fileWarnings: [String] = []
        if let path = environment["PASSKEYD_CONFIG_FILE"], !path.isEmpty {
            let text: String
            do {
                text = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
            } catch {
                throw ConfigurationError("PASSKEYD_CONFIG_FILE", "cannot read \(path) as UTF-8 text")
            }
            let (values, warnings) = try parseEnvironmentFile(text, path: path)
            fileWarnings = warnings
            for (key, value) in values where environment[key] == nil { merged[key] = value }
        }
        var settings = try Settings(merged)
        settings.warnings = fileWarnings + settings.warnings
        return settings
    }

    /// Parses a `KEY=VALUE` file: one assignment per line, `#` comments and blank lines ignored, an optional
    /// `export ` prefix, a value optionally in matching single or double quotes (taken literally, no escapes).
    /// Only `PASSKEYD_*` keys are kept (others are reported as warnings).
    public static func parseEnvironmentFile(
        _ text: String, path: String
    ) throws(ConfigurationError) -> (values: [String: String], warnings: [String]) {
        var values: [String: String] = [:]
        var warnings: [String] = []
        var seen: Set<String> = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = String(line.dropFirst("export ".count)).trimmingCharacters(in: .whitespaces) }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigurationError("PASSKEYD_CONFIG_FILE", "\(path) line \(number): expected KEY=VALUE")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") }),
                !key.first!.isNumber
            else {
                throw ConfigurationError("PASSKEYD_CONFIG_FILE", "\(path) line \(number): the name must be upper-case letters, digits and _")
            }
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            guard seen.insert(key).inserted else {
                throw ConfigurationError("PASSKEYD_CONFIG_FILE", "\(path) line \(number): \(key) is set twice")
            }
            guard key.hasPrefix("PASSKEYD_"), key != "PASSKEYD_CONFIG_FILE" else {
                warnings.append("PASSKEYD_CONFIG_FILE: \(path) line \(number): \(key) ignored (only PASSKEYD_* variables are read; files do not nest)")
                continue
            }
            values[key] = value
        }
        return (values, warnings)
    }

    /// Parses and validates `environment` (no config file handling; see ``load(environment:)``).
    public init(_ environment: [String: String]) throws(ConfigurationError) {
        let reader = Reader(environment: environment)
        var warnings: [String] = []

        (host, port) = try Self.listen(reader.value("PASSKEYD_LISTEN") ?? "127.0.0.1:8080")

        guard let url = reader.value("PASSKEYD_DATABASE_URL") else {
            throw ConfigurationError("PASSKEYD_DATABASE_URL", "required: a libpq URI (postgresql://…) or key=value connection string")
        }
        guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") || url.contains("=") else {
            throw ConfigurationError("PASSKEYD_DATABASE_URL", "not a libpq URI (postgresql://…) or key=value connection string")
        }
        databaseURL = url
        poolSize = try reader.integer("PASSKEYD_POOL_SIZE", default: 8, in: 1...1000)
        // One lane per two cores: on this project's 2-core benchmark machine one lane used 10-13% less server CPU per
        // sign-in than two at the same throughput (larger batches); more cores verify more batches at once.
        let defaultLanes = min(max(1, ProcessInfo.processInfo.activeProcessorCount / 2), poolSize / 2)
        batchLanes = try reader.integer("PASSKEYD_DB_BATCH_LANES", default: defaultLanes, in: 0...500)
        databaseGenericPlans = try reader.boolean("PASSKEYD_DB_GENERIC_PLANS", default: false)
        if batchLanes * 2 > poolSize {
            throw ConfigurationError(
                "PASSKEYD_DB_BATCH_LANES", "at most half of PASSKEYD_POOL_SIZE (\(poolSize)): finishes and begins each hold up to this many connections")
        }
        databaseConnectTimeout = try reader.integer("PASSKEYD_DB_CONNECT_TIMEOUT", default: 5, in: 2...300)
        let statementTimeout = try reader.integer("PASSKEYD_DB_STATEMENT_TIMEOUT", default: 5000, in: 0...3_600_000)
        databaseStatementTimeout = statementTimeout == 0 ? nil : .milliseconds(statementTimeout)
        databasePoolTimeout = .milliseconds(try reader.integer("PASSKEYD_DB_POOL_TIMEOUT", default: 2000, in: 1...600_000))
        shutdownTimeout = .seconds(try reader.integer("PASSKEYD_SHUTDOWN_TIMEOUT", default: 30, in: 1...3600))

        let migrationsPath = reader.value("PASSKEYD_MIGRATIONS") ?? "Migrations"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: migrationsPath, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ConfigurationError("PASSKEYD_MIGRATIONS", "no directory at \(migrationsPath)")
        }
        migrations = URL(fileURLWithPath: migrationsPath)

        let rpID = reader.value("PASSKEYD_RP_ID") ?? "localhost"
        try Self.validateRPID(rpID)
        let rpName = reader.value("PASSKEYD_RP_NAME") ?? "passkeyd"
        guard rpName.utf8.count <= 256, !rpName.contains(where: { $0.isNewline }) else {
            throw ConfigurationError("PASSKEYD_RP_NAME", "at most 256 bytes on one line")
        }
        let origins = reader.list("PASSKEYD_ORIGINS") ?? ["http://localhost:8080"]
        guard !origins.isEmpty else { throw ConfigurationError("PASSKEYD_ORIGINS", "at least one origin is required") }
        for origin in origins { warnings += try Self.validateOrigin(origin, rpID: rpID) }
        association = try AssociationSettings.load(reader, rpID: rpID, origins: origins, warnings: &warnings)
        providerNames = try ProviderNameSettings.load(reader)

        var rp = RelyingParty(id: rpID, name: rpName, allowedOrigins: Set(origins + association.nativeOrigins))
        switch reader.value("PASSKEYD_USER_VERIFICATION") ?? "required" {
        case "required": rp.userVerification = .required
        case "preferred-unsafe": rp.userVerification = .preferredUnsafe
        case "discouraged-unsafe": rp.userVerification = .discouragedUnsafe
        case let other:
            throw ConfigurationError(
                "PASSKEYD_USER_VERIFICATION", "unknown value \"\(other)\" (required, preferred-unsafe or discouraged-unsafe)")
        }
        rp.challengeTimeout = .seconds(try reader.integer("PASSKEYD_CHALLENGE_TTL", default: 300, in: 30...3600))
        rp.algorithms = try Self.algorithms(reader.list("PASSKEYD_ALGORITHMS"))
        let (attestation, attestationWarnings, metadataSource) = try Self.attestation(reader)
        rp.attestation = attestation
        self.metadataSource = metadataSource
        warnings += attestationWarnings
        for name in reader.list("PASSKEYD_UNSAFE_POLICIES") ?? [] {
            guard let policy = Self.unsafePolicies.first(where: { $0.name == name.lowercased() }) else {
                throw ConfigurationError(
                    "PASSKEYD_UNSAFE_POLICIES", "unknown policy \"\(name)\" (\(Self.unsafePolicies.map(\.name).joined(separator: ", ")))")
            }
            switch policy.name {
            case "allow-missing-user-presence": rp.allowMissingUserPresenceUnsafe = true
            case "trust-last-certificate": rp.attestation.trustLastCertificateUnsafe = true
            case "test-tpm-manufacturers": rp.attestation.allowTestTPMManufacturersUnsafe = true
            default: rp.attestation.androidKeyAllowSoftwareEnforcedUnsafe = true
            }
            warnings.append("PASSKEYD_UNSAFE_POLICIES: \(policy.name) is on: \(policy.effect); for conformance testing only")
        }
        relyingParty = rp

        let apiKeys = try Self.keys(reader, "PASSKEYD_API_KEYS", warnings: &warnings)
        let adminKeys = try Self.keys(reader, "PASSKEYD_ADMIN_KEYS", warnings: &warnings)
        guard Set(apiKeys).isDisjoint(with: adminKeys) else {
            throw ConfigurationError("PASSKEYD_ADMIN_KEYS", "an admin key is also in PASSKEYD_API_KEYS; use distinct keys")
        }
        self.apiKeys = apiKeys
        self.adminKeys = adminKeys

        switch reader.value("PASSKEYD_LOG_LEVEL")?.lowercased() ?? "info" {
        case "trace": logLevel = .trace
        case "debug": logLevel = .debug
        case "info": logLevel = .info
        case "notice": logLevel = .notice
        case "warning": logLevel = .warning
        case "error": logLevel = .error
        case "critical": logLevel = .critical
        case let other:
            throw ConfigurationError("PASSKEYD_LOG_LEVEL", "unknown level \"\(other)\" (trace, debug, info, notice, warning, error, critical)")
        }
        metricsEnabled = try reader.boolean("PASSKEYD_METRICS", default: true)
        fidoConformance = try reader.boolean("PASSKEYD_FIDO_CONFORMANCE", default: false)
        if fidoConformance {
            warnings.append(
                "PASSKEYD_FIDO_CONFORMANCE: the FIDO conformance endpoints /attestation/* and /assertion/* are served; for conformance testing only"
                    + (apiKeys.isEmpty ? "" : " (they require an API key like /v1; the conformance tools send none)"))
        }
        serverLimits = ServerLimits(
            idleTimeout: .seconds(try reader.integer("PASSKEYD_HTTP_IDLE_TIMEOUT", default: 30, in: 1...3600)),
            readTimeout: .seconds(try reader.integer("PASSKEYD_HTTP_READ_TIMEOUT", default: 10, in: 1...600)),
            maxHeaderBytes: try reader.integer("PASSKEYD_HTTP_MAX_HEADER_BYTES", default: 16 * 1024, in: 1024...(1024 * 1024)))
        let defaults = RateLimits()
        var limits = RateLimits(
            perClient: try reader.rateLimit("PASSKEYD_RATE_LIMIT_CLIENT", default: defaults.perClient),
            perAPIKey: try reader.rateLimit("PASSKEYD_RATE_LIMIT_API_KEY", default: defaults.perAPIKey),
            perUser: try reader.rateLimit("PASSKEYD_RATE_LIMIT_USER", default: defaults.perUser),
            admin: try reader.rateLimit("PASSKEYD_RATE_LIMIT_ADMIN", default: defaults.admin),
            metrics: try reader.rateLimit("PASSKEYD_RATE_LIMIT_METRICS", default: defaults.metrics))
        if let header = reader.value("PASSKEYD_CLIENT_ADDRESS_HEADER") {
            guard header.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw ConfigurationError("PASSKEYD_CLIENT_ADDRESS_HEADER", "must be a header name such as X-Forwarded-For, got \"\(header)\"")
            }
            limits.clientAddressHeader = header
            warnings.append(
                "PASSKEYD_CLIENT_ADDRESS_HEADER: client addresses are read from \(header); passkeyd must be reachable only through the proxy that sets it")
        }
        limits.trustedProxyHops = try reader.integer("PASSKEYD_TRUSTED_PROXY_HOPS", default: 1, in: 1...10)
        rateLimits = limits
        let perUser = try reader.integer("PASSKEYD_PENDING_PER_USER", default: 20, in: 0...10_000)
        let total = try reader.integer("PASSKEYD_PENDING_MAX", default: 1_000_000, in: 0...100_000_000)
        ceremonyCaps = CeremonyCaps(perSubject: perUser == 0 ? nil : perUser, total: total == 0 ? nil : total)

        identity = try IdentitySettings(reader, warnings: &warnings)
        sessions = try SessionSettings.load(reader, rpID: rpID, warnings: &warnings)
        upgrades = try UpgradeSettings(reader, warnings: &warnings)
        relyingParty.conditionalCreate = upgrades.conditionalCreate
        appStore = try AppStoreSettings.load(reader, warnings: &warnings)
        appAttest = try AppAttestSettings.load(reader, warnings: &warnings)
        if apiKeys.isEmpty, appStore != nil || appAttest != nil {
            warnings.append(
                "PASSKEYD_API_KEYS: unset, so the App Store and App Attest routes are open: anyone can read a user's entitlements, post purchases and attach App Attest keys by user id; development only")
        }

        demoPage = try reader.boolean("PASSKEYD_DEMO", default: false)
        if demoPage {
            warnings.append("PASSKEYD_DEMO: the demo page is on: anyone who reaches /demo can register passkeys (no API key); not for production")
        }

        let featureVariables = SessionSettings.variables + AppStoreSettings.variables + AppAttestSettings.variables
            + AssociationSettings.variables + ProviderNameSettings.variables + UpgradeSettings.variables
        for name in environment.keys.sorted() where name.hasPrefix("PASSKEYD_") {
            guard !Self.variables.contains(name), !featureVariables.contains(name), !name.hasPrefix(Self.trustRootsPrefix),
                !name.hasPrefix("PASSKEYD_IDTOKEN_"),
                !Self.foreignPrefixes.contains(where: { name.hasPrefix($0) })
            else { continue }
            let near = (Self.variables + featureVariables).first { $0.hasPrefix(name) || name.hasPrefix($0) }
            warnings.append("\(name): unknown variable, ignored" + (near.map { " (did you mean \($0)?)" } ?? ""))
        }
        self.warnings = warnings
    }

    // MARK: parts

    /// `host:port`, `[v6 address]:port`.
    static func listen(_ text: String) throws(ConfigurationError) -> (String, Int) {
        let problem = ConfigurationError("PASSKEYD_LISTEN", "expected host:port (e.g. 0.0.0.0:8080 or [::]:8080), got \"\(text)\"")
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port)
        else { throw problem }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "[" || $0 == "]" }) else { throw problem }
        return (host, port)
    }

    /// A registrable domain (or `localhost`): lower-case labels, no scheme, port or path.
    static func validateRPID(_ id: String) throws(ConfigurationError) {
        let labels = id.split(separator: ".", omittingEmptySubsequences: false)
        let valid = id.utf8.count <= 253 && labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }
        }
        guard valid else {
            throw ConfigurationError(
                "PASSKEYD_RP_ID", "\"\(id)\" is not a lower-case domain name (e.g. example.com; no scheme, port or path)")
        }
    }

    /// Web origins must be exactly `scheme://host[:port]`; native-app origins (`android:apk-key-hash:…`,
    /// `ios:bundle-id:…`, …) are opaque strings. Returns warnings.
    static func validateOrigin(_ origin: String, rpID: String) throws(ConfigurationError) -> [String] {
        guard !origin.contains(where: { $0.isWhitespace || $0.isNewline }), origin.contains(":") else {
            throw ConfigurationError("PASSKEYD_ORIGINS", "\"\(origin)\" is not an origin (https://host[:port] or a native-app origin)")
        }
        let lowered = origin.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else { return [] }
        guard origin == lowered, let components = URLComponents(string: origin), let scheme = components.scheme,
            let host = components.host, !host.isEmpty, components.path.isEmpty, components.query == nil,
            components.fragment == nil, components.user == nil, components.password == nil, !origin.hasSuffix(":")
        else {
            throw ConfigurationError(
                "PASSKEYD_ORIGINS",
                "\"\(origin)\" must be exactly scheme://host[:port] in lower case (no path, not even a trailing /)")
        }
        if let port = components.port, port == (scheme == "https" ? 443 : 80) {
            throw ConfigurationError("PASSKEYD_ORIGINS", "\"\(origin)\": omit the default port (browsers send the origin without it)")
        }
        var warnings: [String] = []
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        if bareHost != rpID, !bareHost.hasSuffix("." + rpID) {
            warnings.append(
                "PASSKEYD_ORIGINS: \(origin) is not \(rpID) or a subdomain of it: browsers accept it only as a related origin, listed at https://\(rpID)/.well-known/webauthn (passkeyd serves it; that path of the RP's domain must reach passkeyd)")
        }
        if scheme == "http", !["localhost", "127.0.0.1", "::1"].contains(bareHost), !bareHost.hasSuffix(".localhost") {
            warnings.append("PASSKEYD_ORIGINS: \(origin) is plain http; browsers allow WebAuthn over http only on localhost")
        }
        return warnings
    }

    /// COSE algorithm names, most preferred first. RS1 only as `RS1-unsafe`.
    static func algorithms(_ names: [String]?) throws(ConfigurationError) -> AlgorithmPolicy {
        guard let names else { return .default }
        guard !names.isEmpty else { throw ConfigurationError("PASSKEYD_ALGORITHMS", "at least one algorithm is required") }
        let known = COSEAlgorithm.allSupported.filter { $0 != .rs1 }
        var chosen: [COSEAlgorithm] = []
        var includesRS1 = false
        for name in names {
            let algorithm: COSEAlgorithm
            if name.lowercased() == "rs1-unsafe" {
                algorithm = .rs1
                includesRS1 = true
            } else if name.lowercased() == "rs1" {
                throw ConfigurationError(
                    "PASSKEYD_ALGORITHMS", "RS1 (SHA-1) signatures are forgeable in principle; write RS1-unsafe to accept them anyway")
            } else if let match = known.first(where: { $0.name.lowercased() == name.lowercased() }) {
                algorithm = match
            } else {
                throw ConfigurationError(
                    "PASSKEYD_ALGORITHMS", "unknown algorithm \"\(name)\" (one of \(known.map(\.name).joined(separator: ", ")), RS1-unsafe)")
            }
            guard !chosen.contains(algorithm) else { throw ConfigurationError("PASSKEYD_ALGORITHMS", "\(algorithm.name) is listed twice") }
            chosen.append(algorithm)
        }
        return includesRS1 ? .unsafeIncludingRS1(chosen) : AlgorithmPolicy(chosen)
    }

    static func attestation(
        _ reader: Reader
    ) throws(ConfigurationError) -> (AttestationPolicy, [String], MetadataSource?) {
        var warnings: [String] = []
        let name = reader.value("PASSKEYD_ATTESTATION") ?? "any-verified"
        guard let requirement = AttestationPolicy.Requirement(configurationName: name) else {
            throw ConfigurationError(
                "PASSKEYD_ATTESTATION", "unknown value \"\(name)\" (none / any-verified, trusted-chains, self-ok or trusted-required)")
        }
        var anchors: [String: TrustAnchors] = [:]
        for variable in reader.environment.keys.sorted() where variable.hasPrefix(trustRootsPrefix) {
            guard let path = reader.value(variable) else { continue }
            let format = variable.dropFirst(trustRootsPrefix.count).lowercased().replacingOccurrences(of: "_", with: "-")
            guard trustRootFormats.contains(format) else {
                throw ConfigurationError(
                    variable,
                    "no attestation format \"\(format)\" takes trust roots (\(trustRootFormats.map { trustRootsPrefix + $0.uppercased().replacingOccurrences(of: "-", with: "_") }.joined(separator: ", ")))"
                )
            }
            let certificates = try loadTrustRoots(variable, path: path)
            let now = Date()
            for certificate in certificates {
                if certificate.notAfter <= now {
                    warnings.append("\(variable): \(certificate.subject) expired at \(certificate.notAfter)")
                }
                if certificate.isCA == false {
                    warnings.append("\(variable): \(certificate.subject) is not a CA certificate")
                }
            }
            anchors[format] = TrustAnchors(certificates)
        }
        let (metadata, source) = try Self.metadata(reader)
        if requirement != .anyVerified, anchors.isEmpty, metadata == nil {
            throw ConfigurationError(
                "PASSKEYD_ATTESTATION",
                "\(requirement.configurationName) needs trust roots: set PASSKEYD_MDS_BLOB + PASSKEYD_MDS_ROOT and/or \(trustRootsPrefix)<FORMAT> for at least one of \(trustRootFormats.joined(separator: ", "))")
        }
        // Under self-ok and trusted-required a `none` attestation is refused, so ask for one by default; under
        // trusted-chains the configured roots are only used when an attestation is asked for.
        let conveyance = reader.value("PASSKEYD_ATTESTATION_CONVEYANCE") ?? (requirement == .anyVerified ? "none" : "direct")
        guard ["none", "indirect", "direct", "enterprise"].contains(conveyance) else {
            throw ConfigurationError(
                "PASSKEYD_ATTESTATION_CONVEYANCE", "unknown value \"\(conveyance)\" (none, indirect, direct or enterprise)")
        }
        if requirement == .selfOrTrusted || requirement == .trustedRequired, conveyance == "none" {
            throw ConfigurationError(
                "PASSKEYD_ATTESTATION_CONVEYANCE",
                "none contradicts PASSKEYD_ATTESTATION=\(requirement.configurationName) (use direct or enterprise)")
        }
        var policy = AttestationPolicy(requirement: requirement, trustAnchors: anchors, conveyance: conveyance)
        policy.metadata = metadata
        policy.aaguidAllowList = try Self.aaguids(reader, "PASSKEYD_AAGUID_ALLOW").map(Set.init)
        policy.aaguidDenyList = Set(try Self.aaguids(reader, "PASSKEYD_AAGUID_DENY") ?? [])
        if let allow = policy.aaguidAllowList {
            guard !allow.isEmpty else { throw ConfigurationError("PASSKEYD_AAGUID_ALLOW", "an empty allow-list would refuse every registration") }
            if requirement == .anyVerified || requirement == .trustedChains {
                warnings.append("PASSKEYD_AAGUID_ALLOW: with PASSKEYD_ATTESTATION=\(requirement.configurationName) an authenticator can claim any AAGUID; use trusted-required")
            }
            if !allow.isDisjoint(with: policy.aaguidDenyList) {
                warnings.append("PASSKEYD_AAGUID_ALLOW: some AAGUIDs are also denied; the deny-list wins")
            }
        }
        if let statuses = reader.list("PASSKEYD_MDS_REFUSED_STATUSES") {
            let known: Set<AuthenticatorStatus> = [
                .notFIDOCertified, .fidoCertified, .userVerificationBypass, .attestationKeyCompromise, .userKeyRemoteCompromise,
                .userKeyPhysicalCompromise, .updateAvailable, .revoked, .selfAssertionSubmitted,
            ]
            var refused: Set<AuthenticatorStatus> = []
            for text in statuses {
                let status = AuthenticatorStatus(text.uppercased())
                if !known.contains(status) && !status.rawValue.hasPrefix("FIDO_CERTIFIED_") {
                    warnings.append("PASSKEYD_MDS_REFUSED_STATUSES: \(status) is not an MDS3 status")
                }
                refused.insert(status)
            }
            policy.refusedStatuses = refused
            if metadata == nil { warnings.append("PASSKEYD_MDS_REFUSED_STATUSES: no PASSKEYD_MDS_BLOB, so no status is ever known") }
        }
        return (policy, warnings, source)
    }

    /// Comma-separated AAGUIDs (UUID text); nil when unset.
    static func aaguids(_ reader: Reader, _ variable: String) throws(ConfigurationError) -> [AAGUID]? {
        guard let texts = reader.list(variable) else { return nil }
        var result: [AAGUID] = []
        for text in texts {
            guard let aaguid = AAGUID(text) else { throw ConfigurationError(variable, "\"\(text)\" is not a UUID") }
            result.append(aaguid)
        }
        return result
    }

    /// `PASSKEYD_MDS_BLOB` (a BLOB downloaded from the FIDO Metadata Service) and `PASSKEYD_MDS_ROOT` (PEM file(s) of
    /// the FIDO root, comma-separated): loaded and verified now; the service does not start with a BLOB that fails.
    static func metadata(_ reader: Reader) throws(ConfigurationError) -> (MetadataIndex?, MetadataSource?) {
        let blob = reader.value("PASSKEYD_MDS_BLOB")
        let roots = reader.list("PASSKEYD_MDS_ROOT")
        switch (blob, roots) {
        case (nil, nil): return (nil, nil)
        case (nil, _?): throw ConfigurationError("PASSKEYD_MDS_ROOT", "set PASSKEYD_MDS_BLOB too (the BLOB this root verifies)")
        case (_?, nil): throw ConfigurationError("PASSKEYD_MDS_BLOB", "set PASSKEYD_MDS_ROOT too (the FIDO root the BLOB must chain to)")
        case (let blob?, let roots?):
            let source = MetadataSource(blobPath: blob, rootPEMPaths: roots)
            do {
                return (try MetadataLoader.load(blobPath: blob, rootPEMPaths: roots), source)
            } catch {
                throw ConfigurationError("PASSKEYD_MDS_BLOB", "\(blob) does not verify: \(Self.metadataFailure(error))")
            }
        }
    }

    /// A metadata loading failure as one line (codes and the loader's reason; no secrets are involved).
    public static func metadataFailure(_ error: any Error) -> String {
        switch error {
        case let error as MetadataLoaderError: error.debugDescription
        case let error as WebAuthnError: "\(error.code.rawValue): \(error.reason)"
        default: String(describing: error)
        }
    }

    /// A PEM file, or a directory whose `*.pem`, `*.crt` and `*.cer` files (PEM) are read in name order.
    static func loadTrustRoots(_ variable: String, path: String) throws(ConfigurationError) -> [Certificate] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ConfigurationError(variable, "no file or directory at \(path)")
        }
        var files = [path]
        if isDirectory.boolValue {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                throw ConfigurationError(variable, "cannot list \(path)")
            }
            let directory = URL(fileURLWithPath: path, isDirectory: true)
            files = names.filter { name in
                !name.hasPrefix(".") && ["pem", "crt", "cer"].contains(URL(fileURLWithPath: name).pathExtension.lowercased())
            }.sorted().map { directory.appendingPathComponent($0).path }
            guard !files.isEmpty else { throw ConfigurationError(variable, "\(path) holds no .pem, .crt or .cer file") }
        }
        do {
            let certificates = try TrustAnchors.loadPEMFiles(files).certificates
            guard !certificates.isEmpty else { throw ConfigurationError(variable, "\(path) holds no certificate") }
            return certificates
        } catch let error as ConfigurationError {
            throw error
        } catch let error as CertificateError {
            throw ConfigurationError(variable, "not PEM certificates: \(error.reason)")
        } catch {
            throw ConfigurationError(variable, "cannot read \(path)")
        }
    }

    /// A comma-separated key list. Keys are bearer tokens: visible ASCII without spaces or commas. Errors and
    /// warnings name keys by position only.
    static func keys(_ reader: Reader, _ variable: String, warnings: inout [String]) throws(ConfigurationError) -> [String] {
        guard let keys = reader.list(variable) else { return [] }
        var unique: [String] = []
        for (index, key) in keys.enumerated() {
            guard key.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                throw ConfigurationError(variable, "key #\(index + 1) contains a character that is not visible ASCII")
            }
            if key.utf8.count < 16 { warnings.append("\(variable): key #\(index + 1) is shorter than 16 characters") }
            if !unique.contains(key) { unique.append(key) }
        }
        return unique
    }
}

/// Reads variables: empty values count as unset.
struct Reader {
    let environment: [String: String]

    func value(_ name: String) -> String? {
        guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    /// A comma-separated list (items trimmed, empty items dropped), or nil when unset.
    func list(_ name: String) -> [String]? {
        value(name)?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let text = value(name) else { return fallback }
        guard let number = Int(text), range.contains(number) else {
            throw ConfigurationError(name, "must be an integer from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
        }
        return number
    }

    /// `RATE/s[:BURST]`, `RATE/min[:BURST]` or `off`.
    func rateLimit(_ name: String, default fallback: RateLimit?) throws(ConfigurationError) -> RateLimit? {
        guard let text = value(name) else { return fallback }
        guard let parsed = RateLimit.parse(text) else {
            throw ConfigurationError(name, "expected RATE/s, RATE/s:BURST, RATE/min[:BURST] or off (e.g. 10/s:50), got \"\(text)\"")
        }
        return parsed
    }

    func boolean(_ name: String, default fallback: Bool) throws(ConfigurationError) -> Bool {
        guard let text = value(name) else { return fallback }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(name, "must be on or off (true/false, yes/no, 1/0), got \"\(text)\"")
        }
    }
}
