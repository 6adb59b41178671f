public import Foundation
import PasskeyStore

/// One request rate limit as configured: a token bucket of `perSecond` requests sustained, up to `burst` at once.
/// PasskeyServerSupport maps it onto the HTTP layer's `RateLimit`.
public struct RateLimitSetting: Sendable, Hashable, CustomStringConvertible {
    public var perSecond: Double
    public var burst: Int

    public init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// `RATE/s` or `RATE/s:BURST`, `RATE/min[:BURST]` (burst defaults to one second's worth, at least 1), or `off`,
    /// in any case. RATE is a finite number above 0 (fractions allowed), BURST an integer of at least 1.
    /// - Returns: `.some(nil)` for `off`, nil for anything that is not a rate limit.
    public static func parse(_ text: String) -> RateLimitSetting?? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "off" { return .some(nil) }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        let rate = parts[0].split(separator: "/", omittingEmptySubsequences: false)
        guard rate.count == 2, let count = Double(rate[0]), count > 0, count.isFinite else { return nil }
        let perSecond: Double
        switch rate[1] {
        case "s": perSecond = count
        case "min": perSecond = count / 60
        default: return nil
        }
        var burst = max(1, Int(perSecond.rounded(.up)))
        if parts.count == 2 {
            guard let value = Int(parts[1]), value >= 1 else { return nil }
            burst = value
        }
        return .some(RateLimitSetting(perSecond: perSecond, burst: burst))
    }

    public var description: String { "\(perSecond)/s:\(burst)" }
}

/// The request rate limits (`PASSKEYD_RATE_LIMIT_*`, `PASSKEYD_CLIENT_ADDRESS_HEADER`, `PASSKEYD_TRUSTED_PROXY_HOPS`);
/// nil = no limit.
public struct RateLimitSettings: Sendable, Hashable {
    /// Ceremony endpoints, per client address.
    public var perClient: RateLimitSetting?
    /// Ceremony endpoints, per API key.
    public var perAPIKey: RateLimitSetting?
    /// Begin endpoints, per user name or user id named in the request.
    public var perUser: RateLimitSetting?
    /// The admin API, per client address.
    public var admin: RateLimitSetting?
    /// `GET /metrics`, per client address.
    public var metrics: RateLimitSetting?
    /// A header set by a trusted reverse proxy with the client's address; nil = the TCP peer.
    public var clientAddressHeader: String?
    /// Which entry of that header counts, from the right.
    public var trustedProxyHops: Int

    /// No limit at all (in-process tests).
    public static let off = RateLimitSettings(perClient: nil, perAPIKey: nil, perUser: nil, admin: nil, metrics: nil)

    public init(
        perClient: RateLimitSetting?, perAPIKey: RateLimitSetting?, perUser: RateLimitSetting?, admin: RateLimitSetting?,
        metrics: RateLimitSetting?, clientAddressHeader: String? = nil, trustedProxyHops: Int = 1
    ) {
        self.perClient = perClient
        self.perAPIKey = perAPIKey
        self.perUser = perUser
        self.admin = admin
        self.metrics = metrics
        self.clientAddressHeader = clientAddressHeader
        self.trustedProxyHops = trustedProxyHops
    }
}

/// Connection limits of the HTTP server (`PASSKEYD_HTTP_*`); PasskeyServerSupport maps them onto `ServerLimits`.
public struct ServerLimitSettings: Sendable, Hashable {
    /// Longest a connection may go without a complete request head.
    public var idleTimeout: Duration
    /// Longest from a request's head to the end of its body.
    public var readTimeout: Duration
    /// The largest request head (request line and headers).
    public var maxHeaderBytes: Int

    public init(idleTimeout: Duration, readTimeout: Duration, maxHeaderBytes: Int) {
        self.idleTimeout = idleTimeout
        self.readTimeout = readTimeout
        self.maxHeaderBytes = maxHeaderBytes
    }
}

// MARK: reading them

extension Settings {
    /// `PASSKEYD_API_KEYS` and `PASSKEYD_ADMIN_KEYS` (distinct).
    static func accessKeys(_ reader: Reader, warnings: inout [String]) throws(ConfigurationError) -> (api: [String], admin: [String]) {
        let apiKeys = try keys(reader, .apiKeys, warnings: &warnings)
        let adminKeys = try keys(reader, .adminKeys, warnings: &warnings)
        guard Set(apiKeys).isDisjoint(with: adminKeys) else {
            throw ConfigurationError(.adminKeys, "an admin key is also in PASSKEYD_API_KEYS; use distinct keys")
        }
        return (apiKeys, adminKeys)
    }

    /// A comma-separated key list. Keys are bearer tokens: visible ASCII without spaces or commas. Errors and
    /// warnings name keys by position only.
    static func keys(_ reader: Reader, _ variable: ConfigVariable, warnings: inout [String]) throws(ConfigurationError) -> [String] {
        guard let keys = reader.list(variable) else { return [] }
        var unique: [String] = []
        for (index, key) in keys.enumerated() {
            guard key.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                throw ConfigurationError(variable, "key #\(index + 1) contains a character that is not visible ASCII")
            }
            if key.utf8.count < 16 { warnings.append("\(variable.name): key #\(index + 1) is shorter than 16 characters") }
            if !unique.contains(key) { unique.append(key) }
        }
        return unique
    }

    /// `PASSKEYD_HTTP_*`.
    static func serverLimits(_ reader: Reader) throws(ConfigurationError) -> ServerLimitSettings {
        ServerLimitSettings(
            idleTimeout: .seconds(try reader.integer(.httpIdleTimeout)), readTimeout: .seconds(try reader.integer(.httpReadTimeout)),
            maxHeaderBytes: try reader.integer(.httpMaxHeaderBytes))
    }

    /// `PASSKEYD_RATE_LIMIT_*`, `PASSKEYD_CLIENT_ADDRESS_HEADER`, `PASSKEYD_TRUSTED_PROXY_HOPS`.
    static func rateLimits(_ reader: Reader, warnings: inout [String]) throws(ConfigurationError) -> RateLimitSettings {
        var limits = RateLimitSettings(
            perClient: try reader.rateLimit(.rateLimitClient), perAPIKey: try reader.rateLimit(.rateLimitAPIKey),
            perUser: try reader.rateLimit(.rateLimitUser), admin: try reader.rateLimit(.rateLimitAdmin),
            metrics: try reader.rateLimit(.rateLimitMetrics))
        if let header = reader.value(.clientAddressHeader) {
            guard header.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw ConfigurationError(.clientAddressHeader, "must be a header name such as X-Forwarded-For, got \"\(header)\"")
            }
            limits.clientAddressHeader = header
            warnings.append(
                "PASSKEYD_CLIENT_ADDRESS_HEADER: client addresses are read from \(header); passkeyd must be reachable only through the proxy that sets it")
        }
        limits.trustedProxyHops = try reader.integer(.trustedProxyHops)
        return limits
    }

    /// `PASSKEYD_PENDING_PER_USER`, `PASSKEYD_PENDING_MAX` (0 = no cap).
    static func ceremonyCaps(_ reader: Reader) throws(ConfigurationError) -> CeremonyCaps {
        let perUser = try reader.integer(.pendingPerUser)
        let total = try reader.integer(.pendingMax)
        return CeremonyCaps(perSubject: perUser == 0 ? nil : perUser, total: total == 0 ? nil : total)
    }
}
