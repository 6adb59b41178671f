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
/// `/openapi.json` and, when the configuration has an exporter, `/metrics`.
public func buildRouter(
    service: CeremonyService, identity: IdentityService? = nil, sessions: SessionService? = nil,
    appStore: AppStoreService? = nil, appAttest: AppAttestService? = nil, configuration: HTTPConfiguration = .init()
) -> Router<PasskeyRequestContext> {
    let router = Router(context: PasskeyRequestContext.self)
    let api = API(service: service, identity: identity, sessions: sessions, configuration: configuration)
    router.get("/healthz") { _, _ in api.rawJSON(status: .ok, [UInt8]("{\"status\":\"ok\"}".utf8)) }
    router.get("/readyz") { _, context in
        do {
            try await service.store.ping()
            return api.rawJSON(status: .ok, [UInt8]("{\"status\":\"ready\"}".utf8))
        } catch {
            let failure = FailedRequest(readiness: error)
            context.logger.warning(
                "not ready", metadata: ["code": .string(failure.error.code), "reason": .string(failure.reason ?? "")])
            return api.failure(failure.error)
        }
    }
    router.post("/v1/registration/begin") { request, context in
        await api.handle(request, context, .registrationBegin) { body, _ in try await api.registrationBegin(body) }
    }
    router.post("/v1/registration/finish") { request, context in
        await api.handle(request, context, .registrationFinish) { body, _ in try await api.registrationFinish(body) }
    }
    router.post("/v1/users") { request, context in
        await api.handle(request, context, .createUser) { body, _ in try await api.createUser(body) }
    }
    router.post("/v1/authentication/begin") { request, context in
        await api.handle(request, context, .authenticationBegin) { body, _ in try await api.authenticationBegin(body) }
    }
    router.post("/v1/authentication/finish") { request, context in
        await api.handle(request, context, .authenticationFinish) { body, _ in try await api.authenticationFinish(body) }
    }
    if let identity { addIdentityRoutes(to: router, api: api, service: identity) }
    if let sessions {
        addSessionRoutes(to: router, api: api, service: sessions)
        addSelfServiceRoutes(to: router, api: api, sessions: sessions)
    }
    if let appStore { addAppStoreRoutes(to: router, api: api, service: appStore) }
    if let appAttest { addAppAttestRoutes(to: router, api: api, service: appAttest) }
    addSignalRoutes(to: router, api: api)
    addWellKnownRoutes(to: router, api: api, documents: configuration.wellKnown)
    if !configuration.adminKeys.isEmpty { addAdminRoutes(to: router, api: api) }
    if configuration.conformanceBinding { addConformanceRoutes(to: router, api: api) }
    if configuration.demoPage { addDemoRoutes(to: router, api: api) }
    if let exporter = configuration.metricsExporter { addMetricsRoute(to: router, api: api, exporter: exporter) }
    addOpenAPIRoute(to: router)
    router.add(middleware: RouteFallbackMiddleware(routes: router.routes))
    return router
}

/// What a route does, for logs and metrics.
struct Operation: Sendable, Hashable {
    let name: String
    let access: Access

    static let registrationBegin = Operation(name: "registration_begin", access: .ceremony)
    static let registrationFinish = Operation(name: "registration_finish", access: .ceremony)
    static let authenticationBegin = Operation(name: "authentication_begin", access: .ceremony)
    static let createUser = Operation(name: "create_user", access: .ceremony)
    static let authenticationFinish = Operation(name: "authentication_finish", access: .ceremony)
}

/// Request handling shared by the routes.
struct API: Sendable {
    let service: CeremonyService
    /// ID-token sign-in; nil when no provider is configured (its routes are then absent).
    let identity: IdentityService?
    /// Sessions after sign-in; nil when off (`PASSKEYD_SESSIONS`): no session in sign-in answers, no session routes.
    let sessions: SessionService?
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
            response = try await RequestScope.$current.withValue(scope) { try await body(Array(buffer.readableBytesView), context) }
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

    /// One line per request: the request id is in the logger's metadata (`hb.request.id`).
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

    // MARK: routes

    func registrationBegin(_ body: [UInt8]) async throws -> Response {
        let members = try object(body)
        let subject = try Self.registrationSubject(members["user"])
        switch subject {
        case .newUser(let name, _), .nameForConformanceTesting(let name, _): try limitUser(.name(name))
        case .existingUser(let handle): try limitUser(.handle(handle))
        }
        let request = try registrationRequest(members)
        let options = try await service.beginRegistration(for: subject, request: request)
        return try beginAnswer(options, mediation: request.mediation)
    }

    /// The caller's choices of a registration begin (everything but `user`).
    func registrationRequest(_ members: [String: JSONValue]) throws -> RegistrationRequest {
        RegistrationRequest(
            authenticatorSelection: try decode(AuthenticatorSelectionJSON.self, members["authenticatorSelection"]),
            attestation: try decode(String.self, members["attestation"]), hints: try decode([String].self, members["hints"]),
            extensions: try extensionInputs(members["extensions"], for: .registration),
            mediation: try Self.mediation(members["mediation"]))
    }

