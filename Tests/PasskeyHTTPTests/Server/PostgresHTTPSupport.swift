import PasskeyApp
import Foundation
import Hummingbird
import HummingbirdTesting
import LibPQ
import Logging
import Metrics
import COSECrypto
import SessionCore
import IdentityCore
import NIOPosix
import PasskeyHTTP
import PasskeyStore
import PasskeyStorePostgres
import PostgresTestSupport
import Synchronization
import Testing
import WebAuthnCore
import WebAuthnModel

// Support for the "HTTP on PostgreSQL" suite: a fresh, migrated schema per test (reached through a connection
// string whose `options` set the search_path, dropped afterwards), service instances built on it (each with its
// own thread pool, PGPool, store, CeremonyService and Application), direct queries against the schema, and a
// private cluster for the restart test. The helpers of HTTPFlowTests.swift (Flow, Reply, post/send)
// are reused as they are: the relying party here has the same RP ID and origin as `Harness`.

enum PostgresHTTP {
    /// The shared test database (`scripts/dev.sh test` always sets it).
    static let databaseURL = TestDatabase.url
    static let skipReason: Comment = "PASSKEYD_TEST_DATABASE_URL is not set (scripts/postgres.sh start; scripts/postgres.sh url)"

    static let repository = TestDatabase.repository
    static let migrations = TestDatabase.migrations

    /// The relying party `Flow` expects (same RP ID and origin as `Harness`).
    static func relyingParty(challengeTimeout: Duration = .seconds(300)) -> RelyingParty {
        var rp = RelyingParty(id: "http.passkeyd.test", name: "passkeyd", allowedOrigins: [Harness.origin])
        rp.challengeTimeout = challengeTimeout
        return rp
    }

    static let adminKey = "test-admin-key"
    static let adminAuth: HTTPFields = [.authorization: "Bearer \(adminKey)"]

    /// `url` with `search_path` set to `schema` (URI or keyword/value form).
    static func url(_ base: String, searchPath schema: String) -> String { TestDatabase.url(base, searchPath: schema) }
}

/// One test's migrated schema (PostgresTestSupport).
typealias HTTPTestSchema = TestSchema

/// Blocking work off the cooperative threads (PostgresTestSupport).
func pgHTTPOffload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T { try await pgOffload(body) }

/// One passkeyd instance on a schema: its own thread pool, PGPool, PostgresPasskeyStore, CeremonyService (with
/// its own public-key cache) and Application, as a separately deployed process would have.
struct PostgresHTTPInstance: Sendable {
    let threadPool: NIOThreadPool
    let pool: PGPool
    let store: PostgresPasskeyStore
    let clock: RealTimeClock
    let app: Application<RouterResponder<PasskeyRequestContext>>

    init(
        url: String, poolSize: Int = 4, relyingParty: RelyingParty = PostgresHTTP.relyingParty(),
        configuration: HTTPConfiguration = HTTPConfiguration(), caps: CeremonyCaps = .none, logger: Logger? = nil,
        identityProviders: [IdentityProvider]? = nil, identitySessionTimeout: TimeInterval = 300,
        appleCodeExchange: (@Sendable (PostgresPasskeyStore) -> AppleCodeExchange)? = nil,
        sessionPolicy: SessionPolicy? = nil, pendingUpgradesPerUser: Int = 3, now: (@Sendable () -> Date)? = nil
    ) {
        threadPool = NIOThreadPool(numberOfThreads: poolSize)
        threadPool.start()
        pool = PGPool(url: url, size: poolSize, threadPool: threadPool)
        // As the executable runs it by default: authentication finishes and uncapped begins in batches on two lanes each.
        store = PostgresPasskeyStore(pool: pool, caps: caps, batchLanes: 2)
        let clock = RealTimeClock()
        self.clock = clock
        // The service clock: real time plus the offset the test moves, or a clock the test sets outright.
        let now: @Sendable () -> Date = now ?? { clock.now }
        var service = CeremonyService(relyingParty: relyingParty, store: store, now: now)
        service.pendingUpgradesPerUser = pendingUpgradesPerUser
        let identity = identityProviders.map { [store] providers in
            IdentityService(
                providers: providers, ceremonies: store, identities: store, sessionTimeout: identitySessionTimeout,
                appleCodeExchange: appleCodeExchange?(store), now: now)
        }
        let sessions = sessionPolicy.map { [store] policy in
            var quiet = Logger(label: "pg-sessions")
            quiet.logLevel = .critical
            let keys = SessionKeys(
                source: .database(keyEncryptionKey: SecureRandom.bytes(count: 32), rotationInterval: 86_400), store: store, policy: policy,
                logger: quiet, now: now)
            return SessionService(policy: policy, store: store, keys: keys, logger: quiet, metricsFactory: configuration.metricsFactory ?? NOOPMetricsHandler.instance, now: now)
        }
        app = Application(
            router: buildRouter(service: service, identity: identity, sessions: sessions, configuration: configuration), logger: logger)
    }

    func shutdown() async {
        await pool.shutdown()
        try? await threadPool.shutdownGracefully()
    }
}

/// Creates a fresh schema on `baseURL` (the test database by default) and an instance on it, runs `body`, and
/// shuts the instance down and drops the schema whether `body` succeeds or not.
func withPostgresHTTP<T>(
    baseURL: String? = PostgresHTTP.databaseURL, poolSize: Int = 4,
    relyingParty: RelyingParty = PostgresHTTP.relyingParty(), configuration: HTTPConfiguration = HTTPConfiguration(),
    caps: CeremonyCaps = .none, _ body: (HTTPTestSchema, PostgresHTTPInstance) async throws -> T
) async throws -> T {
    guard let baseURL else { throw PGError(code: .invalidArgument, message: "PASSKEYD_TEST_DATABASE_URL is not set") }
    let schema = try await HTTPTestSchema.create(baseURL: baseURL)
    let instance = PostgresHTTPInstance(
        url: schema.url, poolSize: poolSize, relyingParty: relyingParty, configuration: configuration, caps: caps)
    do {
        let value = try await body(schema, instance)
        await instance.shutdown()
        await schema.drop()
        return value
    } catch {
        await instance.shutdown()
        await schema.drop()
        throw error
    }
}

/// The service clock: real time (as the database's `now()` is) plus an offset a test can move.
final class RealTimeClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)
    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }
    func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}

func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: .min ... .max) } }

/// A value shared between tasks.
final class PGHTTPBox<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value { mutex.withLock { $0 } }
    func update(_ body: (inout Value) -> Void) { mutex.withLock { body(&$0) } }
}

extension TestClientProtocol {
    func get(_ path: String, headers: HTTPFields = [:]) async throws -> Reply {
        try await send(.get, path, headers: headers)
    }
}

