import PasskeyApp
import COSECrypto
import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import JOSE
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import SealedState
import Synchronization
import PostgresTestSupport
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// A provider for these tests: Apple- and LINE-shaped profiles whose tokens this test signs.
struct TestIDP: Sendable {
    let key: PrivateKey
    let keys: JWKSet

    static let shared: TestIDP = {
        let key = try! PrivateKey.generate(for: .rs256)
        let member = JWK.members(of: key.publicKey, keyID: "k1", algorithm: .rs256)!
        return TestIDP(key: key, keys: JWKSet(keys: [try! JWK(members: member)]))
    }()

    static let apple = ProviderProfile.apple(audiences: ["com.example.app"])
    static var line: ProviderProfile {
        var profile = ProviderProfile.line(channelIDs: ["1234567890"])
        profile.algorithms = [.rs256]  // this test signs everything with one RSA key
        return profile
    }

    /// The settings of ``apple`` and ``line`` (`PASSKEYD_IDTOKEN_*`); their keys come from ``providerKeys(_:)``.
    static let environment = [
        "PASSKEYD_IDTOKEN_PROVIDERS": "apple,line", "PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS": "com.example.app",
        "PASSKEYD_IDTOKEN_LINE_CLIENT_IDS": "1234567890", "PASSKEYD_IDTOKEN_LINE_ALGORITHMS": "RS256",
    ]

    /// Every configured provider's keys: `keys`, or this provider's set.
    func providerKeys(_ keys: (any ProviderKeySource)? = nil) -> @Sendable (IdentitySettings.Provider) throws -> any ProviderKeySource {
        let source = keys ?? StaticKeySource(self.keys)
        return { _ in source }
    }

