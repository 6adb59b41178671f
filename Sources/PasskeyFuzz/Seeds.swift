import CBORCodec
import COSECrypto
import Foundation
import WebAuthnCore
import WebAuthnModel

/// Seed corpora from the shared test vectors (`../shared/vectors`, see its README): each registration and
/// authentication vector is taken apart into what each target reads. Nothing is copied into the repository.
enum Seeds {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes `output/<target>/<hash>` files and returns how many distinct seeds each target got.
    static func write(vectors: String, to output: String) throws -> [FuzzTarget: Int] {
        var seeds: [FuzzTarget: Set<[UInt8]>] = [:]
        func add(_ target: FuzzTarget, _ bytes: [UInt8]?) {
            guard let bytes, !bytes.isEmpty else { return }
            seeds[target, default: []].insert(bytes)
        }
        func addBase64(_ text: String?) {
            guard let text else { return }
            add(.base64, Array(text.utf8))
        }

        let files = ["registration", "authentication"].flatMap { kind in
            ((try? FileManager.default.contentsOfDirectory(atPath: vectors + "/" + kind)) ?? [])
                .filter { $0.hasSuffix(".json") }.sorted().map { vectors + "/" + kind + "/" + $0 }
        }
        guard !files.isEmpty else { throw Failure(description: "no vectors in \(vectors)/registration or /authentication") }

        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { throw Failure(description: "cannot read \(file)") }
            guard case .object(let vector) = try JSONReader.parse(Array(data)),
                case .object(let credential)? = vector["credential"],
                case .object(let response)? = credential["response"]
            else { continue }

            if let json = try? JSONEncoder().encode(JSONValue.object(credential)) { add(.json, Array(json)) }
            for member in ["id", "rawId"] { addBase64(credential[member]?.stringValue) }
            for member in ["clientDataJSON", "attestationObject", "authenticatorData", "signature", "userHandle"] {
                addBase64(response[member]?.stringValue)
            }
            addBase64(vector["credential_public_key"]?.stringValue)

            let clientDataJSON = response["clientDataJSON"]?.stringValue.flatMap(Base64URL.decode)
            add(.json, clientDataJSON)

            // Authentication: authenticator data and the stored COSE key.
            add(.authdata, response["authenticatorData"]?.stringValue.flatMap(Base64URL.decode))
            if let key = vector["credential_public_key"]?.stringValue.flatMap(Base64URL.decode) {
                add(.coseKey, key)
                add(.cbor, key)
            }

            // Registration: the attestation object, its authenticator data, key and statement.
            guard let attestationObject = response["attestationObject"]?.stringValue.flatMap(Base64URL.decode) else {
                continue
            }
            add(.cbor, attestationObject)
            if let clientDataJSON {
                add(.attestation, Digest.sha256(clientDataJSON) + attestationObject)
            }
            guard let object = try? CBORDecoder.decode(attestationObject) else { continue }
            if let authData = object[text: "authData"]?.bytesValue {
                add(.authdata, authData)
                if let attested = (try? AuthenticatorData(bytes: authData))?.attestedCredentialData {
                    add(.coseKey, attested.publicKeyBytes)
                    add(.cbor, attested.publicKeyBytes)
                }
            }
            if let statement = object[text: "attStmt"] {
                add(.cbor, CBOREncoder.encode(statement))
                if let jws = statement[text: "response"]?.bytesValue {
                    add(.jws, jws)
                    addJWSParts(jws, add: add)
                }
            }
        }

        // Compact JWS found in the Apple data (StoreKit signed transactions, ID tokens).
        let apple = vectors + "/apple"
        for name in (FileManager.default.subpaths(atPath: apple) ?? []).sorted() {
            guard let data = FileManager.default.contents(atPath: apple + "/" + name), data.count < 1 << 20 else { continue }
            for token in compactJWSTokens(in: Array(data)) {
                add(.jws, token)
                if name.hasPrefix("idtoken/") { add(.idToken, token) }
                if name.hasPrefix("storekit/") { add(.appStore, token) }
                addJWSParts(token, add: add)
            }
        }

        // App Attest: every base64 / base64url run in the App Attest vectors that decodes to a CBOR map (attestation
        // objects, assertions), wherever it sits (a .b64 file, a JSON member, a YAML document); lines of a wrapped
        // base64 file are joined first.
        let appAttest = vectors + "/apple/appattest"
        for name in (FileManager.default.subpaths(atPath: appAttest) ?? []).sorted() {
            guard let data = FileManager.default.contents(atPath: appAttest + "/" + name), data.count < 1 << 20 else { continue }
            let text = name.hasSuffix(".b64") ? Array(data.filter { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }) : Array(data)
            for run in base64Runs(in: text) {
                let string = String(decoding: run, as: UTF8.self)
                guard let decoded = Data(base64Encoded: string).map(Array.init) ?? Base64URL.decode(string.replacingOccurrences(of: "=", with: "")),
                    let first = decoded.first, (0xA0...0xBF).contains(first)
                else { continue }
                add(.appAttest, decoded)
            }
        }

        // Sealed ceremony state: boxes the target's own ring seals (no vectors needed).
        for box in FuzzTarget.sealedSeeds { add(.sealed, box) }

        for (target, inputs) in seeds {
            let directory = output + "/" + target.rawValue
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for input in inputs {
                let path = directory + "/" + hexHash(input)
                guard FileManager.default.createFile(atPath: path, contents: Data(input)) else {
                    throw Failure(description: "cannot write \(path)")
                }
            }
        }
        return seeds.mapValues(\.count)
    }

    /// The header and payload parts of a JWS (base64 seeds) and its header's `x5c` entries (standard base64).
    private static func addJWSParts(_ jws: [UInt8], add: (FuzzTarget, [UInt8]?) -> Void) {
        let parts = jws.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return }
        add(.base64, Array(parts[0]))
        add(.base64, Array(parts[2]))
        guard let header = Base64URL.decode(String(decoding: parts[0], as: UTF8.self)) else { return }
        add(.json, header)
        if case .object(let members)? = try? JSONReader.parse(header), case .array(let x5c)? = members["x5c"] {
            for entry in x5c.prefix(2) { add(.base64, entry.stringValue.map { Array($0.utf8) }) }
        }
    }

    /// Runs of base64url characters with exactly two dots that start like a JSON header (`eyJ`).
    /// Runs of at least 64 base64 or base64url characters (with `=` padding).
    private static func base64Runs(in bytes: [UInt8]) -> [[UInt8]] {
        func isBase64Byte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="):
                true
            default: false
            }
        }
        var runs: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            guard isBase64Byte(bytes[start]) else {
                start += 1
                continue
            }
            var end = start
            while end < bytes.count, isBase64Byte(bytes[end]) { end += 1 }
            if end - start >= 64 { runs.append(Array(bytes[start..<end])) }
            start = end
        }
        return runs
    }

    private static func compactJWSTokens(in bytes: [UInt8]) -> [[UInt8]] {
        func isTokenByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                true
            default: false
            }
        }
        var tokens: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            guard isTokenByte(bytes[start]) else {
                start += 1
                continue
            }
            var end = start
            while end < bytes.count, isTokenByte(bytes[end]) { end += 1 }
            let token = Array(bytes[start..<end])
            if token.starts(with: Array("eyJ".utf8)), token.count(where: { $0 == UInt8(ascii: ".") }) == 2 {
                tokens.append(token)
            }
            start = end
        }
        return tokens
    }

    /// 64-bit FNV-1a, as a file name.
    private static func hexHash(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
