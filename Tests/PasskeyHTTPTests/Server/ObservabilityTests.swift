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
import SealedState
import Synchronization
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport
import PasskeyBuildInfo
import SettingsTestSupport

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
    func userWithCredentials(_ lookup: UserLookup) async throws(StoreError) -> UserWithCredentials? { throw error }
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
    func finishSealedAuthentication<Outcome: Sendable>(
        consumed: ConsumedFingerprint, credentialID: [UInt8],
        verify: @escaping @Sendable (AuthenticationLookup) -> (outcome: Outcome, update: CredentialUpdate?)
    ) async throws(StoreError) -> (lookup: AuthenticationLookup, outcome: Outcome, applied: CredentialUpdateResult?) { throw error }
    func consumeChallenge(_ consumed: ConsumedFingerprint) async throws(StoreError) -> Bool { throw error }
    func finishSealedRegistration<Outcome: Sendable>(
        consumed: ConsumedFingerprint, nickname: String?, intent: RegistrationIntent, audit: AuditContext,
        verify: @escaping @Sendable () -> (outcome: Outcome, registration: VerifiedRegistration?)
    ) async throws(StoreError) -> (outcome: Outcome, stored: (user: StoredUser, credential: StoredCredential)?) { throw error }
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
        presented: [UInt8], replacement: [UInt8], now: Date, idleLifetime: TimeInterval, audit: AuditContext
    ) async throws(StoreError) -> RefreshRotation { throw error }
    func session(id: [UInt8]) async throws(StoreError) -> StoredSession? { throw error }
    func sessions(ofUser handle: [UInt8]) async throws(StoreError) -> [StoredSession] { throw error }
    func revokeSession(
        id: [UInt8], ofUser handle: [UInt8]?, reason: SessionRevocationReason, now: Date, audit: AuditContext
    ) async throws(StoreError) -> Bool {
        throw error
    }
    func revokeSession(
        refreshHash: [UInt8], reason: SessionRevocationReason, now: Date, audit: AuditContext
    ) async throws(StoreError) -> StoredSession? {
        throw error
    }
    func revokeSessions(
        ofUser handle: [UInt8], reason: SessionRevocationReason, now: Date, audit: AuditContext
    ) async throws(StoreError) -> Int { throw error }
    func saveHandoff(_ handoff: StoredHandoff) async throws(StoreError) -> Bool { throw error }
    func takeHandoff(codeHash: [UInt8]) async throws(StoreError) -> StoredHandoff? { throw error }
    func purgeSessions(before: Date) async throws(StoreError) -> Int { throw error }
    func signingKeys() async throws(StoreError) -> [StoredSigningKey] { throw error }
    func addSigningKey(
        _ key: StoredSigningKey, unlessCreatedAfter: Date, retiredKeyLifetime: TimeInterval
    ) async throws(StoreError) -> Bool { throw error }
    func purgeSigningKeys(before: Date) async throws(StoreError) -> Int { throw error }
    func saveTransaction(
        _ transaction: AppStoreTransaction, forUser handle: [UInt8], audit: AuditContext
    ) async throws(StoreError) -> AppStoreSaveOutcome {
        throw error
    }
    func saveRenewalInfo(_ renewal: AppStoreRenewalInfo) async throws(StoreError) -> [UInt8]? { throw error }
    func applyNotification(
        _ notification: AppStoreNotification, audit: AuditContext
    ) async throws(StoreError) -> AppStoreNotificationOutcome { throw error }
    func appStoreRecords(ofUser handle: [UInt8]) async throws(StoreError) -> AppStoreRecords? { throw error }
    func purgeAppStoreNotifications(before: Date) async throws(StoreError) -> Int { throw error }
    func saveAppAttestKey(
        _ key: AttestedAppAttestKey, userHandle: [UInt8]?, audit: AuditContext
    ) async throws(StoreError) -> AppAttestKeySave { throw error }
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
            #expect(text.contains("# TYPE passkeyd_build_info gauge"))
            #expect(text.contains(#"passkeyd_build_info{version="\#(BuildInfo.version)",revision="\#(BuildInfo.revision)"} 1"#))
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

/// The settings' helpers for the HTTP tests (the settings' own tests are in PasskeySettingsTests), and what the HTTP
/// layer receives from them.
@Suite("Observability: settings onto HTTP")
struct ObservabilitySettingsTests {
    static func environment(_ extra: [String: String] = [:]) -> [String: String] { SettingsFixtures.environment(extra) }

    @Test("the HTTP layer gets the configured keys, switches, limits and self-service rules")
    func http() throws {
        let settings = try Settings(Self.environment([
            "PASSKEYD_API_KEYS": "api-key-aaaaaaaaaaaaaaaa,api-key-bbbbbbbbbbbbbbbb", "PASSKEYD_ADMIN_KEYS": "admin-key-cccccccccccccccc",
            "PASSKEYD_DEMO": "on", "PASSKEYD_FIDO_CONFORMANCE": "on", "PASSKEYD_RATE_LIMIT_CLIENT": "5/s:7", "PASSKEYD_REAUTHENTICATION_WINDOW": "60",
            "PASSKEYD_LARGE_BLOB_MAX_BYTES": "1024",
        ]))
        let http = settings.http
        #expect(http.adminKeys == settings.adminKeys && http.apiKeys == settings.apiKeys && http.apiKeys.count == 2)
        #expect(http.demoPage && http.conformanceBinding)
        #expect(http.rateLimits.perClient == RateLimit(perSecond: 5, burst: 7) && http.rateLimits.perUser == RateLimit(perSecond: 1, burst: 10))
        #expect(http.selfService.reauthenticationWindow == .seconds(60) && http.extensionLimits.largeBlobMaxBytes == 1024)
    }
}
