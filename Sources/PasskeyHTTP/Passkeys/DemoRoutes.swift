import PasskeyApp
import COSECrypto
import Foundation
import Hummingbird
import NIOCore
import PasskeyStore
import WebAuthnCore
import WebAuthnModel

/// The demo page (`PASSKEYD_DEMO=on`, off by default): a page for trying passkeys in a browser, and the few routes
/// it calls. A development aid, not part of the API: absent from `openapi.json`, and every route below is the
/// router's 404 when the demo is off.
///
///     GET    /demo, /demo/demo.js, /demo/demo.css,        the page (static files from Resources/demo)
///            /demo/passkeyd-browser.js
///     POST   /demo/api/registration/begin|finish          the /v1 ceremonies, same bodies and answers, plus:
///     POST   /demo/api/authentication/begin|finish          a successful finish sets the demo session cookie
///     GET    /demo/api/session                            {"user","credentials"} of the signed-in user; 401 otherwise
///     DELETE /demo/api/credentials/:credentialId          one of the signed-in user's passkeys (204); others are 404
///     POST   /demo/api/signout                            clears the cookie (204)
///
/// The browser never sees an API key or the admin API. The demo session is a cookie `passkeyd_demo` =
/// `<user handle, base64url>.<expiry, unix seconds>.<HMAC-SHA256 of both, base64url>` under a random key made when
/// the router is built (a restart signs everyone out), valid 10 minutes, `HttpOnly`, `SameSite=Strict`,
/// `Path=/demo`, `Secure` when every web origin is https. It is issued by an authentication finish, and by a
/// registration finish that created the account (or added a passkey to the account already signed in). Adding a
/// passkey to an existing user (`{"user":{"id"}}`) needs that user's session (otherwise 401), and a taken name is
/// 409 `user_exists`, so an account cannot be taken over through the demo. State-changing demo calls carrying an `Origin` header must come from an allowed origin (401).
/// The demo routes need no API key, even when `PASSKEYD_API_KEYS` is set: whoever reaches the server can register
/// through them, which is why the demo is off by default and meant for local trials.
func addDemoRoutes(to router: Router<PasskeyRequestContext>, api: API) {
    var open = api.configuration
    open.apiKeys = []  // the browser has no API key; the demo checks its own session cookie
    let api = API(service: api.service, configuration: open)
    let demo = DemoAPI(api: api, sessions: DemoSessions(relyingParty: api.service.relyingParty, now: api.service.now))

    for file in DemoFiles.all {
        let route = file.name == "index.html" ? "/demo" : "/demo/\(file.name)"
        let bytes = DemoFiles.load(file.name)
        router.get(RouterPath(route)) { _, _ in DemoFiles.response(bytes, contentType: file.contentType) }
    }
    api.route(router, .demoRegistrationBegin) { request, body, _ in
        try demo.checkOrigin(request)
        return try await demo.registrationBegin(request, body)
    }
    api.route(router, .demoRegistrationFinish) { request, body, _ in
        try demo.checkOrigin(request)
        return try await demo.registrationFinish(request, body)
    }
    api.route(router, .demoAuthenticationBegin) { request, body, _ in
        try demo.checkOrigin(request)
        return try await api.authenticationBegin(body)
    }
    api.route(router, .demoAuthenticationFinish) { request, body, _ in
        try demo.checkOrigin(request)
        return try await demo.authenticationFinish(body)
    }
    api.route(router, .demoSession) { request, _, _ in try await demo.session(request) }
    api.route(router, .demoDeleteCredential) { request, _, context in
        try demo.checkOrigin(request)
        return try await demo.deleteCredential(request, try AdminAPI.id(context, "credentialId"))
    }
    api.route(router, .demoSignOut) { request, _, _ in
        try demo.checkOrigin(request)
        var response = Response(status: .noContent)
        response.setCookie(demo.sessions.cleared)
        return response
    }
}


