import PasskeyApp
import Foundation
import Hummingbird
import HummingbirdTesting
import LibPQ
import Logging
import Metrics
import IdentityCore
import NIOPosix
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import PasskeyStorePostgres
import PostgresTestSupport
import Synchronization
import Testing
import WebAuthnCore
import WebAuthnModel

// Support for the "HTTP on PostgreSQL" suite: a fresh, migrated schema per test (reached through a connection
// string whose `options` set the search_path, dropped afterwards), service instances built on it (each with its
// own thread pool, PGPool and store, the rest wired by buildApplication), direct queries against the schema, and a
// private cluster for the restart test. The helpers of HTTPFlowTests.swift (Flow, Reply, post/send)
// are reused as they are: the relying party here is `Harness`'s (TestPasskeyd.baseEnvironment).

enum PostgresHTTP {
    /// The shared test database (`scripts/dev.sh test` always sets it).
    static let databaseURL = TestDatabase.url
    static let skipReason: Comment = "PASSKEYD_TEST_DATABASE_URL is not set (scripts/postgres.sh start; scripts/postgres.sh url)"

    static let repository = TestDatabase.repository
    static let migrations = TestDatabase.migrations

    static let adminKey = "test-admin-key"
    static let adminAuth: HTTPFields = [.authorization: "Bearer \(adminKey)"]

    /// `url` with `search_path` set to `schema` (URI or keyword/value form).
    static func url(_ base: String, searchPath schema: String) -> String { TestDatabase.url(base, searchPath: schema) }
}

/// One test's migrated schema (PostgresTestSupport).
typealias HTTPTestSchema = TestSchema

/// Blocking work off the cooperative threads (PostgresTestSupport).
func pgHTTPOffload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T { try await pgOffload(body) }

/// One passkeyd instance on a schema, as a separately deployed process would have: its own thread pool, PGPool and
/// PostgresPasskeyStore (bounded by the settings' pending-ceremony caps, batched as the executable runs it), and the
/// rest wired by `buildApplication` from `settings` (``TestPasskeyd``), so each instance has its own use cases and
/// public-key cache.
struct PostgresHTTPInstance: Sendable {
    let threadPool: NIOThreadPool
    let pool: PGPool
    let store: PostgresPasskeyStore
    let clock: RealTimeClock
    let passkeyd: PasskeydApplication
    var app: Application<RouterResponder<PasskeyRequestContext>> { passkeyd.http }

    /// - Parameters:
    ///   - settings: ``TestPasskeyd/settings(_:)`` (their database URL is not used: `url` is).
    ///   - boundedPool: the pool with the settings' bounds (`PASSKEYD_DB_*`), as the executable's; otherwise unbounded.
    ///   - batchLanes: the store's batch lanes (0: every statement on its own lease).
    ///   - now: the service clock; nil = real time plus the offset ``clock`` moves.
    init(
        url: String, settings: Settings, poolSize: Int = 4, boundedPool: Bool = false, batchLanes: Int = 2,
        logger: Logger = TestPasskeyd.quietLogger,
        metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance,
        providerKeys: (@Sendable (IdentitySettings.Provider) throws -> any ProviderKeySource)? = nil, now: (@Sendable () -> Date)? = nil
    ) async throws {
        threadPool = NIOThreadPool(numberOfThreads: poolSize)
        threadPool.start()
        pool = PGPool(url: url, size: poolSize, threadPool: threadPool, configuration: boundedPool ? settings.poolConfiguration : .init())
        // By default as the executable runs it: authentication finishes and uncapped begins in batches on two lanes each.
        store = PostgresPasskeyStore(
            pool: pool, caps: settings.ceremonyCaps, revokeSessionsOnDelete: settings.sessions?.revokeOnDelete ?? true,
            batchLanes: batchLanes)
        let clock = RealTimeClock()
        self.clock = clock
        // The service clock: real time plus the offset the test moves, or a clock the test sets outright.
        let store = self.store
        do {
            passkeyd = try await TestPasskeyd.build(
                settings, store: store, now: now ?? { clock.now }, metricsFactory: metricsFactory, providerKeys: providerKeys,
                ceremonyCount: { try await store.refreshCeremonyCount() }, logger: logger)
        } catch {
            await pool.shutdown()
            try? await threadPool.shutdownGracefully()
            throw error
        }
    }

    /// Closes what the instance opened (its providers' HTTP client), then the pool.
    func shutdown() async {
        await passkeyd.shutdown()
        await pool.shutdown()
        try? await threadPool.shutdownGracefully()
    }
}

/// Creates a fresh schema on `baseURL` (the test database by default) and an instance on it with the settings of
/// `environment` (``TestPasskeyd/unboundedSettings(_:)``), runs `body`, and shuts the instance down and drops the
/// schema whether `body` succeeds or not.
func withPostgresHTTP<T>(
    baseURL: String? = PostgresHTTP.databaseURL, poolSize: Int = 4, environment: [String: String] = [:],
    _ body: (HTTPTestSchema, PostgresHTTPInstance) async throws -> T
) async throws -> T {
    guard let baseURL else { throw PGError(code: .invalidArgument, message: "PASSKEYD_TEST_DATABASE_URL is not set") }
    let settings = try TestPasskeyd.unboundedSettings(environment)
    let schema = try await HTTPTestSchema.create(baseURL: baseURL)
    let instance: PostgresHTTPInstance
    do {
        instance = try await PostgresHTTPInstance(url: schema.url, settings: settings, poolSize: poolSize)
    } catch {
        await schema.drop()
        throw error
    }
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

