import PasskeyApp
import AppleSignedData
import COSECrypto
import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import LibPQ
import Logging
import Metrics
import NIOCore
import NIOPosix
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import Prometheus
import Synchronization
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

// MARK: support

/// One captured log line: level, message and all metadata (logger's + call's), flattened to strings.
struct CapturedLog: Sendable {
    let level: Logger.Level
    let message: String
    let metadata: [String: String]
    /// Everything in the line, for "never appears" checks.
    var text: String { "\(message) " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
}

final class LogCapture: Sendable {
    private let records = Mutex<[CapturedLog]>([])
    var all: [CapturedLog] { records.withLock { $0 } }
    func append(_ record: CapturedLog) { records.withLock { $0.append(record) } }

    /// A trace-level logger writing here.
    func logger() -> Logger {
        var logger = Logger(label: "passkeyd.test") { _ in CapturingLogHandler(capture: self) }
        logger.logLevel = .trace
        return logger
    }
}

struct CapturingLogHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        capture.append(CapturedLog(level: event.level, message: event.message.description, metadata: merged.mapValues { "\($0)" }))
    }
}

/// Fails every call, as a database that is down.
struct DownStore: PasskeyStore {
    static let reason = "connection refused by db-host-7 (test marker)"
    var error: StoreError { StoreError(.unavailable, Self.reason) }
    func user(named name: String) async throws(StoreError) -> StoredUser? { throw error }
    func user(handle: [UInt8]) async throws(StoreError) -> StoredUser? { throw error }
    func credentials(ofUser handle: [UInt8]) async throws(StoreError) -> [StoredCredential] { throw error }
    func saveCeremony(_ ceremony: PendingCeremony) async throws(StoreError) { throw error }
    func takeCeremony(challenge: [UInt8], kind: CeremonyKind) async throws(StoreError) -> PendingCeremony? { throw error }
    func takeAuthentication(challenge: [UInt8], credentialID: [UInt8]) async throws(StoreError) -> AuthenticationLookup { throw error }
    func register(
        _ registration: VerifiedRegistration, nickname: String?, intent: RegistrationIntent, audit: AuditContext
    ) async throws(StoreError) -> (user: StoredUser, credential: StoredCredential) { throw error }
    func apply(_ update: CredentialUpdate) async throws(StoreError) -> CredentialUpdateResult { throw error }
    func listUsers(nameFilter: String?, limit: Int, after: String?) async throws(StoreError) -> [StoredUser] { throw error }
    func credential(id: [UInt8]) async throws(StoreError) -> StoredCredential? { throw error }
    func renameCredential(id: [UInt8], nickname: String?, audit: AuditContext) async throws(StoreError) -> StoredCredential? { throw error }
    func deleteCredential(id: [UInt8], audit: AuditContext) async throws(StoreError) -> Bool { throw error }
    func renameCredential(id: [UInt8], ofUser owner: [UInt8], nickname: String?, audit: AuditContext) async throws(StoreError) -> StoredCredential? { throw error }
    func createUser(handle: [UInt8], name: String, displayName: String, audit: AuditContext) async throws(StoreError) -> StoredUser { throw error }
    func removeCredential(
        id: [UInt8], ofUser owner: [UInt8], keepingLastSignInMethod: Bool, audit: AuditContext
    ) async throws(StoreError) -> SignInMethodRemoval { throw error }
    func deleteUser(handle: [UInt8], audit: AuditContext) async throws(StoreError) -> Bool { throw error }
    func auditEvents(_ query: AuditQuery) async throws(StoreError) -> [AuditEvent] { throw error }
    func purgeExpiredCeremonies() async throws(StoreError) -> Int { throw error }
    func ping() async throws(StoreError) { throw error }
}