    /// `{"publicKey": options}`, with `"mediation": "conditional"` for an automatic upgrade (the client passes both to
    /// `navigator.credentials.create`).
    func beginAnswer(_ options: CreationOptionsJSON, mediation: CredentialMediation?) throws -> Response {
        guard let mediation else { return try json(status: .ok, ["publicKey": options]) }
        metrics.recordUpgrade("begun")
        struct Answer: Encodable { let publicKey: CreationOptionsJSON; let mediation: String }
        return try json(status: .ok, Answer(publicKey: options, mediation: mediation.rawValue))
    }

    /// A begin's `mediation`: absent (a normal ceremony) or `"conditional"` (an automatic upgrade).
    static func mediation(_ value: JSONValue?) throws -> CredentialMediation? {
        switch value {
        case nil, .null?: return nil
        case .string("conditional")?: return .conditional
        default: throw APIError(status: 400, code: "malformed_json", message: "mediation must be \"conditional\" or absent.")
        }
    }

    /// A begin's `extensions`: the client extension inputs passkeyd passes through (``ExtensionInputs``).
    func extensionInputs(_ value: JSONValue?, for ceremony: ExtensionInputs.Ceremony) throws -> [String: JSONValue]? {
        switch value {
        case nil, .null?: return nil
        case .object(let inputs)?: return try ExtensionInputs.validated(inputs, for: ceremony, limits: configuration.extensionLimits)
        default: throw APIError(status: 400, code: "malformed_json", message: "extensions must be an object.")
        }
    }

    /// `POST /v1/users {"name", "displayName"?}` → 201 `{"user"}`: an account with no sign-in method yet, for a backend
    /// whose person signed in another way (a password) and is about to get a passkey by id (an automatic upgrade).
    /// 409 `user_exists` when the name is taken.
    func createUser(_ body: [UInt8]) async throws -> Response {
        let members = try object(body)
        guard members.keys.allSatisfy({ $0 == "name" || $0 == "displayName" }) else {
            throw APIError(status: 400, code: "malformed_json", message: "The body takes name and displayName only.")
        }
        guard case .newUser(let name, let displayName) = try Self.registrationSubject(.object(members)) else {
            throw APIError(status: 400, code: "malformed_json", message: "name is required.")
        }
        try limitUser(.name(name))
        let handle = SecureRandom.bytes(count: 32)
        let user = try await service.store.createUser(handle: handle, name: name, displayName: displayName, audit: RequestScope.audit)
        RequestScope.log(.userCreated, user: user.handle)
        return try json(status: .created, ["user": UserJSON(user)])
    }

    /// `{"name", "displayName"?}` signs a new user up; `{"id"}` adds a passkey to that existing user. Exactly one
    /// of `name` and `id`: the intent is never guessed from whether a name happens to exist.
    static func registrationSubject(_ value: JSONValue?) throws -> RegistrationSubject {
        guard case .object(let user)? = value else {
            throw APIError(status: 400, code: "malformed_json", message: "user is required: {\"name\"} for a new user or {\"id\"} for an existing one.")
        }
        switch (user["name"], user["id"]) {
        case (.string(let name)?, nil), (.string(let name)?, .null?):
            guard !name.isEmpty, API.isText(name) else {
                throw APIError(status: 400, code: "malformed_json", message: "user.name must be 1-256 characters, without U+0000.")
            }
            switch user["displayName"] {
            case nil, .null?: return .newUser(name: name, displayName: name)
            case .string(let value)? where API.isText(value): return .newUser(name: name, displayName: value)
            default: throw APIError(status: 400, code: "malformed_json", message: "user.displayName must be a string of at most 256 characters, without U+0000.")
            }
        case (nil, .string(let id)?), (.null?, .string(let id)?):
            guard user["displayName"] == nil else {
                throw APIError(status: 400, code: "malformed_json", message: "user.displayName belongs to a new user; an existing user keeps theirs.")
            }
            return .existingUser(handle: try userHandle(id))
        default:
            throw APIError(status: 400, code: "malformed_json", message: "user needs exactly one of name (a new user) and id (an existing user).")
        }
    }

    /// The per-user limit of the begin endpoints, keyed by the name or id as the request gave it.
    func limitUser(_ lookup: UserLookup) throws {
        guard let buckets = limiter.perUser else { return }
        let key = switch lookup {
        case .name(let name): "n:" + name
        case .handle(let handle): "i:" + Base64URL.encode(handle)
        }
        try RateLimiter.check(buckets, key, scope: "user")
    }

    /// A user id as the API shows it: base64url of a 1-64 byte user handle.
    static func userHandle(_ text: String) throws -> [UInt8] {
        guard let handle = Base64URL.decode(text), (1...64).contains(handle.count) else {
            throw APIError(status: 400, code: "malformed_json", message: "user.id must be a user id (base64url).")
        }
        return handle
    }

