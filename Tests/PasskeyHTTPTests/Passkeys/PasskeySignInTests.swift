import PasskeyApp
import COSECrypto
import Foundation
import Logging
import PasskeyStore
import SessionCore
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// The passkey use cases over the in-memory store, with no HTTP: ceremonies begun through ``CeremonyService``,
/// answered by the software authenticator, finished through the use case under test.
struct PasskeyUseCaseFixture {
    let clock = TestClock()
    let store: InMemoryPasskeyStore
    let ceremonies: CeremonyService

    init() {
        let clock = self.clock
        store = InMemoryPasskeyStore(now: { clock.now })
        let rp = RelyingParty(id: "http.passkeyd.test", name: "passkeyd", allowedOrigins: [Harness.origin])
        ceremonies = CeremonyService(relyingParty: rp, store: store, now: { clock.now })
    }

    /// The session policy of these unit tests (an hour idle, two in all).
    static let sessionPolicy: SessionPolicy = {
        var policy = SessionPolicy(issuer: "https://http.passkeyd.test", audiences: ["https://api.example"])
        policy.refreshIdleLifetime = 3600
        policy.refreshAbsoluteLifetime = 7200
        return policy
    }()

    /// Sessions over the same store; `signingKeys: false` leaves them without a signing key (every start fails).
    func sessions(issueOnRegistration: Bool = false, signingKeys: Bool = true) -> SessionService {
        let clock = self.clock
        var logger = Logger(label: "use-case-tests")
        logger.logLevel = .critical
        let source: SessionKeySource = signingKeys
            ? .database(keyEncryptionKey: SecureRandom.bytes(count: 32), rotationInterval: 86_400) : .files([])
        let keys = SessionKeys(source: source, store: store, policy: PasskeyUseCaseFixture.sessionPolicy, logger: logger, now: { clock.now })
        var sessions = SessionService(policy: PasskeyUseCaseFixture.sessionPolicy, store: store, keys: keys, logger: logger, now: { clock.now })
        sessions.issueOnRegistration = issueOnRegistration
        return sessions
    }

