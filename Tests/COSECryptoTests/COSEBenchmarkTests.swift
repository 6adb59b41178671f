import CBORCodec
import COSECrypto
import Foundation
import Testing

/// Throughput numbers for the hot path; skipped unless PASSKEYD_BENCH is set. Run in release mode:
/// `PASSKEYD_BENCH=1 swift test -c release --scratch-path .build-cose --filter COSEBenchmarkTests`.
@Suite("COSECrypto benchmark", .enabled(if: ProcessInfo.processInfo.environment["PASSKEYD_BENCH"] != nil))
struct COSEBenchmarkTests {
    static func rate(_ iterations: Int, _ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let elapsed = try clock.measure { try body() }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return Double(iterations) / seconds
    }

    @Test func es256() throws {
        let iterations = Int(ProcessInfo.processInfo.environment["PASSKEYD_BENCH_N"] ?? "") ?? 4000
        let privateKey = try PrivateKey.generate(for: .es256)
        let message = SecureRandom.bytes(count: 37) + Digest.sha256(SecureRandom.bytes(count: 120))
        let signature = try privateKey.sign(message, algorithm: .es256)
        let coseBytes = CBOREncoder.encode(privateKey.coseKey(algorithm: .es256))
        let key = try PublicKey(coseBytes: coseBytes)
        #expect(RawOpenSSLBenchmark.verify(key: key, signature: signature, message: message, iterations: 10) == 10)

        let cache = PublicKeyCache()
        var raw: [Double] = [], wrapped: [Double] = [], parse: [Double] = [], both: [Double] = [], cached: [Double] = []
        for _ in 0..<5 {
            raw.append(Self.rate(iterations) {
                RawOpenSSLBenchmark.verify(key: key, signature: signature, message: message, iterations: iterations)
            })
            wrapped.append(try Self.rate(iterations) {
                for _ in 0..<iterations { guard try key.verify(signature: signature, message: message) else { fatalError() } }
            })
            parse.append(try Self.rate(iterations) {
                for _ in 0..<iterations { _ = try PublicKey(coseBytes: coseBytes) }
            })
            both.append(try Self.rate(iterations) {
                for _ in 0..<iterations {
                    guard try PublicKey(coseBytes: coseBytes).verify(signature: signature, message: message) else { fatalError() }
                }
            })
            cached.append(try Self.rate(iterations) {
                for _ in 0..<iterations {
                    let key = try cache.publicKey(coseBytes: coseBytes)
                    guard try key.verify(signature: signature, message: message) else { fatalError() }
                }
            })
        }
        let decoded = try CBORDecoder.decode(coseBytes)
        let decodeRate = try Self.rate(iterations * 10) {
            for _ in 0..<iterations * 10 { _ = try CBORDecoder.decode(coseBytes, limits: PublicKey.coseKeyCBORLimits) }
        }
        let importRate = try Self.rate(iterations) { for _ in 0..<iterations { _ = try PublicKey(cose: decoded) } }
        let spki = key.spkiDER()
        let spkiRate = try Self.rate(iterations) { for _ in 0..<iterations { _ = try PublicKey(spkiDER: spki) } }
        let digestRate = Self.rate(200_000) { for _ in 0..<200_000 { _ = Digest.sha256(message) } }
        func best(_ values: [Double]) -> String { String(format: "%.0f/s (%.1f µs)", values.max() ?? 0, 1e6 / (values.max() ?? 1)) }
        print("ES256 raw OpenSSL verify:            \(best(raw))")
        print("ES256 PublicKey.verify:               \(best(wrapped))  = \(String(format: "%.1f", 100 * (wrapped.max() ?? 0) / (raw.max() ?? 1)))% of raw")
        print("PublicKey(coseBytes:) P-256:          \(best(parse))")
        print("PublicKey(coseBytes:) + verify:       \(best(both))  = \(String(format: "%.1f", 100 * (both.max() ?? 0) / (raw.max() ?? 1)))% of raw")
        print("PublicKeyCache hit + verify:          \(best(cached))  = \(String(format: "%.1f", 100 * (cached.max() ?? 0) / (raw.max() ?? 1)))% of raw")
        print("  of which CBORDecoder.decode:        \(String(format: "%.1f µs", 1e6 / decodeRate))")
        print("  of which PublicKey(cose:):          \(String(format: "%.1f µs", 1e6 / importRate))")
        print("PublicKey(spkiDER:) P-256:            \(String(format: "%.1f µs", 1e6 / spkiRate))")
        print("Digest.sha256 (69 bytes):             \(String(format: "%.0f/s", digestRate))")
    }

    @Test(arguments: [COSEAlgorithm.es384, .es512, .edDSA, .ed448, .rs256, .ps256])
    func otherAlgorithms(_ algorithm: COSEAlgorithm) throws {
        let iterations = 2000
        let privateKey = try PrivateKey.generate(for: algorithm)
        let message = SecureRandom.bytes(count: 69)
        let signature = try privateKey.sign(message, algorithm: algorithm)
        let key = try PublicKey(cose: privateKey.coseKey(algorithm: algorithm))
        var raw: [Double] = [], wrapped: [Double] = []
        for _ in 0..<5 {
            raw.append(Self.rate(iterations) {
                #expect(RawOpenSSLBenchmark.verify(
                    key: key, signature: signature, message: message, algorithm: algorithm, iterations: iterations) == iterations)
            })
            wrapped.append(try Self.rate(iterations) {
                for _ in 0..<iterations { guard try key.verify(signature: signature, message: message) else { fatalError() } }
            })
        }
        let coseBytes = CBOREncoder.encode(privateKey.coseKey(algorithm: algorithm))
        let parse = try Self.rate(iterations) { for _ in 0..<iterations { _ = try PublicKey(coseBytes: coseBytes) } }
        print(String(
            format: "%@: raw %.0f/s, PublicKey.verify %.0f/s (%.1f%%), PublicKey(coseBytes:) %.1f µs",
            algorithm.name, raw.max() ?? 0, wrapped.max() ?? 0, 100 * (wrapped.max() ?? 0) / (raw.max() ?? 1), 1e6 / parse))
    }
}
