import CBORCodec
import Testing

/// Parses a hex string such as `"a2 01 02"` (spaces allowed); invalid digits record a test issue.
func hex(_ string: String) -> [UInt8] {
    let digits = string.filter { !$0.isWhitespace }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2, limitedBy: digits.endIndex) ?? digits.endIndex
        guard let byte = UInt8(digits[index..<next], radix: 16) else {
            Issue.record("bad hex \(string)")
            return []
        }
        bytes.append(byte)
        index = next
    }
    return bytes
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined()
}

/// Decodes and returns the error code (or nil when decoding succeeded).
func errorCode(_ bytes: [UInt8], limits: CBORLimits = .default) -> CBORError.Code? {
    do {
        _ = try CBORDecoder.decode(bytes, limits: limits)
        return nil
    } catch {
        return error.code
    }
}

/// Deterministic SplitMix64 generator for the fuzz-style tests.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Test fixtures shaped like WebAuthn data.
enum Fixtures {
    /// A COSE EC2 P-256 key: {1: 2, 3: -7, -1: 1, -2: x, -3: y} — 77 bytes.
    static let coseKey: CBORValue = .map([
        CBORMapEntry(.unsigned(1), .unsigned(2)),
        CBORMapEntry(.unsigned(3), CBORValue(-7)),
        CBORMapEntry(CBORValue(-1), .unsigned(1)),
        CBORMapEntry(CBORValue(-2), .bytes(Array(0..<32))),
        CBORMapEntry(CBORValue(-3), .bytes(Array(32..<64))),
    ])

    static var authData: [UInt8] {
        var data = [UInt8](repeating: 0xAB, count: 32)  // rpIdHash
        data += [0x45]  // flags UP | UV | AT
        data += [0, 0, 0, 7]  // signCount
        data += [UInt8](repeating: 0x11, count: 16)  // AAGUID
        data += [0, 16] + [UInt8](repeating: 0x22, count: 16)  // credentialId
        data += CBOREncoder.encode(coseKey)
        return data
    }

    /// {"fmt": "packed", "attStmt": {"alg": -7, "sig": h'30…', "x5c": [h'…']}, "authData": h'…'}
    static var attestationObject: CBORValue {
        .map([
            CBORMapEntry(.text("fmt"), .text("packed")),
            CBORMapEntry(
                .text("attStmt"),
                .map([
                    CBORMapEntry(.text("alg"), CBORValue(-7)),
                    CBORMapEntry(.text("sig"), .bytes([0x30, 0x45] + [UInt8](repeating: 0x5A, count: 69))),
                    CBORMapEntry(.text("x5c"), .array([.bytes([UInt8](repeating: 0x30, count: 40))])),
                ])
            ),
            CBORMapEntry(.text("authData"), .bytes(authData)),
        ])
    }
}
