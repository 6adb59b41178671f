import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// A token bucket: `perSecond` requests sustained, up to `burst` at once. (The configuration's `RATE/s[:BURST]` text is
/// parsed and checked by PasskeySettings' `RateLimitSetting`.)
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    public var perSecond: Double
    public var burst: Int

    public init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }

    public var description: String { "\(perSecond)/s:\(burst)" }
}

/// Per-instance request limits (429 with `Retry-After` past them). Every limit is optional; see docs/operations.md,
/// "Abuse limits" for the defaults and how to size them behind N instances.
public struct RateLimits: Sendable, Hashable {
    /// Ceremony endpoints, per client address.
    public var perClient: RateLimit?
    /// Ceremony endpoints, per API key (when API keys are configured).
    public var perAPIKey: RateLimit?
    /// Begin endpoints, per user name or user id named in the request.
    public var perUser: RateLimit?
    /// The admin API, per client address (separate buckets from the ceremony endpoints).
    public var admin: RateLimit?
    /// `GET /metrics`, per client address.
    public var metrics: RateLimit?
    /// A header set by a trusted reverse proxy that carries the client's address (e.g. `X-Forwarded-For`); unset,
    /// the TCP peer's address is the client's. Honoured only when configured: then passkeyd must be reachable only
    /// through that proxy, or clients could choose their own address.
    public var clientAddressHeader: String?
    /// Which entry of a comma-separated header to take, counted from the right (1 = the one the nearest proxy
    /// appended): the number of trusted proxies in front of passkeyd.
    public var trustedProxyHops: Int
    /// How many keys (addresses, API keys, users) each limiter remembers; past it, buckets that have refilled are
    /// dropped first, then arbitrary ones (memory stays bounded under a flood of distinct keys).
    public var maxTrackedKeys: Int

    public init(
        perClient: RateLimit? = nil, perAPIKey: RateLimit? = nil, perUser: RateLimit? = RateLimit(perSecond: 1, burst: 10),
        admin: RateLimit? = RateLimit(perSecond: 20, burst: 100), metrics: RateLimit? = RateLimit(perSecond: 2, burst: 10),
        clientAddressHeader: String? = nil, trustedProxyHops: Int = 1, maxTrackedKeys: Int = 100_000
    ) {
        self.perClient = perClient
        self.perAPIKey = perAPIKey
        self.perUser = perUser
        self.admin = admin
        self.metrics = metrics
        self.clientAddressHeader = clientAddressHeader
        self.trustedProxyHops = trustedProxyHops
        self.maxTrackedKeys = maxTrackedKeys
    }

    /// No limit at all (tests, benchmarks).
    public static let off = RateLimits(perUser: nil, admin: nil, metrics: nil)
}

/// Token buckets keyed by a string, behind sharded locks. Time is a monotonic nanosecond count (injectable).
final class TokenBuckets: Sendable {
    struct Bucket {
        var tokens: Double
        var updated: UInt64
    }

    let limit: RateLimit
    let maxKeysPerShard: Int
    final class Shard: Sendable {
        let buckets = Mutex<[String: Bucket]>([:])
    }

    private let shards: [Shard]
    private let now: @Sendable () -> UInt64

    init(limit: RateLimit, maxKeys: Int, now: @escaping @Sendable () -> UInt64) {
        self.limit = limit
        let shardCount = 16
        self.maxKeysPerShard = max(1, maxKeys / shardCount)
        self.shards = (0..<shardCount).map { _ in Shard() }
        self.now = now
    }

    /// Takes one token for `key`: nil when allowed, else the seconds until one is available (at least 1).
    func take(_ key: String) -> Int? {
        let now = self.now()
        let limit = self.limit
        let burst = Double(limit.burst)
        let maxKeys = maxKeysPerShard
        var hasher = Hasher()
        hasher.combine(key)
        let shard = shards[Int(UInt(bitPattern: hasher.finalize()) % UInt(shards.count))]
        return shard.buckets.withLock { buckets -> Int? in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = Double(now &- bucket.updated) / 1e9
            bucket.tokens = min(burst, bucket.tokens + elapsed * limit.perSecond)
            bucket.updated = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            if buckets[key] == nil, buckets.count >= maxKeys { Self.evict(&buckets, now: now, limit: limit, keep: maxKeys / 2) }
            buckets[key] = bucket
            guard !allowed else { return nil }
            return max(1, Int(((1 - bucket.tokens) / limit.perSecond).rounded(.up)))
        }
    }

    /// How many keys are remembered (tests: memory stays bounded).
    var count: Int { shards.reduce(0) { total, shard in total + shard.buckets.withLock { $0.count } } }

    /// Drops buckets that have refilled (they behave like new ones), then arbitrary ones down to `keep`.
    private static func evict(_ buckets: inout [String: Bucket], now: UInt64, limit: RateLimit, keep: Int) {
        let burst = Double(limit.burst)
        buckets = buckets.filter { _, bucket in
            bucket.tokens + Double(now &- bucket.updated) / 1e9 * limit.perSecond < burst
        }
        while buckets.count > keep, let first = buckets.keys.first { buckets.removeValue(forKey: first) }
    }
}

/// The limiter the API consults: one set of buckets per configured limit.
struct RateLimiter: Sendable {
    let limits: RateLimits
    let perClient: TokenBuckets?
    let perAPIKey: TokenBuckets?
    let perUser: TokenBuckets?
    let admin: TokenBuckets?
    let metrics: TokenBuckets?

    init(_ limits: RateLimits, now: @escaping @Sendable () -> UInt64 = { UInt64(NIODeadline.now().uptimeNanoseconds) }) {
        self.limits = limits
        func buckets(_ limit: RateLimit?) -> TokenBuckets? {
            limit.map { TokenBuckets(limit: $0, maxKeys: limits.maxTrackedKeys, now: now) }
        }
        perClient = buckets(limits.perClient)
        perAPIKey = buckets(limits.perAPIKey)
        perUser = buckets(limits.perUser)
        admin = buckets(limits.admin)
        metrics = buckets(limits.metrics)
    }

    /// Throws `rate_limited` (429, with the seconds to wait) when `buckets` has no token for `key`.
    static func check(_ buckets: TokenBuckets?, _ key: String, scope: String) throws {
        guard let buckets, let wait = buckets.take(key) else { return }
        throw RateLimited(retryAfter: wait, scope: scope)
    }

    /// The client's address: from the configured proxy header (the entry `trustedProxyHops` from the right), else
    /// the TCP peer. Without either (in-process tests): `unknown`.
    func clientAddress(headers: HTTPFields, peer: SocketAddress?) -> String {
        if let name = limits.clientAddressHeader, let field = HTTPField.Name(name), let value = headers[field] {
            let entries = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if entries.count >= limits.trustedProxyHops {
                return entries[entries.count - limits.trustedProxyHops]
            }
        }
        return peer?.ipAddress ?? "unknown"
    }
}

/// A request refused by a rate limit: 429 `rate_limited` with `Retry-After`.
struct RateLimited: Error, Sendable {
    let retryAfter: Int
    /// Which limit (`client`, `api_key`, `user`, `admin`, `metrics`), for the log.
    let scope: String
}
