public import COSECrypto

/// The key a JWS is verified with. An HMAC algorithm only ever takes a configured ``sharedSecret``; a signature
/// algorithm only a ``publicKey``. Never both from one source: that is the algorithm-confusion attack.
public enum JWSVerificationKey: Sendable {
    case publicKey(PublicKey)
    case sharedSecret([UInt8])
}

/// Verifies compact JWS signatures against an allow-list of algorithms the caller passes as a value.
public enum JWSVerifier {
    /// The header's algorithm, if it is in `allowed`.
    /// - Throws: ``JOSEError/Code/algorithmNotAllowed``.
    public static func allowedAlgorithm(of jws: CompactJWS, allowed: Set<JWSAlgorithm>) throws(JOSEError) -> JWSAlgorithm {
        guard let algorithm = jws.algorithm, allowed.contains(algorithm) else {
            throw JOSEError(.algorithmNotAllowed, "alg \(jws.algorithmName.prefix(32).debugDescription) is not allowed here")
        }
        return algorithm
    }

    /// Checks the signature of `jws` made with `algorithm` (already checked against an allow-list) under `key`.
    /// - Throws: ``JOSEError/Code/algorithmNotAllowed`` (an HMAC algorithm with a public key or the reverse),
    ///   ``JOSEError/Code/keyInvalid`` (the key type does not fit), ``JOSEError/Code/signatureInvalid``.
    public static func verify(_ jws: CompactJWS, algorithm: JWSAlgorithm, key: JWSVerificationKey) throws(JOSEError) {
        switch key {
        case .sharedSecret(let secret):
            guard let hash = algorithm.hmacHash else {
                throw JOSEError(.algorithmNotAllowed, "\(algorithm) is not an HMAC algorithm but the key is a shared secret")
            }
            let valid: Bool
            do {
                valid = try HMAC.verify(hash, key: secret, message: jws.signingInput, mac: jws.signature)
            } catch {
                throw JOSEError(.keyInvalid, "HMAC: \(error.reason)")
            }
            guard valid else { throw JOSEError(.signatureInvalid, "\(algorithm) MAC does not verify") }
        case .publicKey(let publicKey):
            guard let cose = algorithm.coseAlgorithm else {
                throw JOSEError(.algorithmNotAllowed, "\(algorithm) is an HMAC algorithm but the key is a public key")
            }
            guard publicKey.supports(cose) else {
                throw JOSEError(.keyInvalid, "\(algorithm) does not fit a \(publicKey.keyTypeName) key")
            }
            var signature = jws.signature
            if let length = algorithm.ecComponentLength {
                guard signature.count == 2 * length else {
                    throw JOSEError(.signatureInvalid, "\(algorithm) signature of \(signature.count) bytes")
                }
                do {
                    signature = try ECDSASignatureEncoding.derFromRaw(signature)
                } catch {
                    throw JOSEError(.signatureInvalid, "\(algorithm) signature: \(error.reason)")
                }
            }
            let valid: Bool
            do {
                valid = try publicKey.verify(signature: signature, message: jws.signingInput, algorithm: cose)
            } catch {
                throw JOSEError(.signatureInvalid, "\(algorithm): \(error.reason)")
            }
            guard valid else { throw JOSEError(.signatureInvalid, "\(algorithm) signature does not verify") }
        }
    }
}
