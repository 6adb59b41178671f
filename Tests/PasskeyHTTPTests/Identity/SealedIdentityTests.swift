import PasskeyApp
import AppleSignedData
import COSECrypto
import Foundation
import IdentityCore
import PasskeyStore
import SealedState
import Testing
import WebAuthnModel

/// Stateless ID-token sessions and App Attest challenges (issue 29), on the use cases over the in-memory store with a
/// test clock: sealed begins write nothing, every finish that names a valid box uses it up, boxes of one kind never
/// pass as another, expiry is judged with the clock skew, and 16-byte (table) session ids keep working.
@Suite("Sealed ID-token sessions and App Attest challenges")
struct SealedIdentityTests {
    static let idp = TestIDP.shared
    static let ring = TestPasskeyd.ceremonyKeyRing

    static func identity(_ fixture: PasskeyUseCaseFixture, ring: CeremonyKeyRing? = Self.ring) -> IdentityService {
        let clock = fixture.clock
        var identity = IdentityService(
            providers: [TestIDP.apple, TestIDP.line].map { IdentityProvider(profile: $0, keys: StaticKeySource(idp.keys)) },
            ceremonies: fixture.store, identities: fixture.store, now: { clock.now })
        if let ring { identity.keyRing = { ring } }
        return identity
    }

