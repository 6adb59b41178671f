import CBORCodec
import COSECrypto
import Foundation
import Testing

/// Helpers shared by the COSE / signature / Wycheproof test files (not the X509 ones).
enum COSETestSupport {
    /// /work/main (Tests/COSECryptoTests/COSETestSupport.swift → up 3 levels).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// ../shared/vectors/wycheproof next to the package.
    static let wycheproofDirectory = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/vectors/wycheproof")

    /// Bytes from a hex string (whitespace ignored); `nil` if it is not hex.
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8.filter { !($0 == 0x20 || $0 == 0x0A) })
        guard digits.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Strips leading zero bytes, then left-pads to `length` (Wycheproof writes coordinates as signed integers).
    static func fixedLength(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        let trimmed = Array(bytes.drop { $0 == 0 })
        return [UInt8](repeating: 0, count: max(0, length - trimmed.count)) + trimmed
    }

    // MARK: COSE_Key builders

    static func int(_ value: Int64) -> CBORValue { CBORValue(value) }

    static func coseMap(_ pairs: [(Int64, CBORValue)]) -> CBORValue {
        .map(pairs.map { CBORMapEntry(CBORValue($0.0), $0.1) })
    }

    static func ec2(alg: COSEAlgorithm = .es256, crv: Int64 = 1, x: [UInt8], y: [UInt8]) -> CBORValue {
        coseMap([(1, int(2)), (3, int(Int64(alg.rawValue))), (-1, int(crv)), (-2, .bytes(x)), (-3, .bytes(y))])
    }

    static func okp(alg: COSEAlgorithm = .edDSA, crv: Int64 = 6, x: [UInt8]) -> CBORValue {
        coseMap([(1, int(1)), (3, int(Int64(alg.rawValue))), (-1, int(crv)), (-2, .bytes(x))])
    }

    static func rsa(alg: COSEAlgorithm = .rs256, n: [UInt8], e: [UInt8]) -> CBORValue {
        coseMap([(1, int(3)), (3, int(Int64(alg.rawValue))), (-1, .bytes(n)), (-2, .bytes(e))])
    }

    /// The map's entries with `label` removed.
    static func removing(_ label: Int64, from key: CBORValue) -> CBORValue {
        .map((key.mapEntries ?? []).filter { $0.key != CBORValue(label) })
    }

    /// The map with `label` set to `value` (replaced in place, or appended).
    static func setting(_ label: Int64, to value: CBORValue, in key: CBORValue) -> CBORValue {
        var entries = key.mapEntries ?? []
        if let index = entries.firstIndex(where: { $0.key == CBORValue(label) }) {
            entries[index].value = value
        } else {
            entries.append(CBORMapEntry(CBORValue(label), value))
        }
        return .map(entries)
    }

    /// The value under `label`.
    static func value(_ label: Int64, in key: CBORValue) -> CBORValue? {
        key.mapEntries?.first { $0.key == CBORValue(label) }?.value
    }

    // MARK: Minimal DER for ECDSA signatures (test-only)

    /// Splits a DER Ecdsa-Sig-Value into unsigned big-endian r and s (no leading zeros).
    static func ecdsaComponents(_ der: [UInt8]) -> (r: [UInt8], s: [UInt8])? {
        var index = 0
        func readLength() -> Int? {
            guard index < der.count else { return nil }
            let first = der[index]
            index += 1
            if first < 0x80 { return Int(first) }
            let count = Int(first & 0x7f)
            guard count >= 1, count <= 2, index + count <= der.count else { return nil }
            var length = 0
            for _ in 0..<count {
                length = length << 8 | Int(der[index])
                index += 1
            }
            return length
        }
        func readInteger() -> [UInt8]? {
            guard index < der.count, der[index] == 0x02 else { return nil }
            index += 1
            guard let length = readLength(), index + length <= der.count else { return nil }
            let value = Array(der[index..<index + length])
            index += length
            return Array(value.drop { $0 == 0 })
        }
        guard der.first == 0x30 else { return nil }
        index = 1
        guard readLength() != nil, let r = readInteger(), let s = readInteger(), index == der.count else { return nil }
        return (r, s)
    }

    /// DER Ecdsa-Sig-Value from unsigned big-endian r and s.
    static func ecdsaDER(r: [UInt8], s: [UInt8]) -> [UInt8] {
        func integer(_ value: [UInt8]) -> [UInt8] {
            var body = Array(value.drop { $0 == 0 })
            if body.isEmpty { body = [0] }
            if body[0] & 0x80 != 0 { body.insert(0, at: 0) }
            return [0x02] + length(body.count) + body
        }
        func length(_ count: Int) -> [UInt8] {
            count < 0x80 ? [UInt8(count)] : [0x81, UInt8(count)]
        }
        let content = integer(r) + integer(s)
        return [0x30] + length(content.count) + content
    }

    /// a - b for unsigned big-endian integers with a >= b (result without leading zeros).
    static func subtract(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        let width = max(a.count, b.count)
        let x = fixedLength(a, width)
        let y = fixedLength(b, width)
        var result = [UInt8](repeating: 0, count: width)
        var borrow = 0
        for i in stride(from: width - 1, through: 0, by: -1) {
            var digit = Int(x[i]) - Int(y[i]) - borrow
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 256 }
            result[i] = UInt8(digit)
        }
        precondition(borrow == 0, "subtract: a < b")
        return Array(result.drop { $0 == 0 })
    }

    /// Compares unsigned big-endian integers.
    static func isGreater(_ a: [UInt8], than b: [UInt8]) -> Bool {
        let x = Array(a.drop { $0 == 0 })
        let y = Array(b.drop { $0 == 0 })
        if x.count != y.count { return x.count > y.count }
        return x.lexicographicallyPrecedes(y) == false && x != y
    }

    /// Group orders n of the NIST curves (SEC 2).
    static let p256Order = bytes(hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551") ?? []
}
