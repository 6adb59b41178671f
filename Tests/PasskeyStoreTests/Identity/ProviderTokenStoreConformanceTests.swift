import Foundation
@testable import IdentityCore
import PasskeyStore
import Testing
import WebAuthnCore

/// Provider refresh tokens and their revocation queue behave the same in both stores: kept per identity, replaced
/// with the old one queued, queued by user deletion and unlink in the same step, claimed once per lease, deferred
/// and completed.
@Suite("Provider token store conformance")
struct ProviderTokenStoreConformanceTests {
    typealias Store = any PasskeyStore & IdentityStore & ProviderTokenStore

    static func store(_ subject: StoreUnderTest) async throws -> Store {
        try #require(try await subject.make() as? Store)
    }

    static func token(_ identity: [UInt8], _ byte: UInt8) -> SealedProviderToken {
        SealedProviderToken(identityID: identity, provider: "apple", clientID: "com.example.app", sealedToken: Array(repeating: byte, count: 40))
    }

    static func signIn(_ store: Store, _ subject: String, handle: UInt8, id: UInt8) async throws -> [UInt8] {
        let result = try await store.signIn(
            IdentityStoreConformanceTests.identity(subject), link: IdentityStoreConformanceTests.create(handle, name: "u\(handle)"),
            identityID: IdentityStoreConformanceTests.id(id), audit: .system)
        return result.identity.id
    }

    @Test(arguments: StoreUnderTest.all)
    func keepReplaceAndQueue(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let identity = try await Self.signIn(store, "s1", handle: 1, id: 1)
        #expect(try await store.saveProviderToken(Self.token(identity, 1)))
        #expect(try await store.providerToken(identityID: identity) == Self.token(identity, 1))
        #expect(try await store.saveProviderToken(Self.token(identity, 1)))  // the same token again: nothing queued
        #expect(try await store.pendingTokenRevocationCount() == 0)
        #expect(try await store.saveProviderToken(Self.token(identity, 2)))
        #expect(try await store.providerToken(identityID: identity) == Self.token(identity, 2))
        #expect(try await store.pendingTokenRevocationCount() == 1)
        // No such identity (deleted since its sign-in): nothing kept, the token is queued for revocation instead.
        let gone = IdentityStoreConformanceTests.id(9)
        #expect(try await !store.saveProviderToken(Self.token(gone, 3)))
        #expect(try await store.providerToken(identityID: gone) == nil)
        #expect(try await store.pendingTokenRevocationCount() == 2)

        let claimed = try await store.claimTokenRevocations(limit: 10, lease: 300)
        #expect(claimed.map(\.token) == [Self.token(identity, 1), Self.token(gone, 3)] && claimed.allSatisfy { $0.attempts == 1 })
        #expect(try await store.claimTokenRevocations(limit: 10, lease: 300).isEmpty, "leased")
        for pending in claimed { try await store.completeTokenRevocation(id: pending.id) }
        #expect(try await store.pendingTokenRevocationCount() == 0)
    }

    @Test(arguments: StoreUnderTest.all)
    func deletionAndUnlinkQueue(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let first = try await Self.signIn(store, "s1", handle: 1, id: 1)
        let second = try await Self.signIn(store, "s2", handle: 2, id: 2)
        _ = try await store.saveProviderToken(Self.token(first, 1))
        _ = try await store.saveProviderToken(Self.token(second, 2))
        #expect(try await store.deleteUser(handle: Array(repeating: 1, count: 32), audit: .system))
        #expect(try await store.providerToken(identityID: first) == nil)
        #expect(try await store.unlinkIdentity(id: second, ofUser: Array(repeating: 2, count: 32), audit: .system))
        #expect(try await store.providerToken(identityID: second) == nil)
        let claimed = try await store.claimTokenRevocations(limit: 1, lease: 0.05)
        #expect(claimed.map(\.token) == [Self.token(first, 1)])
        try await store.deferTokenRevocation(id: try #require(claimed.first).id, retryAfter: 300, error: "503")
        let next = try await store.claimTokenRevocations(limit: 10, lease: 300)
        #expect(next.map(\.token) == [Self.token(second, 2)])
        #expect(try await store.pendingTokenRevocationCount() == 2)
    }
}
