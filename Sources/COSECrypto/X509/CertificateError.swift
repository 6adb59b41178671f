public import PasskeyErrors

/// The error thrown by the X.509 part of `COSECrypto`: certificate parsing, PEM loading, chain verification and
/// test-certificate issuance.
///
/// Equality compares ``code`` only, so tests can write `#expect(throws: CertificateError.chainExpired)`.
/// ``description`` is deliberately generic (the code only); the OpenSSL details live in ``reason`` and
/// ``debugDescription``, which belong in logs, never in HTTP responses.
public struct CertificateError: CodedError, CustomDebugStringConvertible {
    /// An open set of failure codes (a struct over a private enum, so new codes are not source-breaking).
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case malformedCertificate
            case malformedPEM
            case unsupportedSignatureAlgorithm
            case unsupportedPublicKey
            case chainExpired
            case chainNotYetValid
            case chainUntrusted
            case chainSignatureInvalid
            case chainInvalid
            case issuanceFailed
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The DER is not a single, complete, well-formed X.509 certificate (including trailing bytes, bad times,
        /// undecodable names, and malformed or duplicated extensions).
        public static let malformedCertificate = Code(.malformedCertificate)
        /// The PEM text holds no `CERTIFICATE` block, or a block could not be decoded.
        public static let malformedPEM = Code(.malformedPEM)
        /// The signing key or algorithm is not one this module can issue with.
        public static let unsupportedSignatureAlgorithm = Code(.unsupportedSignatureAlgorithm)
        /// The certificate's subject public key cannot be imported as a ``PublicKey``.
        public static let unsupportedPublicKey = Code(.unsupportedPublicKey)
        /// A certificate in the chain had expired at the verification time.
        public static let chainExpired = Code(.chainExpired)
        /// A certificate in the chain was not yet valid at the verification time.
        public static let chainNotYetValid = Code(.chainNotYetValid)
        /// No path from the leaf to a configured trust anchor (missing issuer, or a self-signed certificate that
        /// is not an anchor).
        public static let chainUntrusted = Code(.chainUntrusted)
        /// A certificate's signature does not verify with its issuer's key.
        public static let chainSignatureInvalid = Code(.chainSignatureInvalid)
        /// Any other chain failure; ``CertificateError/reason`` carries OpenSSL's verify error string and depth.
        public static let chainInvalid = Code(.chainInvalid)
        /// Building or signing a certificate failed.
        public static let issuanceFailed = Code(.issuanceFailed)

        /// The code's name, e.g. `chainExpired`.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// Details for logs (OpenSSL error strings, depth in the chain, ...). Not part of equality.
    public let reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the failure code.
    ///   - reason: details for logs.
    public init(code: Code, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// Generic text (the code only); safe to show.
    public var description: String { "CertificateError(\(code))" }

    /// Code and reason, for logs.
    public var debugDescription: String {
        reason.isEmpty ? description : "CertificateError(\(code)): \(reason)"
    }

    /// ``Code/malformedCertificate`` with an empty reason (for `#expect(throws:)`).
    public static let malformedCertificate = CertificateError(code: .malformedCertificate)
    /// ``Code/malformedPEM`` with an empty reason.
    public static let malformedPEM = CertificateError(code: .malformedPEM)
    /// ``Code/unsupportedSignatureAlgorithm`` with an empty reason.
    public static let unsupportedSignatureAlgorithm = CertificateError(code: .unsupportedSignatureAlgorithm)
    /// ``Code/unsupportedPublicKey`` with an empty reason.
    public static let unsupportedPublicKey = CertificateError(code: .unsupportedPublicKey)
    /// ``Code/chainExpired`` with an empty reason.
    public static let chainExpired = CertificateError(code: .chainExpired)
    /// ``Code/chainNotYetValid`` with an empty reason.
    public static let chainNotYetValid = CertificateError(code: .chainNotYetValid)
    /// ``Code/chainUntrusted`` with an empty reason.
    public static let chainUntrusted = CertificateError(code: .chainUntrusted)
    /// ``Code/chainSignatureInvalid`` with an empty reason.
    public static let chainSignatureInvalid = CertificateError(code: .chainSignatureInvalid)
    /// ``Code/chainInvalid`` with an empty reason.
    public static let chainInvalid = CertificateError(code: .chainInvalid)
    /// ``Code/issuanceFailed`` with an empty reason.
    public static let issuanceFailed = CertificateError(code: .issuanceFailed)
}
