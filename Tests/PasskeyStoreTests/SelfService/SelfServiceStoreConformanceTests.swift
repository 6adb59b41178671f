import Foundation
@testable import IdentityCore
import PasskeyStore
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// What the automatic upgrades and the self-service API need of both stores: how a credential was created and its
/// extension flags kept, owner-scoped rename and removal, the last sign-in method kept atomically, and the separate
/// cap on pending upgrade ceremonies.
@Suite("Self-service store conformance")
struct SelfServiceStoreConformanceTests {
    typealias Store = any PasskeyStore & IdentityStore

    static func store(_ subject: StoreUnderTest) async throws -> Store {
        try #require(try await subject.make() as? Store)
    }

    /// An engine-made registration for `handle`, conditional or not, with client extension results.
    static func registration(
        handle: [UInt8], name: String, mediation: CredentialMediation?, results: [String: JSONValue] = [:]
    ) throws -> VerifiedRegistration {
        let rp = Registrations.rp
        let now = Date()
        let (options, state) = rp.beginRegistration(
            user: try UserEntity(id: handle, name: name, displayName: name), excludeCredentials: [],
            request: RegistrationRequest(mediation: mediation), now: now)
        var knobs = RegistrationKnobs(origin: Registrations.origin)
        knobs.userPresent = mediation == nil
        knobs.userVerified = mediation == nil
        knobs.client.clientExtensionResults = results
        return try rp.finishRegistration(try SoftAuthenticator.register(options: options, knobs: knobs).response, state: state, now: now)
    }

    static let audit = AuditContext(requestID: "r1", actor: "user:test")

    @Test(arguments: StoreUnderTest.all)
    func howACredentialWasCreatedAndItsExtensionFlagsAreKept(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let handle = Registrations.handle(41)
        let normal = try Self.registration(
            handle: handle, name: "dora", mediation: nil,
            results: [
                "credProps": .object(["rk": .bool(true)]),
                "prf": .object(["enabled": .bool(true), "results": .object(["first": .string("c2VjcmV0LW91dHB1dA")])]),
                "largeBlob": .object(["supported": .bool(false), "blob": .string("c2VjcmV0LWJsb2I")]),
            ])
        let (_, stored) = try await store.register(normal, nickname: nil, intent: .newUser, audit: .system)
        let expected = CredentialExtensionProperties(discoverable: true, prfEnabled: true, largeBlobSupported: false)
        #expect(stored.createdBy == nil && stored.extensions == expected)
        #expect(try await store.credential(id: normal.credentialID)?.extensions == expected)
        let upgrade = try Self.registration(handle: handle, name: "dora", mediation: .conditional)
        let (_, upgraded) = try await store.register(upgrade, nickname: nil, intent: .existingUser, audit: .system)
        #expect(upgraded.createdBy == .conditional && !upgraded.record.uvInitialized)
        let reread = try #require(try await store.credentials(ofUser: handle).first { $0.id == upgrade.credentialID })
        #expect(reread.createdBy == .conditional && reread.extensions == CredentialExtensionProperties())
        #expect(try await store.credential(id: normal.credentialID)?.createdBy == nil)
    }

    @Test(arguments: StoreUnderTest.all)
    func renameAndRemoveAreScopedToTheOwner(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let alice = Registrations.handle(42), mallory = Registrations.handle(43)
        let passkey = try Registrations.make(handle: alice, name: "alice")
        _ = try await store.register(passkey, nickname: "laptop", intent: .newUser, audit: .system)
        _ = try await store.register(try Registrations.make(handle: mallory, name: "mallory"), nickname: nil, intent: .newUser, audit: .system)
        _ = try await store.register(try Registrations.make(handle: mallory, name: "mallory"), nickname: nil, intent: .existingUser, audit: .system)

        #expect(try await store.renameCredential(id: passkey.credentialID, ofUser: mallory, nickname: "pwned", audit: Self.audit) == nil)
        #expect(try await store.removeCredential(id: passkey.credentialID, ofUser: mallory, keepingLastSignInMethod: false, audit: Self.audit) == .unknown)
        #expect(try await store.credential(id: passkey.credentialID)?.nickname == "laptop", "another user's calls change nothing")
        #expect(try await store.auditEvents(AuditQuery(userHandle: alice)).map(\.kind) == [.userCreated, .credentialRegistered])

        let renamed = try await store.renameCredential(id: passkey.credentialID, ofUser: alice, nickname: "phone", audit: Self.audit)
        #expect(renamed?.nickname == "phone")
        let unknown = Array(repeating: UInt8(9), count: 32)
        #expect(try await store.removeCredential(id: unknown, ofUser: alice, keepingLastSignInMethod: false, audit: Self.audit) == .unknown)
        #expect(try await store.removeCredential(id: passkey.credentialID, ofUser: Registrations.handle(44), keepingLastSignInMethod: true, audit: Self.audit) == .unknown)
        let events = try await store.auditEvents(AuditQuery(userHandle: alice))
        #expect(events.last?.kind == .credentialRenamed && events.last?.context.actor == "user:test")
    }

