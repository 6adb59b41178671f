import COSECrypto
import Foundation
import SealedState
import Testing

@Suite struct SealedStateTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let ring = CeremonyKeyRing(keys: [
        try! CeremonyKey(id: 7, secret: Array(repeating: 0x42, count: 32), activatesAt: start.addingTimeInterval(-60), retiresAt: start.addingTimeInterval(86_400))
    ])

    func seal(_ payload: [UInt8], kind: SealedStateKind = .authentication, rpID: String = "example.com") throws -> [UInt8] {
        try SealedState.seal(
            payload, kind: kind, rpID: rpID, expiresAt: Self.start.addingTimeInterval(300), ring: Self.ring, now: Self.start,
            random: SecureRandom.bytes(count:))
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
}
