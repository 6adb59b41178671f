import Foundation
import PasskeyStore
import Testing

/// Ceremony keys behave the same in both stores: one key per activation slot (of concurrent additions to a slot
/// exactly one wins and the others get the winner's key), a taken key id is reported apart from a taken slot, the keys
/// are listed by activation until they retire (a time equal to `retiresAt` is retired), and retired keys are deleted.
@Suite("Ceremony key store conformance")
struct CeremonyKeyStoreConformanceTests {
    typealias Store = any PasskeyStore & CeremonyKeyStore

    static func store(_ subject: StoreUnderTest) async throws -> Store {
        try #require(try await subject.make() as? Store)
    }

    /// Whole seconds, so dates survive PostgreSQL's microseconds unchanged.
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

    /// A key activating at `activates` seconds and retiring at `retires`, its "sealed secret" 60 bytes of `byte`.
    static func key(_ id: UInt32, activates: TimeInterval, retires: TimeInterval, byte: UInt8 = 1) -> StoredCeremonyKey {
        StoredCeremonyKey(
            id: id, sealedSecret: Array(repeating: byte, count: 60), activatesAt: at(activates), retiresAt: at(retires),
            createdAt: at(activates - 150))
    }

    @Test(arguments: StoreUnderTest.all)
    func keysAreListedByActivationUntilTheyRetire(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        #expect(try await store.ceremonyKeys(unretiredAt: Self.t0).isEmpty)
        let second = Self.key(7, activates: 3600, retires: 7600, byte: 2)
        let first = Self.key(UInt32.max, activates: 0, retires: 4000)
        #expect(try await store.addCeremonyKey(second) == .added)
        #expect(try await store.addCeremonyKey(first) == .added, "the largest id fits")
        #expect(try await store.ceremonyKeys(unretiredAt: Self.t0) == [first, second], "by activation, every field as stored")
        #expect(try await store.ceremonyKeys(unretiredAt: Self.at(3999)) == [first, second])
        #expect(try await store.ceremonyKeys(unretiredAt: Self.at(4000)) == [second], "retired at retiresAt")
        #expect(try await store.ceremonyKeys(unretiredAt: Self.at(7600)).isEmpty)
    }

    @Test(arguments: StoreUnderTest.all)
    func oneKeyPerSlotAndPerID(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let winner = Self.key(1, activates: 0, retires: 4000)
        #expect(try await store.addCeremonyKey(winner) == .added)
        // Another key for the same slot: the winner comes back.
        #expect(try await store.addCeremonyKey(Self.key(2, activates: 0, retires: 4000, byte: 2)) == .slotTaken(by: winner))
        // The same id in another slot: draw another id.
        #expect(try await store.addCeremonyKey(Self.key(1, activates: 3600, retires: 7600, byte: 3)) == .keyIDTaken)
        // Both taken: the slot is what counts.
        #expect(try await store.addCeremonyKey(Self.key(1, activates: 0, retires: 5000, byte: 4)) == .slotTaken(by: winner))
        #expect(try await store.ceremonyKeys(unretiredAt: Self.t0) == [winner])
    }

    @Test(arguments: StoreUnderTest.all)
    func concurrentAdditionsToOneSlotHaveOneWinner(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let outcomes = try await withThrowingTaskGroup(of: (UInt32, CeremonyKeyAddition).self) { group in
            for id in UInt32(1)...8 {
                group.addTask { (id, try await store.addCeremonyKey(Self.key(id, activates: 0, retires: 4000, byte: UInt8(id)))) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let winners = outcomes.filter { $0.1 == .added }.map(\.0)
        try #require(winners.count == 1, "\(outcomes)")
        let winner = Self.key(winners[0], activates: 0, retires: 4000, byte: UInt8(winners[0]))
        for (id, outcome) in outcomes where id != winners[0] { #expect(outcome == .slotTaken(by: winner)) }
        #expect(try await store.ceremonyKeys(unretiredAt: Self.t0) == [winner])
    }

    @Test(arguments: StoreUnderTest.all)
    func retiredKeysAreDeleted(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let old = Self.key(1, activates: 0, retires: 4000)
        let current = Self.key(2, activates: 3600, retires: 7600)
        for key in [old, current] { #expect(try await store.addCeremonyKey(key) == .added) }
        #expect(try await store.deleteRetiredCeremonyKeys(before: Self.at(4000)) == 0, "retiresAt < before only")
        #expect(try await store.deleteRetiredCeremonyKeys(before: Self.at(4001)) == 1)
        #expect(try await store.ceremonyKeys(unretiredAt: Self.t0) == [current], "the deleted key is gone, even at an earlier time")
        // Its slot and its id are free again.
        #expect(try await store.addCeremonyKey(Self.key(1, activates: 0, retires: 4000, byte: 9)) == .added)
    }
}
