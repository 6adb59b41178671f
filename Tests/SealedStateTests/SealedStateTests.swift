import COSECrypto
import Foundation
import SealedState
import Testing

/// The clock, keys and helpers every SealedState suite shares.
enum Fixture {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let rpID = "example.com"
    static let allKinds: [SealedStateKind] = [
        .registration, .conditionalCreate, .selfServiceAddition, .authentication, .idTokenSession, .appAttest,
    ]

    /// A key whose 32 secret bytes are all `fill`, active and retired at these offsets from ``start``.
    static func key(_ id: UInt32, fill: UInt8 = 0x42, activates: TimeInterval = -60, retires: TimeInterval = 86_400) throws -> CeremonyKey {
        try CeremonyKey(
            id: id, secret: Array(repeating: fill, count: 32), activatesAt: start.addingTimeInterval(activates),
            retiresAt: start.addingTimeInterval(retires))
    }

    static let ring = CeremonyKeyRing(keys: [
        try! CeremonyKey(id: 7, secret: Array(repeating: 0x42, count: 32), activatesAt: start.addingTimeInterval(-60), retiresAt: start.addingTimeInterval(86_400))
    ])

    /// Seals with real randomness, 300 s before expiry unless told otherwise.
    static func seal(
        _ payload: [UInt8], kind: SealedStateKind = .authentication, rpID: String = rpID, ring: CeremonyKeyRing = ring,
        now: Date = start, expiresAt: Date? = nil
    ) throws(SealedStateError) -> [UInt8] {
        try SealedState.seal(
            payload, kind: kind, rpID: rpID, expiresAt: expiresAt ?? now.addingTimeInterval(300), ring: ring, now: now,
            random: SecureRandom.bytes(count:))
    }

    /// The code `open` refuses the bytes with, nil when they open.
    static func refusal(
        _ sealed: [UInt8], kind: SealedStateKind = .authentication, rpID: String = rpID, ring: CeremonyKeyRing = ring,
        now: Date = start, skew: TimeInterval = 30
    ) -> SealedStateError.Code? {
        do {
            _ = try SealedState.open(sealed, kind: kind, rpID: rpID, ring: ring, now: now, skew: skew)
            return nil
        } catch {
            return error.code
        }
    }

    /// The code `seal` refuses with, nil when it seals.
    static func sealRefusal(_ body: () throws(SealedStateError) -> [UInt8]) -> SealedStateError.Code? {
        do {
            _ = try body()
            return nil
        } catch {
            return error.code
        }
    }

    /// The key id a box carries (bytes 1 to 4, big-endian).
    static func keyID(of box: [UInt8]) -> UInt32 {
        box[1..<5].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

@Suite struct SealedStateTests {
    static let start = Fixture.start
    static let ring = Fixture.ring

    func seal(_ payload: [UInt8], kind: SealedStateKind = .authentication, rpID: String = "example.com") throws -> [UInt8] {
        try Fixture.seal(payload, kind: kind, rpID: rpID)
    }

    @Test func opensWhatItSealedForTheSameKindAndRelyingParty() throws {
        let box = try seal([1, 2, 3])
        #expect(box.count == SealedState.overhead + 3)
        let opened = try SealedState.open(box, kind: .authentication, rpID: "example.com", ring: Self.ring, now: Self.start, skew: 30)
        #expect(opened.payload == [1, 2, 3])
        #expect(opened.fingerprint.bytes.count == 16)
        #expect(opened.fingerprint.expiresAt == Self.start.addingTimeInterval(330))
    }

    @Test func refusesAnotherKindOrRelyingParty() throws {
        let box = try seal([1])
        #expect(throws: SealedStateError(.unknown, "")) {
            try SealedState.open(box, kind: .registration, rpID: "example.com", ring: Self.ring, now: Self.start, skew: 30)
        }
        #expect(throws: SealedStateError(.unknown, "")) {
            try SealedState.open(box, kind: .authentication, rpID: "example.org", ring: Self.ring, now: Self.start, skew: 30)
        }
    }