/// The rest of an instance's store is down too.
extension DownStore: IdentityStore, ProviderTokenStore, SessionStore, AppStoreStore, AppAttestStore {
    func signIn(_ identity: VerifiedIdentity, link: IdentityLink, identityID: [UInt8], audit: AuditContext) async throws(StoreError) -> IdentitySignInResult {
        throw error
    }
    func identities(ofUser handle: [UInt8]) async throws(StoreError) -> [StoredIdentity] { throw error }
    func unlinkIdentity(
        id: [UInt8], ofUser handle: [UInt8], keepingLastSignInMethod: Bool, audit: AuditContext
    ) async throws(StoreError) -> SignInMethodRemoval { throw error }
    func saveProviderToken(_ token: SealedProviderToken) async throws(StoreError) -> Bool { throw error }
    func providerToken(identityID: [UInt8]) async throws(StoreError) -> SealedProviderToken? { throw error }
    func claimTokenRevocations(limit: Int, lease: TimeInterval) async throws(StoreError) -> [PendingTokenRevocation] { throw error }
    func completeTokenRevocation(id: Int64) async throws(StoreError) { throw error }
    func deferTokenRevocation(id: Int64, retryAfter: TimeInterval, error: String) async throws(StoreError) { throw self.error }
    func pendingTokenRevocationCount() async throws(StoreError) -> Int { throw error }
    func createSession(_ session: NewSession) async throws(StoreError) -> Bool { throw error }
    func rotateRefreshToken(
        presented: [UInt8], replacement: [UInt8], now: Date, idleLifetime: TimeInterval
    ) async throws(StoreError) -> RefreshRotation { throw error }
    func session(id: [UInt8]) async throws(StoreError) -> StoredSession? { throw error }
    func sessions(ofUser handle: [UInt8]) async throws(StoreError) -> [StoredSession] { throw error }
    func revokeSession(id: [UInt8], ofUser handle: [UInt8]?, reason: SessionRevocationReason, now: Date) async throws(StoreError) -> Bool {
        throw error
    }
    func revokeSession(refreshHash: [UInt8], reason: SessionRevocationReason, now: Date) async throws(StoreError) -> StoredSession? {
        throw error
    }
    func revokeSessions(ofUser handle: [UInt8], reason: SessionRevocationReason, now: Date) async throws(StoreError) -> Int { throw error }
    func saveHandoff(_ handoff: StoredHandoff) async throws(StoreError) -> Bool { throw error }
    func takeHandoff(codeHash: [UInt8]) async throws(StoreError) -> StoredHandoff? { throw error }
    func purgeSessions(before: Date) async throws(StoreError) -> Int { throw error }
    func signingKeys() async throws(StoreError) -> [StoredSigningKey] { throw error }
    func addSigningKey(
        _ key: StoredSigningKey, unlessCreatedAfter: Date, retiredKeyLifetime: TimeInterval
    ) async throws(StoreError) -> Bool { throw error }
    func purgeSigningKeys(before: Date) async throws(StoreError) -> Int { throw error }
    func saveTransaction(_ transaction: AppStoreTransaction, forUser handle: [UInt8]) async throws(StoreError) -> AppStoreSaveOutcome {
        throw error
    }
    func saveRenewalInfo(_ renewal: AppStoreRenewalInfo) async throws(StoreError) -> [UInt8]? { throw error }
    func applyNotification(_ notification: AppStoreNotification) async throws(StoreError) -> AppStoreNotificationOutcome { throw error }
    func appStoreRecords(ofUser handle: [UInt8]) async throws(StoreError) -> AppStoreRecords? { throw error }
    func purgeAppStoreNotifications(before: Date) async throws(StoreError) -> Int { throw error }
    func saveAppAttestKey(_ key: AttestedAppAttestKey, userHandle: [UInt8]?) async throws(StoreError) -> AppAttestKeySave { throw error }
    func appAttestKey(id: [UInt8]) async throws(StoreError) -> StoredAppAttestKey? { throw error }
    func advanceAppAttestCounter(keyID: [UInt8], to counter: UInt32) async throws(StoreError) -> Bool { throw error }
}

/// An instance with an API key, a capturing logger and its own Prometheus registry (no global bootstrap).
struct ObservedHarness {
    static let origin = "https://obs.passkeyd.test"
    static let apiKey = "obs-api-key-0f3c9a7e5d1b2468"
    let logs = LogCapture()
    let registry = PrometheusCollectorRegistry()
    let app: Application<RouterResponder<PasskeyRequestContext>>

    init(store: (any ApplicationStore)? = nil, metrics: Bool = true) async throws {
        let settings = try TestPasskeyd.unboundedSettings([
            "PASSKEYD_RP_ID": "obs.passkeyd.test", "PASSKEYD_ORIGINS": Self.origin, "PASSKEYD_API_KEYS": Self.apiKey,
            "PASSKEYD_METRICS": metrics ? "on" : "off",
        ])
        let registry = self.registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[RequestMetricNames.duration] = RequestMetricNames.durationBuckets
        let store: any ApplicationStore = store ?? TestPasskeyd.store(for: settings)
        app = try await TestPasskeyd.build(
            settings, store: store, metricsFactory: factory,
            metricsExporter: { registry.emitToBuffer() }, logger: logs.logger()).http
    }

    static var authorized: HTTPFields { [.authorization: "Bearer \(apiKey)"] }
}

struct ObservedReply2: Sendable {
    let status: Int
    let contentType: String?
    let body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

extension TestClientProtocol {
    func obsSend(_ method: HTTPRequest.Method, _ path: String, body: [UInt8]? = nil, headers: HTTPFields = ObservedHarness.authorized)
        async throws -> ObservedReply2
    {
        try await execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) }) { response in
            ObservedReply2(status: Int(response.status.code), contentType: response.headers[.contentType], body: Array(response.body.readableBytesView))
        }
    }

    func obsPost(_ path: String, json: some Encodable) async throws -> ObservedReply2 {
        try await obsSend(.post, path, body: Array(try JSONEncoder().encode(json)))
    }
}

private struct RegistrationBeginBody: Encodable {
    struct User: Encodable { let name: String }
    let user: User
}

private struct AuthenticationBeginBody: Encodable {
    struct User: Encodable { let name: String }
    let user: User
}

