// passkeyd-bench: the engine's authentication verification rate next to raw OpenSSL verify, on one core.
//
// For each algorithm it registers a credential with the software authenticator, pre-signs one assertion, then
// measures (1) raw OpenSSL: EVP_DigestVerifyInit + EVP_DigestVerify on the same key, signature and signed bytes;
// (2) the full engine path from the JSON request body to a VerifiedAuthentication, parsing the stored COSE key on
// every call; (3) the same with the parsed key cached by the caller (what the service does). Prints ratios.
//
// Usage: passkeyd-bench [--seconds S] [--algorithms ES256,RS256,EdDSA]
import COSECrypto
import Foundation
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

struct Options {
    var seconds = 2.0
    var algorithms: [COSEAlgorithm] = [.es256, .rs256, .edDSA]
    var breakdown = false
    /// With `--count N --mode raw|engine|cached`: run exactly N operations of one path and nothing else
    /// (for instruction counting under `valgrind --tool=callgrind`, which is immune to machine noise).
    var count: Int?
    var mode = "cached"

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--breakdown": breakdown = true
            case "--count": count = iterator.next().flatMap(Int.init)
            case "--mode": mode = iterator.next() ?? mode
            case "--seconds": seconds = iterator.next().flatMap(Double.init) ?? seconds
            case "--algorithms":
                let names = (iterator.next() ?? "").split(separator: ",").map(String.init)
                algorithms = COSEAlgorithm.allSupported.filter { names.contains($0.name) }
            default:
                FileHandle.standardError.write(Data("usage: passkeyd-bench [--seconds S] [--algorithms ES256,RS256,EdDSA] [--breakdown] [--count N --mode raw|engine|cached]\n".utf8))
                exit(2)
            }
        }
    }
}

/// Runs `body` in batches until `seconds` have passed; returns operations per second.
func measure(seconds: Double, batch: Int, _ body: (Int) throws -> Void) rethrows -> Double {
    try body(batch)  // warm-up
    let clock = ContinuousClock()
    let start = clock.now
    var operations = 0
    var elapsed = Duration.zero
    repeat {
        try body(batch)
        operations += batch
        elapsed = clock.now - start
    } while elapsed < .milliseconds(Int64(seconds * 1000))
    let (whole, attoseconds) = elapsed.components
    return Double(operations) / (Double(whole) + Double(attoseconds) / 1e18)
}

struct Fail: Error, CustomStringConvertible { let description: String }

let options = Options(CommandLine.arguments)
let origin = "https://bench.passkeyd.test"
let now = Date()

print("passkeyd-bench: authentication verification, one core, \(options.seconds) s per measurement in 5 interleaved rounds (medians)")
print("| algorithm | raw OpenSSL verify/s | engine (JSON → verified) /s | ratio | engine, PublicKeyCache /s | ratio |")
print("|---|---:|---:|---:|---:|---:|")

