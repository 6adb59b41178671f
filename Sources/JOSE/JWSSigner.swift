public import COSECrypto
public import WebAuthnModel

/// The key a JWS is signed with: a private key for signature algorithms, a secret for HMAC.
public enum JWSSigningKey: Sendable {
    case privateKey(PrivateKey)
    case sharedSecret([UInt8])
}

/// Makes compact JWS values: passkeyd's own tokens and the Apple `client_secret`, and the test identity provider's.
public enum JWSSigner {
    /// Signs `payload` with a protected header of `alg`, the given `kid` and `typ`, and `extraHeader` members.
    /// - Returns: `header.payload.signature`.
    /// - Throws: ``JOSEError/Code/algorithmNotAllowed`` when the key does not fit the algorithm,
    ///   ``JOSEError/Code/keyInvalid`` when signing fails.
    public static func sign(
        payload: [UInt8], algorithm: JWSAlgorithm, key: JWSSigningKey, keyID: String? = nil, type: String? = "JWT",
        extraHeader: [String: JSONValue] = [:]
    ) throws(JOSEError) -> String {
        var header = extraHeader
        header["alg"] = .string(algorithm.rawValue)
        if let keyID { header["kid"] = .string(keyID) }
        if let type { header["typ"] = .string(type) }
        let signingInput = Base64URL.encode(JSONText.bytes(of: .object(header))) + "." + Base64URL.encode(payload)
        let message = Array(signingInput.utf8)
        var signature: [UInt8]
        switch key {
        case .sharedSecret(let secret):
            guard let hash = algorithm.hmacHash else { throw JOSEError(.algorithmNotAllowed, "\(algorithm) with a secret") }
            do {
                signature = try HMAC.mac(hash, key: secret, message: message)
            } catch {
                throw JOSEError(.keyInvalid, "HMAC: \(error.reason)")
            }
        case .privateKey(let privateKey):
            guard let cose = algorithm.coseAlgorithm else { throw JOSEError(.algorithmNotAllowed, "\(algorithm) with a private key") }
            do {
                signature = try privateKey.sign(message, algorithm: cose)
                if let length = algorithm.ecComponentLength {
                    signature = try ECDSASignatureEncoding.rawFromDER(signature, componentLength: length)
                }
            } catch {
                throw JOSEError(.keyInvalid, "\(algorithm) signing: \(error.reason)")
            }
        }
        return signingInput + "." + Base64URL.encode(signature)
    }
}
