import COSECrypto
import Foundation
import Logging
// @testable: the maintenance step, and sealing a stored key by hand.
@testable import PasskeyApp
import PasskeyStore
import SealedState
import Synchronization
import Testing

/// ``CeremonyKeys`` over the in-memory store with a clock the tests move: the first start makes the current slot's key,
/// the next key is added ahead of its slot and the old one keeps opening until it retires, instances racing on one
/// store settle on one key per slot and the same ring, key files, a key-encryption key that does not fit, and the
/// rate-limited reread for an unknown key id.
@Suite("Ceremony keys")
struct CeremonyKeysTests {
    /// A clock set to a given time, moved by the tests.
    final class Clock: Sendable {
        private let current: Mutex<Date>
        init(_ start: Date) { current = Mutex(start) }
        var now: Date { current.withLock { $0 } }
        func set(_ date: Date) { current.withLock { $0 = date } }
    }

    static let rotation: TimeInterval = 3600
    static let lifetime: TimeInterval = 300
    static let skew: TimeInterval = 30
    /// A slot boundary (a multiple of the rotation) and a time 1000 s into that slot.
    static let slot = Date(timeIntervalSince1970: 1_800_000_000 - 1_800_000_000.truncatingRemainder(dividingBy: 3600))
    static let start = slot.addingTimeInterval(1000)
    static let next = slot.addingTimeInterval(rotation)
    /// When the next slot's key is due: 150 s plus the skew before the slot.
    static let due = next.addingTimeInterval(-(CeremonyKeys.addAhead + skew))
    static let kek = Array(repeating: UInt8(7), count: 32)

    static func keys(
        _ store: InMemoryPasskeyStore, _ clock: Clock, kek: [UInt8] = kek, random: @escaping @Sendable (Int) -> [UInt8] = SecureRandom.bytes(count:)
    ) -> CeremonyKeys {
        CeremonyKeys(
            source: .database(store: store, keyEncryptionKey: kek, rotationInterval: rotation), challengeLifetime: lifetime, clockSkew: skew,
            logger: Logger(label: "ceremony-keys-test"), now: { clock.now }, random: random)
    }

    /// Seals a payload for sign-in under the ring at `now`, expiring a challenge lifetime later.
    static func box(_ ring: CeremonyKeyRing, at now: Date) throws -> [UInt8] {
        try SealedState.seal(
            [1, 2, 3], kind: .authentication, rpID: "keys.passkeyd.test", expiresAt: now.addingTimeInterval(lifetime), ring: ring, now: now,
            random: SecureRandom.bytes(count:))
    }

    static func opens(_ box: [UInt8], _ ring: CeremonyKeyRing, at now: Date) -> Bool {
        (try? SealedState.open(box, kind: .authentication, rpID: "keys.passkeyd.test", ring: ring, now: now, skew: skew)) != nil
    }

    @Test("the first start makes the current slot's key: sealed in the store, sealing at once, retiring after the next slot plus a lifetime and the skew")
    func firstStartCreatesAKey() async throws {
        let clock = Clock(Self.start)
        let store = InMemoryPasskeyStore(now: { clock.now })
        let keys = Self.keys(store, clock)
        #expect(keys.ring().keys.isEmpty, "nothing before the first load")
        try await keys.refresh()

        let key = try #require(keys.ring().sealingKey(at: Self.start))
        #expect(keys.ring().keys == [key])
        #expect(key.activatesAt == Self.slot)
        #expect(key.retiresAt == Self.next.addingTimeInterval(Self.lifetime + Self.skew))
        let stored = try #require(await store.ceremonyKeys(unretiredAt: Self.start).first)
        #expect(stored.id == key.id && stored.activatesAt == key.activatesAt && stored.retiresAt == key.retiresAt)
        #expect(stored.sealedSecret.count == 60 && !stored.sealedSecret.contains(key.secret), "the secret is stored sealed")
        #expect(try CeremonyKeys.open(stored, keyEncryptionKey: Self.kek) == key)

        // A second load finds the key and adds none.
        try await keys.refresh()
        #expect(await store.ceremonyKeys(unretiredAt: Self.start).count == 1)
        let ids = keys.keyIDs(at: Self.start)
        #expect(ids.sealing == key.id && ids.held == [key.id])
        #expect(Self.opens(try Self.box(keys.ring(), at: Self.start), keys.ring(), at: Self.start))
    }

