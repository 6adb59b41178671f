/// A hash function used by a signature algorithm.
public enum HashAlgorithm: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// SHA-1 (only for the legacy RS1 algorithm that some TPMs still use).
    case sha1
    /// SHA-256.
    case sha256
    /// SHA-384.
    case sha384
    /// SHA-512.
    case sha512

    /// The digest length in bytes (20, 32, 48 or 64).
    public var digestLength: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The name, e.g. `"SHA-256"`.
    public var description: String {
        switch self {
        case .sha1: "SHA-1"
        case .sha256: "SHA-256"
        case .sha384: "SHA-384"
        case .sha512: "SHA-512"
        }
    }
}

/// A COSE algorithm identifier (IANA "COSE Algorithms" registry), as found in `alg` of a COSE_Key, in
/// `pubKeyCredParams` and in attestation statements.
///
/// Any integer can be represented (so unknown identifiers from clients can be carried and reported); the static
/// members are the ones this module can verify. ES256/ES384/ES512 are bound to P-256/P-384/P-521 as WebAuthn requires,
/// and ESP256/ESP384/ESP512 are their fully-specified twins.
public struct COSEAlgorithm: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The integer identifier, e.g. `-7`.
    public let rawValue: Int

    /// Wraps an integer identifier (known or not).
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Wraps an integer identifier (known or not).
    public init(_ rawValue: Int) {
        self.rawValue = rawValue
    }

    /// ECDSA with SHA-256 on P-256 (-7).
    public static let es256 = COSEAlgorithm(rawValue: -7)
    /// ECDSA with SHA-256 on P-256, fully specified (-9).
    public static let esp256 = COSEAlgorithm(rawValue: -9)
    /// ECDSA with SHA-384 on P-384 (-35).
    public static let es384 = COSEAlgorithm(rawValue: -35)
    /// ECDSA with SHA-384 on P-384, fully specified (-51).
    public static let esp384 = COSEAlgorithm(rawValue: -51)
    /// ECDSA with SHA-512 on P-521 (-36).
    public static let es512 = COSEAlgorithm(rawValue: -36)
    /// ECDSA with SHA-512 on P-521, fully specified (-52).
    public static let esp512 = COSEAlgorithm(rawValue: -52)
    /// EdDSA (pure) on the key's curve, Ed25519 or Ed448 (-8).
    public static let edDSA = COSEAlgorithm(rawValue: -8)
    /// Ed25519, fully specified (-19).
    public static let ed25519 = COSEAlgorithm(rawValue: -19)
    /// Ed448, fully specified (-53).
    public static let ed448 = COSEAlgorithm(rawValue: -53)
    /// RSASSA-PKCS1-v1_5 with SHA-256 (-257).
    public static let rs256 = COSEAlgorithm(rawValue: -257)
    /// RSASSA-PKCS1-v1_5 with SHA-384 (-258).
    public static let rs384 = COSEAlgorithm(rawValue: -258)
    /// RSASSA-PKCS1-v1_5 with SHA-512 (-259).
    public static let rs512 = COSEAlgorithm(rawValue: -259)
    /// RSASSA-PSS with SHA-256, MGF1-SHA-256, 32-byte salt (-37).
    public static let ps256 = COSEAlgorithm(rawValue: -37)
    /// RSASSA-PSS with SHA-384, MGF1-SHA-384, 48-byte salt (-38).
    public static let ps384 = COSEAlgorithm(rawValue: -38)
    /// RSASSA-PSS with SHA-512, MGF1-SHA-512, 64-byte salt (-39).
    public static let ps512 = COSEAlgorithm(rawValue: -39)
    /// RSASSA-PKCS1-v1_5 with SHA-1 (-65535). Legacy, used by some TPM attestations; never offer it for new keys.
    public static let rs1 = COSEAlgorithm(rawValue: -65535)

    /// Every algorithm this module can verify and sign with.
    public static let allSupported: [COSEAlgorithm] = [
        .es256, .esp256, .es384, .esp384, .es512, .esp512, .edDSA, .ed25519, .ed448,
        .rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .rs1,
    ]

    /// Whether this module can verify signatures of this algorithm.
    public var isSupported: Bool { scheme != nil }

    /// The registry name, e.g. `"ES256"`, `"EdDSA"`, `"RS1"`; `"COSE(<n>)"` for identifiers this module does not know.
    public var name: String {
        switch rawValue {
        case -7: "ES256"
        case -9: "ESP256"
        case -35: "ES384"
        case -51: "ESP384"
        case -36: "ES512"
        case -52: "ESP512"
        case -8: "EdDSA"
        case -19: "Ed25519"
        case -53: "Ed448"
        case -257: "RS256"
        case -258: "RS384"
        case -259: "RS512"
        case -37: "PS256"
        case -38: "PS384"
        case -39: "PS512"
        case -65535: "RS1"
        default: "COSE(\(rawValue))"
        }
    }

    /// The hash the algorithm signs with; `nil` for EdDSA/Ed25519/Ed448 (which hash internally) and for unknown
    /// identifiers.
    public var hashAlgorithm: HashAlgorithm? {
        switch scheme {
        case .ecdsa(let hash, _), .rsaPKCS1(let hash), .rsaPSS(let hash): hash
        case .eddsa, nil: nil
        }
    }

    /// The name, as ``name``.
    public var description: String { name }
}

// MARK: - Internal model: curves, key kinds, signature schemes

/// The NIST prime curves this module supports for EC2 keys.
internal enum ECCurve: Sendable, Hashable {
    case p256, p384, p521

    /// COSE `crv` values (RFC 9053 table 18).
    init?(coseCurve: Int64) {
        switch coseCurve {
        case 1: self = .p256
        case 2: self = .p384
        case 3: self = .p521
        default: return nil
        }
    }

