// App Attest (PASSKEYD_APPATTEST_*): the app proves it is genuine; passkeyd keeps the attested keys and checks their
// assertions' counters.

extension PasskeydClient {
    /// A one-time challenge for an attestation or an assertion.
    public func appAttestChallenge() async throws -> AppAttestChallenge {
        try await call(.appAttestChallenge, body: EmptyBody())
    }

    /// Verifies an attestation (`DCAppAttestService.attestKey`) made over the challenge and stores the key.
    /// - Parameter userId: attach the key to this user.
    public func appAttestAttestation(
        keyId: String, attestationObject: String, challenge: String, userId: String? = nil
    ) async throws -> AppAttestKey {
        try await call(
            .appAttestAttestation,
            body: AppAttestAttestationBody(keyId: keyId, attestationObject: attestationObject, challenge: challenge, userId: userId))
    }

    /// Verifies an assertion (`generateAssertion`) over `clientData` (base64url of the JSON the app hashed, whose
    /// `challenge` is one of ``appAttestChallenge()``).
    public func appAttestAssertion(keyId: String, assertion: String, clientData: String) async throws -> AppAttestKey {
        try await call(.appAttestAssertion, body: AppAttestAssertionBody(keyId: keyId, assertion: assertion, clientData: clientData))
    }
}