    @Test("rotation: the next key is added ahead of its slot; the old key keeps opening its boxes until it retires, then is deleted")
    func rotationOverlaps() async throws {
        let clock = Clock(Self.start)
        let store = InMemoryPasskeyStore(now: { clock.now })
        let keys = Self.keys(store, clock)
        try await keys.refresh()
        let old = try #require(keys.ring().sealingKey(at: Self.start))

        clock.set(Self.due.addingTimeInterval(-1))
        try await keys.refresh()
        #expect(keys.ring().keys == [old], "not due yet")

        clock.set(Self.due)
        try await keys.refresh()
        let new = try #require(keys.ring().keys.last)
        #expect(keys.ring().keys.count == 2 && new != old)
        #expect(new.activatesAt == Self.next && new.retiresAt == Self.next.addingTimeInterval(Self.rotation + Self.lifetime + Self.skew))
        #expect(keys.ring().sealingKey(at: Self.due) == old, "held, but not sealing before its slot")

        // The last box the old key seals, a second before the slot; the new key seals from the slot on.
        let last = try Self.box(keys.ring(), at: Self.next.addingTimeInterval(-1))
        clock.set(Self.next)
        try await keys.refresh()
        #expect(keys.ring().sealingKey(at: Self.next) == new)
        #expect(await store.ceremonyKeys(unretiredAt: Self.next).count == 2, "nothing more added")
        // That box opens until it expires (plus the skew), by which time the old key is still held...
        let lastMoment = Self.next.addingTimeInterval(-1 + Self.lifetime + Self.skew)
        #expect(Self.opens(last, keys.ring(), at: lastMoment))
        #expect(keys.ring().openingKey(id: old.id, at: old.retiresAt.addingTimeInterval(-1)) == old)
        // ...and retires after that.
        #expect(keys.ring().openingKey(id: old.id, at: old.retiresAt) == nil)

        // The maintenance deletes a retired key once the skew has passed too.
        let maintenance = try #require(keys.maintenance())
        clock.set(old.retiresAt.addingTimeInterval(Self.skew))
        await maintenance.step()
        #expect(await store.ceremonyKeys(unretiredAt: Self.slot).map(\.id) == [old.id, new.id], "retired, but not a skew ago yet")
        clock.set(old.retiresAt.addingTimeInterval(Self.skew + 1))
        await maintenance.step()
        #expect(await store.ceremonyKeys(unretiredAt: Self.slot).map(\.id) == [new.id])
        #expect(keys.ring().keys == [new])
    }

    @Test("two instances racing on one store end with one key per slot and the same ring")
    func instancesRacing() async throws {
        let clock = Clock(Self.start)
        let store = InMemoryPasskeyStore(now: { clock.now })
        // Each with its own randomness (a seeded generator), so they would make different keys.
        let first = Self.keys(store, clock, random: Self.seeded(1))
        let second = Self.keys(store, clock, random: Self.seeded(2))
        async let a: Void = first.refresh()
        async let b: Void = second.refresh()
        _ = try await (a, b)
        #expect(await store.ceremonyKeys(unretiredAt: Self.start).count == 1)
        #expect(first.ring() == second.ring() && first.ring().keys.count == 1)

        clock.set(Self.due.addingTimeInterval(10))
        async let c: Void = first.refresh()
        async let d: Void = second.refresh()
        _ = try await (c, d)
        let stored = await store.ceremonyKeys(unretiredAt: Self.due)
        #expect(stored.map(\.activatesAt) == [Self.slot, Self.next], "one key per slot")
        #expect(first.ring() == second.ring() && first.ring().keys.map(\.id) == stored.map(\.id))
        // A box one seals, the other opens.
        let box = try Self.box(first.ring(), at: Self.next)
        #expect(Self.opens(box, second.ring(), at: Self.next))
    }