    /// OpenSSL group names as `EVP_PKEY_get_group_name` reports them (plus the NIST aliases).
    init?(openSSLGroupName name: String) {
        switch name {
        case "prime256v1", "P-256", "secp256r1": self = .p256
        case "secp384r1", "P-384": self = .p384
        case "secp521r1", "P-521": self = .p521
        default: return nil
        }
    }

    var coseCurve: Int64 {
        switch self {
        case .p256: 1
        case .p384: 2
        case .p521: 3
        }
    }

    /// The OpenSSL group name used for import and key generation.
    var openSSLGroupName: String {
        switch self {
        case .p256: "prime256v1"
        case .p384: "secp384r1"
        case .p521: "secp521r1"
        }
    }

    /// Size in bytes of one coordinate (the field size): 32, 48, 66.
    var coordinateLength: Int {
        switch self {
        case .p256: 32
        case .p384: 48
        case .p521: 66
        }
    }

    var displayName: String {
        switch self {
        case .p256: "P-256"
        case .p384: "P-384"
        case .p521: "P-521"
        }
    }
}

/// The Edwards curves this module supports for OKP keys.
internal enum EdwardsCurve: Sendable, Hashable {
    case ed25519, ed448

    /// COSE `crv` values for OKP signature keys (6 = Ed25519, 7 = Ed448; X25519/X448 are not signature keys).
    init?(coseCurve: Int64) {
        switch coseCurve {
        case 6: self = .ed25519
        case 7: self = .ed448
        default: return nil
        }
    }

    var coseCurve: Int64 {
        switch self {
        case .ed25519: 6
        case .ed448: 7
        }
    }

    /// Raw public key length: 32 or 57 bytes.
    var publicKeyLength: Int {
        switch self {
        case .ed25519: 32
        case .ed448: 57
        }
    }

    /// OpenSSL key type name.
    var openSSLName: String {
        switch self {
        case .ed25519: "ED25519"
        case .ed448: "ED448"
        }
    }

    var displayName: String {
        switch self {
        case .ed25519: "Ed25519"
        case .ed448: "Ed448"
        }
    }
}

/// What a key is, as far as algorithm compatibility is concerned.
internal enum KeyKind: Sendable, Hashable {
    case ec(ECCurve)
    case okp(EdwardsCurve)
    case rsa(modulusBits: Int)

    var displayName: String {
        switch self {
        case .ec(let curve): "EC2 \(curve.displayName)"
        case .okp(let curve): "OKP \(curve.displayName)"
        case .rsa(let bits): "RSA \(bits)"
        }
    }

    /// The algorithm a key of this kind gets when nothing else says which one (SPKI / PKCS#8 imports).
    var defaultAlgorithm: COSEAlgorithm {
        switch self {
        case .ec(.p256): .es256
        case .ec(.p384): .es384
        case .ec(.p521): .es512
        case .okp: .edDSA
        case .rsa: .rs256
        }
    }
}

/// How an algorithm signs.
internal enum SignatureScheme: Sendable, Hashable {
    /// ECDSA over `hash`, bound to `curve` (WebAuthn binds ES256 to P-256 and so on).
    case ecdsa(HashAlgorithm, ECCurve)
    /// Pure EdDSA; `nil` curve means "the key's curve" (COSE -8), otherwise fully specified.
    case eddsa(EdwardsCurve?)
    case rsaPKCS1(HashAlgorithm)
    case rsaPSS(HashAlgorithm)

    /// Whether a key of `kind` can be used with this scheme.
    func accepts(_ kind: KeyKind) -> Bool {
        switch (self, kind) {
        case (.ecdsa(_, let required), .ec(let curve)): required == curve
        case (.eddsa(nil), .okp): true
        case (.eddsa(let required?), .okp(let curve)): required == curve
        case (.rsaPKCS1, .rsa), (.rsaPSS, .rsa): true
        default: false
        }
    }

    /// The hash passed to EVP_DigestVerifyInit/EVP_DigestSignInit (`nil` for EdDSA, which must get NULL).
    var digest: HashAlgorithm? {
        switch self {
        case .ecdsa(let hash, _), .rsaPKCS1(let hash), .rsaPSS(let hash): hash
        case .eddsa: nil
        }
    }
}

extension COSEAlgorithm {
    /// The signature scheme, or `nil` for algorithms this module does not support.
    internal var scheme: SignatureScheme? {
        switch rawValue {
        case -7, -9: .ecdsa(.sha256, .p256)
        case -35, -51: .ecdsa(.sha384, .p384)
        case -36, -52: .ecdsa(.sha512, .p521)
        case -8: .eddsa(nil)
        case -19: .eddsa(.ed25519)
        case -53: .eddsa(.ed448)
        case -257: .rsaPKCS1(.sha256)
        case -258: .rsaPKCS1(.sha384)
        case -259: .rsaPKCS1(.sha512)
        case -65535: .rsaPKCS1(.sha1)
        case -37: .rsaPSS(.sha256)
        case -38: .rsaPSS(.sha384)
        case -39: .rsaPSS(.sha512)
        default: nil
        }
    }

    /// The scheme, checked against a key: throws `unsupportedAlgorithm` or `algorithmKeyMismatch`.
    internal func scheme(for kind: KeyKind) throws(CryptoError) -> SignatureScheme {
        guard let scheme else {
            throw CryptoError(code: .unsupportedAlgorithm, reason: "COSE algorithm \(rawValue) is not supported")
        }
        guard scheme.accepts(kind) else {
            throw CryptoError(code: .algorithmKeyMismatch, reason: "\(name) cannot be used with a \(kind.displayName) key")
        }
        return scheme
    }
}
