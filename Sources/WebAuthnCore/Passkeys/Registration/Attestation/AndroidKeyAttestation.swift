import CBORCodec
import COSECrypto

/// §8.4 Android Key attestation: the credential key lives in Android Keystore, whose attestation certificate
/// (first in `x5c`) certifies it with the KeyDescription extension; the chain leads to Google's hardware
/// attestation roots (configured as trust anchors for `android-key`).
enum AndroidKeyAttestation: AttestationFormat {
    static let identifier = "android-key"

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        // "Verify that attStmt is valid CBOR conforming to the syntax defined above and perform CBOR decoding on it
        //  to extract the contained fields."
        _ = try AttestationStatementReader.map(input.statement)
        let alg = try AttestationStatementReader.algorithm(input.statement[text: "alg"])
        let sig = try AttestationStatementReader.signature(input.statement[text: "sig"])
        guard let certificates = try AttestationStatementReader.certificates(input.statement[text: "x5c"]) else {
            throw WebAuthnError(.malformedAttestationStatement, "android-key x5c is missing")
        }
        let credCert = certificates[0]
        let certificateKey: PublicKey
        do {
            certificateKey = try credCert.publicKey()
        } catch {
            throw WebAuthnError(.attestationCertificateInvalid, "android-key certificate key: \(error)")
        }
        // "Verify that sig is a valid signature over the concatenation of authenticatorData and clientDataHash using
        //  the public key in the first certificate in x5c with the algorithm specified in alg."
        try AttestationStatementReader.verify(
            signature: sig, message: input.authenticatorData.bytes + input.clientDataHash, key: certificateKey,
            algorithm: alg, what: "android-key")
        // "Verify that the public key in the first certificate in x5c matches the credentialPublicKey in the
        //  attestedCredentialData in authenticatorData."
        guard certificateKey.isEqual(to: input.credentialKey) else {
            throw WebAuthnError(.androidKeyPublicKeyMismatch, "certificate key is not the credential key")
        }
        // "Verify that the attestationChallenge field in the attestation certificate extension data is identical
        //  to clientDataHash."
        let decoded: AndroidKeyDescription?
        do {
            decoded = try credCert.androidKeyDescription()
        } catch {
            throw WebAuthnError(.androidKeyDescriptionInvalid, "KeyDescription: \(error.reason)")
        }
        guard let description = decoded else {
            throw WebAuthnError(.androidKeyDescriptionInvalid, "no KeyDescription extension")
        }
        guard constantTimeEquals(description.attestationChallenge, input.clientDataHash) else {
            throw WebAuthnError(.androidKeyChallengeMismatch, "attestationChallenge is not clientDataHash")
        }
        // "Verify the following using the appropriate authorization list from the attestation certificate
        //  extension data:"
        // "The AuthorizationList.allApplications field is not present on either authorization list
        //  (softwareEnforced nor teeEnforced), since PublicKeyCredential MUST be scoped to the RP ID."
        guard !description.softwareEnforced.allApplications, !description.teeEnforced.allApplications else {
            throw WebAuthnError(.androidKeyAllApplications, "allApplications is present")
        }
        // "For the following, use only the teeEnforced authorization list if the RP wants to accept only keys from
        //  a trusted execution environment, otherwise use the union of teeEnforced and softwareEnforced."
        var lists = [description.teeEnforced]
        if input.policy.androidKeyAllowSoftwareEnforcedUnsafe { lists.append(description.softwareEnforced) }
        // "The value in the AuthorizationList.origin field is equal to KM_ORIGIN_GENERATED."
        let origins = lists.compactMap(\.origin)
        guard !origins.isEmpty, origins.allSatisfy({ $0 == AndroidKeyDescription.originGenerated }) else {
            throw WebAuthnError(
                .androidKeyOriginInvalid,
                "origin \(origins) is not KM_ORIGIN_GENERATED in \(lists.count == 1 ? "teeEnforced" : "teeEnforced ∪ softwareEnforced")")
        }
        // "The value in the AuthorizationList.purpose field is equal to KM_PURPOSE_SIGN."
        let purposes = lists.compactMap(\.purpose).flatMap { $0 }
        guard purposes.contains(AndroidKeyDescription.purposeSign) else {
            throw WebAuthnError(.androidKeyPurposeInvalid, "purpose \(purposes) lacks KM_PURPOSE_SIGN")
        }
        // "If successful, return implementation-specific values representing attestation type Basic and
        //  attestation trust path x5c."
        return AttestationOutcome(type: .basic, certificates: certificates)
    }
}