    /// Begins a registration for `subject` and answers it: the response and the authenticator's credential.
    func registration(
        _ subject: RegistrationSubject, request: RegistrationRequest = RegistrationRequest(), configure: (inout RegistrationKnobs) -> Void = { _ in }
    ) async throws -> (response: RegistrationResponseJSON, credential: SoftCredential, challenge: [UInt8]) {
        let options = try await ceremonies.beginRegistration(for: subject, request: request)
        var knobs = RegistrationKnobs(origin: Harness.origin)
        configure(&knobs)
        let (response, credential) = try SoftAuthenticator.register(options: options, knobs: knobs)
        return (response, credential, try #require(Base64URL.decode(options.challenge)))
    }

    /// Begins a discoverable authentication and answers it with `credential`.
    func assertion(_ credential: inout SoftCredential) async throws -> (response: UnverifiedAuthenticationResponse, challenge: [UInt8]) {
        let options = try await ceremonies.beginAuthentication(user: nil, userVerification: nil)
        let response = try SoftAuthenticator.authenticate(options: options, credential: &credential, knobs: AssertionKnobs(origin: Harness.origin))
        return (try UnverifiedAuthenticationResponse(response), try #require(Base64URL.decode(options.challenge)))
    }

    /// Signs `name` up through `signIn`; the finish's outcome and the credential.
    func signUp(_ name: String, with signIn: PasskeySignIn) async throws -> (registered: PasskeySignIn.Registered, credential: SoftCredential) {
        let (response, credential, _) = try await registration(.newUser(name: name, displayName: name))
        return (try await signIn.finishRegistration(response, nickname: nil, audit: .system), credential)
    }
}

@Suite("Passkey sign-in use cases")
struct PasskeySignInTests {
    @Test("sessions off: neither finish carries a session, and none is stored")
    func sessionsOff() async throws {
        let fixture = PasskeyUseCaseFixture()
        let signIn = PasskeySignIn(ceremonies: fixture.ceremonies, sessions: nil)
        let (registered, signedUp) = try await fixture.signUp("olga", with: signIn)
        var credential = signedUp
        #expect(registered.createdUser && registered.user.name == "olga")
        #expect(try registered.session() == nil)
        let authenticated = try await signIn.finishAuthentication(try await fixture.assertion(&credential).response)
        #expect(authenticated.user?.handle == registered.user.handle)
        #expect(try authenticated.session() == nil)
        #expect(await fixture.store.sessions(ofUser: registered.user.handle).isEmpty)
    }

    @Test("an authentication starts a passkey session for the credential's owner, with the passkey's amr and id")
    func authenticationStartsSession() async throws {
        let fixture = PasskeyUseCaseFixture()
        let signIn = PasskeySignIn(ceremonies: fixture.ceremonies, sessions: fixture.sessions())
        let (registered, signedUp) = try await fixture.signUp("alice", with: signIn)
        var credential = signedUp
        #expect(try registered.session() == nil, "no session on registration unless configured")

        let authenticated = try await signIn.finishAuthentication(try await fixture.assertion(&credential).response)
        let session = try #require(try authenticated.session())
        #expect(session.userHandle == registered.user.handle)
        #expect(authenticated.userCredentialIDs == [credential.id] && !authenticated.establishedUpgradeUV)
        let stored = await fixture.store.sessions(ofUser: registered.user.handle)
        #expect(stored.map(\.id) == [session.sessionID])
        #expect(stored.first?.origin == .passkey && stored.first?.credentialID == credential.id)
        #expect(stored.first?.amr == ["hwk", "user", "mfa"])
    }

    @Test("with issueOnRegistration, a sign-up starts a registration session; a synced passkey is swk")
    func registrationSession() async throws {
        let fixture = PasskeyUseCaseFixture()
        let signIn = PasskeySignIn(ceremonies: fixture.ceremonies, sessions: fixture.sessions(issueOnRegistration: true))
        let (response, credential, _) = try await fixture.registration(.newUser(name: "bea", displayName: "Bea")) { knobs in
            knobs.backupEligible = true
        }
        let registered = try await signIn.finishRegistration(response, nickname: "phone", audit: .system)
        let session = try #require(try registered.session())
        let stored = try #require(await fixture.store.sessions(ofUser: registered.user.handle).first)
        #expect(stored.id == session.sessionID && stored.origin == .registration && stored.credentialID == credential.id)
        #expect(stored.amr == ["swk", "user", "mfa"])
    }

    @Test("no registration session for a ceremony finished for a required user (self-service) nor for an automatic upgrade")
    func noRegistrationSession() async throws {
        let fixture = PasskeyUseCaseFixture()
        let signIn = PasskeySignIn(ceremonies: fixture.ceremonies, sessions: fixture.sessions(issueOnRegistration: true))
        let (first, _) = try await fixture.signUp("cleo", with: signIn)
        let handle = first.user.handle
        #expect(try first.session() != nil)

        let (added, _, _) = try await fixture.registration(.existingUser(handle: handle))
        let selfService = try await signIn.finishRegistration(added, nickname: nil, audit: .system, requiredUser: handle)
        #expect(!selfService.createdUser && selfService.user.handle == handle)
        #expect(try selfService.session() == nil)

        let (upgrade, _, _) = try await fixture.registration(.existingUser(handle: handle), request: RegistrationRequest(mediation: .conditional)) { knobs in
            knobs.userPresent = false
            knobs.userVerified = false
        }
        let upgraded = try await signIn.finishRegistration(upgrade, nickname: nil, audit: .system)
        #expect(upgraded.verified.mediation == .conditional)
        #expect(try upgraded.session() == nil)
        #expect(await fixture.store.sessions(ofUser: handle).count == 1, "only the sign-up's session")
    }

    @Test("a session that fails to start is reported after the ceremony, which stands")
    func sessionFailureAfterCommit() async throws {
        let fixture = PasskeyUseCaseFixture()
        let signIn = PasskeySignIn(ceremonies: fixture.ceremonies, sessions: fixture.sessions(issueOnRegistration: true, signingKeys: false))
        let (registered, signedUp) = try await fixture.signUp("dana", with: signIn)
        var credential = signedUp
        #expect(throws: StoreError(.unavailable)) { try registered.session() }
        #expect(try await fixture.ceremonies.account(ofUser: registered.user.handle)?.credentials.map(\.id) == [credential.id])

        let authenticated = try await signIn.finishAuthentication(try await fixture.assertion(&credential).response)
        #expect(throws: StoreError(.unavailable)) { try authenticated.session() }
        #expect(authenticated.credential.lastUsedAt != nil, "the sign-in was applied")
    }

    @Test("a refused finish throws the ceremony's error and starts no session")
    func refusedFinish() async throws {
        let fixture = PasskeyUseCaseFixture()
        let signIn = PasskeySignIn(ceremonies: fixture.ceremonies, sessions: fixture.sessions(issueOnRegistration: true))
        let (registered, signedUp) = try await fixture.signUp("edda", with: signIn)
        var credential = signedUp
        let (response, _) = try await fixture.assertion(&credential)
        _ = try await signIn.finishAuthentication(response)
        await #expect(throws: CeremonyError(.challengeUnknown)) { try await signIn.finishAuthentication(response) }
        #expect(await fixture.store.sessions(ofUser: registered.user.handle).count == 2, "the sign-up's and the first sign-in's")
    }
}

@Suite("Demo page sign-in use case")
struct DemoSignInTests {
    @Test("a sign-up names its new user; another passkey names its owner only when signed in as them; a sign-in names the owner")
    func whoIsSignedIn() async throws {
        let fixture = PasskeyUseCaseFixture()
        let demo = DemoSignIn(ceremonies: fixture.ceremonies)
        #expect(demo.passkeys.sessions == nil, "the demo page has its own session, never passkeyd's")

        let (signUp, _, _) = try await fixture.registration(.newUser(name: "fay", displayName: "Fay"))
        let created = try await demo.finishRegistration(signUp, nickname: nil, audit: .system, signedIn: nil)
        let handle = created.ceremony.user.handle
        #expect(try created.signedInUser() == handle)
        #expect(try created.ceremony.session() == nil)

        let (second, _, _) = try await fixture.registration(.existingUser(handle: handle))
        #expect(try await demo.finishRegistration(second, nickname: nil, audit: .system, signedIn: nil).signedInUser() == nil)
        let (third, _, _) = try await fixture.registration(.existingUser(handle: handle))
        #expect(try await demo.finishRegistration(third, nickname: nil, audit: .system, signedIn: [1, 2, 3]).signedInUser() == nil)
        let (fourth, added, _) = try await fixture.registration(.existingUser(handle: handle))
        var credential = added
        #expect(try await demo.finishRegistration(fourth, nickname: nil, audit: .system, signedIn: handle).signedInUser() == handle)

        let signedIn = try await demo.finishAuthentication(try await fixture.assertion(&credential).response)
        #expect(try signedIn.signedInUser() == handle)
        #expect(try signedIn.ceremony.session() == nil)
    }
}

@Suite("FIDO conformance results use case")
struct ConformanceResultsTests {
    @Test("a result for its session finishes; another session's challenge is challenge_mismatch and ends the session")
    func binding() async throws {
        let fixture = PasskeyUseCaseFixture()
        let results = ConformanceResults(ceremonies: fixture.ceremonies)
        let (_, _, sessionA) = try await fixture.registration(.nameForConformanceTesting(name: "gus", displayName: "Gus"))
        let (responseB, _, sessionB) = try await fixture.registration(.nameForConformanceTesting(name: "hal", displayName: "Hal"))

        await #expect(throws: WebAuthnError(.challengeMismatch)) {
            _ = try await results.finishRegistration(.success(responseB), session: sessionA, audit: .system)
        }
        #expect(await fixture.store.takeCeremony(challenge: sessionA, kind: .registration) == nil, "session A's ceremony is consumed")
        let finished = try await results.finishRegistration(.success(responseB), session: sessionB, audit: .system)
        #expect(finished.createdUser && finished.user.name == "hal")
    }

    @Test("an unreadable response ends its session with the reader's error")
    func unreadable() async throws {
        let fixture = PasskeyUseCaseFixture()
        let results = ConformanceResults(ceremonies: fixture.ceremonies)
        let (response, registered, _) = try await fixture.registration(.nameForConformanceTesting(name: "ida", displayName: "Ida"))
        var credential = registered
        _ = try await results.finishRegistration(.success(response), session: try #require(response.unverifiedChallenge), audit: .system)

        let (_, session) = try await fixture.assertion(&credential)
        await #expect(throws: WebAuthnError(.malformedResponse)) {
            try await results.finishAuthentication(.failure(WebAuthnError(.malformedResponse, "test")), session: session)
        }
        #expect(await fixture.store.takeCeremony(challenge: session, kind: .authentication) == nil)

        let (signIn, next) = try await fixture.assertion(&credential)
        try await results.finishAuthentication(.success(signIn), session: next)
        await #expect(throws: CeremonyError(.challengeUnknown)) {
            try await results.finishAuthentication(.success(signIn), session: next)
        }
    }
}
