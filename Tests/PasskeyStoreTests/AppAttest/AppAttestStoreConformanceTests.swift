import AppleSignedData
import Foundation
import PasskeyStore
import PasskeyStorePostgres
import Testing
import WebAuthnCore

/// App Attest keys and challenges behave the same in both stores: a key is stored once (optionally for an existing
/// user), read back unchanged, its counter only ever goes up and of concurrent equal counters exactly one wins, a
/// deleted user takes their keys along, and challenges (ceremonies of kind `appattest`) are taken once.
@Suite("App Attest store conformance")
struct AppAttestStoreConformanceTests {
    typealias Store = any PasskeyStore & AppAttestStore

    static func store(_ subject: StoreUnderTest) async throws -> Store {
        try #require(try await subject.make() as? Store)
    }

    static func key(_ byte: UInt8, environment: AppAttestEnvironment = .production) -> AttestedAppAttestKey {
        AttestedAppAttestKey(
            keyID: Array(repeating: byte, count: 32), publicKeySPKI: [0x30, byte], appID: "ABCDE12345.com.example.app",
            environment: environment, receipt: Array("receipt \(byte)".utf8))
    }

    @Test(arguments: StoreUnderTest.all)
    func savedOnceAndReadBack(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        #expect(try await store.appAttestKey(id: Self.key(1).keyID) == nil)
        guard case .saved(let saved) = try await store.saveAppAttestKey(Self.key(1), userHandle: nil) else {
            Issue.record("not saved")
            return
        }
        #expect(saved.counter == 0 && saved.userHandle == nil && saved.lastUsedAt == nil)
        let read = try #require(try await store.appAttestKey(id: Self.key(1).keyID))
        #expect(read.keyID == Self.key(1).keyID)
        #expect(read.publicKey == [0x30, 1])
        #expect(read.appID == "ABCDE12345.com.example.app")
        #expect(read.environment == .production)
        #expect(read.receipt == Array("receipt 1".utf8))
        #expect(read.counter == 0)
        #expect(try await store.saveAppAttestKey(Self.key(1, environment: .development), userHandle: nil) == .exists)
        #expect(try await store.appAttestKey(id: Self.key(1).keyID)?.environment == .production, "nothing changed")
        guard case .saved(let development) = try await store.saveAppAttestKey(Self.key(2, environment: .development), userHandle: nil) else {
            Issue.record("not saved")
            return
        }
        #expect(development.environment == .development)
    }

    @Test(arguments: StoreUnderTest.all)
    func attachedToAnExistingUserOnlyAndGoneWithThem(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        #expect(try await store.saveAppAttestKey(Self.key(1), userHandle: Registrations.handle(9)) == .userUnknown)
        #expect(try await store.appAttestKey(id: Self.key(1).keyID) == nil)
        let registration = try Registrations.make(handle: Registrations.handle(3), name: "user3")
        let (user, _) = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        guard case .saved = try await store.saveAppAttestKey(Self.key(1), userHandle: user.handle) else {
            Issue.record("not saved")
            return
        }
        #expect(try await store.appAttestKey(id: Self.key(1).keyID)?.userHandle == user.handle)
        #expect(try await store.deleteUser(handle: user.handle, audit: .system))
        #expect(try await store.appAttestKey(id: Self.key(1).keyID) == nil)
    }

    @Test(arguments: StoreUnderTest.all)
    func theCounterOnlyGoesUp(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let id = Self.key(1).keyID
        #expect(try await !store.advanceAppAttestCounter(keyID: id, to: 1), "unknown key")
        _ = try await store.saveAppAttestKey(Self.key(1), userHandle: nil)
        #expect(try await !store.advanceAppAttestCounter(keyID: id, to: 0))
        #expect(try await store.advanceAppAttestCounter(keyID: id, to: 5))
        #expect(try await !store.advanceAppAttestCounter(keyID: id, to: 5), "equal")
        #expect(try await !store.advanceAppAttestCounter(keyID: id, to: 4), "lower")
        #expect(try await store.advanceAppAttestCounter(keyID: id, to: UInt32.max))
        let read = try #require(try await store.appAttestKey(id: id))
        #expect(read.counter == UInt32.max)
        #expect(read.lastUsedAt != nil)
    }

    @Test(arguments: StoreUnderTest.all)
    func concurrentEqualCountersExactlyOneWins(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let id = Self.key(1).keyID
        _ = try await store.saveAppAttestKey(Self.key(1), userHandle: nil)
        for counter in UInt32(1)...5 {
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 { group.addTask { try await store.advanceAppAttestCounter(keyID: id, to: counter) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1, "counter \(counter)")
        }
        // Mixed counters at once: the stored one ends at the highest, never lower.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for counter in [9, 7, 8, 6] as [UInt32] { group.addTask { try await store.advanceAppAttestCounter(keyID: id, to: counter) } }
            try await group.waitForAll()
        }
        #expect(try await store.appAttestKey(id: id)?.counter == 9)
    }

    @Test(arguments: StoreUnderTest.all)
    func challengesAreTakenOnce(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let challenge = Array(repeating: UInt8(4), count: 32)
        try await store.saveCeremony(PendingCeremony(
            challenge: challenge, kind: .appAttest, userHandle: nil, state: [], expiresAt: Date().addingTimeInterval(300)))
        #expect(try await store.takeCeremony(challenge: challenge, kind: .authentication) == nil, "another kind")
        #expect(try await store.takeCeremony(challenge: challenge, kind: .appAttest) != nil)
        #expect(try await store.takeCeremony(challenge: challenge, kind: .appAttest) == nil, "single use")
    }
}
