public import PasskeyApp
import COSECrypto
import Foundation
public import Hummingbird
import Logging
public import Metrics
import NIOCore
import PasskeyStore
import SessionCore
public import WebAuthnCore
import WebAuthnModel

/// HTTP settings.
public struct HTTPConfiguration: Sendable {
    /// Bearer keys accepted on the ceremony endpoints; none = open (local development).
    public var apiKeys: [String]
    /// Bearer keys accepted on the admin endpoints; none = the admin API is disabled (every admin route is 404).
    public var adminKeys: [String]
    /// Largest accepted request body (real attestations with chains are a few KiB).
    public var maxBodyBytes: Int
    /// Where the request metrics go (``RequestMetricNames``); nil = the global `MetricsSystem.factory` as of
    /// ``buildRouter(service:configuration:)``. Tests inject their own factory (the global one can be bootstrapped
    /// once per process only).
    public var metricsFactory: (any MetricsFactory)?
    /// The Prometheus text exposition served at `GET /metrics`; nil = no `/metrics` route (404). Called on every
    /// scrape, so it may also refresh gauges first.
    public var metricsExporter: (@Sendable () -> [UInt8])?
    /// Serve the FIDO conformance transport binding (`/attestation/*`, `/assertion/*`; ConformanceRoutes.swift).
    /// Off by default: it exists for the FIDO conformance tools, not for production clients.
    public var conformanceBinding: Bool
    /// Serve the demo page and its session routes under `/demo` (``addDemoRoutes(to:api:)``); off = 404.
    public var demoPage: Bool
    /// Per-instance request rate limits (429 past them). Off unless given: the executable passes the configured
    /// ones (``RateLimits/init(perClient:perAPIKey:perUser:admin:metrics:clientAddressHeader:trustedProxyHops:maxTrackedKeys:)``
    /// defaults), in-process tests usually none.
    public var rateLimits: RateLimits
    /// The app-association and related-origins documents under `/.well-known/` (WellKnownRoutes.swift); a route
    /// exists only for a configured document.
    public var wellKnown: WellKnownDocuments
    /// Limits on the client extension inputs the begins pass through (``ExtensionInputs``).
    public var extensionLimits = ExtensionLimits.default
    /// The self-service API's rules (`/v1/me/…`, present with sessions).
    public var selfService = SelfServicePolicy()
    /// A span per request (``RequestObservationMiddleware``) through the bootstrapped tracer; off = none built. The
    /// executable turns it on when the `OTEL_*` variables configure trace export.
    public var tracing = false

    public init(
        apiKeys: [String] = [], adminKeys: [String] = [], maxBodyBytes: Int = 64 * 1024,
        metricsFactory: (any MetricsFactory)? = nil, metricsExporter: (@Sendable () -> [UInt8])? = nil,
        conformanceBinding: Bool = false, demoPage: Bool = false, rateLimits: RateLimits = .off,
        wellKnown: WellKnownDocuments = .init()
    ) {
        self.wellKnown = wellKnown
        self.rateLimits = rateLimits
        self.conformanceBinding = conformanceBinding
        self.apiKeys = apiKeys
        self.adminKeys = adminKeys
        self.maxBodyBytes = maxBodyBytes
        self.metricsFactory = metricsFactory
        self.metricsExporter = metricsExporter
        self.demoPage = demoPage
    }
}

/// Who may call a route.
enum Access: Sendable {
    /// Ceremony endpoints: an API key when any are configured, open otherwise.
    case ceremony
    /// Admin endpoints: an admin key; the routes do not exist when no admin key is configured.
    case admin
    /// Endpoints whose request carries its own credential (a refresh token, a handoff code, an access token) and that
    /// web pages call directly: no API key; limited per client address like the ceremonies.
    case `public`
}

