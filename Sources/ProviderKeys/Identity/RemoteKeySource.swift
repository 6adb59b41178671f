public import AsyncHTTPClient
public import Foundation
public import IdentityCore
public import JOSE
public import Logging

/// A provider's JWK set fetched from its JWKS URL, cached, and refetched under limits.
///
/// - **Cache.** A fetched set is fresh for the response's `Cache-Control: max-age` (less `Age`), clamped to
///   ``Configuration/minCacheDuration``…``Configuration/maxCacheDuration``. Without a usable `max-age` (no header,
///   `no-cache`, `no-store`) it is fresh for ``Configuration/minCacheDuration``.
/// - **Unknown `kid`.** A `kid` not in the cached set triggers a refetch, but fetch attempts (of any cause) start at
///   most once per ``Configuration/minRefetchInterval``; callers arriving meanwhile get the set as it is. Concurrent
///   callers share one in-flight fetch. So a flood of made-up `kid`s costs at most one request per interval.
/// - **Failures.** When a refresh fails, the last good set keeps being served until
///   ``Configuration/staleLimit`` past its expiry (each failure is logged as a warning). With no good set (never
///   fetched, or too stale) ``keys(for:)`` throws ``ProviderKeyError``; the next attempt is again at most one per
///   interval, so a provider that is down gets one request per interval whatever the traffic.
/// - **URLs.** Only `https://`, or `http://` to 127.0.0.1, ::1 or localhost (tests); redirects may not leave that rule.
///
/// The `HTTPClient` belongs to the caller (its redirect, proxy and TLS settings apply); this type never shuts it down.
public actor RemoteKeySource: ProviderKeySource {
    /// Limits and cache bounds, all in seconds except sizes.
    public struct Configuration: Sendable, Hashable {
        /// The whole request, connection to last body byte.
        public var requestTimeout: TimeInterval = 5
        /// The largest accepted JWKS document, in bytes.
        public var maxDocumentBytes: Int = 256 * 1024
        /// The most members a JWKS may have.
        public var maxKeys: Int = 64
        /// The shortest time a fetched set is fresh (and the lifetime without a `max-age`).
        public var minCacheDuration: TimeInterval = 300
        /// The longest time a fetched set is fresh, whatever `max-age` says.
        public var maxCacheDuration: TimeInterval = 86_400
        /// The least time between two fetch attempts (an unknown `kid`, an expired set, or a retry after a failure).
        public var minRefetchInterval: TimeInterval = 60
        /// How long past its expiry the last good set is still served while refreshes fail.
        public var staleLimit: TimeInterval = 86_400

        public init(
            requestTimeout: TimeInterval = 5, maxDocumentBytes: Int = 256 * 1024, maxKeys: Int = 64,
            minCacheDuration: TimeInterval = 300, maxCacheDuration: TimeInterval = 86_400,
            minRefetchInterval: TimeInterval = 60, staleLimit: TimeInterval = 86_400
        ) {
            self.requestTimeout = requestTimeout
            self.maxDocumentBytes = maxDocumentBytes
            self.maxKeys = maxKeys
            self.minCacheDuration = minCacheDuration
            self.maxCacheDuration = max(maxCacheDuration, minCacheDuration)
            self.minRefetchInterval = minRefetchInterval
            self.staleLimit = staleLimit
        }
    }

    /// Counters for tests and metrics.
    public struct Statistics: Sendable, Hashable {
        /// Fetch attempts started.
        public var fetches = 0
        /// Fetch attempts that failed (the set, if any, was kept).
        public var failures = 0
        /// Calls answered with a set past its freshness (within the stale limit).
        public var staleServed = 0
        /// Why the last failed attempt failed.
        public var lastFailure: ProviderKeyFailure?
        /// When the last good set was fetched.
        public var lastSuccess: Date?
        /// Keys in the current set.
        public var keyCount = 0
        /// When the current set stops being fresh.
        public var expiresAt: Date?

        public init() {}
    }

    /// The JWKS URL.
    public nonisolated let url: String
    /// The limits in force.
    public nonisolated let configuration: Configuration
    /// Counters (see ``Statistics``).
    public private(set) var statistics = Statistics()

    private let fetcher: HTTPDocumentFetch
    private let logger: Logger
    private let now: @Sendable () -> Date

    private struct Cached {
        let set: JWKSet
        let expiresAt: Date
    }
    private var cached: Cached?
    private var lastAttempt: Date?
    private var lastError: ProviderKeyError?
    /// The fetch under way; it stores its outcome in this actor before it completes, so every awaiter sees it.
    private var inFlight: Task<Void, Never>?

    /// A source for the JWKS at `url`. Nothing is fetched until the first ``keys(for:)``.
    /// - Parameters:
    ///   - url: `https://…`, or `http://` to a loopback host.
    ///   - httpClient: the client to fetch with (owned by the caller).
    ///   - configuration: limits and cache bounds.
    ///   - logger: where refresh failures are reported (warnings).
    ///   - now: the clock (injected for tests).
    /// - Throws: ``ProviderKeyFailure/insecureURL``.
    public init(
        url: String, httpClient: HTTPClient, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "passkeyd.provider-keys"), now: @escaping @Sendable () -> Date = { Date() }
    ) throws(ProviderKeyError) {
        self.url = try ProviderURL.check(url, what: "JWKS URL")
        self.configuration = configuration
        self.fetcher = HTTPDocumentFetch(
            client: httpClient, timeout: configuration.requestTimeout, maxBytes: configuration.maxDocumentBytes, logger: logger)
        self.logger = logger
        self.now = now
    }

    /// The current key set for a token naming `keyID` (see the type's documentation for when it fetches).
    /// - Throws: ``ProviderKeyError`` when there is no usable set (never fetched, or stale beyond the limit).
    public func keys(for keyID: String?) async throws(ProviderKeyError) -> JWKSet {
        if let cached, now() < cached.expiresAt, keyID.map(cached.set.contains(keyID:)) ?? true {
            return cached.set
        }
        // Expired, missing, or the kid is unknown: join the fetch under way, or start one if the interval allows.
        if let inFlight {
            await inFlight.value
        } else if mayAttempt(at: now()) {
            await startFetch().value
        }
        return try usableSet(at: now())
    }

    /// Fetches now unless a fetch is under way (then waits for it), ignoring the refetch interval: for warming the
    /// cache at start-up or an operator's "reload". Failures are counted and logged like any other.
    public func refresh() async {
        if let inFlight {
            await inFlight.value
        } else {
            await startFetch().value
        }
    }

    // MARK: internals

    private func mayAttempt(at time: Date) -> Bool {
        guard let lastAttempt else { return true }
        return time.timeIntervalSince(lastAttempt) >= configuration.minRefetchInterval
    }

    private func startFetch() -> Task<Void, Never> {
        lastAttempt = now()
        statistics.fetches += 1
        let fetcher = fetcher
        let url = url
        let maxKeys = configuration.maxKeys
        let task = Task {
            let outcome: Result<(JWKSet, TimeInterval), ProviderKeyError>
            do throws(ProviderKeyError) {
                outcome = .success(try await Self.download(fetcher: fetcher, url: url, maxKeys: maxKeys, configuration: configuration))
            } catch {
                outcome = .failure(error)
            }
            self.finish(outcome)
        }
        inFlight = task
        return task
    }

    private static func download(
        fetcher: HTTPDocumentFetch, url: String, maxKeys: Int, configuration: Configuration
    ) async throws(ProviderKeyError) -> (JWKSet, TimeInterval) {
        let document = try await fetcher.get(url, what: "JWKS")
        let set: JWKSet
        do {
            set = try JWKSet(json: document.body, maxKeys: maxKeys)
        } catch {
            throw ProviderKeyFailure.malformed.error("JWKS \(url): \(error)")
        }
        guard !set.keys.isEmpty else {
            throw ProviderKeyFailure.malformed.error("JWKS \(url) holds no usable key (\(set.skipped) skipped)")
        }
        let lifetime = CacheLifetime.lifetime(
            headers: document.headers, minimum: configuration.minCacheDuration, maximum: configuration.maxCacheDuration)
        return (set, lifetime)
    }

    private func finish(_ outcome: Result<(JWKSet, TimeInterval), ProviderKeyError>) {
        inFlight = nil
        switch outcome {
        case .success(let (set, lifetime)):
            let fetchedAt = now()
            cached = Cached(set: set, expiresAt: fetchedAt.addingTimeInterval(lifetime))
            lastError = nil
            statistics.lastSuccess = fetchedAt
            statistics.keyCount = set.keys.count
            statistics.expiresAt = cached?.expiresAt
            if set.skipped > 0 {
                logger.info("JWKS has members that are not usable keys", metadata: ["url": "\(url)", "skipped": "\(set.skipped)"])
            }
        case .failure(let error):
            lastError = error
            statistics.failures += 1
            statistics.lastFailure = error.failure
            var metadata: Logger.Metadata = ["url": "\(url)", "error": "\(error.reason)"]
            if let cached {
                metadata["keeping_set_expiring_at"] = "\(cached.expiresAt)"
                logger.warning("JWKS refresh failed; serving the last good set", metadata: metadata)
            } else {
                logger.warning("JWKS fetch failed; no key set yet", metadata: metadata)
            }
        }
    }

    private func usableSet(at time: Date) throws(ProviderKeyError) -> JWKSet {
        guard let cached else {
            throw ProviderKeyFailure.unavailable.error(
                "no key set fetched from \(url) yet" + (lastError.map { "; last attempt: \($0.reason)" } ?? ""))
        }
        if time < cached.expiresAt { return cached.set }
        guard time.timeIntervalSince(cached.expiresAt) <= configuration.staleLimit else {
            throw ProviderKeyFailure.unavailable.error(
                "the key set from \(url) expired at \(cached.expiresAt), beyond the stale limit"
                    + (lastError.map { "; last attempt: \($0.reason)" } ?? ""))
        }
        statistics.staleServed += 1
        return cached.set
    }
}
