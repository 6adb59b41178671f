import Foundation
// @testable: only IdentityCore makes a VerifiedIdentity (its initialiser is internal); the store takes them as given.
@testable import IdentityCore
import PasskeyStore
import Testing
import WebAuthnCore

/// The identity half of both stores behaves the same: first sign-in creates or attaches, later ones sign in, a name
/// never links, concurrency makes one user, unlink and user deletion are audited, and ID-token sessions are
/// ceremonies of their own kind.
@Suite("Identity store conformance")
struct IdentityStoreConformanceTests {
    typealias Store = any PasskeyStore & IdentityStore

    static func store(_ subject: StoreUnderTest) async throws -> Store {
        try #require(try await subject.make() as? Store)
    }

    static func identity(_ subject: String, email: String? = "p@example.com") -> VerifiedIdentity {
        VerifiedIdentity(
            provider: "apple", issuer: "https://appleid.apple.com", subject: subject, audience: "com.example.app", email: email,
            emailVerified: true, isPrivateEmail: nil, realUserStatus: 2, name: nil, issuedAt: Date(), expiresAt: Date())
    }

    static func create(_ handle: UInt8, name: String = "apple:x", isDefault: Bool = true) -> IdentityLink {
        .signInOrCreate(handle: Array(repeating: handle, count: 32), name: name, displayName: "X", nameIsDefault: isDefault)
    }

    static func id(_ byte: UInt8) -> [UInt8] { Array(repeating: byte, count: 16) }

    @Test(arguments: StoreUnderTest.all)
    func firstSignInCreatesThenSignsIn(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let first = try await store.signIn(Self.identity("s1"), link: Self.create(1), identityID: Self.id(1), audit: .system)
        #expect(first.createdUser && first.linkedIdentity && first.user.name == "apple:x" && first.identity.realUserStatus == 2)
        // Later: no e-mail in the token keeps the stored one; the user is the same; nothing is created.
        let again = try await store.signIn(Self.identity("s1", email: nil), link: Self.create(2), identityID: Self.id(2), audit: .system)
        #expect(!again.createdUser && !again.linkedIdentity && again.user.handle == first.user.handle)
        #expect(again.identity.id == Self.id(1) && again.identity.email == "p@example.com" && again.identity.lastUsedAt != nil)
        #expect(try await store.user(handle: Array(repeating: 2, count: 32)) == nil)
        #expect(try await store.identities(ofUser: first.user.handle).map(\.id) == [Self.id(1)])
    }

