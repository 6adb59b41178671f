// Native sign-in with a provider's ID token (PASSKEYD_IDTOKEN_PROVIDERS). With the API key.

extension PasskeydClient {
    /// Begins an ID-token sign-in: the nonce for the provider's SDK (`providerNonce`) and the session to finish with.
    public func idTokenBegin(provider: String) async throws -> IDTokenBeginResponse {
        try await call(.idTokenBegin, body: IDTokenBeginBody(provider: provider))
    }

    /// Verifies the provider's ID token and signs the user in: the identity's user, created on first use.
    /// - Parameters:
    ///   - authorizationCode: Apple's, redeemed when the code exchange is configured.
    ///   - user: `.new(name:displayName:)`: the name of a user a new identity creates; `.existing(id:)`: attach a new
    ///     identity to this user (only for a person your backend has authenticated).
    public func idTokenFinish(
        session: String, provider: String, idToken: String, authorizationCode: String? = nil,
        user: NewOrExistingUser? = nil
    ) async throws -> IDTokenFinishResponse {
        try await call(
            .idTokenFinish,
            body: IDTokenFinishBody(
                session: session, provider: provider, idToken: idToken, authorizationCode: authorizationCode, user: user))
    }
}
