public import AsyncHTTPClient
public import Foundation
public import IdentityCore
public import JOSE
public import Logging
public import WebAuthnModel

/// OpenID Connect Discovery 1.0: where a provider publishes its JWKS URL.
///
/// The discovery URL is the issuer with `/.well-known/openid-configuration` appended (§4; a trailing `/` of the issuer
/// is dropped first), unless one is configured. The document's `issuer` must equal the configured issuer exactly
/// (§4.3: no normalisation, so `https://idp.example` and `https://idp.example/` differ), and its `jwks_uri` must
/// follow the same URL rule as every fetch here (https, or http to a loopback host).
public struct OIDCDiscovery: Sendable, Hashable {
    /// What discovery found.
    public struct Document: Sendable {
        /// The document's `issuer` (equal to the configured one).
        public let issuer: String
        /// `jwks_uri`.
        public let jwksURI: String
        /// The whole document, for members this type does not read (`token_endpoint`, …).
        public let members: [String: JSONValue]
    }

    /// The issuer tokens must carry, and the discovery document must name.
    public let issuer: String
    /// Where the discovery document is fetched from.
    public let discoveryURL: String

    /// - Parameters:
    ///   - issuer: the provider's issuer identifier (https, or http to a loopback host).
    ///   - discoveryURL: the document's URL when it is not at the standard place.
    /// - Throws: ``ProviderKeyFailure/insecureURL``.
    public init(issuer: String, discoveryURL: String? = nil) throws(ProviderKeyError) {
        self.issuer = try ProviderURL.check(issuer, what: "issuer")
        if let discoveryURL {
            self.discoveryURL = try ProviderURL.check(discoveryURL, what: "discovery URL")
        } else {
            let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
            self.discoveryURL = try ProviderURL.check(base + "/.well-known/openid-configuration", what: "discovery URL")
        }
    }

    /// Fetches and checks the discovery document.
    /// - Throws: ``ProviderKeyFailure/fetchFailed``, ``ProviderKeyFailure/httpStatus``, ``ProviderKeyFailure/tooLarge``,
    ///   ``ProviderKeyFailure/malformed`` (not a JSON object, no string `issuer` or `jwks_uri`),
    ///   ``ProviderKeyFailure/issuerMismatch``, ``ProviderKeyFailure/insecureURL`` (`jwks_uri`).
    public func fetch(
        httpClient: HTTPClient, timeout: TimeInterval = 5, maxDocumentBytes: Int = 256 * 1024,
        logger: Logger = Logger(label: "passkeyd.provider-keys")
    ) async throws(ProviderKeyError) -> Document {
        let fetcher = HTTPDocumentFetch(client: httpClient, timeout: timeout, maxBytes: maxDocumentBytes, logger: logger)
        let body = try await fetcher.get(discoveryURL, what: "discovery document").body
        let value: JSONValue
        do {
            value = try JSONReader.parse(body, maxDepth: 16)
        } catch {
            throw ProviderKeyFailure.malformed.error("discovery document \(discoveryURL): \(error)")
        }
        guard case .object(let members) = value else {
            throw ProviderKeyFailure.malformed.error("discovery document \(discoveryURL) is not a JSON object")
        }
        guard case .string(let documentIssuer)? = members["issuer"] else {
            throw ProviderKeyFailure.malformed.error("discovery document \(discoveryURL) has no string issuer")
        }
        guard documentIssuer == issuer else {
            throw ProviderKeyFailure.issuerMismatch.error(
                "discovery document names issuer \(documentIssuer.prefix(120).debugDescription), configured \(issuer.debugDescription)")
        }
        guard case .string(let jwksURI)? = members["jwks_uri"] else {
            throw ProviderKeyFailure.malformed.error("discovery document \(discoveryURL) has no string jwks_uri")
        }
        try ProviderURL.check(jwksURI, what: "jwks_uri")
        return Document(issuer: documentIssuer, jwksURI: jwksURI, members: members)
    }
}

