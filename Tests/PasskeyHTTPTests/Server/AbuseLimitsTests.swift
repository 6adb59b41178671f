import PasskeyApp
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import Synchronization
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// A monotonic nanosecond clock tests move by hand.
final class NanoClock: Sendable {
    private let value = Mutex<UInt64>(1_000_000_000)
    var now: UInt64 { value.withLock { $0 } }
    func advance(seconds: Double) { value.withLock { $0 += UInt64(seconds * 1e9) } }
}

@Suite("Abuse limits: rate limits and pending-ceremony caps")
struct AbuseLimitsTests {
    /// An instance with `environment` over ``TestPasskeyd/unbounded`` (no limits but the ones a test sets).
    static func app(
        _ environment: [String: String] = [:], metrics: Bool = false
    ) async throws -> Application<RouterResponder<PasskeyRequestContext>> {
        let settings = try TestPasskeyd.unboundedSettings(environment)
        let exporter: (@Sendable () -> [UInt8])? = metrics ? { @Sendable in Array("# empty\n".utf8) } : nil
        return try await TestPasskeyd.build(settings, store: TestPasskeyd.store(for: settings), metricsExporter: exporter).http
    }

    static func begin(_ client: some TestClientProtocol, _ body: String, headers: HTTPFields = [:]) async throws -> (Reply, String?) {
        try await client.execute(uri: "/v1/authentication/begin", method: .post, headers: headers, body: ByteBuffer(string: body)) { response in
            (Reply(status: Int(response.status.code), body: Array(response.body.readableBytesView)), response.headers[.retryAfter])
        }
    }

    static func forwarded(_ client: some TestClientProtocol, _ chain: String) async throws -> Int {
        var headers = HTTPFields()
        headers[HTTPField.Name("X-Forwarded-For")!] = chain
        return try await begin(client, "{}", headers: headers).0.status
    }

    @Test("a bucket allows its burst, then one request per 1/rate seconds, and says how long to wait")
    func tokenBucket() {
        let clock = NanoClock()
        let buckets = TokenBuckets(limit: RateLimit(perSecond: 2, burst: 3), maxKeys: 1000, now: { clock.now })
        #expect((0..<3).map { _ in buckets.take("a") } == [nil, nil, nil])
        #expect(buckets.take("a") == 1, "empty: wait a second (rounded up)")
        #expect(buckets.take("b") == nil, "another key has its own bucket")
        clock.advance(seconds: 0.5)
        #expect(buckets.take("a") == nil, "half a second at 2/s refills one token")
        #expect(buckets.take("a") != nil)
        clock.advance(seconds: 60)
        #expect((0..<3).map { _ in buckets.take("a") } == [nil, nil, nil], "refilled to the burst, never above")
        #expect(buckets.take("a") != nil)
    }

    @Test("a flood of distinct keys keeps the limiter's memory bounded")
    func boundedKeys() {
        let clock = NanoClock()
        let buckets = TokenBuckets(limit: RateLimit(perSecond: 1, burst: 1), maxKeys: 1600, now: { clock.now })
        for index in 0..<50_000 { _ = buckets.take("10.0.\(index / 256).\(index % 256)") }
        #expect(buckets.count <= 1600, "\(buckets.count)")
        // A key that is still limited is refused while it is remembered.
        #expect(buckets.take("hot") == nil && buckets.take("hot") != nil)
    }

