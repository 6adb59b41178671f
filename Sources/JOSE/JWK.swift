public import COSECrypto
import CBORCodec
public import WebAuthnModel

/// A public JSON Web Key (RFC 7517) of type EC (P-256/384/521), RSA or OKP (Ed25519), imported into OpenSSL once.
///
/// Symmetric (`oct`) keys and keys with private members are refused: a key set fetched from a provider holds public
/// keys only, and an HMAC secret never comes from one (that is what makes "HS256 keyed with the RSA public key"
/// impossible here).
public struct JWK: Sendable {
    /// `kty`.
    public let keyType: String
    /// `kid`.
    public let keyID: String?
    /// `alg`, if the key names one.
    public let algorithmName: String?
    /// `use`, if present (`sig` for signing keys).
    public let use: String?
    /// The imported key.
    public let publicKey: PublicKey

    /// Parses and imports one JWK object.
    /// - Parameter policy: RSA size limits for the import.
    /// - Throws: ``JOSEError/Code/keyInvalid``.
    public init(members: [String: JSONValue], policy: COSEKeyPolicy = .default) throws(JOSEError) {
        func string(_ name: String) throws(JOSEError) -> String? {
            switch members[name] {
            case nil: return nil
            case .string(let value)?: return value
            default: throw JOSEError(.keyInvalid, "JWK \(name) is not a string")
            }
        }
        func bytes(_ name: String) throws(JOSEError) -> [UInt8] {
            guard let text = try string(name), let decoded = Base64URL.decodeStrict(text), !decoded.isEmpty else {
                throw JOSEError(.keyInvalid, "JWK \(name) is missing or not base64url")
            }
            return decoded
        }
        guard let kty = try string("kty") else { throw JOSEError(.keyInvalid, "JWK has no kty") }
        keyType = kty
        keyID = try string("kid")
        algorithmName = try string("alg")
        use = try string("use")
        for name in ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] where members[name] != nil {
            throw JOSEError(.keyInvalid, "JWK carries the private or secret member \(name)")
        }

        // Imported through the COSE_Key path so one parser owns key validation (points on the curve, RSA sizes).
        let cose: CBORValue
        switch kty {
        case "EC":
            let curve: (cose: Int64, alg: COSEAlgorithm)
            switch try string("crv") {
            case "P-256": curve = (1, .es256)
            case "P-384": curve = (2, .es384)
            case "P-521": curve = (3, .es512)
            case let other: throw JOSEError(.keyInvalid, "JWK EC curve \(other ?? "missing") is not supported")
            }
            cose = .map([
                CBORMapEntry(.unsigned(1), .unsigned(2)), CBORMapEntry(.unsigned(3), Self.cbor(Int64(curve.alg.rawValue))),
                CBORMapEntry(.negative(0), Self.cbor(curve.cose)), CBORMapEntry(.negative(1), .bytes(try bytes("x"))),
                CBORMapEntry(.negative(2), .bytes(try bytes("y"))),
            ])
        case "RSA":
            cose = .map([
                CBORMapEntry(.unsigned(1), .unsigned(3)), CBORMapEntry(.unsigned(3), Self.cbor(Int64(COSEAlgorithm.rs256.rawValue))),
                CBORMapEntry(.negative(0), .bytes(try bytes("n"))), CBORMapEntry(.negative(1), .bytes(try bytes("e"))),
            ])
        case "OKP":
            guard try string("crv") == "Ed25519" else { throw JOSEError(.keyInvalid, "JWK OKP curve is not Ed25519") }
            cose = .map([
                CBORMapEntry(.unsigned(1), .unsigned(1)), CBORMapEntry(.unsigned(3), Self.cbor(Int64(COSEAlgorithm.edDSA.rawValue))),
                CBORMapEntry(.negative(0), .unsigned(6)), CBORMapEntry(.negative(1), .bytes(try bytes("x"))),
            ])
        default:
            throw JOSEError(.keyInvalid, "JWK kty \(kty) is not a public signing key type")
        }
        do {
            publicKey = try PublicKey(cose: cose, policy: policy)
        } catch {
            throw JOSEError(.keyInvalid, "JWK \(keyID ?? "without kid"): \(error.reason)")
        }
    }

    /// The JWK of `publicKey` (EC or RSA), for publishing one's own keys (`kid`, `alg` and `use: sig` set).
    /// - Returns: `nil` for key types without a JWK form here.
    public static func members(of publicKey: PublicKey, keyID: String, algorithm: JWSAlgorithm) -> [String: JSONValue]? {
        var members: [String: JSONValue] = ["kid": .string(keyID), "alg": .string(algorithm.rawValue), "use": .string("sig")]
        if let point = publicKey.ecUncompressedPoint {
            let length = (point.count - 1) / 2
            let crv: String
            switch length {
            case 32: crv = "P-256"
            case 48: crv = "P-384"
            case 66: crv = "P-521"
            default: return nil
            }
            members["kty"] = .string("EC")
            members["crv"] = .string(crv)
            members["x"] = .string(Base64URL.encode(Array(point[1...length])))
            members["y"] = .string(Base64URL.encode(Array(point[(1 + length)...])))
        } else if let rsa = publicKey.rsaPublicComponents {
            members["kty"] = .string("RSA")
            members["n"] = .string(Base64URL.encode(rsa.modulus))
            members["e"] = .string(Base64URL.encode(rsa.exponent))
        } else if publicKey.supports(.edDSA), case .map(let entries) = publicKey.coseKey(),
                  let x = entries.first(where: { $0.key == cbor(-2) }), case .bytes(let raw) = x.value {
            members["kty"] = .string("OKP")
            members["crv"] = .string("Ed25519")
            members["x"] = .string(Base64URL.encode(raw))
        } else {
            return nil
        }
        return members
    }

    /// The RFC 7638 thumbprint of a public JWK: base64url(SHA-256) of its required members (EC: crv, kty, x, y;
    /// RSA: e, kty, n; OKP: crv, kty, x) in lexicographic order without whitespace. A stable `kid` for one's own keys.
    public static func thumbprint(_ members: [String: JSONValue]) -> String {
        let required: Set<String> = switch members["kty"] {
        case .string("EC")?: ["crv", "kty", "x", "y"]
        case .string("OKP")?: ["crv", "kty", "x"]
        default: ["e", "kty", "n"]
        }
        return Base64URL.encode(Digest.sha256(JSONText.bytes(of: .object(members.filter { required.contains($0.key) }))))
    }

    /// Whether this key may verify `algorithm`: `use`, if present, is `sig`; `alg`, if present, is `algorithm`; and
    /// the key type fits it.
    func fits(_ algorithm: JWSAlgorithm) -> Bool {
        if let use, use != "sig" { return false }
        if let algorithmName, algorithmName != algorithm.rawValue { return false }
        guard let cose = algorithm.coseAlgorithm else { return false }
        return publicKey.supports(cose)
    }

    private static func cbor(_ value: Int64) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }
}