private struct Wrapped<T: Decodable>: Decodable { let publicKey: T }
private struct RegistrationFinishBody: Encodable { let credential: RegistrationResponseJSON }
private struct AuthenticationFinishBody: Encodable { let credential: AuthenticationResponseJSON }

// MARK: request logs and metrics

@Suite("Observability: request logs and metrics")
struct ObservabilityRequestTests {
    @Test("a failing finish logs its code and request id at info; no key, body or challenge is logged")
    func failingFinishIsLogged() async throws {
        let harness = try await ObservedHarness()
        let (secrets, failureReply) = try await harness.app.test(.router) { client -> ([String], ObservedReply2) in
            var secrets = [ObservedHarness.apiKey]
            let begin = try await client.obsPost("/v1/registration/begin", json: RegistrationBeginBody(user: .init(name: "olivia")))
            #expect(begin.status == 200)
            let options = try JSONDecoder().decode(Wrapped<CreationOptionsJSON>.self, from: Data(begin.body)).publicKey
            let registered = try SoftAuthenticator.register(options: options, knobs: RegistrationKnobs(origin: ObservedHarness.origin))
            let registration = registered.response
            var credential = registered.credential
            secrets += [options.challenge, registration.response.clientDataJSON, registration.response.attestationObject]
            secrets += [registration.response.publicKey, registration.response.authenticatorData].compactMap { $0 }
            #expect(try await client.obsPost("/v1/registration/finish", json: RegistrationFinishBody(credential: registration)).status == 201)

            let signInBegin = try await client.obsPost("/v1/authentication/begin", json: AuthenticationBeginBody(user: .init(name: "olivia")))
            let requestOptions = try JSONDecoder().decode(Wrapped<RequestOptionsJSON>.self, from: Data(signInBegin.body)).publicKey
            var assertion = try SoftAuthenticator.authenticate(
                options: requestOptions, credential: &credential, knobs: AssertionKnobs(origin: ObservedHarness.origin))
            assertion.response.signature = Base64URL.encode(Array(repeating: 7, count: 70))
            secrets += [requestOptions.challenge, assertion.response.clientDataJSON, assertion.response.authenticatorData, assertion.response.signature]
            let failed = try await client.obsPost("/v1/authentication/finish", json: AuthenticationFinishBody(credential: assertion))
            #expect(failed.status == 422)

            // A wrong key: logged as unauthorized, the presented key is not.
            let wrongKey = "obs-wrong-key-77aa55cc33ee1199"
            secrets.append(wrongKey)
            let unauthorized = try await client.obsSend(.post, "/v1/authentication/begin", body: [], headers: [.authorization: "Bearer \(wrongKey)"])
            #expect(unauthorized.status == 401)
            return (secrets, failed)
        }

        let logs = harness.logs.all
        let failure = try #require(logs.first { $0.message == "request failed" && $0.metadata["operation"] == "authentication_finish" })
        #expect(failure.level == .info)
        #expect(failure.metadata["code"] == "signature_invalid")
        #expect(failure.metadata["status"] == "422")
        #expect(!(failure.metadata["hb.request.id"] ?? "").isEmpty, "the request id is in the line")
        #expect(failure.metadata["duration_ms"].flatMap(Double.init) != nil)
        let reason = try #require(failure.metadata["reason"], "the engine's reason goes to the log")
        #expect(!reason.isEmpty)
        #expect(!failureReply.text.contains(reason), "…and never to the client")

        let unauthorized = try #require(logs.first { $0.metadata["code"] == "unauthorized" })
        #expect(unauthorized.level == .info && unauthorized.metadata["operation"] == "authentication_begin")

        // Successes are debug only; every request has its own id.
        let successes = logs.filter { $0.message == "request completed" }
        #expect(successes.count == 3)
        #expect(successes.allSatisfy { $0.level == .debug && $0.metadata["code"] == "ok" })
        #expect(!logs.contains { $0.level >= .info && $0.message == "request completed" })
        let ids = logs.compactMap { $0.metadata["hb.request.id"] }
        #expect(Set(ids).count == 5, "five requests, five ids")

        for line in logs {
            for secret in secrets { #expect(!line.text.contains(secret), "log line leaks a key or body value: \(line.message)") }
            #expect(!line.text.contains("Bearer"))
            #expect(!line.text.contains("olivia"), "user names from the body are not logged")
        }
    }

    @Test("a storage failure is logged at warning with the store's reason; the client sees only the code")
    func storageFailureIsWarning() async throws {
        let harness = try await ObservedHarness(store: DownStore())
        try await harness.app.test(.router) { client in
            let reply = try await client.obsPost("/v1/registration/begin", json: RegistrationBeginBody(user: .init(name: "pat")))
            #expect(reply.status == 503)
            #expect(!reply.text.contains("db-host-7"))
            let ready = try await client.obsSend(.get, "/readyz", headers: [:])
            #expect(ready.status == 503)
        }
        let logs = harness.logs.all
        let line = try #require(logs.first { $0.message == "request failed" })
        #expect(line.level == .warning)
        #expect(line.metadata["code"] == "storage_unavailable" && line.metadata["status"] == "503")
        #expect(line.metadata["reason"] == DownStore.reason)
        #expect(logs.contains { $0.message == "not ready" && $0.level == .warning && $0.metadata["reason"] == DownStore.reason })
    }

    @Test("/metrics serves the request counters and latency histogram in the Prometheus text format")
    func metricsEndpoint() async throws {
        let harness = try await ObservedHarness()
        try await harness.app.test(.router) { client in
            for name in ["quinn", "rosa"] {
                #expect(try await client.obsPost("/v1/registration/begin", json: RegistrationBeginBody(user: .init(name: name))).status == 200)
            }
            #expect(try await client.obsSend(.post, "/v1/registration/finish", body: Array("{}".utf8)).status == 400)
            #expect(try await client.obsSend(.post, "/v1/registration/finish", body: Array("[".utf8)).status == 400)
            #expect(try await client.obsSend(.post, "/v1/authentication/begin", body: [], headers: [:]).status == 401)

            let metrics = try await client.obsSend(.get, "/metrics", headers: [:])
            #expect(metrics.status == 200)
            #expect(metrics.contentType == "text/plain; version=0.0.4")
            let text = metrics.text
            #expect(text.contains("# TYPE passkeyd_requests_total counter"))
            #expect(text.contains(#"passkeyd_requests_total{operation="registration_begin",outcome="success",code="ok"} 2"#))
            #expect(text.contains(#"passkeyd_requests_total{operation="registration_finish",outcome="failure",code="malformed_json"} 2"#))
            #expect(text.contains(#"passkeyd_requests_total{operation="authentication_begin",outcome="failure",code="unauthorized"} 1"#))
            #expect(text.contains("# TYPE passkeyd_request_duration_seconds histogram"))
            #expect(text.contains(#"passkeyd_request_duration_seconds_bucket{operation="registration_begin",le="0.0005"}"#))
            #expect(text.contains(#"passkeyd_request_duration_seconds_count{operation="registration_begin"} 2"#))
            #expect(!text.contains(ObservedHarness.apiKey))
        }
    }

    @Test("without an exporter there is no /metrics route")
    func metricsRouteAbsent() async throws {
        let harness = try await ObservedHarness(metrics: false)
        try await harness.app.test(.router) { client in
            let reply = try await client.obsSend(.get, "/metrics", headers: [:])
            #expect(reply.status == 404)
            #expect(String(decoding: reply.body, as: UTF8.self).contains(#""code":"route_unknown""#))
        }
    }

    @Test("pool gauges and counters come from PGPool.stats")
    func poolMetrics() async throws {
        let registry = PrometheusCollectorRegistry()
        let pool = PGPool(url: "postgresql://127.0.0.1:1/never-connected", size: 3, threadPool: .singleton)
        let metrics = PoolMetrics(pool: pool, factory: PrometheusMetricsFactory(registry: registry))
        metrics.update()
        metrics.update()
        let text = registry.emitToString()
        #expect(text.contains("passkeyd_db_pool_size 3"))
        #expect(text.contains("passkeyd_db_pool_connections_in_use 0"))
        #expect(text.contains("passkeyd_db_pool_connections_idle 0"))
        #expect(text.contains("passkeyd_db_pool_connections_open 0"))
        #expect(text.contains("passkeyd_db_pool_waiters 0"))
        #expect(text.contains("passkeyd_db_pool_connects_total 0"))
        #expect(text.contains("passkeyd_db_pool_failures_total 0"))
        await pool.shutdown()
    }
}

// MARK: JSON log handler

@Suite("Observability: JSON log lines")
struct ObservabilityLogFormatTests {
    @Test("one JSON object per line with timestamp, level, label, message and typed metadata")
    func jsonLines() throws {
        let lines = Mutex<[[UInt8]]>([])
        let output = JSONLogOutput { bytes in lines.withLock { $0.append(bytes) } }
        var logger = Logger(label: "passkeyd") { label in JSONLogHandler(label: label, level: .info, output: output) }
        logger[metadataKey: "hb.request.id"] = "abc123"
        logger.debug("not written")
        logger.info(
            "request \"failed\"\n",
            metadata: [
                "status": .stringConvertible(422), "duration_ms": .stringConvertible(1.25), "code": "signature_invalid",
                "list": .array(["a", .stringConvertible(2)]), "control": .string("tab\there\u{1}"),
            ])
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        #expect(line.last == UInt8(ascii: "\n") && line.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(object["level"] as? String == "info")
        #expect(object["label"] as? String == "passkeyd")
        #expect(object["message"] as? String == "request \"failed\"\n")
        let timestamp = try #require(object["timestamp"] as? String)
        #expect(timestamp.hasSuffix("Z") && timestamp.contains("T"))
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["hb.request.id"] as? String == "abc123")
        #expect(metadata["status"] as? Int == 422)
        #expect(metadata["duration_ms"] as? Double == 1.25)
        #expect(metadata["code"] as? String == "signature_invalid")
        #expect(metadata["control"] as? String == "tab\there\u{1}")
        #expect((metadata["list"] as? [Any])?.count == 2)
    }
}

