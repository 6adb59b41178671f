public import COSECrypto
public import Foundation
import JOSE
import PasskeyErrors  // JOSEError.description (CodedError)

/// A JSON Web Signature in compact serialization (RFC 7515 §7.1) whose key comes from its `x5c` header
/// (RFC 7515 §4.1.6): the form of SafetyNet attestation responses and of the FIDO Metadata BLOB.
///
/// Parsing checks structure only. ``verifySignature()`` checks the signature with the `x5c` leaf;
/// ``verifyChain(anchors:time:maxDepth:)`` checks the chain with OpenSSL. Nothing is trusted before both.
public struct JWS: Sendable {
    /// The protected header's `alg`.
    public let algorithm: String
    /// `x5c`, leaf first (never empty).
    public let certificates: [Certificate]
    /// The decoded payload bytes.
    public var payload: [UInt8] { compact.payload }
    /// The parsed compact serialization (the JOSE module's one parser).
    let compact: CompactJWS

    /// Parses a compact JWS.
    /// - Parameters:
    ///   - compact: `header.payload.signature`, each base64url without padding.
    ///   - maxLength: the largest accepted serialization in bytes.
    ///   - maxCertificates: the most `x5c` entries accepted.
    /// - Throws: ``WebAuthnError/Code/jwsMalformed``.
    public init(compact: [UInt8], maxLength: Int = 64 * 1024, maxCertificates: Int = 8) throws(WebAuthnError) {
        let parsed: CompactJWS
        let x5c: [Certificate]?
        do {
            parsed = try CompactJWS(compact: compact, maxLength: maxLength)
            x5c = try parsed.certificates(maxCount: maxCertificates)
        } catch {
            throw WebAuthnError(.jwsMalformed, error.description)
        }
        guard let certificates = x5c, !certificates.isEmpty else {
            throw WebAuthnError(.jwsMalformed, "JWS header x5c missing, empty or longer than \(maxCertificates)")
        }
        self.compact = parsed
        self.algorithm = parsed.algorithmName
        self.certificates = certificates
    }

    /// The leaf (signing) certificate.
    public var leaf: Certificate { certificates[0] }

    /// Verifies the signature with the leaf certificate's public key.
    /// - Throws: ``WebAuthnError/Code/jwsAlgorithmUnsupported`` (unknown `alg`, `none`, or a key that does not
    ///   fit it), ``WebAuthnError/Code/jwsSignatureInvalid``.
    public func verifySignature() throws(WebAuthnError) {
        let algorithm: JWSAlgorithm
        do {
            algorithm = try JWSVerifier.allowedAlgorithm(of: compact, allowed: Self.signatureAlgorithms)
        } catch {
            throw WebAuthnError(.jwsAlgorithmUnsupported, "JWS alg \(self.algorithm.debugDescription)")
        }
        let key: PublicKey
        do {
            key = try leaf.publicKey()
        } catch {
            throw WebAuthnError(.jwsAlgorithmUnsupported, "JWS signing certificate key: \(error)")
        }
        do {
            try JWSVerifier.verify(compact, algorithm: algorithm, key: .publicKey(key))
        } catch where error.code == .signatureInvalid {
            throw WebAuthnError(.jwsSignatureInvalid, "JWS signature does not verify with the x5c leaf: \(error.reason)")
        } catch {
            throw WebAuthnError(.jwsAlgorithmUnsupported, "JWS alg \(self.algorithm): \(error.reason)")
        }
    }

    /// Verifies that `x5c` chains to one of `anchors` at `time` (OpenSSL `X509_verify_cert`).
    /// - Returns: the built chain, leaf first, anchor last.
    /// - Throws: the ``CertificateError`` of ``ChainVerifier``.
    public func verifyChain(anchors: TrustAnchors, time: Date, maxDepth: Int = 5) throws(CertificateError) -> [Certificate] {
        var options = ChainVerificationOptions(time: time)
        options.maxDepth = maxDepth
        return try ChainVerifier.verify(
            leaf: leaf, intermediates: Array(certificates.dropFirst()), anchors: anchors, options: options)
    }

    /// Every signature algorithm (never `none`, never HMAC: the key comes from a certificate).
    static let signatureAlgorithms: Set<JWSAlgorithm> = Set(JWSAlgorithm.allCases.filter { !$0.isHMAC })
}