    @Test("key files: the first seals, the others open; rotating by listing a new key first keeps old boxes opening")
    func files() async throws {
        let old = Array(repeating: UInt8(1), count: 32)
        let new = Array(repeating: UInt8(2), count: 32)
        let clock = Clock(Self.start)
        func keys(_ secrets: [[UInt8]]) -> CeremonyKeys {
            CeremonyKeys(
                source: .files(secrets), challengeLifetime: Self.lifetime, clockSkew: Self.skew, logger: Logger(label: "t"), now: { clock.now })
        }
        let before = keys([old])
        try await before.refresh()
        #expect(before.ring().sealingKey(at: Self.start)?.id == CeremonyKeys.fileKeyID(old))
        // The id is SHA-256's first four bytes, big-endian.
        #expect(CeremonyKeys.fileKeyID(old) == Digest.sha256(old).prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        let box = try Self.box(before.ring(), at: Self.start)

        let after = keys([new, old])
        try await after.refresh()
        #expect(after.ring().sealingKey(at: Self.start)?.id == CeremonyKeys.fileKeyID(new), "the first file seals")
        #expect(after.ring().sealingKey(at: Date.distantFuture.addingTimeInterval(-1))?.id == CeremonyKeys.fileKeyID(new), "never retires")
        #expect(Self.opens(box, after.ring(), at: Self.start), "the old key still opens")
        #expect(!Self.opens(try Self.box(after.ring(), at: Self.start), before.ring(), at: Self.start), "an instance without the new key cannot open its boxes")
        #expect(after.maintenance() == nil && !after.isDatabase)
        #expect(await after.reloadForUnknownKey() == after.ring())

        await #expect(throws: CeremonyKeyError(.duplicateKeyID, "")) { try await keys([old, new, old]).refresh() }
        await #expect(throws: CeremonyKeyError(.keyInvalid, "")) { try await keys([Array(repeating: 1, count: 16)]).refresh() }
        await #expect(throws: CeremonyKeyError(.keyInvalid, "")) { try await keys([]).refresh() }
    }

    @Test("a key-encryption key other than the one that sealed the stored keys fails the load, and a sealed secret is bound to its id")
    func wrongKeyEncryptionKey() async throws {
        let clock = Clock(Self.start)
        let store = InMemoryPasskeyStore(now: { clock.now })
        try await Self.keys(store, clock).refresh()
        let other = Self.keys(store, clock, kek: Array(repeating: 8, count: 32))
        await #expect(throws: CeremonyKeyError(.keyDoesNotOpen, "")) { try await other.refresh() }
        #expect(other.ring().keys.isEmpty)
        #expect(await store.ceremonyKeys(unretiredAt: Self.start).count == 1, "nothing added by the failed load")

        // A sealed secret moved to another key id does not open.
        let stored = try #require(await store.ceremonyKeys(unretiredAt: Self.start).first)
        let moved = StoredCeremonyKey(
            id: stored.id ^ 1, sealedSecret: stored.sealedSecret, activatesAt: stored.activatesAt, retiresAt: stored.retiresAt,
            createdAt: stored.createdAt)
        #expect(throws: CeremonyKeyError(.keyDoesNotOpen, "")) { try CeremonyKeys.open(moved, keyEncryptionKey: Self.kek) }
    }

    @Test("an unknown key id rereads the keys at once, at most once per 5 s")
    func reloadForUnknownKey() async throws {
        let clock = Clock(Self.start)
        let store = InMemoryPasskeyStore(now: { clock.now })
        let keys = Self.keys(store, clock)
        try await keys.refresh()
        /// A key added by "another instance" for a slot `hours` ahead.
        func addElsewhere(_ id: UInt32, hours: Double) async throws {
            let activatesAt = Self.slot.addingTimeInterval(hours * Self.rotation)
            let key = try CeremonyKey(id: id, secret: SecureRandom.bytes(count: 32), activatesAt: activatesAt, retiresAt: activatesAt + 7200)
            let stored = StoredCeremonyKey(
                id: id, sealedSecret: try CeremonyKeys.seal(key, keyEncryptionKey: Self.kek), activatesAt: activatesAt,
                retiresAt: key.retiresAt, createdAt: clock.now)
            #expect(await store.addCeremonyKey(stored) == .added)
        }
        try await addElsewhere(1, hours: 1)
        #expect(await keys.reloadForUnknownKey().keys.contains { $0.id == 1 })
        try await addElsewhere(2, hours: 2)
        clock.set(Self.start.addingTimeInterval(4))
        #expect(await !keys.reloadForUnknownKey().keys.contains { $0.id == 2 }, "within 5 s of the last reread")
        clock.set(Self.start.addingTimeInterval(5))
        #expect(await keys.reloadForUnknownKey().keys.contains { $0.id == 2 })
        #expect(await store.ceremonyKeys(unretiredAt: Self.start).count == 3, "a reread adds nothing")
    }

