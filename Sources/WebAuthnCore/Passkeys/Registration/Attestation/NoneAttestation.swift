/// §8.7 None attestation: `attStmt` is an empty map; nothing is proven.
enum NoneAttestation: AttestationFormat {
    static let identifier = "none"

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        // "The attestation statement is an empty CBOR map."
        guard try AttestationStatementReader.map(input.statement).isEmpty else {
            throw WebAuthnError(.malformedAttestationStatement, "none attestation with a non-empty attStmt")
        }
        return AttestationOutcome(type: .none, certificates: [])
    }
}
