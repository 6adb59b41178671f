// Self-service (/v1/me): the signed-in person's own passkeys and identities, with their passkeyd access token (not
// the API key). Deleting, unlinking and adding need a recent sign-in (401 `reauthentication_required`).

extension PasskeydClient {
    /// The person's passkeys, oldest first.
    public func meListCredentials(accessToken: String) async throws -> MeCredentialList {
        try await call(.meListCredentials, bearer: accessToken)
    }

    /// Renames one of the person's passkeys (nil clears the nickname).
    public func meRenameCredential(accessToken: String, credentialId: String, nickname: String?) async throws -> MeCredentialResponse {
        try await call(.meRenameCredential, path: ["credentialId": credentialId], bearer: accessToken, body: RenameBody(nickname: nickname))
    }

    /// Deletes one of the person's passkeys; 409 `last_sign_in_method` for the account's only way to sign in.
    public func meDeleteCredential(accessToken: String, credentialId: String) async throws {
        try await callWithoutAnswer(.meDeleteCredential, path: ["credentialId": credentialId], bearer: accessToken)
    }

    /// Begins adding a passkey to the person's account (`mediation: .conditional`: an automatic upgrade).
    public func meRegistrationBegin(
        accessToken: String, authenticatorSelection: AuthenticatorSelectionCriteria? = nil, attestation: String? = nil,
        hints: [String]? = nil, extensions: RegistrationExtensionInputs? = nil, mediation: Mediation? = nil
    ) async throws -> RegistrationBeginResponse {
        try await call(
            .meRegistrationBegin, bearer: accessToken,
            body: MeRegistrationBeginBody(
                authenticatorSelection: authenticatorSelection, attestation: attestation, hints: hints,
                extensions: extensions, mediation: mediation))
    }

    /// Verifies and stores the person's new passkey.
    public func meRegistrationFinish(
        accessToken: String, _ credential: RegistrationResponseJSON, nickname: String? = nil
    ) async throws -> MeRegistrationFinishResponse {
        try await call(.meRegistrationFinish, bearer: accessToken, body: RegistrationFinishBody(credential: credential, nickname: nickname))
    }

    /// The person's provider identities.
    public func meListIdentities(accessToken: String) async throws -> MeIdentityList {
        try await call(.meListIdentities, bearer: accessToken)
    }

    /// Unlinks one of the person's identities; 409 `last_sign_in_method` for the only way to sign in.
    public func meUnlinkIdentity(accessToken: String, identityId: String) async throws {
        try await callWithoutAnswer(.meUnlinkIdentity, path: ["identityId": identityId], bearer: accessToken)
    }
}