/// A JWK set (RFC 7517 §5): `{"keys": [...]}`.
///
/// Members the set cannot use (unknown key types, `oct` secrets, malformed keys) are skipped rather than failing the
/// whole document, as providers add key types over time; ``skipped`` says how many, for logs.
public struct JWKSet: Sendable {
    /// The usable keys, in document order.
    public let keys: [JWK]
    /// How many members were not usable keys.
    public let skipped: Int

    public init(keys: [JWK]) {
        self.keys = keys
        self.skipped = 0
    }

    /// Parses a JWK set document.
    /// - Parameters:
    ///   - json: the document (UTF-8).
    ///   - maxKeys: the most members accepted.
    ///   - policy: RSA size limits for the import.
    /// - Throws: ``JOSEError/Code/keySetMalformed``.
    public init(json: some Collection<UInt8>, maxKeys: Int = 64, policy: COSEKeyPolicy = .default) throws(JOSEError) {
        let document: JSONValue
        do {
            document = try JSONReader.parse(json, maxDepth: 8)
        } catch {
            throw JOSEError(.keySetMalformed, "JWKS: \(error)")
        }
        guard case .array(let entries)? = document["keys"] else {
            throw JOSEError(.keySetMalformed, "JWKS has no keys array")
        }
        guard entries.count <= maxKeys else {
            throw JOSEError(.keySetMalformed, "JWKS has \(entries.count) keys, more than \(maxKeys)")
        }
        var keys: [JWK] = []
        var skipped = 0
        for entry in entries {
            guard case .object(let members) = entry, let key = try? JWK(members: members, policy: policy) else {
                skipped += 1
                continue
            }
            keys.append(key)
        }
        self.keys = keys
        self.skipped = skipped
    }

    /// The key that verifies a JWS with `keyID` and `algorithm`.
    ///
    /// With a `kid`, the keys carrying it (and fitting the algorithm); without one, the set must hold exactly one key.
    /// - Throws: ``JOSEError/Code/keyUnknown`` (no such `kid`, or no `kid` and not exactly one key),
    ///   ``JOSEError/Code/keyInvalid`` (the `kid` exists but does not fit the algorithm).
    public func key(keyID: String?, algorithm: JWSAlgorithm) throws(JOSEError) -> PublicKey {
        guard let keyID else {
            guard keys.count == 1 else {
                throw JOSEError(.keyUnknown, "JWS has no kid and the key set holds \(keys.count) keys")
            }
            guard keys[0].fits(algorithm) else {
                throw JOSEError(.keyInvalid, "the only key (\(keys[0].keyType)) does not fit \(algorithm)")
            }
            return keys[0].publicKey
        }
        let named = keys.filter { $0.keyID == keyID }
        guard !named.isEmpty else { throw JOSEError(.keyUnknown, "no key with kid \(keyID.prefix(64))") }
        guard let key = named.first(where: { $0.fits(algorithm) }) else {
            throw JOSEError(.keyInvalid, "key \(keyID.prefix(64)) does not fit \(algorithm)")
        }
        return key.publicKey
    }

    /// Whether the set holds a key with `keyID`.
    public func contains(keyID: String) -> Bool { keys.contains { $0.keyID == keyID } }
}
