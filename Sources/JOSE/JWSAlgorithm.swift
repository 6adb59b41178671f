public import COSECrypto

/// JWS `alg` values (RFC 7518 §3.1, RFC 8037) this module can verify. `none` is not one of them, so no allow-list can
/// contain it.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case es256 = "ES256", es384 = "ES384", es512 = "ES512"
    case rs256 = "RS256", rs384 = "RS384", rs512 = "RS512"
    case ps256 = "PS256", ps384 = "PS384", ps512 = "PS512"
    case edDSA = "EdDSA"
    case hs256 = "HS256", hs384 = "HS384", hs512 = "HS512"

    public var description: String { rawValue }

    /// The COSE algorithm of a signature algorithm; `nil` for HMAC.
    public var coseAlgorithm: COSEAlgorithm? {
        switch self {
        case .es256: .es256
        case .es384: .es384
        case .es512: .es512
        case .rs256: .rs256
        case .rs384: .rs384
        case .rs512: .rs512
        case .ps256: .ps256
        case .ps384: .ps384
        case .ps512: .ps512
        case .edDSA: .edDSA
        case .hs256, .hs384, .hs512: nil
        }
    }

    /// The hash of an HMAC algorithm; `nil` for signature algorithms.
    public var hmacHash: HashAlgorithm? {
        switch self {
        case .hs256: .sha256
        case .hs384: .sha384
        case .hs512: .sha512
        default: nil
        }
    }

    /// JOSE ECDSA signatures are r ‖ s of this many bytes each (RFC 7518 §3.4); `nil` for other algorithms.
    public var ecComponentLength: Int? {
        switch self {
        case .es256: 32
        case .es384: 48
        case .es512: 66
        default: nil
        }
    }

    /// Whether this is a MAC (shared secret) rather than a signature (public key).
    public var isHMAC: Bool { hmacHash != nil }
}
