import PasskeyApp
import Foundation
import IdentityCore
import PasskeyStore
import Testing
import WebAuthnModel

/// ``IdentitySignIn`` over the in-memory store, with no HTTP: tokens signed by the test provider.
@Suite("ID-token sign-in use case")
struct IdentitySignInTests {
    static let idp = TestIDP.shared

    /// An ID-token sign-in over `fixture`'s store and `sessions`.
    static func signIn(_ fixture: PasskeyUseCaseFixture, sessions: SessionService?) -> IdentitySignIn {
        let clock = fixture.clock
        let identity = IdentityService(providers: [TestIDP.apple, TestIDP.line].map { IdentityProvider(profile: $0, keys: StaticKeySource(idp.keys)) }, ceremonies: fixture.store, identities: fixture.store, now: { clock.now })
        return IdentitySignIn(identity: identity, sessions: sessions)
    }

    /// Begins an Apple sign-in and finishes it with a token for `subject`.
    static func finish(_ signIn: IdentitySignIn, subject: String = "000111.subject.2222") async throws -> IdentitySignIn.SignedIn {
        let begun = try await signIn.identity.begin(provider: "apple")
        return try await signIn.finish(
            sessionID: begun.session.id, provider: "apple",
            token: Array(idp.token(TestIDP.apple, nonce: begun.providerNonce, subject: subject).utf8),
            link: .create(name: nil, displayName: nil), audit: .system)
    }

    @Test("with sessions on, a sign-in starts an idtoken session (amr fed) that names the identity used")
    func startsSession() async throws {
        let fixture = PasskeyUseCaseFixture()
        let signIn = Self.signIn(fixture, sessions: fixture.sessions())
        let first = try await Self.finish(signIn)
        #expect(first.createdUser && first.linkedIdentity && first.user.name == "apple:000111.subject.2222")
        let session = try #require(try first.session())
        let stored = await fixture.store.sessions(ofUser: first.user.handle)
        #expect(stored.map(\.id) == [session.sessionID])
        #expect(stored.first?.origin == .idToken && stored.first?.amr == ["fed"] && stored.first?.identityID == first.identity.id)
        #expect(stored.first?.credentialID == nil)

        let again = try await Self.finish(signIn)
        #expect(!again.createdUser && !again.linkedIdentity && again.user.handle == first.user.handle)
        #expect(try again.session() != nil)
        #expect(await fixture.store.sessions(ofUser: first.user.handle).count == 2)
    }

    @Test("with sessions off, no session")
    func sessionsOff() async throws {
        let fixture = PasskeyUseCaseFixture()
        let signedIn = try await Self.finish(Self.signIn(fixture, sessions: nil))
        #expect(try signedIn.session() == nil)
        #expect(await fixture.store.sessions(ofUser: signedIn.user.handle).isEmpty)
    }

    @Test("a session that fails to start is reported after the sign-in, which stands")
    func sessionFailure() async throws {
        let fixture = PasskeyUseCaseFixture()
        let signIn = Self.signIn(fixture, sessions: fixture.sessions(signingKeys: false))
        let signedIn = try await Self.finish(signIn)
        #expect(throws: StoreError(.unavailable)) { try signedIn.session() }
        #expect(try await signIn.identity.identities.identities(ofUser: signedIn.user.handle).map(\.id) == [signedIn.identity.id])
    }

    @Test("a refused finish throws the identity error and signs nobody in")
    func refused() async throws {
        let fixture = PasskeyUseCaseFixture()
        let signIn = Self.signIn(fixture, sessions: fixture.sessions())
        await #expect(throws: IdentityError(.sessionUnknown, "")) {
            _ = try await signIn.finish(
                sessionID: Array(repeating: 7, count: 16), provider: "apple", token: Array(Self.idp.token(nonce: "n").utf8),
                link: .create(name: nil, displayName: nil), audit: .system)
        }
        #expect(await fixture.store.listUsers(nameFilter: nil, limit: 10, after: nil).isEmpty)
    }
}
