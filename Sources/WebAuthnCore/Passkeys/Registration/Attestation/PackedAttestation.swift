import CBORCodec
import COSECrypto

/// §8.2 Packed attestation: either an attestation certificate chain (`x5c`) or self attestation.
enum PackedAttestation: AttestationFormat {
    static let identifier = "packed"
    /// id-fido-gen-ce-aaguid.
    static let aaguidExtensionOID = "1.3.6.1.4.1.45724.1.1.4"

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        // "Verify that attStmt is valid CBOR conforming to the syntax defined above and perform CBOR decoding on it
        //  to extract the contained fields."
        _ = try AttestationStatementReader.map(input.statement)
        let alg = try AttestationStatementReader.algorithm(input.statement[text: "alg"])
        let sig = try AttestationStatementReader.signature(input.statement[text: "sig"])
        let signed = input.authenticatorData.bytes + input.clientDataHash

        // "If x5c is present:"
        if let certificates = try AttestationStatementReader.certificates(input.statement[text: "x5c"]) {
            let leaf = certificates[0]
            let leafKey: PublicKey
            do {
                leafKey = try leaf.publicKey()
            } catch {
                throw WebAuthnError(.attestationCertificateInvalid, "attestation certificate key: \(error)")
            }
            // "Verify that sig is a valid signature over the concatenation of authenticatorData and clientDataHash
            //  using the attestation public key in attestnCert with the algorithm specified in alg."
            try AttestationStatementReader.verify(signature: sig, message: signed, key: leafKey, algorithm: alg, what: "packed x5c")
            // "Verify that attestnCert meets the requirements in § 8.2.1."
            try checkCertificateRequirements(leaf)
            // "If attestnCert contains an extension with OID 1.3.6.1.4.1.45724.1.1.4 (id-fido-gen-ce-aaguid) verify
            //  that the value of this extension matches the aaguid in authenticatorData."
            try checkAAGUIDExtension(leaf, aaguid: input.attestedCredential.aaguid)
            // "If successful, return ... attestation type Basic, AttCA or uncertainty, and attestation trust path x5c."
            return AttestationOutcome(type: .basic, certificates: certificates)
        }

        // "If x5c is not present, self attestation is in use."
        // "Validate that alg matches the algorithm of the credentialPublicKey in authenticatorData."
        guard alg == input.credentialKey.algorithm else {
            throw WebAuthnError(
                .attestationAlgorithmMismatch, "self attestation alg \(alg) differs from credential alg \(input.credentialKey.algorithm)")
        }
        // "Verify that sig is a valid signature over the concatenation of authenticatorData and clientDataHash
        //  using the credential public key with alg."
        try AttestationStatementReader.verify(
            signature: sig, message: signed, key: input.credentialKey, algorithm: alg, what: "packed self")
        return AttestationOutcome(type: .self, certificates: [])
    }

    /// §8.2.1 Packed attestation statement certificate requirements.
    static func checkCertificateRequirements(_ certificate: Certificate) throws(WebAuthnError) {
        // "Version MUST be set to 3"
        guard certificate.version == 3 else {
            throw WebAuthnError(.attestationCertificateInvalid, "attestation certificate version \(certificate.version)")
        }
        // "Subject field MUST be set to: C: ISO 3166 code, O: vendor, OU: literal 'Authenticator Attestation', CN"
        let subject = certificate.subject
        guard let country = subject.values("C").first, country.utf8.count == 2,
            subject.values("O").contains(where: { !$0.isEmpty }),
            subject.values("OU").contains("Authenticator Attestation"),
            subject.values("CN").contains(where: { !$0.isEmpty })
        else {
            throw WebAuthnError(.attestationCertificateInvalid, "attestation certificate subject does not meet §8.2.1")
        }
        // "The Basic Constraints extension MUST have the CA component set to false."
        guard certificate.isCA != true else {
            throw WebAuthnError(.attestationCertificateInvalid, "attestation certificate is a CA certificate")
        }
    }

    /// Shared by packed (and later tpm): the AAGUID extension, when present, must be non-critical and equal.
    static func checkAAGUIDExtension(_ certificate: Certificate, aaguid: [UInt8]) throws(WebAuthnError) {
        guard let value = certificate.extensionValue(oid: aaguidExtensionOID) else { return }
        // extnValue is an OCTET STRING holding the 16-byte AAGUID: 04 10 ‖ aaguid.
        guard value.count == 18, value[0] == 0x04, value[1] == 0x10 else {
            throw WebAuthnError(.attestationCertificateInvalid, "id-fido-gen-ce-aaguid is not a 16-byte OCTET STRING")
        }
        guard certificate.isExtensionCritical(oid: aaguidExtensionOID) != true else {
            throw WebAuthnError(.attestationCertificateInvalid, "id-fido-gen-ce-aaguid is marked critical")
        }
        guard value[2...].elementsEqual(aaguid) else {
            throw WebAuthnError(.attestationAAGUIDMismatch, "certificate AAGUID differs from authenticator data AAGUID")
        }
    }
}