    /// A registration finish; with `forUser` (the self-service API), only of a ceremony begun for that user (any other
    /// challenge is `challenge_unknown_or_expired`, and still consumed), and no new session (the person is signed in).
    func registrationFinish(_ body: [UInt8], forUser requiredUser: [UInt8]? = nil) async throws -> Response {
        let members = try object(body)
        guard let credentialValue = members["credential"] else { throw APIError.malformedJSON }
        let response: RegistrationResponseJSON
        do {
            response = try RegistrationResponseJSON(json: credentialValue)
        } catch {
            throw WebAuthnError(.malformedResponse, error.reason)
        }
        let nickname: String?
        switch members["nickname"] {
        case nil, .null?: nickname = nil
        case .string(let value)? where API.isText(value): nickname = value
        default: throw APIError(status: 400, code: "malformed_json", message: "nickname must be a string of at most 256 characters, without U+0000.")
        }
        let (user, credential, verified, createdUser) = try await service.finishRegistration(
            response, nickname: nickname, audit: RequestScope.audit, requiredUser: requiredUser)
        RequestScope.logRegistration(user: user.handle, credential: credential.id, createdUser: createdUser)
        if verified.mediation == .conditional { metrics.recordUpgrade("registered") }
        var session: SessionService.Issued?
        // No session for an automatic upgrade (created without a gesture: no sign-in happened here; the person is
        // signed in by the method that preceded it) nor through /v1/me (already signed in).
        if let sessions, sessions.issueOnRegistration, requiredUser == nil, verified.mediation != .conditional {
            session = try await sessions.start(
                user: user.handle, origin: .registration,
                amr: SignInMethod.passkey(userVerified: credential.record.uvInitialized, backupEligible: credential.record.backupEligible).amr,
                credentialID: credential.record.id)
        }
        let result = RegistrationResult(user: UserJSON(user), credential: CredentialJSON(credential, verified: verified, provider: service.provider(for: credential)), session: session.map(SessionJSON.init))
        return rawJSON(status: .created, result.jsonBytes)
    }

    func authenticationBegin(_ body: [UInt8]) async throws -> Response {
        let members = body.isEmpty ? [:] : try object(body)
        var lookup: UserLookup?
        switch members["user"] {
        case nil, .null?: break
        case .object(let user)?:
            switch (user["name"], user["id"]) {
            case (.string(let value)?, nil) where !value.isEmpty && API.isText(value): lookup = .name(value)
            case (nil, .string(let id)?): lookup = .handle(try Self.userHandle(id))
            default: throw APIError(status: 400, code: "malformed_json", message: "user needs exactly one of name and id.")
            }
        default: throw APIError.malformedJSON
        }
        var userVerification: UserVerificationRequirement?
        switch members["userVerification"] {
        case nil, .null?: break  // absent or null: the relying party's policy
        case .string(let text)?:
            guard let requirement = UserVerificationRequirement(rawValue: text) else { throw APIError.malformedJSON }
            userVerification = requirement
        default: throw APIError.malformedJSON
        }
        let extensions = try extensionInputs(members["extensions"], for: .authentication)
        if let lookup { try limitUser(lookup) }
        let options = try await service.beginAuthentication(user: lookup, userVerification: userVerification, extensions: extensions)
        return try json(status: .ok, ["publicKey": options])
    }

    func authenticationFinish(_ body: [UInt8]) async throws -> Response {
        let response = try body.withUnsafeBufferPointer { input throws -> UnverifiedAuthenticationResponse in
            // Hot path: find the credential object without building the body's tree, then read it in place.
            if let object = try? JSONRawObject.parse(input), case .object(let credential)? = object.member("credential", in: input) {
                return try UnverifiedAuthenticationResponse(jsonBytes: UnsafeBufferPointer(rebasing: input[credential.range]))
            }
            guard case .object(let members) = try? JSONReader.parse(input), let credential = members["credential"] else {
                throw APIError.malformedJSON
            }
            do {
                return try UnverifiedAuthenticationResponse(AuthenticationResponseJSON(json: credential))
            } catch let error as JSONShapeError {
                throw WebAuthnError(.malformedResponse, error.reason)
            }
        }
        let (user, credential, verified, userCredentialIDs, establishedUpgradeUV) = try await service.finishAuthentication(response)
        if establishedUpgradeUV { metrics.recordUpgrade("uv_established") }
        var session: SessionService.Issued?
        if let sessions, let user {
            session = try await sessions.start(
                user: user.handle, origin: .passkey,
                amr: SignInMethod.passkey(userVerified: verified.userVerified, backupEligible: credential.record.backupEligible).amr,
                credentialID: credential.record.id)
        }
        let result = AuthenticationResult(
            user: user.map(UserJSON.init), credential: CredentialJSON(credential, verified: nil, provider: service.provider(for: credential)),
            userVerified: verified.userVerified, signCountStatus: verified.signCountStatus.rawValue, session: session.map(SessionJSON.init),
            signal: user.map { AcceptedCredentialsSignal(rpID: service.relyingParty.id, user: $0, credentialIDs: userCredentialIDs) })
        return rawJSON(status: .ok, result.jsonBytes)
    }
}