// MARK: settings

@Suite("Observability: settings from the environment")
struct ObservabilitySettingsTests {
    /// A directory that exists, for PASSKEYD_MIGRATIONS.
    static let migrations: String = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-settings-migrations")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }()

    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ["PASSKEYD_DATABASE_URL": "postgresql://passkeyd:hunter2@db/passkeyd", "PASSKEYD_MIGRATIONS": migrations]
            .merging(extra) { _, new in new }
    }

    static func error(_ extra: [String: String], without: [String] = []) -> ConfigurationError? {
        var environment = environment(extra)
        for key in without { environment[key] = nil }
        do {
            _ = try Settings(environment)
            return nil
        } catch {
            return error
        }
    }

    /// A temporary directory with `count` PEM root certificates (and a non-PEM file that is skipped).
    static func trustRootDirectory(count: Int) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-roots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for index in 0..<count {
            let root = try TestAttestationCA(name: "root \(index)").root
            try Data(pem(root).utf8).write(to: directory.appendingPathComponent("root\(index).pem"))
        }
        try Data("not a certificate".utf8).write(to: directory.appendingPathComponent("README.txt"))
        return directory.path
    }

    static func pem(_ certificate: Certificate) -> String {
        let base64 = Data(certificate.derEncoded).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }

    @Test("defaults: only the database URL is required")
    func defaults() throws {
        let settings = try Settings(Self.environment())
        #expect(settings.host == "127.0.0.1" && settings.port == 8080)
        #expect(settings.poolSize == 8)
        #expect(settings.relyingParty.id == "localhost" && settings.relyingParty.name == "passkeyd")
        #expect(settings.relyingParty.allowedOrigins == ["http://localhost:8080"])
        #expect(settings.relyingParty.userVerification == .required)
        #expect(settings.relyingParty.challengeTimeout == .seconds(300))
        #expect(settings.relyingParty.algorithms == .default)
        #expect(settings.relyingParty.attestation.requirement == .anyVerified)
        #expect(settings.relyingParty.attestation.conveyance == "none")
        #expect(settings.relyingParty.attestation.trustAnchors.isEmpty)
        #expect(settings.apiKeys.isEmpty && settings.adminKeys.isEmpty)
        #expect(settings.logLevel == .info)
        #expect(settings.metricsEnabled)
        #expect(settings.warnings.isEmpty)
        #expect(Self.error([:], without: ["PASSKEYD_DATABASE_URL"])?.variable == "PASSKEYD_DATABASE_URL")
    }

    @Test("every variable is read")
    func everything() throws {
        let roots = try Self.trustRootDirectory(count: 2)
        let settings = try Settings(
            Self.environment([
                "PASSKEYD_LISTEN": "[::]:9090", "PASSKEYD_POOL_SIZE": "20", "PASSKEYD_DB_BATCH_LANES": "10", "PASSKEYD_DB_GENERIC_PLANS": "on", "PASSKEYD_RP_ID": "example.com",
                "PASSKEYD_RP_NAME": "Example", "PASSKEYD_USER_VERIFICATION": "preferred-unsafe", "PASSKEYD_CHALLENGE_TTL": "600",
                "PASSKEYD_ORIGINS": "https://example.com, https://login.example.com:8443,android:apk-key-hash:AbC-_1,ios:bundle-id:com.example.app",
                "PASSKEYD_API_KEYS": "api-key-aaaaaaaaaaaaaaaa,api-key-bbbbbbbbbbbbbbbb", "PASSKEYD_ADMIN_KEYS": "admin-key-cccccccccccccccc",
                "PASSKEYD_LOG_LEVEL": "DEBUG", "PASSKEYD_ALGORITHMS": "EdDSA, es256 ,PS256,ES384,ES512,RS256",
                "PASSKEYD_ATTESTATION": "trusted-required", "PASSKEYD_TRUST_ROOTS_PACKED": roots,
                "PASSKEYD_TRUST_ROOTS_FIDO_U2F": roots + "/root0.pem", "PASSKEYD_ATTESTATION_CONVEYANCE": "enterprise",
                "PASSKEYD_METRICS": "off", "PASSKEYD_PG_PORT": "25432",
            ]))
        #expect(settings.host == "::" && settings.port == 9090)
        #expect(settings.poolSize == 20 && settings.batchLanes == 10 && settings.poolConfiguration.forceGenericPlans)
        #expect(settings.relyingParty.id == "example.com" && settings.relyingParty.name == "Example")
        #expect(settings.relyingParty.allowedOrigins.count == 4)
        #expect(settings.relyingParty.allowedOrigins.contains("android:apk-key-hash:AbC-_1"))
        #expect(settings.relyingParty.userVerification == .preferredUnsafe)
        #expect(settings.relyingParty.challengeTimeout == .seconds(600))
        #expect(settings.relyingParty.algorithms.algorithms == [.edDSA, .es256, .ps256, .es384, .es512, .rs256])
        let attestation = settings.relyingParty.attestation
        #expect(attestation.requirement == .trustedRequired && attestation.conveyance == "enterprise")
        #expect(attestation.trustAnchors["packed"]?.certificates.count == 2)
        #expect(attestation.trustAnchors["fido-u2f"]?.certificates.count == 1)
        #expect(settings.apiKeys.count == 2 && settings.adminKeys == ["admin-key-cccccccccccccccc"])
        #expect(settings.http.adminKeys == settings.adminKeys && settings.http.apiKeys == settings.apiKeys)
        #expect(settings.logLevel == .debug)
        #expect(!settings.metricsEnabled)
        #expect(settings.warnings.isEmpty, "\(settings.warnings)")
    }

    @Test(
        "an invalid value is an error naming its variable",
        arguments: [
            ("PASSKEYD_LISTEN", "8080"), ("PASSKEYD_LISTEN", "0.0.0.0:99999"), ("PASSKEYD_LISTEN", ":8080"),
            ("PASSKEYD_DATABASE_URL", "localhost"), ("PASSKEYD_POOL_SIZE", "0"), ("PASSKEYD_POOL_SIZE", "eight"),
            ("PASSKEYD_DB_BATCH_LANES", "5"), ("PASSKEYD_DB_BATCH_LANES", "-1"), ("PASSKEYD_DB_GENERIC_PLANS", "sometimes"),
            ("PASSKEYD_MIGRATIONS", "/nonexistent/migrations"), ("PASSKEYD_RP_ID", "https://example.com"),
            ("PASSKEYD_RP_ID", "Example.com"), ("PASSKEYD_RP_ID", "example.com:443"), ("PASSKEYD_ORIGINS", "https://localhost/"),
            ("PASSKEYD_ORIGINS", "https://localhost:443"), ("PASSKEYD_ORIGINS", "HTTPS://LOCALHOST"), ("PASSKEYD_ORIGINS", "localhost"),
            ("PASSKEYD_USER_VERIFICATION", "preferred"), ("PASSKEYD_CHALLENGE_TTL", "10"), ("PASSKEYD_LOG_LEVEL", "verbose"),
            ("PASSKEYD_ALGORITHMS", "ES256,XYZ"), ("PASSKEYD_ALGORITHMS", "ES256,RS1"), ("PASSKEYD_ALGORITHMS", "ES256,es256"),
            ("PASSKEYD_ALGORITHMS", ","), ("PASSKEYD_ATTESTATION", "strict"), ("PASSKEYD_ATTESTATION", "trusted-required"),
            ("PASSKEYD_ATTESTATION_CONVEYANCE", "always"), ("PASSKEYD_METRICS", "maybe"), ("PASSKEYD_TRUST_ROOTS_NONE", "/tmp"),
            ("PASSKEYD_TRUST_ROOTS_PACKED", "/nonexistent/roots.pem"), ("PASSKEYD_TRUST_ROOTS_PACKED", "/tmp/../proc/version"),
        ])
    func invalid(variable: String, value: String) {
        let error = Self.error([variable: value])
        #expect(error?.variable == variable, "\(variable)=\(value): \(error.map(String.init(describing:)) ?? "accepted")")
        #expect(error.map { !$0.problem.isEmpty } == true)
    }

    @Test("keys and the database URL never appear in errors or warnings")
    func secretsStaySecret() throws {
        let hidden = "hunter2-secret-value"
        for (variable, value) in [
            ("PASSKEYD_API_KEYS", "good-key-000000000000,\(hidden)\u{7}"), ("PASSKEYD_ADMIN_KEYS", "\(hidden) two"),
            ("PASSKEYD_DATABASE_URL", hidden),
        ] {
            let error = try #require(Self.error([variable: value]))
            #expect(error.variable == variable)
            #expect(!error.description.contains("hunter2"), "\(error)")
        }
        let shared = try #require(Self.error(["PASSKEYD_API_KEYS": "\(hidden)-shared", "PASSKEYD_ADMIN_KEYS": "\(hidden)-shared"]))
        #expect(shared.variable == "PASSKEYD_ADMIN_KEYS" && !shared.description.contains("hunter2"))
        let short = try Settings(Self.environment(["PASSKEYD_API_KEYS": "short1,short2", "PASSKEYD_ADMIN_KEYS": "tiny"]))
        #expect(short.warnings.count == 3)
        #expect(!short.warnings.joined().contains("short1") && !short.warnings.joined().contains("tiny"))
    }

    @Test("RS1 only under its unsafe name; the default is ES256, EdDSA, RS256")
    func algorithms() throws {
        let rs1 = try Settings(Self.environment(["PASSKEYD_ALGORITHMS": "ES256,RS1-unsafe"]))
        #expect(rs1.relyingParty.algorithms.algorithms == [.es256, .rs1])
        #expect(try Settings(Self.environment()).relyingParty.algorithms.algorithms == [.es256, .edDSA, .rs256])
    }

    @Test("trusted-required needs roots and asks for direct attestation by default; none contradicts it")
    func attestationPolicy() throws {
        let roots = try Self.trustRootDirectory(count: 1)
        let settings = try Settings(Self.environment(["PASSKEYD_ATTESTATION": "trusted-required", "PASSKEYD_TRUST_ROOTS_PACKED": roots]))
        #expect(settings.relyingParty.attestation.conveyance == "direct")
        let contradiction = Self.error([
            "PASSKEYD_ATTESTATION": "trusted-required", "PASSKEYD_TRUST_ROOTS_PACKED": roots, "PASSKEYD_ATTESTATION_CONVEYANCE": "none",
        ])
        #expect(contradiction?.variable == "PASSKEYD_ATTESTATION_CONVEYANCE")
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(Self.error(["PASSKEYD_TRUST_ROOTS_FIDO_U2F": empty.path])?.variable == "PASSKEYD_TRUST_ROOTS_FIDO_U2F")
        // any-verified with roots: accepted (roots record which attestations are trusted).
        #expect(try Settings(Self.environment(["PASSKEYD_TRUST_ROOTS_PACKED": roots])).relyingParty.attestation.trustAnchors.count == 1)
    }

    @Test("tpm, android-key and apple take their own trust roots (PASSKEYD_TRUST_ROOTS_TPM / _ANDROID_KEY / _APPLE)")
    func formatTrustRoots() throws {
        let roots = try Self.trustRootDirectory(count: 1)
        let settings = try Settings(Self.environment([
            "PASSKEYD_ATTESTATION": "trusted-required", "PASSKEYD_TRUST_ROOTS_TPM": roots,
            "PASSKEYD_TRUST_ROOTS_ANDROID_KEY": roots, "PASSKEYD_TRUST_ROOTS_APPLE": roots,
        ]))
        #expect(Set(settings.relyingParty.attestation.trustAnchors.keys) == ["tpm", "android-key", "apple"])
        #expect(settings.relyingParty.attestation.allowTestTPMManufacturersUnsafe == false)
        #expect(settings.relyingParty.attestation.androidKeyAllowSoftwareEnforcedUnsafe == false)
    }

    @Test("PASSKEYD_ATTESTATION: none / any-verified / self-ok / trusted-required; self-ok and trusted-required need roots")
    func attestationRequirements() throws {
        #expect(try Settings(Self.environment(["PASSKEYD_ATTESTATION": "none"])).relyingParty.attestation.requirement == .anyVerified)
        #expect(Self.error(["PASSKEYD_ATTESTATION": "self-ok"])?.variable == "PASSKEYD_ATTESTATION")
        #expect(Self.error(["PASSKEYD_ATTESTATION": "paranoid"])?.variable == "PASSKEYD_ATTESTATION")
        let roots = try Self.trustRootDirectory(count: 1)
        let selfOK = try Settings(Self.environment(["PASSKEYD_ATTESTATION": "self-ok", "PASSKEYD_TRUST_ROOTS_ANDROID_SAFETYNET": roots]))
        #expect(selfOK.relyingParty.attestation.requirement == .selfOrTrusted)
        #expect(selfOK.relyingParty.attestation.conveyance == "direct", "self-ok refuses none, so it asks for an attestation")
        #expect(Array(selfOK.relyingParty.attestation.trustAnchors.keys) == ["android-safetynet"])
    }

    @Test("AAGUID allow- and deny-lists: UUIDs, the deny-list wins, an allow-list under any-verified is a warning")
    func aaguidLists() throws {
        let a = "ee882879-721c-4913-9775-3dfcce97072a", b = "fbfc3007-154e-4ecc-8c0b-6e020557d7bd"
        let settings = try Settings(Self.environment(["PASSKEYD_AAGUID_ALLOW": "\(a),\(b)", "PASSKEYD_AAGUID_DENY": b]))
        #expect(settings.relyingParty.attestation.aaguidAllowList == Set([AAGUID(a)!, AAGUID(b)!]))
        #expect(settings.relyingParty.attestation.aaguidDenyList == [AAGUID(b)!])
        #expect(settings.warnings.contains { $0.contains("PASSKEYD_AAGUID_ALLOW") && $0.contains("any-verified") })
        #expect(settings.warnings.contains { $0.contains("deny-list wins") })
        #expect(Self.error(["PASSKEYD_AAGUID_DENY": "not-a-uuid"])?.variable == "PASSKEYD_AAGUID_DENY")
        #expect(try Settings(Self.environment()).relyingParty.attestation.aaguidAllowList == nil)
    }

    @Test("PASSKEYD_MDS_BLOB + PASSKEYD_MDS_ROOT: a verified BLOB becomes the metadata index; a tampered one stops the start")
    func metadataBLOB() throws {
        let mds = try TestMetadataService()
        let aaguid = AAGUID("ee882879-721c-4913-9775-3dfcce97072a")!
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-mds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let blob = directory.appendingPathComponent("blob.jwt"), tampered = directory.appendingPathComponent("tampered.jwt")
        let root = directory.appendingPathComponent("root.pem")
        try Data(try mds.blob(entries: [.init(aaguid: aaguid)], number: 7)).write(to: blob)
        try Data(try mds.blob(entries: [.init(aaguid: aaguid)], number: 7, corruptSignature: true)).write(to: tampered)
        try Data(Self.pem(mds.root.root).utf8).write(to: root)

        let settings = try Settings(Self.environment([
            "PASSKEYD_ATTESTATION": "trusted-required", "PASSKEYD_MDS_BLOB": blob.path, "PASSKEYD_MDS_ROOT": root.path,
            "PASSKEYD_MDS_REFUSED_STATUSES": "REVOKED,UPDATE_AVAILABLE,MADE_UP",
        ]))
        let metadata = try #require(settings.relyingParty.attestation.metadata, "trusted-required is satisfied by metadata alone")
        #expect(metadata.serialNumber == 7 && metadata.entries.count == 1)
        #expect(settings.metadataSource == Settings.MetadataSource(blobPath: blob.path, rootPEMPaths: [root.path]))
        #expect(settings.relyingParty.attestation.refusedStatuses == [.revoked, .updateAvailable, AuthenticatorStatus("MADE_UP")])
        #expect(settings.warnings.contains { $0.contains("MADE_UP is not an MDS3 status") })

        let refused = Self.error(["PASSKEYD_MDS_BLOB": tampered.path, "PASSKEYD_MDS_ROOT": root.path])
        #expect(refused?.variable == "PASSKEYD_MDS_BLOB" && refused?.problem.contains("metadata_signature_invalid") == true, "\(String(describing: refused))")
        let otherRoot = try Self.trustRootDirectory(count: 1)
        let untrusted = Self.error(["PASSKEYD_MDS_BLOB": blob.path, "PASSKEYD_MDS_ROOT": otherRoot + "/root0.pem"])
        #expect(untrusted?.variable == "PASSKEYD_MDS_BLOB" && untrusted?.problem.contains("metadata_untrusted") == true, "\(String(describing: untrusted))")
        #expect(Self.error(["PASSKEYD_MDS_BLOB": blob.path])?.variable == "PASSKEYD_MDS_BLOB", "a BLOB without its root")
        #expect(Self.error(["PASSKEYD_MDS_ROOT": root.path])?.variable == "PASSKEYD_MDS_ROOT", "a root without a BLOB")
    }

    @Test("unknown PASSKEYD_ variables and suspicious origins are warnings")
    func warnings() throws {
        let settings = try Settings(
            Self.environment([
                "PASSKEYD_API_KEY": "x", "PASSKEYD_TEST_DATABASE_URL": "x", "PASSKEYD_PG_PORT": "1",
                "PASSKEYD_RP_ID": "example.com", "PASSKEYD_ORIGINS": "https://example.org,http://app.example.com",
            ]))
        #expect(settings.warnings.count == 3, "\(settings.warnings)")
        #expect(settings.warnings.contains { $0.contains("PASSKEYD_API_KEY:") && $0.contains("did you mean PASSKEYD_API_KEYS") })
    }

    @Test("a config file: KEY=VALUE lines under the real environment")
    func configFile() throws {
        let text = """
            # passkeyd settings
            PASSKEYD_RP_ID=example.com
            export PASSKEYD_ORIGINS="https://example.com"
            PASSKEYD_LOG_LEVEL='warning'
            PASSKEYD_POOL_SIZE = 4

            OTHER_TOOL=1
            """
        let (values, warnings) = try Settings.parseEnvironmentFile(text, path: "test.env")
        #expect(values == [
            "PASSKEYD_RP_ID": "example.com", "PASSKEYD_ORIGINS": "https://example.com", "PASSKEYD_LOG_LEVEL": "warning",
            "PASSKEYD_POOL_SIZE": "4",
        ])
        #expect(warnings.count == 1 && warnings[0].contains("line 7"))
        #expect(throws: ConfigurationError.self) { try Settings.parseEnvironmentFile("PASSKEYD_RP_ID", path: "x") }
        #expect(throws: ConfigurationError.self) { try Settings.parseEnvironmentFile("A=1\nA=2", path: "x") }

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-\(UUID().uuidString).env")
        try Data(text.utf8).write(to: file)
        let settings = try Settings.load(environment: Self.environment(["PASSKEYD_CONFIG_FILE": file.path, "PASSKEYD_POOL_SIZE": "6"]))
        #expect(settings.relyingParty.id == "example.com")
        #expect(settings.logLevel == .warning)
        #expect(settings.poolSize == 6, "the environment wins over the file")
        let missing = Self.environment(["PASSKEYD_CONFIG_FILE": "/nonexistent/passkeyd.env"])
        #expect(throws: ConfigurationError("PASSKEYD_CONFIG_FILE", "cannot read /nonexistent/passkeyd.env as UTF-8 text")) {
            try Settings.load(environment: missing)
        }
    }
}
