import CBORCodec
import Testing

/// Deterministic fuzz-style tests: decoding arbitrary bytes must throw or succeed, never crash,
/// and whatever decodes must re-encode stably.
@Suite("Fuzz")
struct FuzzTests {
    /// Checks one input; returns true when it decoded.
    @discardableResult
    static func exercise(_ input: [UInt8], limits: CBORLimits = .default) -> Bool {
        do {
            let value = try CBORDecoder.decode(input, limits: limits)
            let encoded = CBOREncoder.encode(value)
            let again = try CBORDecoder.decode(encoded)
            #expect(CBOREncoder.encode(again) == encoded, "unstable re-encoding of \(hexString(input))")
            #expect(again == value || encoded.contains(0xF9), "round trip changed \(hexString(input))")
            return true
        } catch {
            return false
        }
    }

    @Test func randomByteStrings() {
        var rng = SplitMix64(seed: 0xC0FFEE)
        // Bytes that start structures, so random input gets past the first header more often.
        let interesting: [UInt8] = [0x00, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x20, 0x38, 0x40, 0x41, 0x58, 0x5F, 0x60, 0x61,
                                    0x78, 0x7F, 0x80, 0x81, 0x82, 0x98, 0x9F, 0xA0, 0xA1, 0xA2, 0xB8, 0xBF, 0xC1,
                                    0xC6, 0xD8, 0xF4, 0xF6, 0xF8, 0xF9, 0xFA, 0xFB, 0xFF]
        var decoded = 0
        for _ in 0..<4000 {
            let length = Int.random(in: 0...48, using: &rng)
            let biased = Bool.random(using: &rng)
            let input: [UInt8] = (0..<length).map { _ in
                biased && Int.random(in: 0..<3, using: &rng) > 0
                    ? interesting[Int.random(in: 0..<interesting.count, using: &rng)]
                    : UInt8.random(in: 0...255, using: &rng)
            }
            if Self.exercise(input) { decoded += 1 }
            Self.exercise(input, limits: CBORLimits(maxDepth: 3, maxItems: 10, maxStringBytes: 8,
                                                    allowIndefiniteLength: false, requireMinimalIntegers: true))
        }
        #expect(decoded > 0)
    }

    @Test(arguments: [false, true])
    func mutationsOfAValidAttestation(indefiniteMaps: Bool) {
        let seed = CBOREncoder.encode(Fixtures.attestationObject, indefiniteLengthMaps: indefiniteMaps)
        var rng = SplitMix64(seed: indefiniteMaps ? 7 : 11)
        var decoded = 0
        for _ in 0..<3000 {
            var input = seed
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                guard !input.isEmpty else { break }
                let position = Int.random(in: 0..<input.count, using: &rng)
                switch Int.random(in: 0..<6, using: &rng) {
                case 0: input[position] = UInt8.random(in: 0...255, using: &rng)
                case 1: input[position] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
                case 2: input.insert(UInt8.random(in: 0...255, using: &rng), at: position)
                case 3: input.remove(at: position)
                case 4: input.removeSubrange(position...)
                default:
                    let end = min(input.count, position + Int.random(in: 1...8, using: &rng))
                    input.insert(contentsOf: input[position..<end], at: position)
                }
            }
            if Self.exercise(input) { decoded += 1 }
            _ = try? CBORDecoder.decodePrefix(input[...])
        }
        #expect(decoded > 0)
    }

    @Test func everySingleAndTwoByteInput() {
        for first in UInt8.min...UInt8.max {
            Self.exercise([first])
            for second in UInt8.min...UInt8.max {
                Self.exercise([first, second])
            }
        }
    }
}
