import CBORCodec
import COSECrypto

/// §8.8 Apple Anonymous attestation: Apple's anonymization CA issues a per-credential certificate whose nonce
/// extension binds it to this registration; the chain leads to the Apple WebAuthn Root CA (configured as the
/// trust anchor for `apple`).
enum AppleAttestation: AttestationFormat {
    static let identifier = "apple"

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        // "Verify that attStmt is valid CBOR conforming to the syntax defined above and perform CBOR decoding on it
        //  to extract the contained fields."
        _ = try AttestationStatementReader.map(input.statement)
        guard let certificates = try AttestationStatementReader.certificates(input.statement[text: "x5c"]) else {
            throw WebAuthnError(.malformedAttestationStatement, "apple x5c is missing")
        }
        let credCert = certificates[0]
        // "Concatenate authenticatorData and clientDataHash to form nonceToHash."
        let nonceToHash = input.authenticatorData.bytes + input.clientDataHash
        // "Perform SHA-256 hash of nonceToHash to produce nonce."
        let nonce = Digest.sha256(nonceToHash)
        // "Verify that nonce equals the value of the extension with OID 1.2.840.113635.100.8.2 in credCert."
        let decoded: [UInt8]?
        do {
            decoded = try credCert.appleAttestationNonce()
        } catch {
            throw WebAuthnError(.appleNonceExtensionInvalid, "nonce extension: \(error.reason)")
        }
        guard let certificateNonce = decoded else {
            throw WebAuthnError(.appleNonceExtensionInvalid, "no nonce extension")
        }
        guard constantTimeEquals(certificateNonce, nonce) else {
            throw WebAuthnError(.appleNonceMismatch, "nonce is not SHA-256(authenticatorData ‖ clientDataHash)")
        }
        // "Verify that the credential public key equals the Subject Public Key of credCert."
        let certificateKey: PublicKey
        do {
            certificateKey = try credCert.publicKey()
        } catch {
            throw WebAuthnError(.attestationCertificateInvalid, "apple certificate key: \(error)")
        }
        guard certificateKey.isEqual(to: input.credentialKey) else {
            throw WebAuthnError(.applePublicKeyMismatch, "certificate key is not the credential key")
        }
        // "If successful, return implementation-specific values representing attestation type Anonymization CA
        //  and attestation trust path x5c."
        return AttestationOutcome(type: .anonymizationCA, certificates: certificates)
    }
}