    static func appAttest(_ fixture: PasskeyUseCaseFixture, ring: CeremonyKeyRing? = Self.ring) throws -> AppAttestService {
        let clock = fixture.clock
        let configuration = AppAttestConfiguration(apps: [try #require(AppAttestApp(appID: "ABCDE12345.com.example.app"))], roots: TrustAnchors([]))
        var service = AppAttestService(configuration: configuration, store: fixture.store, now: { clock.now })
        if let ring { service.keyRing = { ring } }
        return service
    }

    static func finish(_ identity: IdentityService, session: [UInt8], nonce: String, provider: String = "apple") async throws -> IdentitySignInResult {
        // Stamped with the service's clock (the expiry test moves it).
        try await identity.finish(
            sessionID: session, provider: provider, token: Array(idp.token(nonce: nonce, issuedAt: identity.now()).utf8),
            link: .create(name: nil, displayName: nil), audit: .system)
    }

    @Test("pure helpers: the payload round-trips the provider; the nonce is base64url(SHA-256(box)), 43 characters")
    func helpers() {
        #expect(SealedIDTokenSession.provider(SealedIDTokenSession.payload(provider: "apple")) == "apple")
        #expect(SealedIDTokenSession.provider([1]) == nil && SealedIDTokenSession.provider([2, 0x61]) == nil)
        #expect(SealedIDTokenSession.provider([1, 0xff]) == nil)
        let box = Array(repeating: UInt8(9), count: 60)
        let nonce = SealedIDTokenSession.nonce(box: box)
        #expect(nonce == Base64URL.encode(Digest.sha256(box)) && nonce.count == 43)
    }

    @Test("a sealed session: nothing written, 59 bytes for apple, the provider sees a nonce derived from the box, not the box")
    func sealedBegin() async throws {
        let fixture = PasskeyUseCaseFixture()
        let identity = Self.identity(fixture)
        let begun = try await identity.begin(provider: "apple")
        #expect(begun.session.id.count == SealedState.overhead + 1 + 5)
        #expect(begun.session.nonce == Base64URL.encode(Digest.sha256(begun.session.id)))
        #expect(begun.providerNonce == IDTokenSignIn.providerNonce(for: begun.session.nonce, rule: TestIDP.apple.nonceRule))
        let boxText = Base64URL.encode(begun.session.id)
        #expect(!begun.providerNonce.contains(boxText) && !begun.session.nonce.contains(boxText))

        let signedIn = try await Self.finish(identity, session: begun.session.id, nonce: begun.providerNonce)
        #expect(signedIn.createdUser)
        // Replayed: refused as unknown, whatever token comes with it.
        await #expect(throws: IdentityError(.sessionUnknown, "")) {
            _ = try await Self.finish(identity, session: begun.session.id, nonce: begun.providerNonce)
        }
    }

    @Test("a refused finish (wrong nonce, other provider) still uses the sealed session up")
    func refusedFinishUsesItUp() async throws {
        let fixture = PasskeyUseCaseFixture()
        let identity = Self.identity(fixture)
        let begun = try await identity.begin(provider: "apple")
        await #expect(throws: IdentityError(.nonceMismatch, "")) {
            _ = try await Self.finish(identity, session: begun.session.id, nonce: "not-the-nonce")
        }
        await #expect(throws: IdentityError(.sessionUnknown, "")) {
            _ = try await Self.finish(identity, session: begun.session.id, nonce: begun.providerNonce)
        }
        let other = try await identity.begin(provider: "apple")
        await #expect(throws: IdentityError(.providerMismatch, "")) {
            _ = try await Self.finish(identity, session: other.session.id, nonce: other.providerNonce, provider: "line")
        }
        await #expect(throws: IdentityError(.sessionUnknown, "")) {
            _ = try await Self.finish(identity, session: other.session.id, nonce: other.providerNonce)
        }
    }

    @Test("expiry: inside the clock skew the session still opens; past it, idtoken_session_unknown")
    func expiry() async throws {
        let fixture = PasskeyUseCaseFixture()
        let identity = Self.identity(fixture)
        let late = try await identity.begin(provider: "apple")
        let expired = try await identity.begin(provider: "apple")
        fixture.clock.advance(300 + 20)
        #expect(try await Self.finish(identity, session: late.session.id, nonce: late.providerNonce).createdUser)
        fixture.clock.advance(20)
        await #expect(throws: IdentityError(.sessionUnknown, "")) {
            _ = try await Self.finish(identity, session: expired.session.id, nonce: expired.providerNonce)
        }
    }

    @Test("boxes of another kind are refused: an App Attest challenge or a passkey challenge as a session, a session as an App Attest challenge")
    func crossKind() async throws {
        let fixture = PasskeyUseCaseFixture()
        let identity = Self.identity(fixture)
        let appAttest = try Self.appAttest(fixture)
        let challenge = try await appAttest.challenge().challenge
        #expect(challenge.count == SealedState.overhead)
        let passkey = try SealedState.seal(
            [1, 1], kind: .authentication, rpID: "example.com", expiresAt: fixture.clock.now.addingTimeInterval(300), ring: Self.ring,
            now: fixture.clock.now, random: SecureRandom.bytes(count:))
        for box in [challenge, passkey] {
            await #expect(throws: IdentityError(.sessionUnknown, "")) {
                _ = try await Self.finish(identity, session: box, nonce: Base64URL.encode(Digest.sha256(box)))
            }
        }
        let session = try await identity.begin(provider: "apple").session.id
        for box in [session, passkey] {
            await #expect(throws: AppAttestError(.challengeInvalid, "")) {
                _ = try await appAttest.attest(keyID: Array(repeating: 1, count: 32), attestationObject: [0xa0], challenge: box, userHandle: nil)
            }
        }
        // None of them was used up by the refusals: the session and the challenge still work once each.
        let nonce = IDTokenSignIn.providerNonce(for: Base64URL.encode(Digest.sha256(session)), rule: TestIDP.apple.nonceRule)
        #expect(try await Self.finish(identity, session: session, nonce: nonce).createdUser)
        await #expect(throws: AppAttestError.self) {
            _ = try await appAttest.attest(keyID: Array(repeating: 1, count: 32), attestationObject: [0xa0], challenge: challenge, userHandle: nil)
        }
    }

    @Test("an App Attest challenge is used up by any attest or assert that names it, whatever the outcome")
    func appAttestSingleUse() async throws {
        let fixture = PasskeyUseCaseFixture()
        let appAttest = try Self.appAttest(fixture)
        let (challenge, expiresAt) = try await appAttest.challenge()
        #expect(expiresAt == fixture.clock.now.addingTimeInterval(300) || expiresAt.timeIntervalSince(fixture.clock.now) < 301)
        var firstCode: AppAttestError.Code?
        do {
            _ = try await appAttest.attest(keyID: Array(repeating: 1, count: 32), attestationObject: [0xa0], challenge: challenge, userHandle: nil)
        } catch let error as AppAttestError {
            firstCode = error.code
        }
        #expect(firstCode != nil && firstCode != .challengeInvalid, "the first use gets past the challenge")
        await #expect(throws: AppAttestError(.challengeInvalid, "")) {
            _ = try await appAttest.attest(keyID: Array(repeating: 1, count: 32), attestationObject: [0xa0], challenge: challenge, userHandle: nil)
        }
        // An assertion naming a fresh challenge uses it up too (the key is unknown).
        let fresh = try await appAttest.challenge().challenge
        let clientData = Array(#"{"challenge":"\#(Base64URL.encode(fresh))"}"#.utf8)
        await #expect(throws: AppAttestError(.keyUnknown, "")) {
            _ = try await appAttest.assert(keyID: Array(repeating: 2, count: 32), assertion: [0xa0], clientData: clientData)
        }
        await #expect(throws: AppAttestError(.challengeInvalid, "")) {
            _ = try await appAttest.assert(keyID: Array(repeating: 2, count: 32), assertion: [0xa0], clientData: clientData)
        }
        // Past the expiry and the skew: refused.
        let late = try await appAttest.challenge().challenge
        fixture.clock.advance(300 + 31)
        await #expect(throws: AppAttestError(.challengeInvalid, "")) {
            _ = try await appAttest.attest(keyID: Array(repeating: 1, count: 32), attestationObject: [0xa0], challenge: late, userHandle: nil)
        }
    }

    @Test("rolling upgrade: a table session (16 bytes) and a table challenge (32 bytes) still finish on an instance with keys")
    func tableStillFinishes() async throws {
        let fixture = PasskeyUseCaseFixture()
        let tableIdentity = Self.identity(fixture, ring: nil)
        let begun = try await tableIdentity.begin(provider: "apple")
        #expect(begun.session.id.count == 16)
        #expect(try await Self.finish(Self.identity(fixture), session: begun.session.id, nonce: begun.providerNonce).createdUser)
        let tableChallenge = try await Self.appAttest(fixture, ring: nil).challenge().challenge
        #expect(tableChallenge.count == 32)
        var code: AppAttestError.Code?
        do {
            _ = try await Self.appAttest(fixture).attest(
                keyID: Array(repeating: 1, count: 32), attestationObject: [0xa0], challenge: tableChallenge, userHandle: nil)
        } catch let error as AppAttestError {
            code = error.code
        }
        #expect(code != nil && code != .challengeInvalid)
    }
}
