public import PasskeyErrors

/// The one error type of the COSECrypto module (keys, signatures, digests and X.509).
///
/// Equality compares only ``code``, so tests and callers match on the code:
/// `#expect(throws: CryptoError.pointNotOnCurve) { try PublicKey(cose: key) }`.
/// ``description`` is generic (safe to show); ``reason`` (and `debugDescription`) carry the details, which may include
/// OpenSSL's error-queue text, and belong in logs only.
public struct CryptoError: CodedError, CustomDebugStringConvertible {
    /// An open set of error codes: a struct over a private enum, so adding codes is not a breaking change.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case malformedKey, missingKeyParameter, unexpectedKeyParameter, unsupportedKeyType, unsupportedAlgorithm
            case unsupportedCurve, algorithmKeyMismatch, pointNotOnCurve, rsaModulusTooSmall, rsaModulusTooLarge
            case rsaExponentInvalid, malformedSignature, signingFailed, openSSL, decryptionFailed
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The code's stable name, e.g. `"pointNotOnCurve"`.
        public var description: String { base.rawValue }

        /// The key is not a well-formed COSE_Key / SubjectPublicKeyInfo / PKCS#8 structure (wrong CBOR types,
        /// wrong lengths, duplicate labels, compressed points, trailing bytes...).
        public static let malformedKey = Code(.malformedKey)
        /// A parameter the key type requires (e.g. `alg`, `x`, `n`) is absent.
        public static let missingKeyParameter = Code(.missingKeyParameter)
        /// The key carries a parameter that is not allowed, including private-key material (`d`).
        public static let unexpectedKeyParameter = Code(.unexpectedKeyParameter)
        /// The key type (`kty`, or the SPKI algorithm) is not one this service supports.
        public static let unsupportedKeyType = Code(.unsupportedKeyType)
        /// The COSE algorithm identifier is not one this service supports.
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// The curve is not P-256, P-384, P-521, Ed25519 or Ed448 (or uses explicit parameters).
        public static let unsupportedCurve = Code(.unsupportedCurve)
        /// The algorithm does not fit the key (e.g. ES256 with a P-384 key, RS256 with an EC key).
        public static let algorithmKeyMismatch = Code(.algorithmKeyMismatch)
        /// The EC public point is not on the curve (or is otherwise an invalid public key).
        public static let pointNotOnCurve = Code(.pointNotOnCurve)
        /// The RSA modulus is shorter than the policy allows.
        public static let rsaModulusTooSmall = Code(.rsaModulusTooSmall)
        /// The RSA modulus is longer than the policy allows.
        public static let rsaModulusTooLarge = Code(.rsaModulusTooLarge)
        /// The RSA public exponent is even, smaller than 3 or larger than 2^32.
        public static let rsaExponentInvalid = Code(.rsaExponentInvalid)
        /// A signature is structurally unusable. (Verification itself reports bad signatures as `false`.)
        public static let malformedSignature = Code(.malformedSignature)
        /// Creating a signature failed.
        public static let signingFailed = Code(.signingFailed)
        /// OpenSSL failed internally (allocation, provider or library error); see ``CryptoError/reason``.
        public static let openSSL = Code(.openSSL)
        /// An AEAD box does not open: too short, altered, or sealed under another key or associated data.
        public static let decryptionFailed = Code(.decryptionFailed)
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// Details for logs: which check failed, and possibly OpenSSL's error-queue text. Never show it to clients.
    public let reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: The stable error code.
    ///   - reason: Details for logs.
    public init(code: Code, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// Generic text naming only the code, e.g. `CryptoError(pointNotOnCurve)`.
    public var description: String { "CryptoError(\(code))" }

    /// The code and the reason, for logs.
    public var debugDescription: String {
        reason.isEmpty ? description : "CryptoError(\(code)): \(reason)"
    }

    // MARK: one value per code, with an empty reason (for `#expect(throws:)` and `catch` patterns)

    /// ``Code/malformedKey`` with an empty reason.
    public static let malformedKey = CryptoError(code: .malformedKey)
    /// ``Code/missingKeyParameter`` with an empty reason.
    public static let missingKeyParameter = CryptoError(code: .missingKeyParameter)
    /// ``Code/unexpectedKeyParameter`` with an empty reason.
    public static let unexpectedKeyParameter = CryptoError(code: .unexpectedKeyParameter)
    /// ``Code/unsupportedKeyType`` with an empty reason.
    public static let unsupportedKeyType = CryptoError(code: .unsupportedKeyType)
    /// ``Code/unsupportedAlgorithm`` with an empty reason.
    public static let unsupportedAlgorithm = CryptoError(code: .unsupportedAlgorithm)
    /// ``Code/unsupportedCurve`` with an empty reason.
    public static let unsupportedCurve = CryptoError(code: .unsupportedCurve)
    /// ``Code/algorithmKeyMismatch`` with an empty reason.
    public static let algorithmKeyMismatch = CryptoError(code: .algorithmKeyMismatch)
    /// ``Code/pointNotOnCurve`` with an empty reason.
    public static let pointNotOnCurve = CryptoError(code: .pointNotOnCurve)
    /// ``Code/rsaModulusTooSmall`` with an empty reason.
    public static let rsaModulusTooSmall = CryptoError(code: .rsaModulusTooSmall)
    /// ``Code/rsaModulusTooLarge`` with an empty reason.
    public static let rsaModulusTooLarge = CryptoError(code: .rsaModulusTooLarge)
    /// ``Code/rsaExponentInvalid`` with an empty reason.
    public static let rsaExponentInvalid = CryptoError(code: .rsaExponentInvalid)
    /// ``Code/malformedSignature`` with an empty reason.
    public static let malformedSignature = CryptoError(code: .malformedSignature)
    /// ``Code/signingFailed`` with an empty reason.
    public static let signingFailed = CryptoError(code: .signingFailed)
    /// ``Code/openSSL`` with an empty reason.
    public static let openSSL = CryptoError(code: .openSSL)
    /// ``Code/decryptionFailed`` with an empty reason.
    public static let decryptionFailed = CryptoError(code: .decryptionFailed)
}
