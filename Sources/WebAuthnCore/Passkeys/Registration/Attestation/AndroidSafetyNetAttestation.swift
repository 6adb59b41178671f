import CBORCodec
import COSECrypto
import Foundation

/// §8.5 Android SafetyNet attestation: the authenticator data and clientDataHash are bound into the `nonce` of a
/// SafetyNet attestation response, a JWS signed by `attest.android.com`.
///
/// The response's certificate chain is checked against the `android-safetynet` trust anchors (GlobalSign roots) by
/// ``AttestationTrustAssessment`` like every other x5c chain, so an expired chain gets
/// `attestation_certificate_expired` and an unknown root `attestation_untrusted` under `trusted-required`.
enum AndroidSafetyNetAttestation: AttestationFormat {
    static let identifier = "android-safetynet"
    /// The hostname the SafetyNet signing certificate must be issued to.
    static let hostname = "attest.android.com"

    /// The members of the JWS payload this procedure reads.
    private struct Payload: Decodable {
        let nonce: String?
        let timestampMs: Double?
        let ctsProfileMatch: Bool?
        let basicIntegrity: Bool?
    }

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        // "Verify that attStmt is valid CBOR conforming to the syntax defined above and perform CBOR decoding on it
        //  to extract the contained fields."  attStmt = { ver: text, response: bytes }
        _ = try AttestationStatementReader.map(input.statement)
        guard let version = input.statement[text: "ver"]?.textValue, !version.isEmpty else {
            throw WebAuthnError(.malformedAttestationStatement, "android-safetynet ver is missing or not non-empty text")
        }
        guard let response = input.statement[text: "response"]?.bytesValue, !response.isEmpty else {
            throw WebAuthnError(.malformedAttestationStatement, "android-safetynet response is missing or not bytes")
        }

        // "Verify that response is a valid SafetyNet response of version ver by following the steps indicated by
        //  the SafetyNet online documentation."  That is: parse the JWS, verify its signature with the leaf of its
        //  x5c, and check that the leaf was issued to attest.android.com (the chain is assessed in step 24).
        let jws = try JWS(compact: response)
        try jws.verifySignature()
        let leaf = jws.leaf
        guard leaf.dnsNames.contains(hostname) || leaf.subject.values("CN").contains(hostname) else {
            throw WebAuthnError(
                .safetyNetHostnameMismatch, "SafetyNet signing certificate is issued to \(leaf.subject), not \(hostname)")
        }
        let payload: Payload
        do {
            payload = try JSONDecoder().decode(Payload.self, from: Data(jws.payload))
        } catch {
            throw WebAuthnError(.jwsMalformed, "SafetyNet payload is not the expected JSON: \(error)")
        }

        // "Verify that the nonce attribute in the payload of response is identical to the Base64 encoding of the
        //  SHA-256 hash of the concatenation of authenticatorData and clientDataHash."
        let expectedNonce = Data(Digest.sha256(input.authenticatorData.bytes + input.clientDataHash)).base64EncodedString()
        guard let nonce = payload.nonce, constantTimeEquals(Array(nonce.utf8), Array(expectedNonce.utf8)) else {
            throw WebAuthnError(.safetyNetNonceMismatch, "SafetyNet nonce does not bind authenticatorData and clientDataHash")
        }

        // "Verify that the SafetyNet response actually came from the SafetyNet service by following the steps in
        //  the SafetyNet online documentation."  The documentation's device-integrity verdict: ctsProfileMatch.
        let policy = input.policy.safetyNet
        if policy.requireCTSProfileMatch, payload.ctsProfileMatch != true {
            throw WebAuthnError(.safetyNetCTSProfileMismatch, "SafetyNet ctsProfileMatch is \(String(describing: payload.ctsProfileMatch))")
        }
        // The response's freshness: timestampMs within the policy's window around the verification time.
        if !policy.skipTimestampCheckUnsafe {
            guard let milliseconds = payload.timestampMs, milliseconds.isFinite else {
                throw WebAuthnError(.safetyNetTimestampInvalid, "SafetyNet timestampMs missing")
            }
            let timestamp = Date(timeIntervalSince1970: milliseconds / 1000)
            let age = input.time.timeIntervalSince(timestamp)
            guard age <= policy.maxAge else {
                throw WebAuthnError(.safetyNetTimestampInvalid, "SafetyNet response is \(seconds(age)) s old (max \(seconds(policy.maxAge)) s)")
            }
            guard -age <= policy.maxFutureSkew else {
                throw WebAuthnError(.safetyNetTimestampInvalid, "SafetyNet timestamp is \(seconds(-age)) s in the future")
            }
        }

        // "If successful, return implementation-specific values representing attestation type Basic and
        //  attestation trust path x5c."
        return AttestationOutcome(type: .basic, certificates: jws.certificates)
    }

    /// Whole seconds for an error message. `timestampMs` is any finite JSON number, so the age can lie far outside
    /// `Int`'s range, where `Int(_:)` would trap.
    static func seconds(_ value: TimeInterval) -> String {
        guard let whole = Int(exactly: value.rounded(.towardZero)) else { return "\(value)" }
        return "\(whole)"
    }
}