    @Test("per user: a third begin for one name within a minute is 429 with Retry-After; other users and {} are not held up")
    func perUser() async throws {
        try await Self.app(["PASSKEYD_RATE_LIMIT_USER": "1/min:2"]).test(.router) { client async throws in
            #expect(try await Self.begin(client, #"{"user":{"name":"alice"}}"#).0.status == 200)
            #expect(try await Self.begin(client, #"{"user":{"name":"alice"}}"#).0.status == 200)
            let (refused, retryAfter) = try await Self.begin(client, #"{"user":{"name":"alice"}}"#)
            #expect(refused.status == 429 && refused.errorCode == "rate_limited")
            #expect(retryAfter.flatMap(Int.init).map { (1...60).contains($0) } == true, "one token per minute: at most a minute: \(retryAfter ?? "-")")
            #expect(try await Self.begin(client, #"{"user":{"name":"bob"}}"#).0.status == 200)
            for _ in 0..<5 { #expect(try await Self.begin(client, "{}").0.status == 200) }
            // Registration begin shares the user's bucket (a sign-up flood of one name).
            let signUp = try await client.post("/v1/registration/begin", Array(#"{"user":{"name":"alice"}}"#.utf8))
            #expect(signUp.status == 429 && signUp.errorCode == "rate_limited")
        }
    }

    @Test("per client address: the TCP peer by default; the configured proxy header, counted from the right, when set")
    func perClient() async throws {
        let limits = ["PASSKEYD_RATE_LIMIT_CLIENT": "1/min:2", "PASSKEYD_CLIENT_ADDRESS_HEADER": "X-Forwarded-For"]
        try await Self.app(limits).test(.router) { client async throws in
            #expect(try await Self.forwarded(client, "198.51.100.1") == 200)
            #expect(try await Self.forwarded(client, "198.51.100.1") == 200)
            #expect(try await Self.forwarded(client, "198.51.100.1") == 429)
            #expect(try await Self.forwarded(client, "198.51.100.2") == 200, "another client")
            // A client cannot pick a fresh address by prepending entries: the proxy's (rightmost) entry counts.
            #expect(try await Self.forwarded(client, "203.0.113.9, 198.51.100.1") == 429)
            #expect(try await Self.forwarded(client, "203.0.113.10, 198.51.100.1") == 429)
        }
        // Without the header configured, the header is ignored (in-process tests have no peer: one shared bucket).
        let peerOnly = RateLimits(perClient: RateLimit(perSecond: 1, burst: 1), perUser: nil, admin: nil, metrics: nil)
        let limiter = RateLimiter(peerOnly)
        var spoofed = HTTPFields()
        spoofed[HTTPField.Name("X-Forwarded-For")!] = "198.51.100.7"
        let peer = try SocketAddress(ipAddress: "192.0.2.1", port: 4000)
        #expect(limiter.clientAddress(headers: spoofed, peer: peer) == "192.0.2.1")
        let twoHops = RateLimiter(RateLimits(clientAddressHeader: "X-Forwarded-For", trustedProxyHops: 2))
        var chain = HTTPFields()
        chain[HTTPField.Name("X-Forwarded-For")!] = "1.1.1.1, 198.51.100.3, 10.0.0.2"
        #expect(twoHops.clientAddress(headers: chain, peer: nil) == "198.51.100.3")
    }

    @Test("per API key; the admin API and /metrics have their own limits and never use the ceremony buckets")
    func perKeyAdminMetrics() async throws {
        let app = try await Self.app([
            "PASSKEYD_RATE_LIMIT_API_KEY": "1/min:2", "PASSKEYD_RATE_LIMIT_ADMIN": "1/min:1", "PASSKEYD_RATE_LIMIT_METRICS": "1/min:1",
            "PASSKEYD_API_KEYS": "key-one-0123456789,key-two-0123456789", "PASSKEYD_ADMIN_KEYS": "admin-0123456789abc",
        ], metrics: true)
        try await app.test(.router) { client in
            let one: HTTPFields = [.authorization: "Bearer key-one-0123456789"]
            let two: HTTPFields = [.authorization: "Bearer key-two-0123456789"]
            #expect(try await Self.begin(client, "{}", headers: one).0.status == 200)
            #expect(try await Self.begin(client, "{}", headers: one).0.status == 200)
            #expect(try await Self.begin(client, "{}", headers: one).0.status == 429)
            #expect(try await Self.begin(client, "{}", headers: two).0.status == 200, "each key has its own bucket")
            #expect(try await Self.begin(client, "{}").0.status == 401, "no key: 401, not the key's 429")

            let admin: HTTPFields = [.authorization: "Bearer admin-0123456789abc"]
            #expect(try await client.send(.get, "/v1/admin/users", headers: admin).status == 200)
            let refused = try await client.send(.get, "/v1/admin/users", headers: admin)
            #expect(refused.status == 429 && refused.errorCode == "rate_limited")
            #expect(try await Self.begin(client, "{}", headers: two).0.status == 200, "the admin bucket is not the ceremony one")

            #expect(try await client.send(.get, "/metrics").status == 200)
            let scraped = try await client.send(.get, "/metrics")
            #expect(scraped.status == 429 && scraped.errorCode == "rate_limited")
        }
    }

    @Test("pending ceremonies: a user past the per-user cap gets 429, a full table 503; nothing is saved past either")
    func ceremonyCaps() async throws {
        // Pending-ceremony caps exist only on the ceremony table (stateless begins save nothing).
        try await TestPasskeyd.$ceremonyTable.withValue(true) {
        try await Self.app(["PASSKEYD_PENDING_PER_USER": "3", "PASSKEYD_PENDING_MAX": "10"]).test(.router) { client in
            for _ in 0..<3 { #expect(try await Self.begin(client, #"{"user":{"name":"alice"}}"#).0.status == 200) }
            let (perUser, retryAfter) = try await Self.begin(client, #"{"user":{"name":"alice"}}"#)
            #expect(perUser.status == 429 && perUser.errorCode == "too_many_pending_ceremonies" && retryAfter == "60")
            // A sign-up of the same name counts against the same name.
            let signUp = try await client.post("/v1/registration/begin", Array(#"{"user":{"name":"alice"}}"#.utf8))
            #expect(signUp.status == 429 && signUp.errorCode == "too_many_pending_ceremonies")
            // Anonymous begins stop at 90 % of the global cap (9 of 10).
            for _ in 0..<6 { #expect(try await Self.begin(client, "{}").0.status == 200) }
            let (full, wait) = try await Self.begin(client, "{}")
            #expect(full.status == 503 && full.errorCode == "ceremony_capacity_reached" && wait == "10")
        }
        }
    }

    @Test("settings: rate limits, header and proxy, caps and HTTP timeouts parse with safe defaults; bad values stop the start")
    func settings() throws {
        let base = ["PASSKEYD_DATABASE_URL": "postgresql://passkeyd@127.0.0.1/passkeyd", "PASSKEYD_MIGRATIONS": NSTemporaryDirectory()]
        let defaults = try Settings(base)
        #expect(defaults.rateLimits.perClient == nil && defaults.rateLimits.perAPIKey == nil)
        #expect(defaults.rateLimits.perUser == RateLimitSetting(perSecond: 1, burst: 10))
        #expect(defaults.rateLimits.admin != nil && defaults.rateLimits.metrics != nil && defaults.rateLimits.clientAddressHeader == nil)
        #expect(defaults.ceremonyCaps == CeremonyCaps(perSubject: 20, total: 1_000_000))
        #expect(defaults.httpServerLimits == ServerLimits(idleTimeout: .seconds(30), readTimeout: .seconds(10), maxHeaderBytes: 16384))
        #expect(defaults.http.rateLimits == RateLimits(), "the configured defaults are the HTTP layer's")

        let set = try Settings(base.merging([
            "PASSKEYD_RATE_LIMIT_CLIENT": "20/s:100", "PASSKEYD_RATE_LIMIT_USER": "off", "PASSKEYD_CLIENT_ADDRESS_HEADER": "X-Forwarded-For",
            "PASSKEYD_TRUSTED_PROXY_HOPS": "2", "PASSKEYD_PENDING_PER_USER": "0", "PASSKEYD_PENDING_MAX": "5000",
            "PASSKEYD_HTTP_IDLE_TIMEOUT": "5", "PASSKEYD_HTTP_READ_TIMEOUT": "3", "PASSKEYD_HTTP_MAX_HEADER_BYTES": "8192",
        ]) { $1 })
        #expect(set.rateLimits.perClient == RateLimitSetting(perSecond: 20, burst: 100) && set.rateLimits.perUser == nil)
        #expect(set.rateLimits.clientAddressHeader == "X-Forwarded-For" && set.rateLimits.trustedProxyHops == 2)
        #expect(set.warnings.contains { $0.hasPrefix("PASSKEYD_CLIENT_ADDRESS_HEADER") })
        #expect(set.ceremonyCaps == CeremonyCaps(perSubject: nil, total: 5000))
        #expect(set.httpServerLimits == ServerLimits(idleTimeout: .seconds(5), readTimeout: .seconds(3), maxHeaderBytes: 8192))
        for (name, value) in [("PASSKEYD_RATE_LIMIT_CLIENT", "fast"), ("PASSKEYD_RATE_LIMIT_ADMIN", "0/s"), ("PASSKEYD_CLIENT_ADDRESS_HEADER", "X Forwarded"),
                              ("PASSKEYD_TRUSTED_PROXY_HOPS", "0"), ("PASSKEYD_PENDING_MAX", "-1"), ("PASSKEYD_HTTP_IDLE_TIMEOUT", "0"),
                              ("PASSKEYD_HTTP_MAX_HEADER_BYTES", "100")] {
            #expect(throws: ConfigurationError.self, "\(name)=\(value)") { try Settings(base.merging([name: value]) { $1 }) }
        }
    }
}
