import CBORCodec
import COSECrypto
public import Foundation

extension RelyingParty {
    /// §7.1 steps 13 and 20–24 alone (attestation object, credential key, the format's verification procedure and
    /// the trust assessment), for the `attestation` fuzz target (`passkeyd-fuzz`): it reaches every format's
    /// verification without the client data, challenge, rpIdHash and flag checks that a fuzzer cannot get past.
    /// Not a registration: nothing here checks that the response belongs to a ceremony.
    /// - Parameters:
    ///   - attestationObject: the CBOR attestation object.
    ///   - clientDataHash: the hash the statement's signature is expected to cover.
    ///   - now: the verification time.
    /// - Returns: the format identifier, attestation type and trust.
    /// - Throws: `WebAuthnError` with the code of the first step that failed.
    @_spi(Fuzzing)
    public func verifyAttestationStatement(
        _ attestationObject: [UInt8], clientDataHash: [UInt8], now: Date
    ) throws(WebAuthnError) -> (format: String, type: AttestationType, trust: AttestationTrust) {
        let (fmt, statement, authenticatorData) = try Self.decodeAttestationObject(attestationObject)
        guard let attested = authenticatorData.attestedCredentialData else {
            throw WebAuthnError(.attestedCredentialDataMissing, "AT flag clear")
        }
        let (_, outcome, assessment) = try verifyStatement(
            fmt: fmt, statement: statement, authenticatorData: authenticatorData, attested: attested,
            clientDataHash: clientDataHash, now: now)
        return (fmt, outcome.type, assessment.trust)
    }
}