for algorithm in options.algorithms {
    var rp = RelyingParty(id: "bench.passkeyd.test", name: "bench", allowedOrigins: [origin])
    rp.algorithms = .allModern
    let user = try UserEntity(id: Array(repeating: 7, count: 32), name: "bench", displayName: "Bench")
    let (creation, registrationState) = rp.beginRegistration(user: user, excludeCredentials: [], now: now)
    var knobs = RegistrationKnobs(origin: origin)
    knobs.algorithm = algorithm
    var (registration, credential) = try SoftAuthenticator.register(options: creation, knobs: knobs)
    let record = try rp.finishRegistration(registration, state: registrationState, now: now).credentialRecord

    let (request, state) = rp.beginAuthentication(
        allowCredentials: [CredentialDescriptor(id: record.id)], userHandle: record.userHandle, now: now)
    var assertionKnobs = AssertionKnobs(origin: origin)
    assertionKnobs.counterIncrement = 0  // counter stays 0, so the same assertion verifies every time
    let assertion = try SoftAuthenticator.authenticate(options: request, credential: &credential, knobs: assertionKnobs)
    let body = try JSONEncoder().encode(assertion)

    // The exact bytes the engine verifies, for the raw baseline.
    let authenticatorData = Base64URL.decode(assertion.response.authenticatorData) ?? []
    let clientDataJSON = Base64URL.decode(assertion.response.clientDataJSON) ?? []
    let signature = Base64URL.decode(assertion.response.signature) ?? []
    let signed = authenticatorData + Digest.sha256(clientDataJSON)
    let key = try PublicKey(coseBytes: record.publicKey)
    guard RawOpenSSLBenchmark.verify(key: key, signature: signature, message: signed, algorithm: algorithm, iterations: 1) == 1 else {
        throw Fail(description: "raw verify of \(algorithm) failed")
    }

    let batch = algorithm == .rs256 ? 2000 : 500
    let rounds = 5
    let slice = options.seconds / Double(rounds)
    func rawRate() -> Double {
        measure(seconds: slice, batch: batch) { count in
            _ = RawOpenSSLBenchmark.verify(key: key, signature: signature, message: signed, algorithm: algorithm, iterations: count)
        }
    }
    let cache = PublicKeyCache(capacity: 1024)
    func engine(cached: Bool) throws -> Double {
        try measure(seconds: slice, batch: batch) { count in
            for _ in 0..<count {
                // The service's path: the stored COSE key goes through a PublicKeyCache lookup on every call.
                let cachedKey = cached ? try cache.publicKey(coseBytes: record.publicKey) : nil
                let response = try UnverifiedAuthenticationResponse(jsonBytes: body)
                let verified = try rp.finishAuthentication(response, state: state, credential: record, publicKey: cachedKey, now: now)
                guard verified.credentialID.count == record.id.count else { throw Fail(description: "unexpected result") }
            }
        }
    }
    if let count = options.count {
        switch options.mode {
        case "raw": _ = RawOpenSSLBenchmark.verify(key: key, signature: signature, message: signed, algorithm: algorithm, iterations: count)
        default:
            for _ in 0..<count {
                let cachedKey = options.mode == "cached" ? try cache.publicKey(coseBytes: record.publicKey) : nil
                let response = try UnverifiedAuthenticationResponse(jsonBytes: body)
                _ = try rp.finishAuthentication(response, state: state, credential: record, publicKey: cachedKey, now: now)
            }
        }
        continue
    }
    // Interleave the three measurements in rounds and take medians, so drift on a shared machine hits all alike.
    var raws: [Double] = [], fulls: [Double] = [], cacheds: [Double] = []
    for _ in 0..<rounds {
        raws.append(rawRate())
        fulls.append(try engine(cached: false))
        cacheds.append(try engine(cached: true))
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    let raw = median(raws)
    let full = median(fulls)
    let cached = median(cacheds)
    func format(_ value: Double) -> String { String(Int(value.rounded())) }
    func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
    if options.breakdown {
        // Cost of each stage alone, in microseconds per call.
        func micros(_ body: () throws -> Void) rethrows -> Double {
            1e6 / (try measure(seconds: options.seconds / 4, batch: batch) { count in for _ in 0..<count { try body() } })
        }
        let response = try UnverifiedAuthenticationResponse(jsonBytes: body)
        let stages: [(String, Double)] = [
            ("raw OpenSSL verify", 1e6 / raw),
            ("PublicKey.verify", try micros { _ = try key.verify(signature: signature, message: signed) }),
            ("JSON body → UnverifiedAuthenticationResponse", try micros { _ = try UnverifiedAuthenticationResponse(jsonBytes: body) }),
            ("SHA-256(clientDataJSON)", micros { _ = Digest.sha256(clientDataJSON) }),
            ("PublicKey(coseBytes:)", try micros { _ = try PublicKey(coseBytes: record.publicKey) }),
            ("PublicKeyCache hit", try micros { _ = try cache.publicKey(coseBytes: record.publicKey) }),
            ("finishAuthentication (cached key)", try micros { _ = try rp.finishAuthentication(response, state: state, credential: record, publicKey: key, now: now) }),
        ]
        for (name, value) in stages { print("  \(algorithm.name) \(name): \(String(format: "%.2f", value)) µs") }
    }
    print("| \(algorithm.name) | \(format(raw)) | \(format(full)) | \(percent(full / raw)) | \(format(cached)) | \(percent(cached / raw)) |")
}
