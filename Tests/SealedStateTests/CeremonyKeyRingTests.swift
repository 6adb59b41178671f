import COSECrypto
import Foundation
import SealedState
import Testing

/// Which key seals and which opens as keys activate and retire.
@Suite struct CeremonyKeyRingTests {
    let start = Fixture.start

    /// A key opens up to the instant before `retiresAt` and never at or after it, even for a box whose expiry
    /// (with a large skew) has not passed.
    @Test func aRetiredKeyRefuses() throws {
        let key = try Fixture.key(7, retires: 3_600)
        let ring = CeremonyKeyRing(keys: [key])
        let box = try Fixture.seal([1], ring: ring)
        let retiresAt = key.retiresAt
        #expect(Fixture.refusal(box, ring: ring, now: retiresAt.addingTimeInterval(-1), skew: 86_400) == nil)
        #expect(Fixture.refusal(box, ring: ring, now: retiresAt.addingTimeInterval(-0.001), skew: 86_400) == nil)
        #expect(Fixture.refusal(box, ring: ring, now: retiresAt, skew: 86_400) == .unknown)
        #expect(Fixture.refusal(box, ring: ring, now: retiresAt.addingTimeInterval(1), skew: 86_400) == .unknown)
        // Nor does it seal once retired.
        #expect(Fixture.sealRefusal { () throws(SealedStateError) in try Fixture.seal([1], ring: ring, now: retiresAt) } == .noSealingKey)
    }

    /// A key that is not active yet opens (another instance may already seal with it) but does not seal here.
    @Test func aKeyNotYetActiveOpensButDoesNotSeal() throws {
        let future = try Fixture.key(9, fill: 0x99, activates: 3_600, retires: 86_400)
        let onlyFuture = CeremonyKeyRing(keys: [future])
        #expect(ring(onlyFuture, sealsAt: start) == nil)
        #expect(Fixture.sealRefusal { () throws(SealedStateError) in try Fixture.seal([1], ring: onlyFuture) } == .noSealingKey)

        let current = try Fixture.key(7)
        let ring = CeremonyKeyRing(keys: [current, future])
        let box = try Fixture.seal([1], ring: ring)
        #expect(Fixture.keyID(of: box) == 7, "the active key seals, not the newer one")

        // An instance whose copy of key 9 is already active seals with it; this instance opens that box.
        let early = try Fixture.key(9, fill: 0x99, activates: -1, retires: 86_400)
        let fromOther = try Fixture.seal([2], ring: CeremonyKeyRing(keys: [early]))
        #expect(Fixture.keyID(of: fromOther) == 9)
        #expect(Fixture.refusal(fromOther, ring: ring) == nil)
        #expect(Fixture.refusal(fromOther, ring: onlyFuture) == nil)
    }

    /// Rotation: the new key seals from its activation on (inclusive), and the old key's boxes keep opening.
    @Test func rotationOverlap() throws {
        let old = try Fixture.key(0x0102_0304, fill: 0x11, activates: -86_400, retires: 3_600)
        let new = try Fixture.key(0xA0B0_C0D0, fill: 0x22, activates: 600, retires: 172_800)
        let ring = CeremonyKeyRing(keys: [new, old])
        #expect(ring.keys.map(\.id) == [old.id, new.id], "kept oldest first")

        let before = try Fixture.seal(Array("old".utf8), ring: ring, now: start, expiresAt: new.activatesAt.addingTimeInterval(300))
        #expect(Array(before[1..<5]) == [0x01, 0x02, 0x03, 0x04])
        let lastOld = try Fixture.seal(Array("old".utf8), ring: ring, now: new.activatesAt.addingTimeInterval(-1))
        #expect(Array(lastOld[1..<5]) == [0x01, 0x02, 0x03, 0x04])

        let activation = new.activatesAt
        let after = try Fixture.seal(Array("new".utf8), ring: ring, now: activation)
        #expect(Array(after[1..<5]) == [0xA0, 0xB0, 0xC0, 0xD0])
        #expect(try Fixture.seal([], ring: ring, now: activation.addingTimeInterval(60))[1..<5] == [0xA0, 0xB0, 0xC0, 0xD0])

        // Boxes sealed under the old key still open after the new key took over, until their expiry.
        #expect(Fixture.refusal(before, ring: ring, now: activation) == nil)
        #expect(Fixture.refusal(lastOld, ring: ring, now: activation.addingTimeInterval(299)) == nil)
        #expect(Fixture.refusal(after, ring: ring, now: activation) == nil)
        // A ring that dropped the old key no longer opens them; one without the new key does not open its boxes.
        #expect(Fixture.refusal(lastOld, ring: CeremonyKeyRing(keys: [new]), now: activation) == .unknown)
        #expect(Fixture.refusal(after, ring: CeremonyKeyRing(keys: [old]), now: activation) == .unknown)
    }