    @Test func refusesExpiredOnlyPastTheSkew() throws {
        let box = try seal([])
        _ = try SealedState.open(box, kind: .authentication, rpID: "example.com", ring: Self.ring, now: Self.start.addingTimeInterval(329), skew: 30)
        #expect(throws: SealedStateError(.expired, "")) {
            try SealedState.open(box, kind: .authentication, rpID: "example.com", ring: Self.ring, now: Self.start.addingTimeInterval(331), skew: 30)
        }
    }

    /// Each kind's box opens as that kind only: a 6 × 6 table, the diagonal opens, everything else is `.unknown`.
    @Test(arguments: Fixture.allKinds)
    func aBoxOpensOnlyAsItsOwnKind(sealedAs: SealedStateKind) throws {
        let box = try Fixture.seal([0x5a], kind: sealedAs)
        #expect(Set(Fixture.allKinds.map(\.rawValue)).count == 6)
        for openedAs in Fixture.allKinds {
            let expected: SealedStateError.Code? = openedAs == sealedAs ? nil : .unknown
            #expect(Fixture.refusal(box, kind: openedAs) == expected, "sealed as \(sealedAs.rawValue), opened as \(openedAs.rawValue)")
        }
    }

    @Test func aBoxOpensOnlyAtItsOwnRelyingParty() throws {
        let box = try Fixture.seal([0x5a])
        #expect(Fixture.refusal(box) == nil)
        for other in ["example.org", "EXAMPLE.COM", "example.com.", "login.example.com", "xample.com", "example.co", ""] {
            #expect(Fixture.refusal(box, rpID: other) == .unknown, "opened at \(other)")
        }
        // The relying party is bound on the sealing side too.
        let elsewhere = try Fixture.seal([0x5a], rpID: "example.org")
        #expect(Fixture.refusal(elsewhere) == .unknown)
        #expect(Fixture.refusal(elsewhere, rpID: "example.org") == nil)
    }

    /// Every bit pattern flipped in every byte (version, key id, nonce, ciphertext, tag) is refused as `.unknown`.
    @Test func everyFlippedByteIsRefused() throws {
        let box = try Fixture.seal(Array("user-42".utf8))
        #expect(Fixture.refusal(box) == nil)
        for position in box.indices {
            for mask: UInt8 in [0x01, 0x80, 0xff] {
                var bent = box
                bent[position] ^= mask
                #expect(Fixture.refusal(bent) == .unknown, "byte \(position) ^ \(mask)")
            }
        }
    }

    /// Every prefix of a box (the empty one too), and the box with a byte appended, is refused as `.unknown`.
    @Test func everyTruncationIsRefused() throws {
        let box = try Fixture.seal(Array("user-42".utf8))
        for length in 0..<box.count {
            #expect(Fixture.refusal(Array(box.prefix(length))) == .unknown, "\(length) of \(box.count) bytes")
        }
        #expect(Fixture.refusal(box + [0]) == .unknown)
        #expect(Fixture.refusal(Array(box.dropFirst())) == .unknown)
    }

    @Test func everyOtherVersionByteIsRefused() throws {
        let box = try Fixture.seal([1, 2, 3])
        #expect(box[0] == 0x01)
        for version in UInt8.min...UInt8.max where version != 0x01 {
            var bent = box
            bent[0] = version
            #expect(Fixture.refusal(bent) == .unknown, "version \(version)")
        }
    }

    @Test func anUnknownKeyIDIsRefused() throws {
        let box = try Fixture.seal([1, 2, 3])
        #expect(Fixture.keyID(of: box) == 7)
        // The same secret under another id: the id is looked up and bound, not only the secret.
        let renamed = CeremonyKeyRing(keys: [try Fixture.key(8)])
        #expect(Fixture.refusal(box, ring: renamed) == .unknown)
        // The box relabelled with the other id, in a ring that holds both ids with the same secret.
        let both = CeremonyKeyRing(keys: [try Fixture.key(7), try Fixture.key(8, activates: -120)])
        #expect(Fixture.refusal(box, ring: both) == nil)
        var relabelled = box
        relabelled[4] = 8
        #expect(Fixture.refusal(relabelled, ring: both) == .unknown)
        #expect(Fixture.refusal(box, ring: CeremonyKeyRing(keys: [])) == .unknown)
    }

    @Test func twoBoxesOfOnePayloadDifferAndHaveDifferentFingerprints() throws {
        let first = try Fixture.seal(Array("same".utf8))
        let second = try Fixture.seal(Array("same".utf8))
        #expect(first != second)
        #expect(first[5..<17] != second[5..<17], "a fresh nonce for each box")
        let a = try SealedState.open(first, kind: .authentication, rpID: Fixture.rpID, ring: Fixture.ring, now: Fixture.start, skew: 0)
        let b = try SealedState.open(second, kind: .authentication, rpID: Fixture.rpID, ring: Fixture.ring, now: Fixture.start, skew: 0)
        #expect(a.payload == b.payload)
        #expect(a.fingerprint.bytes != b.fingerprint.bytes)
        #expect(a.fingerprint.bytes == Array(Digest.sha256(first).prefix(16)))
        // The fingerprint is stable for one box (a finish records it; a replay computes the same one).
        let again = try SealedState.open(first, kind: .authentication, rpID: Fixture.rpID, ring: Fixture.ring, now: Fixture.start, skew: 0)
        #expect(again.fingerprint == a.fingerprint)
    }

    /// The measured size: n payload bytes make n + 53, up to ``SealedState/maximumPayload``.
    @Test func aBoxIsItsPayloadPlus53Bytes() throws {
        #expect(SealedState.overhead == 53)
        for length in [0, 1, 2, 15, 16, 17, 100, 255, 256, SealedState.maximumPayload - 1, SealedState.maximumPayload] {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
            let box = try Fixture.seal(payload)
            #expect(box.count == length + 53, "payload of \(length) bytes")
            #expect(try SealedState.open(box, kind: .authentication, rpID: Fixture.rpID, ring: Fixture.ring, now: Fixture.start, skew: 0).payload == payload)
        }
    }

    @Test func aPayloadOverTheMaximumIsRefused() throws {
        #expect(Fixture.sealRefusal { () throws(SealedStateError) in try Fixture.seal(Array(repeating: 1, count: SealedState.maximumPayload + 1)) } == .payloadTooLarge)
        #expect(Fixture.sealRefusal { () throws(SealedStateError) in try Fixture.seal(Array(repeating: 1, count: 1 << 20)) } == .payloadTooLarge)
        #expect(Fixture.sealRefusal { () throws(SealedStateError) in try Fixture.seal(Array(repeating: 1, count: SealedState.maximumPayload)) } == nil)
    }

    /// Opens at exactly expiry + skew, is `.expired` one second later (also with no skew, and with an expiry given in
    /// a fraction of a second, which is rounded up).
    @Test func theExpiryBoundaryIsExpiryPlusSkew() throws {
        let expiry = Fixture.start.addingTimeInterval(300)
        let box = try Fixture.seal([9], expiresAt: expiry)
        #expect(Fixture.refusal(box, now: expiry.addingTimeInterval(30), skew: 30) == nil)
        #expect(Fixture.refusal(box, now: expiry.addingTimeInterval(31), skew: 30) == .expired)
        #expect(Fixture.refusal(box, now: expiry, skew: 0) == nil)
        #expect(Fixture.refusal(box, now: expiry.addingTimeInterval(1), skew: 0) == .expired)
        #expect(Fixture.refusal(box, now: expiry.addingTimeInterval(0.001), skew: 0) == .expired)
        let opened = try SealedState.open(box, kind: .authentication, rpID: Fixture.rpID, ring: Fixture.ring, now: expiry, skew: 30)
        #expect(opened.expiresAt == expiry)
        #expect(opened.fingerprint.expiresAt == expiry.addingTimeInterval(30))

        let fractional = try Fixture.seal([9], expiresAt: expiry.addingTimeInterval(-0.25))
        #expect(Fixture.refusal(fractional, now: expiry, skew: 0) == nil)
        #expect(Fixture.refusal(fractional, now: expiry.addingTimeInterval(1), skew: 0) == .expired)
    }

    /// `open` refuses anything longer than the longest box seal makes (53 + maximumPayload bytes) before any decryption, even
    /// bytes that would authenticate (built here by hand under the ring's key, in seal's format).
    @Test func bytesLongerThanTheLongestBoxAreRefused() throws {
        func handmade(payloadLength: Int) throws -> [UInt8] {
            let keyID: [UInt8] = [0, 0, 0, 7]
            let associated = Array("passkeyd.sealed.v1\u{0}webauthn.get\u{0}example.com\u{0}".utf8) + keyID
            let expiry: [UInt8] = [0x6b, 0x49, 0xd3, 0x2c]  // 1_800_000_300: start + 300
            let plaintext = SecureRandom.bytes(count: 16) + expiry + Array(repeating: 0x61, count: payloadLength)
            let box = try AEAD.seal(
                plaintext, key: Array(repeating: 0x42, count: 32), nonce: SecureRandom.bytes(count: 12), associatedData: associated)
            return [0x01] + keyID + box
        }
        #expect(Fixture.refusal(try handmade(payloadLength: 3)) == nil, "the hand-made box is in seal's format")
        #expect(Fixture.refusal(try handmade(payloadLength: SealedState.maximumPayload)) == nil)
        #expect(Fixture.refusal(try handmade(payloadLength: SealedState.maximumPayload + 1)) == .unknown)
        #expect(Fixture.refusal(try handmade(payloadLength: 1 << 16)) == .unknown)
    }

    /// The expiry field holds 0 to 2^32 - 1 seconds since 1970 (2106-02-07T06:28:15Z). Seal refuses any other expiry
    /// rather than move it into range (a pre-1970 expiry moved to 1970 would open longer than asked; one after 2106
    /// moved back would silently shorten the box) or trap (an infinite, NaN or huge interval converted to Int64).
    @Test func anExpiryTheFieldCannotHoldIsRefused() throws {
        let key = try CeremonyKey(id: 7, secret: Array(repeating: 0x42, count: 32), activatesAt: .distantPast, retiresAt: .distantFuture)
        let ring = CeremonyKeyRing(keys: [key])
        let last = Double(UInt32.max)
        func refusal(expiresAt seconds: Double, now: Date = Fixture.start) -> SealedStateError.Code? {
            Fixture.sealRefusal { () throws(SealedStateError) in
                try Fixture.seal([1], ring: ring, now: now, expiresAt: Date(timeIntervalSince1970: seconds))
            }
        }
        // A clock before 1970: a box that should expire 300 s from now must not open until 1970.
        #expect(refusal(expiresAt: -700, now: Date(timeIntervalSince1970: -1_000)) == .expiryOutOfRange)
        for seconds in [-1, -31_536_000, last + 0.5, last + 1, 1e12, 9.3e18, 1e300, .infinity, -.infinity, .nan] {
            #expect(refusal(expiresAt: seconds) == .expiryOutOfRange, "expiry \(seconds)")
        }

        // The two ends of the range seal and open with exactly that expiry (-0.5 rounds up to 0).
        for (seconds, carried) in [(0, 0), (-0.5, 0), (last - 0.5, last), (last, last)] {
            let box = try Fixture.seal([1], ring: ring, expiresAt: Date(timeIntervalSince1970: seconds))
            let opened = try SealedState.open(
                box, kind: .authentication, rpID: Fixture.rpID, ring: ring, now: Date(timeIntervalSince1970: carried), skew: 0)
            #expect(opened.expiresAt == Date(timeIntervalSince1970: carried))
            #expect(Fixture.refusal(box, ring: ring, now: Date(timeIntervalSince1970: carried + 1), skew: 0) == .expired)
        }
    }

    /// Randomness of the wrong length is a programming error that stops the process. Before, 16 missing random bytes
    /// shifted the layout (payload bytes 12 to 15 read back as the expiry: 0xffffffff, a box that opened until 2106),
    /// and a short nonce came out as `.keyInvalid`.
    @Test func randomnessOfTheWrongLengthStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            _ = try? SealedState.seal(
                Array(repeating: 0xff, count: 20), kind: .authentication, rpID: "example.com", expiresAt: Fixture.start.addingTimeInterval(300),
                ring: Fixture.ring, now: Fixture.start, random: { $0 == 16 ? [] : Array(repeating: 0, count: $0) })
        }
        await #expect(processExitsWith: .failure) {
            _ = try? SealedState.seal(
                [1], kind: .authentication, rpID: "example.com", expiresAt: Fixture.start.addingTimeInterval(300),
                ring: Fixture.ring, now: Fixture.start, random: { $0 == 12 ? Array(repeating: 0, count: 8) : Array(repeating: 0, count: $0) })
        }
    }

    /// Known answer: a fixed key, random part and nonce give this exact box. The expected hex was computed
    /// independently with Python's `cryptography` (python3-cryptography 48.0.0):
    ///
    ///     key = bytes(range(0x00, 0x20)); key_id = struct.pack(">I", 0x0A0B0C0D)
    ///     rnd = bytes(range(0xA0, 0xB0)); nonce = bytes(range(0xC0, 0xCC))
    ///     aad = b"passkeyd.sealed.v1\x00webauthn.get\x00example.com\x00" + key_id
    ///     pt = rnd + struct.pack(">I", 1_800_000_300) + b"user-42"
    ///     box = b"\x01" + key_id + nonce + AESGCM(key).encrypt(nonce, pt, aad)
    @Test func knownAnswer() throws {
        let key = try CeremonyKey(
            id: 0x0A0B_0C0D, secret: Array(0x00...0x1f), activatesAt: Fixture.start.addingTimeInterval(-60),
            retiresAt: Fixture.start.addingTimeInterval(86_400))
        let ring = CeremonyKeyRing(keys: [key])
        let fixedRandom = Array<UInt8>(0xa0...0xaf)
        let fixedNonce = Array<UInt8>(0xc0...0xcb)
        var requests: [Int] = []
        func seal() throws -> [UInt8] {
            try SealedState.seal(
                Array("user-42".utf8), kind: .authentication, rpID: "example.com", expiresAt: Fixture.start.addingTimeInterval(300),
                ring: ring, now: Fixture.start,
                random: { count in
                    requests.append(count)
                    return count == 16 ? fixedRandom : fixedNonce
                })
        }
        let box = try seal()
        let expected =
            "010a0b0c0dc0c1c2c3c4c5c6c7c8c9cacba0e985c4d3dd30f9307057099e0146f9273a301349917ac807f779719b04c96d523e705528305e2ae36e2e"
        #expect(hex(box) == expected)
        #expect(requests == [16, 12])
        #expect(try seal() == box, "the same randomness gives the same box")
        let opened = try SealedState.open(box, kind: .authentication, rpID: "example.com", ring: ring, now: Fixture.start, skew: 0)
        #expect(opened.payload == Array("user-42".utf8))
        #expect(opened.expiresAt == Date(timeIntervalSince1970: 1_800_000_300))
    }

    func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