/// Builds the router: the ceremony endpoints under `/v1/registration` and `/v1/authentication`, the admin API
/// under `/v1/admin`, `/healthz` (the process is up), `/readyz` (the store answers; 503 otherwise),
/// `/openapi.json` and, when the configuration has an exporter, `/metrics`. `webhooks`: the outbox's admin use case
/// (its routes under `/v1/admin/webhooks`; none when nil).
public func buildRouter(
    service: CeremonyService, identity: IdentityService? = nil, sessions: SessionService? = nil,
    appStore: AppStoreService? = nil, appAttest: AppAttestService? = nil, webhooks: WebhookAdministration? = nil,
    configuration: HTTPConfiguration = .init()
) -> Router<PasskeyRequestContext> {
    let router = Router(context: PasskeyRequestContext.self)
    // First, so it wraps every route and the not-found responder: X-Request-Id on every answer, the request's span.
    router.add(middleware: RequestObservationMiddleware(tracing: configuration.tracing))
    let api = API(service: service, identity: identity, sessions: sessions, configuration: configuration)
    router.on(.healthz) { _, _ in api.rawJSON(status: .ok, [UInt8]("{\"status\":\"ok\"}".utf8)) }
    router.on(.readyz) { _, context in
        do {
            try await service.checkReadiness()
            return api.rawJSON(status: .ok, [UInt8]("{\"status\":\"ready\"}".utf8))
        } catch {
            let failure = FailedRequest(readiness: error)
            context.logger.warning(
                "not ready", metadata: ["code": .string(failure.error.code), "reason": .string(failure.reason ?? "")])
            return api.failure(failure.error)
        }
    }
    addPasskeyRoutes(to: router, api: api)
    if let identity { addIdentityRoutes(to: router, api: api, signIn: IdentitySignIn(identity: identity, sessions: sessions)) }
    if let sessions {
        addSessionRoutes(to: router, api: api, service: sessions)
        addSelfServiceRoutes(to: router, api: api, sessions: sessions)
    }
    if let appStore { addAppStoreRoutes(to: router, api: api, service: appStore) }
    if let appAttest { addAppAttestRoutes(to: router, api: api, service: appAttest) }
    addSignalRoutes(to: router, api: api)
    addWellKnownRoutes(to: router, api: api, documents: configuration.wellKnown)
    if !configuration.adminKeys.isEmpty {
        addAdminRoutes(to: router, api: api)
        if let webhooks { addWebhookAdminRoutes(to: router, api: api, admin: webhooks) }
    }
    if configuration.conformanceBinding { addConformanceRoutes(to: router, api: api) }
    if configuration.demoPage { addDemoRoutes(to: router, api: api) }
    if let exporter = configuration.metricsExporter { addMetricsRoute(to: router, api: api, exporter: exporter) }
    addOpenAPIRoute(to: router)
    router.add(middleware: RouteFallbackMiddleware(routes: router.routes))
    return router
}


/// Request handling shared by the routes.
struct API: Sendable {
    let service: CeremonyService
    /// ID-token sign-in; nil when no provider is configured (its routes are then absent).
    let identity: IdentityService?
    /// Sessions after sign-in; nil when off (`PASSKEYD_SESSIONS`): no session in sign-in answers, no session routes.
    let sessions: SessionService?
    /// The passkey finishes with the session each starts (``PasskeySignIn``, over ``service`` and ``sessions``).
    let signIn: PasskeySignIn
    let configuration: HTTPConfiguration
    /// SHA-256 of each API key, compared in constant time.
    let keyDigests: [[UInt8]]
    /// SHA-256 of each admin key.
    let adminKeyDigests: [[UInt8]]
    /// Request counters and timers.
    let metrics: RequestMetrics
    /// Token buckets per client address, API key and user.
    let limiter: RateLimiter

