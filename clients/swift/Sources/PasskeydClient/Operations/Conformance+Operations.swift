// The FIDO conformance binding (PASSKEYD_FIDO_CONFORMANCE=on): the conformance tools' server API, with the API key.
// A refusal is a PasskeydError (the answer's status `failed`). passkeyd ties a result to its options call with a
// session cookie whose value is the options' challenge (`passkeyd_attestation`, `passkeyd_assertion`); this client
// keeps no cookies, so the result calls take that challenge and send the cookie.

extension PasskeydClient {
    public func conformanceAttestationOptions(
        username: String, displayName: String? = nil, authenticatorSelection: AuthenticatorSelectionCriteria? = nil,
        attestation: String? = nil, extensions: [String: JSONValue]? = nil
    ) async throws -> ConformanceCreationOptionsResponse {
        try await call(
            .conformanceAttestationOptions,
            body: ConformanceCreationOptionsBody(
                username: username, displayName: displayName, authenticatorSelection: authenticatorSelection,
                attestation: attestation, extensions: extensions))
    }

    /// Sends the credential in the profile's form (`getClientExtensionResults`).
    /// - Parameter challenge: the options' `challenge` (sent back as the session cookie `passkeyd_attestation`).
    public func conformanceAttestationResult(
        _ credential: RegistrationResponseJSON, challenge: String
    ) async throws -> ConformanceServerResponse {
        try await call(
            .conformanceAttestationResult, cookie: "passkeyd_attestation=\(challenge)", body: ConformanceAttestationBody(credential))
    }

    /// An empty `username` asks for a discoverable credential.
    public func conformanceAssertionOptions(
        username: String, userVerification: String? = nil, extensions: [String: JSONValue]? = nil
    ) async throws -> ConformanceGetOptionsResponse {
        try await call(
            .conformanceAssertionOptions,
            body: ConformanceGetOptionsBody(username: username, userVerification: userVerification, extensions: extensions))
    }

    /// - Parameter challenge: the options' `challenge` (sent back as the session cookie `passkeyd_assertion`).
    public func conformanceAssertionResult(
        _ credential: AuthenticationResponseJSON, challenge: String
    ) async throws -> ConformanceServerResponse {
        try await call(
            .conformanceAssertionResult, cookie: "passkeyd_assertion=\(challenge)", body: ConformanceAssertionBody(credential))
    }
}