    /// A token for `profile` carrying `nonce` (what the app got as providerNonce), with claim `changes`.
    /// `issuedAt` is the service's clock when the test moves it (a token stamped with real time would drift from a
    /// frozen test clock by however long the suite has run, past the allowed skew on a loaded machine).
    func token(_ profile: ProviderProfile = apple, nonce: String?, subject: String = "000111.subject.2222",
               issuedAt: Date = Date(), _ changes: [String: JSONValue?] = [:]) -> String {
        let now = issuedAt.timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = [
            "iss": .string(profile.issuers[0]), "aud": .string(profile.audiences[0]), "sub": .string(subject),
            "iat": .number(now), "exp": .number(now + 600), "email": .string("relay@privaterelay.appleid.com"),
            "email_verified": .bool(true), "is_private_email": .string("true"),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        for (name, value) in changes { claims[name] = value ?? nil }
        return try! JSONSigning.sign(claims, key: key)
    }
}

enum JSONSigning {
    static func sign(_ claims: [String: JSONValue], key: PrivateKey, keyID: String = "k1") throws -> String {
        try JWSSigner.sign(payload: JSONText.bytes(of: .object(claims)), algorithm: .rs256, key: .privateKey(key), keyID: keyID)
    }
}

/// A key source that has no keys at all (the provider is down and nothing was ever fetched).
struct UnavailableKeySource: ProviderKeySource {
    func keys(for keyID: String?) async throws(ProviderKeyError) -> JWKSet { throw ProviderKeyError("test: provider down") }
}

/// Native sign-in with ID tokens over HTTP on PostgreSQL: the session is consumed once whatever happens, every
/// refusal has its code and changes nothing else, a concurrent first sign-in makes one user, and linking is by id.
@Suite("ID-token sign-in over HTTP", .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct IDTokenHTTPTests {
    static let idp = TestIDP.shared

    struct Begun {
        let session: String
        let nonce: String
        let providerNonce: String
    }

    static func begin(_ client: some TestClientProtocol, _ provider: String = "apple") async throws -> Begun {
        let reply = try await client.post("/v1/idtoken/begin", Array(#"{"provider":"\#(provider)"}"#.utf8))
        #expect(reply.status == 200, "begin: \(reply.status) \(reply.errorCode ?? "-")")
        let json = reply.json
        return Begun(session: json["session"] as? String ?? "", nonce: json["nonce"] as? String ?? "",
                     providerNonce: json["providerNonce"] as? String ?? "")
    }

    static func finish(
        _ client: some TestClientProtocol, session: String, provider: String = "apple", token: String, user: [String: Any]? = nil
    ) async throws -> Reply {
        var body: [String: Any] = ["session": session, "provider": provider, "idToken": token]
        if let user { body["user"] = user }
        return try await client.post("/v1/idtoken/finish", Array(try JSONSerialization.data(withJSONObject: body)))
    }

    /// A fresh schema and an instance with the test providers (and `environment`'s); both shut down and dropped
    /// (awaited) afterwards.
    static func withInstance(
        keys: (any ProviderKeySource)? = nil, timeout: TimeInterval? = nil, environment: [String: String] = [:],
        _ body: @escaping @Sendable (HTTPTestSchema, any TestClientProtocol) async throws -> Void
    ) async throws {
        var settings = try TestPasskeyd.unboundedSettings(
            TestIDP.environment.merging(["PASSKEYD_ADMIN_KEYS": PostgresHTTP.adminKey]) { $1 }.merging(environment) { $1 })
        // The expiry test's 1 s is under PASSKEYD_IDTOKEN_SESSION_TIMEOUT's 30 s minimum.
        if let timeout { settings.identity.sessionTimeout = timeout }
        let schema = try await HTTPTestSchema.create(baseURL: try #require(PostgresHTTP.databaseURL))
        let instance: PostgresHTTPInstance
        do {
            instance = try await PostgresHTTPInstance(url: schema.url, settings: settings, providerKeys: idp.providerKeys(keys))
        } catch {
            await schema.drop()
            throw error
        }
        do {
            try await instance.app.test(.router) { client in try await body(schema, client) }
        } catch {
            await instance.shutdown()
            await schema.drop()
            throw error
        }
        await instance.shutdown()
        await schema.drop()
    }

    @Test("first sign-in creates the user (201), the next one signs the same user in (200); admin sees and unlinks the identity")
    func signInTwice() async throws {
        try await Self.withInstance { schema, client in
            let begun = try await Self.begin(client)
            let sessionID = try #require(Base64URL.decodeStrict(begun.session))
            #expect(Base64URL.decodeStrict(begun.nonce)?.count == 32)
            if TestPasskeyd.sealed {
                // A sealed session (59 bytes for "apple"); the nonce is derived from it, and the provider never sees it.
                #expect(sessionID.count == SealedState.overhead + 1 + 5)
                #expect(begun.nonce == Base64URL.encode(Digest.sha256(sessionID)))
                #expect(!begun.providerNonce.contains(begun.session) && begun.nonce != begun.session)
            } else {
                #expect(sessionID.count == 16)
            }
            #expect(begun.providerNonce == IDTokenSignIn.providerNonce(for: begun.nonce, rule: .sha256Hex))
            let first = try await Self.finish(client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce))
            #expect(first.status == 201, "\(first.status) \(first.errorCode ?? "-")")
            let user = first.json["user"] as? [String: Any] ?? [:]
            let identity = first.json["identity"] as? [String: Any] ?? [:]
            #expect(first.json["created"] as? Bool == true && first.json["linked"] as? Bool == true)
            #expect(user["name"] as? String == "apple:000111.subject.2222")
            #expect(identity["issuer"] as? String == "https://appleid.apple.com" && identity["isPrivateEmail"] as? Bool == true)

            let again = try await Self.begin(client)
            let second = try await Self.finish(client, session: again.session, token: Self.idp.token(nonce: again.providerNonce))
            #expect(second.status == 200 && second.json["created"] as? Bool == false && second.json["linked"] as? Bool == false)
            #expect((second.json["user"] as? [String: Any])?["id"] as? String == user["id"] as? String)
            #expect(try await schema.count("users") == 1)
            #expect(try await schema.count("identities") == 1)
            #expect(try await schema.count("ceremonies") == 0)

            let userID = try #require(user["id"] as? String), identityID = try #require(identity["id"] as? String)
            let listed = try await client.get("/v1/admin/users/\(userID)/identities", headers: PostgresHTTP.adminAuth)
            #expect(listed.status == 200 && (listed.json["identities"] as? [[String: Any]])?.first?["id"] as? String == identityID)
            let unlinked = try await client.send(.delete, "/v1/admin/users/\(userID)/identities/\(identityID)", headers: PostgresHTTP.adminAuth)
            #expect(unlinked.status == 204)
            let again404 = try await client.send(.delete, "/v1/admin/users/\(userID)/identities/\(identityID)", headers: PostgresHTTP.adminAuth)
            #expect(again404.status == 404 && again404.errorCode == "identity_unknown")
            // Signing in again after the unlink makes a new user; the made-up name is taken, so it gets a suffix.
            let third = try await Self.begin(client)
            let relinked = try await Self.finish(client, session: third.session, token: Self.idp.token(nonce: third.providerNonce))
            #expect(relinked.status == 201)
            #expect(((relinked.json["user"] as? [String: Any])?["name"] as? String)?.hasPrefix("apple:000111.subject.2222~") == true)
            let events = try await client.get("/v1/admin/audit-events", headers: PostgresHTTP.adminAuth).json["events"] as? [[String: Any]] ?? []
            #expect(events.map { $0["event"] as? String ?? "?" } == [
                "user.created", "identity.linked", "identity.unlinked", "user.created", "identity.linked",
            ])
            #expect(events[1]["identityId"] as? String == identityID && events[2]["identityId"] as? String == identityID)
        }
    }

    @Test("the session is used up by any finish: reuse, a failed token then a good one, another provider, a passkey challenge")
    func sessionSingleUse() async throws {
        try await Self.withInstance { schema, client in
            let begun = try await Self.begin(client)
            #expect(try await Self.finish(client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce)).status == 201)
            let reused = try await Self.finish(client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce))
            #expect(reused.status == 400 && reused.errorCode == "idtoken_session_unknown")

            // A failed verification still uses the session up.
            let second = try await Self.begin(client)
            let wrong = try await Self.finish(client, session: second.session, token: Self.idp.token(nonce: "not-the-nonce"))
            #expect(wrong.status == 422 && wrong.errorCode == "idtoken_nonce_mismatch")
            let retry = try await Self.finish(client, session: second.session, token: Self.idp.token(nonce: second.providerNonce))
            #expect(retry.errorCode == "idtoken_session_unknown")

            // Apple's session finished as LINE (with a token that LINE would accept): refused, and used up.
            let third = try await Self.begin(client, "apple")
            let crossed = try await Self.finish(
                client, session: third.session, provider: "line", token: Self.idp.token(TestIDP.line, nonce: third.nonce))
            #expect(crossed.status == 400 && crossed.errorCode == "idtoken_provider_mismatch")
            #expect(try await schema.count("ceremonies") == 0)

            // A passkey registration's challenge is not a session, and the finish does not take that ceremony.
            let registration = try await client.post("/v1/registration/begin", Array(#"{"user":{"name":"carol"}}"#.utf8))
            let challenge = try #require((registration.json["publicKey"] as? [String: Any])?["challenge"] as? String)
            #expect(Base64URL.decodeStrict(challenge)?.count ?? 0 >= 32)
            let sixteen = Base64URL.encode(Array(try #require(Base64URL.decodeStrict(challenge)).prefix(16)))
            for session in [challenge, sixteen] {
                let asSession = try await Self.finish(client, session: session, token: Self.idp.token(nonce: "x"))
                #expect(asSession.status == 400 && asSession.errorCode == "idtoken_session_unknown")
            }
            #expect(try await schema.count("ceremonies", where: "kind = 'registration'") == (TestPasskeyd.sealed ? 0 : 1))
            #expect(try await schema.count("users") == 1)  // only the first sign-in's user
        }
    }

    @Test("an expired session is refused and gone")
    func expiredSession() async throws {
        try await Self.withInstance(timeout: 1) { schema, client in
            let begun = try await Self.begin(client)
            try await Task.sleep(for: .milliseconds(1_500))
            let late = try await Self.finish(client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce))
            if TestPasskeyd.sealed {
                // Sealed: past its expiry but inside the 30 s clock skew a session still opens (the service clock is all
                // there is; the refusal past the skew is SealedIdentityTests' expiry test, on a test clock).
                #expect(late.status == 201, "\(late.status) \(late.errorCode ?? "-")")
                #expect(try await schema.count("ceremonies") == 0)
                return
            }
            #expect(late.status == 400 && late.errorCode == "idtoken_session_unknown")
            #expect(try await schema.count("ceremonies") == 0)
            #expect(try await schema.count("users") == 0)
        }
    }

    @Test("8 concurrent finishes of one session: exactly one succeeds; 6 first sign-ins of one identity: one user")
    func concurrency() async throws {
        try await Self.withInstance { schema, client in
            let begun = try await Self.begin(client)
            let token = Self.idp.token(nonce: begun.providerNonce)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await Self.finish(client, session: begun.session, token: token).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 1 && statuses.filter { $0 == 400 }.count == 7, "\(statuses)")

            // One new identity, six sessions finished at once: one user, one identity; everyone signed in as it.
            var sessions: [Begun] = []
            for _ in 0..<6 { sessions.append(try await Self.begin(client)) }
            let ids = try await withThrowingTaskGroup(of: String?.self) { group in
                for begun in sessions {
                    group.addTask {
                        let reply = try await Self.finish(
                            client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce, subject: "race.subject"))
                        return reply.status < 300 ? (reply.json["user"] as? [String: Any])?["id"] as? String : "\(reply.status) \(reply.errorCode ?? "")"
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(Set(ids.compactMap { $0 }).count == 1, "\(ids)")
            #expect(try await schema.count("identities", where: "subject = 'race.subject'") == 1)
            #expect(try await schema.count("users") == 2)
        }
    }

    @Test("linking is by id only: attach to a passkey user, not by name; taken identity 409; unknown id 404; delete cascades")
    func linking() async throws {
        try await Self.withInstance { schema, client in
            // Alice signs up with a passkey.
            let options = try JSONDecoder().decode(
                PublicKeyWrapper<CreationOptionsJSON>.self,
                from: Data(try await client.post("/v1/registration/begin", Array(#"{"user":{"name":"alice"}}"#.utf8)).body)).publicKey
            let (response, credential) = try SoftAuthenticator.register(options: options, knobs: RegistrationKnobs(origin: Harness.origin))
            #expect(try await client.post("/v1/registration/finish", json: FinishRegistration(credential: response, nickname: nil)).status == 201)
            let aliceID = Base64URL.encode(credential.userHandle)

            // A name never links: asking for "alice" as the new user's name is user_exists, and nothing is written.
            var begun = try await Self.begin(client)
            let byName = try await Self.finish(
                client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce, subject: "alice.apple"), user: ["name": "alice"])
            #expect(byName.status == 409 && byName.errorCode == "user_exists")
            #expect(try await schema.count("identities") == 0)

            // The backend authenticated alice and attaches her Apple identity by id.
            begun = try await Self.begin(client)
            let attached = try await Self.finish(
                client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce, subject: "alice.apple"), user: ["id": aliceID])
            #expect(attached.status == 200 && attached.json["linked"] as? Bool == true && attached.json["created"] as? Bool == false)
            #expect((attached.json["user"] as? [String: Any])?["id"] as? String == aliceID)
            // She can now sign in with either; the Apple sign-in is alice.
            begun = try await Self.begin(client)
            let signIn = try await Self.finish(client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce, subject: "alice.apple"))
            #expect(signIn.status == 200 && (signIn.json["user"] as? [String: Any])?["id"] as? String == aliceID)

            // Bob (a new Apple user) cannot have alice's identity attached to him.
            begun = try await Self.begin(client)
            let bob = try await Self.finish(client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce, subject: "bob.apple"))
            let bobID = try #require((bob.json["user"] as? [String: Any])?["id"] as? String)
            begun = try await Self.begin(client)
            let stolen = try await Self.finish(
                client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce, subject: "alice.apple"), user: ["id": bobID])
            #expect(stolen.status == 409 && stolen.errorCode == "identity_linked_elsewhere")
            begun = try await Self.begin(client)
            let nobody = try await Self.finish(
                client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce, subject: "new.apple"),
                user: ["id": Base64URL.encode(randomBytes(32))])
            #expect(nobody.status == 404 && nobody.errorCode == "user_unknown")
            #expect(try await schema.count("identities") == 2)

            // Deleting alice deletes her identity (and records it).
            #expect(try await client.send(.delete, "/v1/admin/users/\(aliceID)", headers: PostgresHTTP.adminAuth).status == 204)
            #expect(try await schema.count("identities") == 1)
            #expect(try await schema.count("audit_events", where: "event = 'identity.unlinked'") == 1)
        }
    }

    @Test("bad input is a 4xx JSON error and changes nothing; no keys is 503 provider_unavailable; unknown provider 400")
    func badInput() async throws {
        try await Self.withInstance { schema, client in
            let begun = try await Self.begin(client)
            let snapshot = try await schema.snapshot()
            let cases: [(String, Int, String)] = [
                ("{", 400, "malformed_json"),
                (#"{"provider":"apple"}"#, 400, "malformed_json"),
                (#"{"session":"***","provider":"apple","idToken":"a.b.c"}"#, 400, "malformed_base64"),
                (#"{"session":"\#(begun.session)","provider":"apple","idToken":"x","user":{"name":"a","id":"b"}}"#, 400, "malformed_json"),
            ]
            for (body, status, code) in cases {
                let reply = try await client.post("/v1/idtoken/finish", Array(body.utf8))
                #expect(reply.status == status && reply.errorCode == code, "\(body): \(reply.status) \(reply.errorCode ?? "-")")
            }
            #expect(try await schema.snapshot() == snapshot)  // the session is still there: nothing identified it
            // A finish naming a provider that is not configured is refused after the session is taken: used up.
            let unconfigured = try await Self.finish(
                client, session: begun.session, provider: "facebook", token: Self.idp.token(nonce: begun.providerNonce))
            #expect(unconfigured.status == 400 && unconfigured.errorCode == "idtoken_provider_unknown")
            #expect(try await schema.count("ceremonies") == 0)
            let afterUnconfigured = try await Self.finish(client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce))
            #expect(afterUnconfigured.status == 400 && afterUnconfigured.errorCode == "idtoken_session_unknown")
            let unknownBegin = try await client.post("/v1/idtoken/begin", Array(#"{"provider":"facebook"}"#.utf8))
            #expect(unknownBegin.status == 400 && unknownBegin.errorCode == "idtoken_provider_unknown")
            let huge = String(repeating: "a", count: 9_000) + ".b.c"
            let oversized = try await Self.finish(client, session: try await Self.begin(client).session, token: huge)
            #expect(oversized.status == 400 && oversized.errorCode == "idtoken_too_large")
            #expect(try await schema.count("users") == 0)
        }
        try await Self.withInstance(keys: UnavailableKeySource()) { schema, client in
            let begun = try await Self.begin(client)
            let reply = try await Self.finish(client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce))
            #expect(reply.status == 503 && reply.errorCode == "provider_unavailable")
            #expect(try await schema.count("users") == 0)
        }
    }

    @Test("time claims: nbf in the future is 422 idtoken_not_yet_valid, a NumericDate as a string is 400 idtoken_malformed; each uses its session up and creates nobody")
    func timeClaims() async throws {
        try await Self.withInstance { schema, client in
            let now = Date().timeIntervalSince1970.rounded(.down)
            let cases: [([String: JSONValue?], Int, String)] = [
                (["nbf": .number(now + 3600)], 422, "idtoken_not_yet_valid"),
                (["exp": .string(String(Int(now + 600)))], 400, "idtoken_malformed"),
                (["iat": .string(String(Int(now)))], 400, "idtoken_malformed"),
                (["nbf": .string(String(Int(now)))], 400, "idtoken_malformed"),
                (["auth_time": .string(String(Int(now)))], 400, "idtoken_malformed"),
            ]
            for (changes, status, code) in cases {
                let begun = try await Self.begin(client)
                let reply = try await Self.finish(client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce, changes))
                #expect(reply.status == status && reply.errorCode == code, "\(changes): \(reply.status) \(reply.errorCode ?? "-")")
                let retry = try await Self.finish(client, session: begun.session, token: Self.idp.token(nonce: begun.providerNonce))
                #expect(retry.errorCode == "idtoken_session_unknown", "\(changes): the session was used up")
            }
            #expect(try await schema.count("users") == 0)
            #expect(try await schema.count("identities") == 0)
            #expect(try await schema.count("ceremonies") == 0)
            // A past nbf and a numeric auth_time sign in.
            let begun = try await Self.begin(client)
            let good = try await Self.finish(client, session: begun.session, token: Self.idp.token(
                nonce: begun.providerNonce, ["nbf": .number(now - 5), "auth_time": .number(now - 5)]))
            #expect(good.status == 201, "\(good.status) \(good.errorCode ?? "-")")
        }
    }

    @Test("Google's two issuer spellings are one identity: stored under https://accounts.google.com, found with either")
    func googleIssuerSpellings() async throws {
        let google = ProviderProfile.google(clientIDs: ["1234.apps.googleusercontent.com"])
        let providers = ["PASSKEYD_IDTOKEN_PROVIDERS": "apple,line,google", "PASSKEYD_IDTOKEN_GOOGLE_CLIENT_IDS": "1234.apps.googleusercontent.com"]
        try await Self.withInstance(environment: providers) { schema, client in
            var userIDs: [String] = []
            for spelling in ["accounts.google.com", "https://accounts.google.com", "accounts.google.com"] {
                let begun = try await Self.begin(client, "google")
                #expect(begun.providerNonce == begun.nonce, "Google takes the nonce as it is")
                let reply = try await Self.finish(
                    client, session: begun.session, provider: "google",
                    token: Self.idp.token(google, nonce: begun.providerNonce, subject: "108234567890", ["iss": .string(spelling)]))
                #expect(reply.status == (userIDs.isEmpty ? 201 : 200), "\(spelling): \(reply.status) \(reply.errorCode ?? "-")")
                #expect((reply.json["identity"] as? [String: Any])?["issuer"] as? String == "https://accounts.google.com")
                userIDs.append(try #require((reply.json["user"] as? [String: Any])?["id"] as? String))
            }
            #expect(Set(userIDs).count == 1, "one person, one user")
            #expect(try await schema.count("users") == 1)
            #expect(try await schema.count("identities", where: "issuer = 'https://accounts.google.com' AND subject = '108234567890'") == 1)
        }
    }
}