/// The demo's session cookie: signed, short-lived, stateless.
struct DemoSessions: Sendable {
    static let cookieName = "passkeyd_demo"
    static let lifetimeSeconds = 600
    let key: [UInt8]
    let secure: Bool
    let now: @Sendable () -> Date

    init(relyingParty: RelyingParty, key: [UInt8] = SecureRandom.bytes(count: 32), now: @escaping @Sendable () -> Date = { Date() }) {
        self.key = key
        let web = relyingParty.allowedOrigins.filter { $0.hasPrefix("http://") || $0.hasPrefix("https://") }
        secure = !web.isEmpty && web.allSatisfy { $0.hasPrefix("https://") }
        self.now = now
    }

    /// A cookie naming `handle`, valid ``lifetimeSeconds``.
    func issue(_ handle: [UInt8]) -> Cookie {
        let expiry = Int(now().timeIntervalSince1970) + Self.lifetimeSeconds
        let payload = "\(Base64URL.encode(handle)).\(expiry)"
        let mac = Base64URL.encode(Self.hmacSHA256(key: key, Array(payload.utf8)))
        return cookie("\(payload).\(mac)", maxAge: Self.lifetimeSeconds)
    }

    /// An expired, empty cookie (signs out).
    var cleared: Cookie { cookie("", maxAge: 0) }