    @Test("a ring gone stale (the clock past its slot with no refresh since) is refreshed by the begin that needs it")
    func staleRingRefreshedForSealing() async throws {
        let clock = Clock(Self.start)
        let store = InMemoryPasskeyStore(now: { clock.now })
        let keys = Self.keys(store, clock)
        try await keys.refresh()
        let first = try #require(keys.ring().sealingKey(at: Self.start))
        #expect(await keys.sealingRing() == keys.ring(), "a ring that seals is used as it is")
        #expect(await store.ceremonyKeys(unretiredAt: Self.start).count == 1, "and nothing is added")

        // Two slots later, no refresh in between (a paused process, a clock jump): the held key has retired.
        let later = Self.next.addingTimeInterval(Self.rotation + 100)
        clock.set(later)
        #expect(keys.ring().sealingKey(at: later) == nil)
        #expect(throws: SealedStateError.self) { try Self.box(keys.ring(), at: later) }
        // Concurrent begins share one refresh, which adds the current slot's key.
        async let a = keys.sealingRing()
        async let b = keys.sealingRing()
        let (ringA, ringB) = await (a, b)
        #expect(ringA == ringB)
        let key = try #require(ringA.sealingKey(at: later))
        #expect(key.id != first.id && key.activatesAt == Self.next.addingTimeInterval(Self.rotation))
        #expect(Self.opens(try Self.box(ringA, at: later), ringA, at: later))
        #expect(await store.ceremonyKeys(unretiredAt: later).map(\.id) == [key.id], "one key added for the slot")

        // Late in a slot, a key that is active but retires before a new challenge would expire does not seal either.
        let store2 = InMemoryPasskeyStore(now: { clock.now })
        clock.set(Self.start)
        let keys2 = Self.keys(store2, clock)
        try await keys2.refresh()
        let nearRetirement = Self.next.addingTimeInterval(Self.skew + 10)
        clock.set(nearRetirement)
        #expect(keys2.ring().sealingKey(at: nearRetirement) != nil)
        #expect(keys2.ring().sealingKey(at: nearRetirement, until: nearRetirement.addingTimeInterval(Self.lifetime)) == nil)
        let refreshed = await keys2.sealingRing()
        #expect(refreshed.sealingKey(at: nearRetirement, until: nearRetirement.addingTimeInterval(Self.lifetime))?.activatesAt == Self.next)
    }

    @Test("a stale ring whose refresh fails is returned as it is (the begin answers 503), and no refresh is retried for 5 s")
    func staleRingRefreshFailure() async throws {
        let clock = Clock(Self.start)
        let store = CountingDownKeyStore()
        let keys = CeremonyKeys(
            source: .database(store: store, keyEncryptionKey: Self.kek, rotationInterval: Self.rotation), challengeLifetime: Self.lifetime,
            clockSkew: Self.skew, logger: Logger(label: "ceremony-keys-test"), now: { clock.now })
        #expect(await keys.sealingRing().keys.isEmpty)
        #expect(store.reads.load(ordering: .relaxed) == 1)
        clock.set(Self.start.addingTimeInterval(4))
        #expect(await keys.sealingRing().keys.isEmpty)
        #expect(store.reads.load(ordering: .relaxed) == 1, "within 5 s of the failed refresh")
        clock.set(Self.start.addingTimeInterval(5))
        _ = await keys.sealingRing()
        #expect(store.reads.load(ordering: .relaxed) == 2)
    }

    /// Key reads that always fail, counted.
    final class CountingDownKeyStore: CeremonyKeyStore, Sendable {
        let reads = Atomic(0)
        func ceremonyKeys(unretiredAt now: Date) async throws(StoreError) -> [StoredCeremonyKey] {
            reads.add(1, ordering: .relaxed)
            throw StoreError(.unavailable, "down (test)")
        }
        func addCeremonyKey(_ key: StoredCeremonyKey) async throws(StoreError) -> CeremonyKeyAddition { throw StoreError(.unavailable, "down (test)") }
        func deleteRetiredCeremonyKeys(before: Date) async throws(StoreError) -> Int { throw StoreError(.unavailable, "down (test)") }
    }

    /// Deterministic bytes from a seed (SplitMix64), for instances that must draw different keys.
    static func seeded(_ seed: UInt64) -> @Sendable (Int) -> [UInt8] {
        let state = Mutex(seed)
        return { count in
            state.withLock { state in
                (0..<count).map { _ in
                    state &+= 0x9E37_79B9_7F4A_7C15
                    var z = state
                    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                    return UInt8(truncatingIfNeeded: z ^ (z >> 31))
                }
            }
        }
    }
}