    init(service: CeremonyService, identity: IdentityService? = nil, sessions: SessionService? = nil, configuration: HTTPConfiguration) {
        self.limiter = RateLimiter(configuration.rateLimits)
        self.service = service
        self.identity = identity
        self.sessions = sessions
        self.signIn = PasskeySignIn(ceremonies: service, sessions: sessions)
        self.configuration = configuration
        self.keyDigests = configuration.apiKeys.map { Digest.sha256(Array($0.utf8)) }
        self.adminKeyDigests = configuration.adminKeys.map { Digest.sha256(Array($0.utf8)) }
        self.metrics = RequestMetrics(factory: configuration.metricsFactory ?? MetricsSystem.factory)
    }

    /// Authenticates, reads the body (capped), runs `body`, and turns every failure into a JSON error response.
    /// Every request is counted and timed; failures are logged at `info` (`warning` for 5xx) with the error's
    /// detail, successes at `debug`. Bodies, keys and headers are never logged.
    /// - Parameters:
    ///   - failureBody: the error body (the FIDO conformance binding has its own shape).
    ///   - adjust: last changes to the reply, knowing the failure if any (e.g. clearing a session cookie).
    /// Registers `operation`'s route (its method and path from the route table) with `body` run by
    /// ``handle(_:_:_:failureBody:adjust:_:)``: the body gets the request, its collected body bytes and the context.
    func route(
        _ router: Router<PasskeyRequestContext>, _ operation: Operation,
        _ body: @escaping @Sendable (Request, [UInt8], PasskeyRequestContext) async throws -> Response
    ) {
        router.on(operation) { request, context in
            await handle(request, context, operation) { bytes, context in try await body(request, bytes, context) }
        }
    }

    func handle(
        _ request: Request, _ context: PasskeyRequestContext, _ operation: Operation,
        failureBody: (APIError) -> [UInt8] = { $0.jsonBody },
        adjust: (inout Response, FailedRequest?) -> Void = { _, _ in },
        _ body: @Sendable ([UInt8], PasskeyRequestContext) async throws -> Response
    ) async -> Response {
        let start = ContinuousClock.now
        var response: Response
        var failed: FailedRequest?
        do {
            // Per client address first (also unauthenticated requests: key guessing), then per API key.
            // The address (a string) only when a limit needs it: off by default on the ceremony path.
            switch operation.access {
            case .ceremony, .public:
                if let buckets = limiter.perClient {
                    try RateLimiter.check(buckets, limiter.clientAddress(headers: request.headers, peer: context.remoteAddress), scope: "client")
                }
            case .admin:
                if let buckets = limiter.admin {
                    try RateLimiter.check(buckets, limiter.clientAddress(headers: request.headers, peer: context.remoteAddress), scope: "admin")
                }
            }
            let key = try authorize(request, operation.access)
            if let key, operation.access == .ceremony {
                try RateLimiter.check(limiter.perAPIKey, "key\(key)", scope: "api_key")
            }
            let scope = RequestScope(api: self, operation: operation, key: key, headers: request.headers, context: context)
            var request = request
            let buffer: ByteBuffer
            do {
                buffer = try await request.collectBody(upTo: configuration.maxBodyBytes)
            } catch {
                throw APIError.bodyTooLarge
            }
            response = try await RequestScope.$current.withValue(scope) {
                defer { scope.logConsequences() }
                return try await body(Array(buffer.readableBytesView), context)
            }
        } catch {
            let failure = FailedRequest(error)
            response = rawJSON(status: HTTPResponse.Status(code: failure.error.status), failureBody(failure.error))
            if let seconds = failure.retryAfter { response.headers[.retryAfter] = String(seconds) }
            failed = failure
        }
        adjust(&response, failed)
        let duration = ContinuousClock.now - start
        metrics.record(operation: operation.name, code: failed?.error.code, duration: duration)
        logOutcome(context.logger, operation, status: Int(response.status.code), failed, duration)
        return response
    }