    private func cookie(_ value: String, maxAge: Int) -> Cookie {
        Cookie(name: Self.cookieName, value: value, maxAge: maxAge, path: "/demo", secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// The signed-in user's handle, if the request carries a valid, unexpired session cookie.
    func user(_ request: Request) -> [UInt8]? {
        guard let value = request.cookies[Self.cookieName]?.value else { return nil }
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let expiry = Int(parts[1]), expiry > Int(now().timeIntervalSince1970),
            let handle = Base64URL.decode(String(parts[0])), !handle.isEmpty
        else { return nil }
        // Compared as text: one spelling per MAC (a base64url string's last character has unused bits).
        let expected = Base64URL.encode(Self.hmacSHA256(key: key, Array("\(parts[0]).\(parts[1])".utf8)))
        return constantTimeEquals(Array(parts[2].utf8), Array(expected.utf8)) ? handle : nil
    }

    /// RFC 2104 HMAC over SHA-256.
    static func hmacSHA256(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? Digest.sha256(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = Digest.sha256(block.map { $0 ^ 0x36 } + message)
        return Digest.sha256(block.map { $0 ^ 0x5C } + inner)
    }
}

/// The demo's operations: the /v1 ceremonies plus the session.
struct DemoAPI: Sendable {
    let api: API
    let sessions: DemoSessions
    var service: CeremonyService { api.service }

    static func refused(_ message: String) -> APIError { APIError(status: 401, code: "unauthorized", message: message) }

    /// A state-changing call from a page of another origin (same-site pages on other ports included) is refused.
    func checkOrigin(_ request: Request) throws {
        if let origin = request.headers[.origin], !api.service.relyingParty.allowedOrigins.contains(origin) {
            throw Self.refused("The request comes from an origin this relying party does not allow.")
        }
    }

    /// The /v1 begin, with the demo session as the "backend that authenticated this person": `{"user":{"id"}}`
    /// (adding a passkey) only for the signed-in user's own id (401 otherwise); `{"user":{"name"}}` signs a new
    /// user up (409 `user_exists` when taken, as in /v1).
    func registrationBegin(_ request: Request, _ body: [UInt8]) async throws -> Response {
        if case .existingUser(let handle) = try API.registrationSubject(try api.object(body)["user"]),
            sessions.user(request) != handle
        {
            throw Self.refused("Sign in as this user to add a passkey to the account.")
        }
        return try await api.registrationBegin(body)
    }

    /// The /v1 finish; signs in when the registration created the account or added to the signed-in one.
    func registrationFinish(_ request: Request, _ body: [UInt8]) async throws -> Response {
        var response = try await api.registrationFinish(body)
        if let (handle, count) = try await owner(ofCredentialIn: body) {
            let isNewAccount = count == 1
            if isNewAccount || sessions.user(request) == handle { response.setCookie(sessions.issue(handle)) }
        }
        return response
    }

    /// The /v1 finish; a verified assertion signs its credential's owner in.
    func authenticationFinish(_ body: [UInt8]) async throws -> Response {
        var response = try await api.authenticationFinish(body)
        if let (handle, _) = try await owner(ofCredentialIn: body) { response.setCookie(sessions.issue(handle)) }
        return response
    }

    /// The owner of the (just verified) credential whose id is `credential.id` in `body`, and how many credentials
    /// they hold.
    private func owner(ofCredentialIn body: [UInt8]) async throws -> (handle: [UInt8], credentialCount: Int)? {
        guard case .object(let credential)? = try api.object(body)["credential"], case .string(let text)? = credential["id"],
            let id = Base64URL.decode(text)
        else { return nil }
        return try await service.owner(ofCredential: id)
    }

    func session(_ request: Request) async throws -> Response {
        guard let handle = sessions.user(request), let (user, stored) = try await service.account(ofUser: handle) else {
            throw Self.refused("Not signed in (or the demo session expired).")
        }
        return try api.json(status: .ok, DemoSession(
            user: UserJSON(user), credentials: stored.map { CredentialJSON($0, verified: nil, provider: api.service.provider(for: $0)) },
            signal: AcceptedCredentialsSignal(rpID: api.service.relyingParty.id, user: user, credentialIDs: stored.map(\.record.id))))
    }

    /// Deletes one of the signed-in user's credentials; another user's is reported as unknown.
    func deleteCredential(_ request: Request, _ id: [UInt8]) async throws -> Response {
        guard let handle = sessions.user(request) else { throw Self.refused("Not signed in (or the demo session expired).") }
        try await service.removeCredential(id, ofUser: handle, audit: RequestScope.audit)
        RequestScope.log(.credentialDeleted, user: handle, credential: id)
        return Response(status: .noContent)
    }
}

/// The signed-in user of the demo page, with the Signal API's arguments (the page passes them on after a deletion).
struct DemoSession: Encodable {
    let user: UserJSON
    let credentials: [CredentialJSON]
    let signal: AcceptedCredentialsSignal
}

/// The page's static files (Resources/demo), read once when the router is built.
enum DemoFiles {
    static let all: [(name: String, contentType: String)] = [
        ("index.html", "text/html; charset=utf-8"), ("demo.js", "text/javascript; charset=utf-8"),
        ("demo.css", "text/css; charset=utf-8"),
        ("passkeyd-browser.js", "text/javascript; charset=utf-8"),  // clients/typescript's browser helper, compiled
    ]

    static func load(_ name: String) -> ByteBuffer? {
        let file = URL(fileURLWithPath: name)
        let url = Bundle.module.url(
            forResource: file.deletingPathExtension().lastPathComponent, withExtension: file.pathExtension, subdirectory: "demo")
            ?? Bundle.module.resourceURL?.appendingPathComponent("demo/\(name)")
        guard let url, let data = try? Data(contentsOf: url) else { return nil }
        return ByteBuffer(bytes: data)
    }

    static func response(_ bytes: ByteBuffer?, contentType: String) -> Response {
        guard let bytes else {
            // Missing from the bundle: a packaging bug.
            return Response(
                status: .internalServerError, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: APIError.internalError.jsonBody)))
        }
        var headers: HTTPFields = [.contentType: contentType, .cacheControl: "no-cache"]
        headers[.init("content-security-policy")!] =
            "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"
        headers[.init("x-content-type-options")!] = "nosniff"
        headers[.init("referrer-policy")!] = "no-referrer"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bytes))
    }
}
