import PasskeyApp
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// The demo page's routes (PASSKEYD_DEMO): off by default; on, the page and its session cookie, which lets a user
/// see and delete only their own passkeys. The browser tests (e2e/) drive the same routes from Chromium.
@Suite("Demo page")
struct DemoRoutesTests {
    struct Exchange {
        let status: Int
        let headers: HTTPFields
        let body: [UInt8]
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        /// `name=value` of the demo session cookie this response sets, if any.
        var sessionCookie: String? {
            headers[values: .setCookie].first { $0.hasPrefix("passkeyd_demo=") }.map { String($0.prefix { $0 != ";" }) }
        }
        var setCookie: String? { headers[values: .setCookie].first }
    }

    static func app(
        demo: Bool, clock: TestClock = TestClock()
    ) async throws -> (Application<RouterResponder<PasskeyRequestContext>>, InMemoryPasskeyStore) {
        // API keys on: the demo routes must not need one (the browser has none).
        let settings = try TestPasskeyd.unboundedSettings(["PASSKEYD_API_KEYS": "api-key-0123456789", "PASSKEYD_DEMO": demo ? "on" : "off"])
        let store = TestPasskeyd.store(for: settings, now: { clock.now })
        return (try await TestPasskeyd.build(settings, store: store, now: { clock.now }).http, store)
    }

    @Test("PASSKEYD_DEMO: off by default; on serves the page and warns at start-up; anything else is refused")
    func setting() throws {
        let base = ["PASSKEYD_DATABASE_URL": "postgresql://passkeyd@127.0.0.1/passkeyd", "PASSKEYD_MIGRATIONS": NSTemporaryDirectory()]
        let off = try Settings(base)
        #expect(!off.demoPage && !off.http.demoPage && !off.warnings.contains { $0.hasPrefix("PASSKEYD_DEMO") })
        let on = try Settings(base.merging(["PASSKEYD_DEMO": "on"]) { $1 })
        #expect(on.demoPage && on.http.demoPage && on.warnings.contains { $0.hasPrefix("PASSKEYD_DEMO") })
        #expect(try !Settings(base.merging(["PASSKEYD_DEMO": "off"]) { $1 }).demoPage)
        #expect(throws: ConfigurationError.self) { try Settings(base.merging(["PASSKEYD_DEMO": "maybe"]) { $1 }) }
    }

    @Test("off by default: every demo path is the router's 404")
    func offByDefault() async throws {
        #expect(HTTPConfiguration().demoPage == false)
        try await Self.app(demo: false).0.test(.router) { client in
            for (method, path) in [(HTTPRequest.Method.get, "/demo"), (.get, "/demo/demo.js"), (.get, "/demo/api/session"),
                                   (.post, "/demo/api/registration/begin")] {
                let status = try await client.execute(uri: path, method: method) { Int($0.status.code) }
                #expect(status == 404, "\(method) \(path)")
            }
        }
    }

    @Test("the page and its scripts are served with a strict content security policy")
    func page() async throws {
        try await Self.app(demo: true).0.test(.router) { client in
            for (path, type, marker) in [("/demo", "text/html", "autocomplete=\"username webauthn\""), ("/demo/demo.js", "text/javascript", "mediation: \"conditional\""),
                                         ("/demo/demo.css", "text/css", "#status")] {
                let reply = try await client.send(path)
                #expect(reply.status == 200, "\(path)")
                #expect(reply.headers[.contentType]?.hasPrefix(type) == true, "\(path)")
                #expect(reply.headers[.init("content-security-policy")!]?.hasPrefix("default-src 'self'") == true)
                #expect(String(decoding: reply.body, as: UTF8.self).contains(marker), "\(path)")
            }
        }
    }