    /// One line per request: the request id (the answer's `X-Request-Id`) is in the logger's metadata (`hb.request.id`).
    func logOutcome(_ logger: Logger, _ operation: Operation, status: Int, _ failed: FailedRequest?, _ duration: Duration) {
        guard let failed else {
            logger.debug(
                "request completed",
                metadata: [
                    "operation": .string(operation.name), "status": .stringConvertible(status), "code": .string(RequestMetrics.successCode),
                    "duration_ms": .stringConvertible(duration.loggedMilliseconds),
                ])
            return
        }
        logger.log(
            level: status >= 500 ? .warning : .info, "request failed",
            metadata: {
                var metadata: Logger.Metadata = [
                    "operation": .string(operation.name), "status": .stringConvertible(status), "code": .string(failed.error.code),
                    "duration_ms": .stringConvertible(duration.loggedMilliseconds),
                ]
                if let reason = failed.reason, !reason.isEmpty { metadata["reason"] = .string(reason) }
                return metadata
            }())
    }

    /// Who is asking, for the audit trail: the key's fingerprint, never the key.
    func actor(_ operation: Operation, key: Int?) -> String {
        if operation.name.hasPrefix("demo_") { return "demo" }
        if operation.name.hasPrefix("conformance_") { return "conformance" }
        switch operation.access {
        case .admin: return "admin:" + (key.map { RequestScope.fingerprint(adminKeyDigests[$0]) } ?? "unknown")
        case .ceremony: return key.map { "api:" + RequestScope.fingerprint(keyDigests[$0]) } ?? "api:open"
        case .public: return "public"
        }
    }

    /// Checks the bearer key; returns which of the configured keys it is (nil when the endpoints are open).
    @discardableResult
    func authorize(_ request: Request, _ access: Access) throws -> Int? {
        let digests: [[UInt8]]
        switch access {
        case .ceremony:
            guard !keyDigests.isEmpty else { return nil }
            digests = keyDigests
        case .admin:
            digests = adminKeyDigests
        case .public:
            return nil
        }
        let unauthorized = access == .admin ? APIError.adminUnauthorized : APIError.unauthorized
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { throw unauthorized }
        let presented = Digest.sha256(Array(header.dropFirst("Bearer ".count).utf8))
        var match: Int?
        for (index, digest) in digests.enumerated() where constantTimeEquals(digest, presented) { match = index }
        guard let match, !digests.isEmpty else { throw unauthorized }
        return match
    }

    func failure(_ error: APIError) -> Response {
        rawJSON(status: HTTPResponse.Status(code: error.status), error.jsonBody)
    }

    func rawJSON(status: HTTPResponse.Status, _ bytes: [UInt8]) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    func json(status: HTTPResponse.Status, _ value: some Encodable) throws -> Response {
        rawJSON(status: status, Array(try Self.encoder.encode(value)))
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    /// Whether a name, display name or nickname is storable: at most `maximum` characters (Unicode scalars, as JSON
    /// Schema's maxLength counts them; PostgreSQL's text takes any length), none of them U+0000 (which PostgreSQL's
    /// text cannot hold).
    static func isText(_ text: String, maximum: Int = 256) -> Bool {
        !text.utf8.contains(0) && text.unicodeScalars.count <= maximum
    }

    /// The top-level object of a request body.
    func object(_ body: [UInt8]) throws -> [String: JSONValue] {
        guard case .object(let members) = try? JSONReader.parse(body) else { throw APIError.malformedJSON }
        return members
    }

    /// Decodes a member through Codable (begin requests are small and off the hot path).
    func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue?) throws -> T? {
        guard let value, value != .null else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
        } catch {
            throw APIError.malformedJSON
        }
    }

}

extension Router<PasskeyRequestContext> {
    /// Adds `handler` at the route table's method and path of `operation`.
    func on(
        _ operation: Operation, use handler: @escaping @Sendable (Request, PasskeyRequestContext) async throws -> Response
    ) {
        on(RouterPath(operation.path), method: operation.method, use: handler)
    }
}