/// A ``ProviderKeySource`` that finds its JWKS URL by ``OIDCDiscovery`` on first use, then delegates to a
/// ``RemoteKeySource`` for that URL.
///
/// Nothing is fetched at init, so a provider that is down while passkeyd starts does not stop it: sign-ins with that
/// provider fail with ``ProviderKeyError`` until discovery succeeds. Discovery attempts share one in-flight request
/// and start at most once per ``RemoteKeySource/Configuration/minRefetchInterval``. Once found, the JWKS URL is kept
/// for the life of the process (providers do not move it; a restart rediscovers).
public actor DiscoveryKeySource: ProviderKeySource {
    /// The discovery settings.
    public nonisolated let discovery: OIDCDiscovery
    private let client: HTTPClient
    private let configuration: RemoteKeySource.Configuration
    private let logger: Logger
    private let now: @Sendable () -> Date

    /// The key source, once discovery has succeeded.
    public private(set) var remote: RemoteKeySource?
    /// Discovery attempts started.
    public private(set) var discoveryAttempts = 0
    private var lastAttempt: Date?
    private var lastError: ProviderKeyError?
    private var inFlight: Task<Void, Never>?

    /// - Parameters:
    ///   - discovery: the issuer and discovery URL.
    ///   - httpClient: the client for discovery and the JWKS (owned by the caller).
    ///   - configuration: the limits of the ``RemoteKeySource`` (its timeout, size cap and interval apply to discovery).
    ///   - logger: where failures are reported.
    ///   - now: the clock (injected for tests).
    public init(
        discovery: OIDCDiscovery, httpClient: HTTPClient, configuration: RemoteKeySource.Configuration = .init(),
        logger: Logger = Logger(label: "passkeyd.provider-keys"), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.discovery = discovery
        self.client = httpClient
        self.configuration = configuration
        self.logger = logger
        self.now = now
    }

    /// The provider's keys (discovering the JWKS URL first if need be).
    /// - Throws: ``ProviderKeyError`` while discovery has not succeeded, or as ``RemoteKeySource/keys(for:)`` does.
    public func keys(for keyID: String?) async throws(ProviderKeyError) -> JWKSet {
        try await source().keys(for: keyID)
    }

    /// The ``RemoteKeySource``, discovering its URL if need be.
    /// - Throws: the last discovery error while there is none.
    public func source() async throws(ProviderKeyError) -> RemoteKeySource {
        if let remote { return remote }
        if let inFlight {
            await inFlight.value
        } else if lastAttempt.map({ now().timeIntervalSince($0) >= configuration.minRefetchInterval }) ?? true {
            lastAttempt = now()
            discoveryAttempts += 1
            let task = Task {
                let outcome: Result<OIDCDiscovery.Document, ProviderKeyError>
                do throws(ProviderKeyError) {
                    outcome = .success(try await discovery.fetch(
                        httpClient: client, timeout: configuration.requestTimeout,
                        maxDocumentBytes: configuration.maxDocumentBytes, logger: logger))
                } catch {
                    outcome = .failure(error)
                }
                self.finish(outcome)
            }
            inFlight = task
            await task.value
        }
        if let remote { return remote }
        throw ProviderKeyFailure.unavailable.error(
            "discovery for \(discovery.issuer) has not succeeded" + (lastError.map { "; last attempt: \($0.reason)" } ?? ""))
    }

    private func finish(_ outcome: Result<OIDCDiscovery.Document, ProviderKeyError>) {
        inFlight = nil
        switch outcome {
        case .success(let document):
            do throws(ProviderKeyError) {
                remote = try RemoteKeySource(
                    url: document.jwksURI, httpClient: client, configuration: configuration, logger: logger, now: now)
                lastError = nil
                logger.info("discovered JWKS URL", metadata: ["issuer": "\(discovery.issuer)", "jwks_uri": "\(document.jwksURI)"])
            } catch {
                lastError = error
            }
        case .failure(let error):
            lastError = error
            logger.warning("OIDC discovery failed", metadata: ["issuer": "\(discovery.issuer)", "error": "\(error.reason)"])
        }
    }
}
