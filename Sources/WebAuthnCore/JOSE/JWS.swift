public import COSECrypto
public import Foundation
import WebAuthnModel

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
    public let payload: [UInt8]
    /// `ASCII(BASE64URL(header) ‖ '.' ‖ BASE64URL(payload))`, the bytes the signature covers.
    let signingInput: [UInt8]
    let signature: [UInt8]

    private struct Header: Decodable {
        let alg: String
        let x5c: [String]?
        let crit: [String]?
    }

    /// Parses a compact JWS.
    /// - Parameters:
    ///   - compact: `header.payload.signature`, each base64url without padding.
    ///   - maxLength: the largest accepted serialization in bytes.
    ///   - maxCertificates: the most `x5c` entries accepted.
    /// - Throws: ``WebAuthnError/Code/jwsMalformed``.
    public init(compact: [UInt8], maxLength: Int = 64 * 1024, maxCertificates: Int = 8) throws(WebAuthnError) {
        guard compact.count <= maxLength else {
            throw WebAuthnError(.jwsMalformed, "JWS of \(compact.count) bytes exceeds \(maxLength)")
        }
        let parts = compact.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw WebAuthnError(.jwsMalformed, "compact JWS has \(parts.count) parts, not 3")
        }
        func decode(_ part: ArraySlice<UInt8>, _ what: String) throws(WebAuthnError) -> [UInt8] {
            guard let text = String(validating: part, as: UTF8.self), let bytes = Base64URL.decodeStrict(text) else {
                throw WebAuthnError(.jwsMalformed, "JWS \(what) is not base64url")
            }
            return bytes
        }
        let headerBytes = try decode(parts[0], "header")
        payload = try decode(parts[1], "payload")
        signature = try decode(parts[2], "signature")
        signingInput = Array(compact[compact.startIndex..<parts[1].endIndex])

        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerBytes))
        } catch {
            throw WebAuthnError(.jwsMalformed, "JWS header: \(error)")
        }
        // RFC 7515 §4.1.11: a recipient MUST reject a JWS with critical extensions it does not understand.
        if let crit = header.crit, !crit.isEmpty {
            throw WebAuthnError(.jwsMalformed, "JWS header has critical extensions \(crit)")
        }
        guard let x5c = header.x5c, !x5c.isEmpty, x5c.count <= maxCertificates else {
            throw WebAuthnError(.jwsMalformed, "JWS header x5c missing, empty or longer than \(maxCertificates)")
        }
        var certificates: [Certificate] = []
        for entry in x5c {
            // x5c entries are standard base64 (not base64url) DER (RFC 7515 §4.1.6).
            guard let der = Data(base64Encoded: entry), !der.isEmpty else {
                throw WebAuthnError(.jwsMalformed, "x5c entry is not base64")
            }
            do {
                certificates.append(try Certificate(derEncoded: Array(der)))
            } catch {
                throw WebAuthnError(.jwsMalformed, "x5c certificate does not parse: \(error)")
            }
        }
        algorithm = header.alg
        self.certificates = certificates
    }

    /// The leaf (signing) certificate.
    public var leaf: Certificate { certificates[0] }

    /// Verifies the signature with the leaf certificate's public key.
    /// - Throws: ``WebAuthnError/Code/jwsAlgorithmUnsupported`` (unknown `alg`, `none`, or a key that does not
    ///   fit it), ``WebAuthnError/Code/jwsSignatureInvalid``.
    public func verifySignature() throws(WebAuthnError) {
        guard let (coseAlgorithm, ecComponentLength) = Self.algorithms[algorithm] else {
            throw WebAuthnError(.jwsAlgorithmUnsupported, "JWS alg \(algorithm.debugDescription)")
        }
        let key: PublicKey
        do {
            key = try leaf.publicKey()
        } catch {
            throw WebAuthnError(.jwsAlgorithmUnsupported, "JWS signing certificate key: \(error)")
        }
        guard key.supports(coseAlgorithm) else {
            throw WebAuthnError(.jwsAlgorithmUnsupported, "JWS alg \(algorithm) does not fit a \(key.keyTypeName) key")
        }
        var signatureBytes = signature
        if let length = ecComponentLength {
            // JOSE ECDSA signatures are r ‖ s of fixed length (RFC 7518 §3.4); OpenSSL wants DER.
            guard signature.count == 2 * length else {
                throw WebAuthnError(.jwsSignatureInvalid, "\(algorithm) signature of \(signature.count) bytes")
            }
            do {
                signatureBytes = try ECDSASignatureEncoding.derFromRaw(signature)
            } catch {
                throw WebAuthnError(.jwsSignatureInvalid, "\(algorithm) signature: \(error)")
            }
        }
        let valid: Bool
        do {
            valid = try key.verify(signature: signatureBytes, message: signingInput, algorithm: coseAlgorithm)
        } catch {
            throw WebAuthnError(.jwsAlgorithmUnsupported, "JWS alg \(algorithm): \(error)")
        }
        guard valid else { throw WebAuthnError(.jwsSignatureInvalid, "JWS signature does not verify with the x5c leaf") }
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

    /// JWS `alg` → COSE algorithm, and the ECDSA component length for r ‖ s signatures. `none` and HMAC are absent.
    static let algorithms: [String: (COSEAlgorithm, Int?)] = [
        "ES256": (.es256, 32), "ES384": (.es384, 48), "ES512": (.es512, 66),
        "RS256": (.rs256, nil), "RS384": (.rs384, nil), "RS512": (.rs512, nil),
        "PS256": (.ps256, nil), "PS384": (.ps384, nil), "PS512": (.ps512, nil),
        "EdDSA": (.edDSA, nil),
    ]
}