    @Test(arguments: StoreUnderTest.all)
    func namesNeverLinkAndDefaultNamesGetASuffix(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        _ = try await store.signIn(Self.identity("s1"), link: Self.create(1, name: "alice", isDefault: false), identityID: Self.id(1), audit: .system)
        await #expect(throws: StoreError(.userExists)) {
            try await store.signIn(Self.identity("s2"), link: Self.create(2, name: "alice", isDefault: false), identityID: Self.id(2), audit: .system)
        }
        #expect(try await store.identities(ofUser: Array(repeating: 2, count: 32)).isEmpty)
        let suffixed = try await store.signIn(Self.identity("s3"), link: Self.create(3, name: "alice"), identityID: Self.id(3), audit: .system)
        #expect(suffixed.createdUser && suffixed.user.name.hasPrefix("alice~") && suffixed.user.name != "alice")
    }

    @Test(arguments: StoreUnderTest.all)
    func attachIsByHandleAndNeverSteals(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let alice = try await store.signIn(Self.identity("alice"), link: Self.create(1, name: "alice", isDefault: false), identityID: Self.id(1), audit: .system)
        let bob = try await store.signIn(Self.identity("bob"), link: Self.create(2, name: "bob", isDefault: false), identityID: Self.id(2), audit: .system)
        let attached = try await store.signIn(Self.identity("alice-line"), link: .attach(toUser: alice.user.handle), identityID: Self.id(3), audit: .system)
        #expect(!attached.createdUser && attached.linkedIdentity && attached.user.handle == alice.user.handle)
        // Attaching alice's identity to bob: refused, nothing changes.
        await #expect(throws: StoreError(.identityLinkedElsewhere)) {
            try await store.signIn(Self.identity("alice"), link: .attach(toUser: bob.user.handle), identityID: Self.id(4), audit: .system)
        }
        // Attaching it to alice again is just a sign-in.
        let same = try await store.signIn(Self.identity("alice"), link: .attach(toUser: alice.user.handle), identityID: Self.id(5), audit: .system)
        #expect(!same.linkedIdentity && same.identity.id == Self.id(1))
        await #expect(throws: StoreError(.userUnknown)) {
            try await store.signIn(Self.identity("nobody"), link: .attach(toUser: Array(repeating: 9, count: 32)), identityID: Self.id(6), audit: .system)
        }
        #expect(try await store.identities(ofUser: alice.user.handle).count == 2)
        #expect(try await store.identities(ofUser: bob.user.handle).count == 1)
    }

    @Test(arguments: StoreUnderTest.all)
    func concurrentFirstSignInsMakeOneUser(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let handles = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await store.signIn(
                        Self.identity("race"), link: Self.create(UInt8(10 + index)), identityID: Self.id(UInt8(10 + index)), audit: .system
                    ).user.handle
                }
            }
            return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
        }
        #expect(handles.count == 1)
        #expect(try await store.identities(ofUser: try #require(handles.first)).count == 1)
    }

    @Test(arguments: StoreUnderTest.all)
    func unlinkAndDeleteAreAudited(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let user = try await store.signIn(Self.identity("a"), link: Self.create(1), identityID: Self.id(1), audit: .system).user
        _ = try await store.signIn(Self.identity("b"), link: .attach(toUser: user.handle), identityID: Self.id(2), audit: .system)
        #expect(try await store.unlinkIdentity(id: Self.id(1), ofUser: Array(repeating: 7, count: 32), audit: .system) == false)
        #expect(try await store.unlinkIdentity(id: Self.id(1), ofUser: user.handle, audit: .system))
        #expect(try await store.unlinkIdentity(id: Self.id(1), ofUser: user.handle, audit: .system) == false)
        #expect(try await store.deleteUser(handle: user.handle, audit: .system))
        #expect(try await store.identities(ofUser: user.handle).isEmpty)
        let events = try await store.auditEvents(AuditQuery(userHandle: user.handle))
        #expect(events.map(\.kind) == [.userCreated, .identityLinked, .identityLinked, .identityUnlinked, .identityUnlinked, .userDeleted])
        #expect(events.map(\.identityID) == [nil, Self.id(1), Self.id(2), Self.id(1), Self.id(2), nil])
    }

    @Test(arguments: StoreUnderTest.all)
    func idTokenSessionsAreCeremoniesOfTheirOwnKind(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let challenge = Array(repeating: UInt8(5), count: 16)
        let later = Date().addingTimeInterval(300)
        try await store.saveCeremony(PendingCeremony(challenge: challenge, kind: .registration, userHandle: nil, state: [1], expiresAt: later))
        #expect(try await store.takeCeremony(challenge: challenge, kind: .idToken) == nil)
        #expect(try await store.takeCeremony(challenge: challenge, kind: .registration) != nil)
        let session = PendingIDTokenSession(id: Array(repeating: 6, count: 16), provider: "apple", nonce: "abc", expiresAt: later)
        try await store.saveCeremony(PendingCeremony(
            challenge: session.id, kind: .idToken, userHandle: nil, state: session.encodedState, expiresAt: later))
        let taken = try #require(try await store.takeCeremony(challenge: session.id, kind: .idToken))
        #expect(PendingIDTokenSession(id: session.id, encodedState: taken.state, expiresAt: later)?.nonce == "abc")
        #expect(try await store.takeCeremony(challenge: session.id, kind: .idToken) == nil)
    }
}