    @Test("sessions: registration signs a new account in; only its owner lists, extends and deletes its passkeys")
    func sessions() async throws {
        let clock = TestClock()
        let (app, store) = try await Self.app(demo: true, clock: clock)
        try await app.test(.router) { client in
            #expect(try await client.send("/demo/api/session").status == 401)

            // A new account: registered without an API key, and signed in by the finish.
            var (created, alice) = try await client.register("alice")
            #expect(created.status == 201)
            let aliceCookie = try #require(created.sessionCookie)
            #expect(created.setCookie?.contains("HttpOnly") == true && created.setCookie?.contains("SameSite=Strict") == true)
            #expect(created.setCookie?.contains("Path=/demo") == true)
            var session = try await client.send("/demo/api/session", cookie: aliceCookie)
            #expect(session.status == 200 && (session.json["user"] as? [String: Any])?["name"] as? String == "alice")
            #expect((session.json["credentials"] as? [Any])?.count == 1)

            // The name is taken: a sign-up with it is refused, also with alice's session; adding a passkey names
            // the user by id and needs that user's session.
            for cookie in [nil, aliceCookie] {
                let taken = try await client.send("/demo/api/registration/begin", method: .post, body: #"{"user":{"name":"alice"}}"#, cookie: cookie)
                #expect(taken.status == 409 && taken.errorCode == "user_exists")
            }
            let aliceID = try #require((created.json["user"] as? [String: Any])?["id"] as? String)
            let byID = "{\"user\":{\"id\":\"\(aliceID)\"}}"
            let anonymous = try await client.send("/demo/api/registration/begin", method: .post, body: byID)
            #expect(anonymous.status == 401 && anonymous.errorCode == "unauthorized")
            let (second, _) = try await client.register(user: byID, cookie: aliceCookie)
            #expect(second.status == 201 && second.sessionCookie != nil)
            session = try await client.send("/demo/api/session", cookie: aliceCookie)
            #expect((session.json["credentials"] as? [Any])?.count == 2)

            // Signing in (by name) through the demo sets a session too.
            let options = try await client.send("/demo/api/authentication/begin", method: .post, body: #"{"user":{"name":"alice"}}"#)
            let request = try JSONDecoder().decode(PublicKeyWrapper<RequestOptionsJSON>.self, from: Data(options.body)).publicKey
            let assertion = try SoftAuthenticator.authenticate(options: request, credential: &alice, knobs: AssertionKnobs(origin: Harness.origin))
            let signedIn = try await client.send(
                "/demo/api/authentication/finish", method: .post, body: String(decoding: try JSONEncoder().encode(FinishAuthentication(credential: assertion)), as: UTF8.self))
            #expect(signedIn.status == 200 && signedIn.sessionCookie != nil)

            // Another user cannot delete alice's passkey; alice can, once.
            let (mallory, _) = try await client.register("mallory")
            let malloryCookie = try #require(mallory.sessionCookie)
            // mallory's session does not add a passkey to alice's account.
            let intruder = try await client.send("/demo/api/registration/begin", method: .post, body: byID, cookie: malloryCookie)
            #expect(intruder.status == 401)
            let id = Base64URL.encode(alice.id)
            #expect(try await client.send("/demo/api/credentials/\(id)", method: .delete, cookie: malloryCookie).errorCode == "credential_unknown")
            #expect(try await client.send("/demo/api/credentials/\(id)", method: .delete).status == 401)
            let foreign = try await client.send(
                "/demo/api/credentials/\(id)", method: .delete, cookie: aliceCookie, headers: [.origin: "http://localhost:9999"])
            #expect(foreign.status == 401)
            #expect(try await store.credential(id: alice.id) != nil)
            #expect(try await client.send("/demo/api/credentials/\(id)", method: .delete, cookie: aliceCookie).status == 204)
            #expect(try await store.credential(id: alice.id) == nil)
            #expect(try await client.send("/demo/api/credentials/\(id)", method: .delete, cookie: aliceCookie).status == 404)

            // A forged or expired cookie is no session; signing out clears the cookie.
            let parts = aliceCookie.split(separator: ".").map(String.init)
            let later = "\(parts[0]).\(Int(parts[1])! + 3600).\(parts[2])"  // a longer session, same MAC
            var mac = Array(parts[2])
            for index in [0, mac.count - 1] {  // the first and the last character (whose low bits are unused)
                mac[index] = mac[index] == "A" ? "B" : "A"
                let forged = "\(parts[0]).\(parts[1]).\(String(mac))"
                #expect(try await client.send("/demo/api/session", cookie: forged).status == 401, "\(forged)")
            }
            #expect(try await client.send("/demo/api/session", cookie: later).status == 401)
            let handle = try #require(session.json["user"] as? [String: Any])["id"] as? String
            #expect(try await client.send("/demo/api/session", cookie: "passkeyd_demo=\(handle ?? "").9999999999.AAAA").status == 401)
            let out = try await client.send("/demo/api/signout", method: .post, cookie: aliceCookie)
            #expect(out.status == 204 && out.setCookie?.contains("Max-Age=0") == true)
            clock.advance(Double(601))
            #expect(try await client.send("/demo/api/session", cookie: aliceCookie).status == 401)
        }
    }
}

extension TestClientProtocol {
    fileprivate func send(
        _ path: String, method: HTTPRequest.Method = .get, body: String? = nil, cookie: String? = nil, headers: HTTPFields = [:]
    ) async throws -> DemoRoutesTests.Exchange {
        var headers = headers
        if let cookie { headers[.cookie] = cookie }
        if body != nil { headers[.contentType] = "application/json" }
        return try await execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
            DemoRoutesTests.Exchange(status: Int(response.status.code), headers: response.headers, body: Array(response.body.readableBytesView))
        }
    }

    /// Registers a new user `name` through the demo routes with a software passkey.
    fileprivate func register(_ name: String, cookie: String? = nil) async throws -> (DemoRoutesTests.Exchange, SoftCredential) {
        try await register(user: "{\"user\":{\"name\":\"\(name)\"}}", cookie: cookie)
    }

    /// Registers with the begin body `user` through the demo routes with a software passkey.
    fileprivate func register(user: String, cookie: String? = nil) async throws -> (DemoRoutesTests.Exchange, SoftCredential) {
        let begin = try await send("/demo/api/registration/begin", method: .post, body: user, cookie: cookie)
        #expect(begin.status == 200)
        let options = try JSONDecoder().decode(PublicKeyWrapper<CreationOptionsJSON>.self, from: Data(begin.body)).publicKey
        let (response, credential) = try SoftAuthenticator.register(options: options, knobs: RegistrationKnobs(origin: Harness.origin))
        let body = String(decoding: try JSONEncoder().encode(FinishRegistration(credential: response, nickname: nil)), as: UTF8.self)
        return (try await send("/demo/api/registration/finish", method: .post, body: body, cookie: cookie), credential)
    }
}
