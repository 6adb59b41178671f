import CBORCodec
import COSECrypto

/// §8.6 FIDO U2F attestation.
enum FIDOU2FAttestation: AttestationFormat {
    static let identifier = "fido-u2f"

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        // "Verify that attStmt is valid CBOR conforming to the syntax defined above"
        _ = try AttestationStatementReader.map(input.statement)
        let sig = try AttestationStatementReader.signature(input.statement[text: "sig"])
        // "Check that x5c has exactly one element and let attCert be that element."
        guard let certificates = try AttestationStatementReader.certificates(input.statement[text: "x5c"]),
            certificates.count == 1
        else {
            throw WebAuthnError(.malformedAttestationStatement, "fido-u2f x5c must hold exactly one certificate")
        }
        let attCert = certificates[0]
        // "Let certificate public key be the public key conveyed by attCert. If certificate public key is not an
        //  Elliptic Curve (EC) public key over the P-256 curve, terminate this algorithm and return an appropriate error."
        let certificateKey: PublicKey
        do {
            certificateKey = try attCert.publicKey()
        } catch {
            throw WebAuthnError(.attestationCertificateInvalid, "fido-u2f certificate key: \(error)")
        }
        guard certificateKey.keyTypeName == "EC2 P-256" else {
            throw WebAuthnError(.attestationCertificateInvalid, "fido-u2f certificate key is \(certificateKey.keyTypeName), not EC P-256")
        }
        // "Convert the COSE_KEY formatted credentialPublicKey ... to Raw ANSI X9.62 public key format"
        // "If size of x or y is not 32 bytes, terminate this algorithm and return an appropriate error."
        guard input.credentialKey.keyTypeName == "EC2 P-256", let point = input.credentialKey.ecUncompressedPoint,
            point.count == 65
        else {
            throw WebAuthnError(.attestationAlgorithmMismatch, "fido-u2f credential key must be EC2 P-256")
        }
        // The AAGUID is not checked: §8.6 does not constrain it and the spec's own fido-u2f test vector carries a
        // non-zero one. (FIDO conformance Resp-8 F-1 expects a rejection; W3C wins, see docs/architecture.md.)
        // "Let verificationData be the concatenation of (0x00 || rpIdHash || clientDataHash || credentialId || publicKeyU2F)"
        var verificationData: [UInt8] = [0x00]
        verificationData.reserveCapacity(1 + 32 + 32 + input.attestedCredential.credentialID.count + 65)
        verificationData += input.authenticatorData.rpIDHash
        verificationData += input.clientDataHash
        verificationData += input.attestedCredential.credentialID
        verificationData += point
        // "Verify the sig using verificationData and the certificate public key per section 4.1.4 of [SEC1] with
        //  SHA-256 as the hash function"
        try AttestationStatementReader.verify(
            signature: sig, message: verificationData, key: certificateKey, algorithm: .es256, what: "fido-u2f")
        // "return implementation-specific values representing attestation type Basic or AttCA and trust path x5c."
        return AttestationOutcome(type: .basic, certificates: certificates)
    }
}
