import PasskeyApp
import Foundation
import PasskeyStore
import SessionCore
import Testing
import WebAuthnModel

/// ``SessionService``'s use cases behind the session routes (introspection, handoff codes, the JWKS) over the
/// in-memory store, with no HTTP.
@Suite("Session use cases")
struct SessionUseCaseTests {
    /// A new user and a session of theirs, signed in by passkey an hour before the test clock's now.
    static func signedIn(_ fixture: PasskeyUseCaseFixture, _ sessions: SessionService, name: String) async throws -> (user: [UInt8], issued: SessionService.Issued) {
        let user = try await fixture.ceremonies.createUser(name: name, displayName: name, audit: .system)
        let issued = try await sessions.start(
            user: user.handle, origin: .passkey, amr: ["hwk", "user", "mfa"], authTime: fixture.clock.now.addingTimeInterval(-3600))
        return (user.handle, issued)
    }

    @Test("introspection: an access token of an active session is active; a refresh token, a revoked session or garbage is not")
    func introspection() async throws {
        let fixture = PasskeyUseCaseFixture()
        let sessions = fixture.sessions()
        let (user, issued) = try await Self.signedIn(fixture, sessions, name: "ines")
        let (claims, session) = try #require(await sessions.introspect(issued.accessToken))
        #expect(session.id == issued.sessionID && session.userHandle == user)
        #expect(claims.subject == Base64URL.encode(user) && claims.amr == ["hwk", "user", "mfa"])

        #expect(await sessions.introspect(issued.refreshToken) == nil, "refresh tokens are never introspected")
        #expect(await sessions.introspect("not.a.token") == nil)
        #expect(try await sessions.signOut(refreshToken: issued.refreshToken))
        #expect(await sessions.introspect(issued.accessToken) == nil, "its session is revoked")
    }

    @Test("a handoff by access token carries its session's sign-in and end; by user id, none")
    func handoffs() async throws {
        let fixture = PasskeyUseCaseFixture()
        let sessions = fixture.sessions()
        let (user, issued) = try await Self.signedIn(fixture, sessions, name: "jon")
        let parent = try #require(await fixture.store.sessions(ofUser: user).first)

        let byToken = try await sessions.createHandoff(accessToken: issued.accessToken, codeChallenge: nil)
        #expect(byToken.expiresIn == Int(PasskeyUseCaseFixture.sessionPolicy.handoffLifetime))
        let web = try await sessions.exchange(code: byToken.code, verifier: nil)
        let child = try #require(await fixture.store.sessions(ofUser: user).first { $0.id == web.sessionID })
        #expect(child.origin == .handoff && child.amr == parent.amr)
        #expect(child.authTime.timeIntervalSince1970 == parent.authTime.timeIntervalSince1970.rounded(.down), "the token's auth_time")
        #expect(child.absoluteExpiresAt <= parent.absoluteExpiresAt)

        let byUser = try await sessions.createHandoff(forUser: user, codeChallenge: nil)
        let backend = try await sessions.exchange(code: byUser.code, verifier: nil)
        let fresh = try #require(await fixture.store.sessions(ofUser: user).first { $0.id == backend.sessionID })
        #expect(fresh.amr.isEmpty && fresh.authTime == fixture.clock.now)
    }

    @Test("a handoff by access token checks the token before the code challenge, and needs an active session")
    func handoffRefusals() async throws {
        let fixture = PasskeyUseCaseFixture()
        let sessions = fixture.sessions()
        let (_, issued) = try await Self.signedIn(fixture, sessions, name: "kim")
        await #expect(throws: SessionError(.accessTokenMalformed, "")) {
            _ = try await sessions.createHandoff(accessToken: "garbage", codeChallenge: "short")
        }
        await #expect(throws: SessionError(.handoffVerifierMalformed, "")) {
            _ = try await sessions.createHandoff(accessToken: issued.accessToken, codeChallenge: "short")
        }
        #expect(try await sessions.signOut(accessToken: issued.accessToken))
        await #expect(throws: SessionError(.sessionRevoked, "")) {
            _ = try await sessions.createHandoff(accessToken: issued.accessToken, codeChallenge: nil)
        }
        await #expect(throws: StoreError(.userUnknown)) {
            _ = try await sessions.createHandoff(forUser: [9, 9, 9], codeChallenge: nil)
        }
    }

    @Test("the JWKS publishes the key that signs the access tokens")
    func jwks() async throws {
        let fixture = PasskeyUseCaseFixture()
        let sessions = fixture.sessions()
        let (_, issued) = try await Self.signedIn(fixture, sessions, name: "lea")
        let header = try #require(Base64URL.decodeStrict(String(issued.accessToken.split(separator: ".")[0])))
        guard case .object(let members) = try JSONReader.parse(header), case .string(let kid)? = members["kid"] else {
            Issue.record("no kid in the access token's header")
            return
        }
        let jwks = String(decoding: try await sessions.jwks(), as: UTF8.self)
        #expect(jwks.contains("\"kid\":\"\(kid)\""))
    }
}