    @Test(arguments: StoreUnderTest.all)
    func theLastSignInMethodIsKeptUnlessAllowed(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let handle = Registrations.handle(45)
        let only = try Registrations.make(handle: handle, name: "erin")
        _ = try await store.register(only, nickname: nil, intent: .newUser, audit: .system)
        #expect(try await store.removeCredential(id: only.credentialID, ofUser: handle, keepingLastSignInMethod: true, audit: Self.audit) == .lastSignInMethod)
        #expect(try await store.credential(id: only.credentialID) != nil)

        // A provider identity counts as a way to sign in: the passkey can go, then the identity is the last one.
        let identity = VerifiedIdentity(
            provider: "apple", issuer: "https://appleid.apple.com", subject: "erin", audience: "com.example.app", email: nil,
            emailVerified: nil, isPrivateEmail: nil, realUserStatus: nil, name: nil, issuedAt: Date(), expiresAt: Date())
        let identityID = Array(repeating: UInt8(45), count: 16)
        _ = try await store.signIn(identity, link: .attach(toUser: handle), identityID: identityID, audit: .system)
        #expect(try await store.removeCredential(id: only.credentialID, ofUser: handle, keepingLastSignInMethod: true, audit: Self.audit) == .removed)
        #expect(try await store.credential(id: only.credentialID) == nil)
        #expect(try await store.unlinkIdentity(id: identityID, ofUser: handle, keepingLastSignInMethod: true, audit: Self.audit) == .lastSignInMethod)
        #expect(try await store.unlinkIdentity(id: identityID, ofUser: Registrations.handle(46), keepingLastSignInMethod: false, audit: Self.audit) == .unknown)
        #expect(try await store.identities(ofUser: handle).count == 1)
        // Allowed by configuration: the last one goes too.
        #expect(try await store.unlinkIdentity(id: identityID, ofUser: handle, keepingLastSignInMethod: false, audit: Self.audit) == .removed)
        #expect(try await store.identities(ofUser: handle).isEmpty)
        let kinds = try await store.auditEvents(AuditQuery(userHandle: handle)).map(\.kind)
        #expect(kinds.suffix(2) == [.credentialDeleted, .identityUnlinked])
    }

    @Test(arguments: StoreUnderTest.all)
    func concurrentRemovalsNeverTakeTheLastTwo(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        for round in 0..<4 {
            let handle = Registrations.handle(UInt8(50 + round))
            let first = try Registrations.make(handle: handle, name: "frank\(round)")
            let second = try Registrations.make(handle: handle, name: "frank\(round)")
            _ = try await store.register(first, nickname: nil, intent: .newUser, audit: .system)
            _ = try await store.register(second, nickname: nil, intent: .existingUser, audit: .system)
            async let one = store.removeCredential(id: first.credentialID, ofUser: handle, keepingLastSignInMethod: true, audit: Self.audit)
            async let two = store.removeCredential(id: second.credentialID, ofUser: handle, keepingLastSignInMethod: true, audit: Self.audit)
            let outcomes = try await [one, two]
            #expect(outcomes.filter { $0 == .removed }.count == 1 && outcomes.contains(.lastSignInMethod), "\(outcomes)")
            #expect(try await store.credentials(ofUser: handle).count == 1)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aUserCreatedWithoutASignInMethodGetsPasskeysByID(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let handle = Registrations.handle(48)
        let user = try await store.createUser(handle: handle, name: "gus", displayName: "Gus", audit: Self.audit)
        #expect(user.handle == handle && user.name == "gus" && user.displayName == "Gus")
        #expect(try await store.user(named: "gus") == user)
        #expect(try await store.credentials(ofUser: handle).isEmpty)
        await #expect(throws: StoreError(.userExists)) {
            try await store.createUser(handle: Registrations.handle(49), name: "gus", displayName: "Other", audit: Self.audit)
        }
        await #expect(throws: StoreError(.userExists)) {
            try await store.createUser(handle: handle, name: "gus2", displayName: "Gus", audit: Self.audit)
        }
        #expect(try await store.user(handle: Registrations.handle(49)) == nil)
        #expect(try await store.user(named: "gus2") == nil)
        let upgrade = try Self.registration(handle: handle, name: "gus", mediation: .conditional)
        _ = try await store.register(upgrade, nickname: nil, intent: .existingUser, audit: .system)
        #expect(try await store.auditEvents(AuditQuery(userHandle: handle)).map(\.kind) == [.userCreated, .credentialRegistered])
    }

    @Test(arguments: StoreUnderTest.all)
    func upgradeCeremoniesHaveTheirOwnCap(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let handle = Registrations.handle(47)
        let expiry = Date().addingTimeInterval(300)
        func upgrade(_ byte: UInt8) -> PendingCeremony {
            PendingCeremony(
                challenge: Array(repeating: byte, count: 32), kind: .registration, userHandle: handle, state: [byte], expiresAt: expiry,
                subject: PendingCeremony.subject(upgradeOf: handle), forKnownUser: true, subjectCap: 2)
        }
        try await store.saveCeremony(upgrade(1))
        try await store.saveCeremony(upgrade(2))
        await #expect(throws: StoreError(.tooManyPendingCeremonies)) { try await store.saveCeremony(upgrade(3)) }
        // The user's other ceremonies are counted apart (no cap configured for them here).
        for byte: UInt8 in 4...6 {
            try await store.saveCeremony(PendingCeremony(
                challenge: Array(repeating: byte, count: 32), kind: .authentication, userHandle: handle, state: [byte], expiresAt: expiry,
                subject: PendingCeremony.subject(handle: handle), forKnownUser: true))
        }
        #expect(try await store.takeCeremony(challenge: Array(repeating: 3, count: 32), kind: .registration) == nil)
        #expect(try await store.takeCeremony(challenge: Array(repeating: 1, count: 32), kind: .registration) != nil)
        try await store.saveCeremony(upgrade(7))  // room again once one is used
    }
}