    /// Two keys with one id (an id reused with a new secret): the newer one seals, and the boxes of both open (the
    /// box is tried under each); the older one's stop opening when it retires.
    @Test func aReusedKeyIDOpensTheBoxesOfBothKeys() throws {
        let older = try Fixture.key(5, fill: 0x51, activates: -86_400, retires: 86_400)
        let newer = try Fixture.key(5, fill: 0x52, activates: -60, retires: 172_800)
        let ring = CeremonyKeyRing(keys: [newer, older])
        let box = try Fixture.seal([1], ring: ring)
        #expect(Fixture.refusal(box, ring: CeremonyKeyRing(keys: [newer])) == nil, "the newer key sealed it")
        #expect(Fixture.refusal(box, ring: CeremonyKeyRing(keys: [older])) == .unknown)
        #expect(Fixture.refusal(box, ring: ring) == nil)
        let olderBox = try Fixture.seal([2], ring: CeremonyKeyRing(keys: [older]))
        #expect(Fixture.refusal(olderBox, ring: ring) == nil)

        #expect(Fixture.refusal(box, ring: ring, now: older.retiresAt, skew: 1e6) == nil)
        #expect(Fixture.refusal(olderBox, ring: ring, now: older.retiresAt, skew: 1e6) == .unknown)
        var bent = box
        bent[bent.count - 1] ^= 1
        #expect(Fixture.refusal(bent, ring: ring) == .unknown)
    }

    /// A key seals only boxes that expire before it retires: a box it sealed would otherwise stop opening (as
    /// `.unknown`) before its expiry. A longer-lived key seals instead, or none.
    @Test func aKeyDoesNotSealABoxThatOutlivesIt() throws {
        let retiring = try Fixture.key(1, fill: 0x11, activates: -86_400, retires: 100)
        let alone = CeremonyKeyRing(keys: [retiring])
        #expect(Fixture.sealRefusal { () throws(SealedStateError) in try Fixture.seal([1], ring: alone) } == .noSealingKey)
        #expect(
            Fixture.sealRefusal { () throws(SealedStateError) in
                try Fixture.seal([1], ring: alone, expiresAt: retiring.retiresAt)
            } == .noSealingKey, "at retiresAt the box would no longer open")
        let short = try Fixture.seal([1], ring: alone, expiresAt: retiring.retiresAt.addingTimeInterval(-1))
        #expect(Fixture.refusal(short, ring: alone, now: retiring.retiresAt.addingTimeInterval(-1), skew: 0) == nil)
        // The expiry asked for decides, not the whole second it is rounded up to: a box asked to expire half a second
        // before the key retires is sealed (with no clock skew a slot key's longest box ends just so) and opens until
        // then.
        let rounded = try Fixture.seal([1], ring: alone, expiresAt: retiring.retiresAt.addingTimeInterval(-0.5))
        #expect(Fixture.refusal(rounded, ring: alone, now: retiring.retiresAt.addingTimeInterval(-0.5), skew: 0) == nil)

        let longer = try Fixture.key(2, fill: 0x22, activates: -172_800, retires: 86_400)
        let both = CeremonyKeyRing(keys: [retiring, longer])
        let box = try Fixture.seal([1], ring: both)
        #expect(Fixture.keyID(of: box) == 2)
        #expect(Fixture.refusal(box, ring: both, now: start.addingTimeInterval(300)) == nil)
        #expect(both.sealingKey(at: start)?.id == 1, "without an expiry: the newest active key")
        #expect(both.sealingKey(at: start, until: start.addingTimeInterval(99))?.id == 1)
        #expect(both.sealingKey(at: start, until: start.addingTimeInterval(100))?.id == 2)
        #expect(both.sealingKey(at: start, until: start.addingTimeInterval(86_400)) == nil)
    }

    @Test func anEmptyOrRetiredRingHasNoSealingKey() throws {
        let empty = CeremonyKeyRing(keys: [])
        #expect(empty.sealingKey(at: start) == nil)
        #expect(Fixture.sealRefusal { () throws(SealedStateError) in try Fixture.seal([1], ring: empty) } == .noSealingKey)
        let retired = CeremonyKeyRing(keys: [try Fixture.key(1, retires: -1), try Fixture.key(2, activates: -7_200, retires: 0)])
        #expect(Fixture.sealRefusal { () throws(SealedStateError) in try Fixture.seal([1], ring: retired) } == .noSealingKey)
    }

    /// A key or a ring in a log line, an error's reason or a `dump` shows the id and times, never the secret.
    @Test func aKeyNeverPrintsItsSecret() throws {
        let key = try Fixture.key(7, fill: 0xab)
        let ring = CeremonyKeyRing(keys: [key])
        var dumped = ""
        dump(ring, to: &dumped)
        for text in [String(describing: key), String(reflecting: key), "\(ring)", String(reflecting: ring), dumped] {
            #expect(!text.contains("171"), "\(text)")
            #expect(text.contains("id: 7"), "\(text)")
        }
    }

    @Test func aKeyIsThirtyTwoBytes() {
        for length in [0, 16, 31, 33, 64] {
            #expect(throws: SealedStateError(.keyInvalid, "")) {
                try CeremonyKey(id: 1, secret: Array(repeating: 1, count: length), activatesAt: start, retiresAt: start)
            }
        }
    }

    func ring(_ ring: CeremonyKeyRing, sealsAt now: Date) -> UInt32? {
        ring.sealingKey(at: now)?.id
    }
}
