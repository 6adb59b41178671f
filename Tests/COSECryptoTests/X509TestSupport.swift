import COSECrypto
import Foundation
import Testing

/// Paths and small helpers shared by the X509 test files.
enum X509TestSupport {
    /// /work/main (this file is Tests/COSECryptoTests/X509TestSupport.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// ../shared/vectors next to the package.
    static let vectors = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/vectors")
    static let roots = vectors.appendingPathComponent("roots")

    /// The PEM files in vectors/roots, sorted.
    static func rootPEMFiles() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: roots.path)) ?? []
        return names.filter { $0.hasSuffix(".pem") }.sorted()
    }

    static func rootCertificate(_ file: String) throws -> Certificate {
        let text = try String(contentsOf: roots.appendingPathComponent(file), encoding: .utf8)
        let certificates = try Certificate.parsePEM(text)
        try #require(certificates.count == 1)
        return certificates[0]
    }

    /// A UTC date from "yyyy-MM-ddTHH:mm:ssZ" (fractional seconds allowed).
    static func utc(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        Issue.record("bad date literal \(text)")
        return Date(timeIntervalSince1970: 0)
    }

    static func base64URLDecode(_ text: String) -> [UInt8]? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        s = s.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map { [UInt8]($0) }
    }
}

/// Just enough CBOR to pull attStmt out of an attestation object in the test vectors (definite and indefinite
/// lengths). Test-only: the service decodes CBOR with CBORCodec.
indirect enum X509MiniCBOR: Equatable {
    case unsigned(UInt64), negative(UInt64), bytes([UInt8]), text(String), array([X509MiniCBOR])
    case map([(X509MiniCBOR, X509MiniCBOR)]), tagged(UInt64, X509MiniCBOR), simple(UInt8)

    static func == (lhs: X509MiniCBOR, rhs: X509MiniCBOR) -> Bool {
        switch (lhs, rhs) {
        case let (.unsigned(a), .unsigned(b)), let (.negative(a), .negative(b)): return a == b
        case let (.bytes(a), .bytes(b)): return a == b
        case let (.text(a), .text(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.map(a), .map(b)): return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case let (.tagged(t, a), .tagged(u, b)): return t == u && a == b
        case let (.simple(a), .simple(b)): return a == b
        default: return false
        }
    }

    struct DecodeError: Error {}

    static func decode(_ bytes: [UInt8]) throws -> X509MiniCBOR {
        var index = 0
        return try item(bytes, &index, depth: 0)
    }

    subscript(key: String) -> X509MiniCBOR? {
        guard case let .map(pairs) = self else { return nil }
        return pairs.first { $0.0 == .text(key) }?.1
    }

    private static func item(_ b: [UInt8], _ i: inout Int, depth: Int) throws -> X509MiniCBOR {
        guard depth < 32, i < b.count else { throw DecodeError() }
        let initial = b[i]
        i += 1
        let major = initial >> 5
        let info = initial & 0x1F
        var argument: UInt64? = nil
        switch info {
        case 0..<24: argument = UInt64(info)
        case 24...27:
            let n = 1 << Int(info - 24)
            guard i + n <= b.count else { throw DecodeError() }
            argument = b[i..<(i + n)].reduce(0) { $0 << 8 | UInt64($1) }
            i += n
        case 31: argument = nil
        default: throw DecodeError()
        }
        func isBreak() -> Bool { i < b.count && b[i] == 0xFF }
        switch major {
        case 0: return .unsigned(try unwrap(argument))
        case 1: return .negative(try unwrap(argument))
        case 2, 3:
            var out: [UInt8] = []
            if let n = argument {
                guard n <= UInt64(b.count - i) else { throw DecodeError() }
                out = Array(b[i..<(i + Int(n))])
                i += Int(n)
            } else {
                while !isBreak() {
                    switch try item(b, &i, depth: depth + 1) {
                    case let .bytes(chunk): out += chunk
                    case let .text(chunk): out += Array(chunk.utf8)
                    default: throw DecodeError()
                    }
                }
                i += 1
            }
            return major == 2 ? .bytes(out) : .text(String(decoding: out, as: UTF8.self))
        case 4:
            var out: [X509MiniCBOR] = []
            if let n = argument {
                for _ in 0..<n { out.append(try item(b, &i, depth: depth + 1)) }
            } else {
                while !isBreak() { out.append(try item(b, &i, depth: depth + 1)) }
                i += 1
            }
            return .array(out)
        case 5:
            var out: [(X509MiniCBOR, X509MiniCBOR)] = []
            if let n = argument {
                for _ in 0..<n { out.append((try item(b, &i, depth: depth + 1), try item(b, &i, depth: depth + 1))) }
            } else {
                while !isBreak() { out.append((try item(b, &i, depth: depth + 1), try item(b, &i, depth: depth + 1))) }
                i += 1
            }
            return .map(out)
        case 6: return .tagged(try unwrap(argument), try item(b, &i, depth: depth + 1))
        default: return .simple(info)
        }
    }

    private static func unwrap(_ value: UInt64?) throws -> UInt64 {
        guard let value else { throw DecodeError() }
        return value
    }
}

/// One registration vector's certificate data.
struct X509VectorCase: CustomTestStringConvertible, Sendable {
    let name: String
    /// x5c from attStmt, or the x5c of the SafetyNet JWS header.
    let x5c: [[UInt8]]
    /// Roots the collector found a chain to ("roots/....pem" → file name) with the time it used, if any.
    let chainsTo: [(root: String, at: Date)]
    let testDescription: String

    /// Every registration vector that carries certificates.
    static func all() -> [X509VectorCase] {
        let directory = X509TestSupport.vectors.appendingPathComponent("registration")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted()
        var cases: [X509VectorCase] = []
        for file in files {
            guard let data = try? Data(contentsOf: directory.appendingPathComponent(file)),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let credential = json["credential"] as? [String: Any],
                let response = credential["response"] as? [String: Any],
                let attestation = response["attestationObject"] as? String,
                let bytes = X509TestSupport.base64URLDecode(attestation),
                let object = try? X509MiniCBOR.decode(bytes),
                let statement = object["attStmt"]
            else { continue }
            var x5c: [[UInt8]] = []
            if case let .array(items)? = statement["x5c"] {
                x5c = items.compactMap { if case let .bytes(b) = $0 { b } else { nil } }
            } else if case let .bytes(jws)? = statement["response"] {
                x5c = safetyNetX5C(String(decoding: jws, as: UTF8.self))
            }
            guard !x5c.isEmpty else { continue }
            var chainsTo: [(String, Date)] = []
            if let derived = json["derived"] as? [String: Any], let entries = derived["x5c_chains_to"] as? [[String: Any]] {
                for entry in entries {
                    guard let root = entry["root"] as? String, let at = entry["at"] as? String else { continue }
                    chainsTo.append((URL(fileURLWithPath: root).lastPathComponent, time(at)))
                }
            }
            let name = String(file.dropLast(5))
            cases.append(X509VectorCase(name: name, x5c: x5c, chainsTo: chainsTo, testDescription: name))
        }
        return cases
    }

    /// "today" → the collector's date; "source time (ISO)" / "inside x5c validity (ISO)" → ISO.
    private static func time(_ text: String) -> Date {
        if let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close {
            return X509TestSupport.utc(String(text[text.index(after: open)..<close]))
        }
        return X509TestSupport.utc("2026-11-22T00:00:00Z")
    }

    private static func safetyNetX5C(_ jws: String) -> [[UInt8]] {
        guard let header = jws.split(separator: ".").first,
            let headerBytes = X509TestSupport.base64URLDecode(String(header)),
            let json = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
            let x5c = json["x5c"] as? [String]
        else { return [] }
        return x5c.compactMap { Data(base64Encoded: $0).map { [UInt8]($0) } }
    }
}

/// Reads one registration vector's x5c certificates by name.
func x509VectorChain(_ name: String) throws -> [Certificate] {
    let vector = try #require(X509VectorCase.all().first { $0.name == name })
    return try vector.x5c.map { try Certificate(derEncoded: $0) }
}
