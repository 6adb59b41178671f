import COSECrypto
import Foundation
import SealedState

/// The `sealed` target: bytes as a sealed ceremony state through `SealedState.open` with a fixed ring and clock (key
/// 1 active, key 2 not active yet, key 3 retired), as each kind at the ring's relying party and once at another. It
/// may only refuse with `.unknown` or `.expired`; what opens must be the whole input less the 53-byte overhead with the
/// fingerprint of the whole input. Seeded with boxes this ring seals (``sealedSeeds``), so mutations start from boxes
/// that open.
extension FuzzTarget {
    /// 2027-01-15T08:00:00Z.
    static let sealedTime = Date(timeIntervalSince1970: 1_800_000_000)
    static let sealedRPID = "example.org"
    static let sealedKinds: [SealedStateKind] = [
        .registration, .conditionalCreate, .selfServiceAddition, .authentication, .idTokenSession, .appAttest,
    ]

    /// Keys 1 (active), 2 (activates in an hour: opens, does not seal) and 3 (retired a minute ago).
    static let sealedKeys: [CeremonyKey] = [
        sealedKey(1, fill: 0x11, activates: -86_400, retires: 86_400),
        sealedKey(2, fill: 0x22, activates: 3_600, retires: 172_800),
        sealedKey(3, fill: 0x33, activates: -172_800, retires: -60),
    ].compactMap { $0 }
    static let sealedRing = CeremonyKeyRing(keys: sealedKeys)

    static func sealedKey(_ id: UInt32, fill: UInt8, activates: TimeInterval, retires: TimeInterval) -> CeremonyKey? {
        try? CeremonyKey(
            id: id, secret: Array(repeating: fill, count: 32), activatesAt: sealedTime.addingTimeInterval(activates),
            retiresAt: sealedTime.addingTimeInterval(retires))
    }

    /// Each kind at the ring's relying party, and a sign-in at another one.
    static let sealedCases: [(kind: SealedStateKind, rpID: String)] =
        sealedKinds.map { (kind: $0, rpID: sealedRPID) } + [(kind: .authentication, rpID: "example.com")]

    static func sealed(_ input: [UInt8]) -> Bool {
        var accepted = false
        for (kind, rpID) in sealedCases {
            do {
                let opened = try SealedState.open(input, kind: kind, rpID: rpID, ring: sealedRing, now: sealedTime, skew: 30)
                accepted = true
                guard opened.payload.count == input.count - SealedState.overhead, opened.payload.count <= SealedState.maximumPayload else {
                    violation(.sealed, "opened a \(opened.payload.count)-byte payload from \(input.count) bytes")
                }
                guard opened.fingerprint.bytes == Array(Digest.sha256(input).prefix(16)),
                    opened.fingerprint.expiresAt == opened.expiresAt.addingTimeInterval(30), sealedTime <= opened.fingerprint.expiresAt
                else {
                    violation(.sealed, "fingerprint or expiry of an opened box does not hold")
                }
            } catch {
                guard error.code == .unknown || error.code == .expired else {
                    violation(.sealed, "open refused with \(error.code)")
                }
            }
        }
        return accepted
    }

    /// Boxes this ring opens (each kind, payloads of 0 bytes up to the maximum, under key 1 and key 2) and a few it refuses
    /// (expired, another relying party, a retired key), from a deterministic byte stream so the seeds stay the same.
    static var sealedSeeds: [[UInt8]] {
        var counter: UInt64 = 0
        func random(_ count: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            while bytes.count < count {
                counter += 1
                bytes += Digest.sha256(withUnsafeBytes(of: counter.bigEndian, Array.init))
            }
            return Array(bytes.prefix(count))
        }
        func seal(_ payload: [UInt8], kind: SealedStateKind, rpID: String = sealedRPID, keys: [CeremonyKey], now: Date, expiresIn: TimeInterval = 300) -> [UInt8]? {
            try? SealedState.seal(
                payload, kind: kind, rpID: rpID, expiresAt: now.addingTimeInterval(expiresIn), ring: CeremonyKeyRing(keys: keys),
                now: now, random: random)
        }
        var seeds: [[UInt8]?] = []
        let current = sealedKeys.filter { $0.id == 1 }
        for (index, kind) in sealedKinds.enumerated() {
            let length = [0, 1, 16, 64, 300, SealedState.maximumPayload][index]
            seeds.append(seal(random(length), kind: kind, keys: current, now: sealedTime))
        }
        // Key 2 as an instance that already activated it would seal.
        let early = sealedKey(2, fill: 0x22, activates: -1, retires: 172_800).map { [$0] } ?? []
        seeds.append(seal(Array("user-42".utf8), kind: .authentication, keys: early, now: sealedTime))
        seeds.append(seal(Array("expired".utf8), kind: .registration, keys: current, now: sealedTime.addingTimeInterval(-600)))
        seeds.append(seal(Array("elsewhere".utf8), kind: .authentication, rpID: "example.net", keys: current, now: sealedTime))
        let retired = sealedKeys.filter { $0.id == 3 }
        seeds.append(seal(Array("retired".utf8), kind: .appAttest, keys: retired, now: sealedTime.addingTimeInterval(-3_600), expiresIn: 3_000))
        return seeds.compactMap { $0 }
    }
}
