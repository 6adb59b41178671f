// Passkeys: registration, sign-in, accounts without a passkey yet, the Signal API's arguments. With the API key.

extension PasskeydClient {
    /// Begins a registration: the options for `navigator.credentials.create()` (encode the answer as it is for a
    /// page) or for ASAuthorization.
    /// - Parameters:
    ///   - user: `.new(name:displayName:)` (409 `user_exists` when taken) or `.existing(id:)`, one more passkey for
    ///     a person your backend has authenticated.
    ///   - mediation: `.conditional` (only with `.existing`) begins an automatic passkey upgrade.
    ///   - extensions: `credProps`, `prf`, `largeBlob`, credProtect, minPinLength; anything else is 400
    ///     `extension_unsupported`.
    public func registrationBegin(
        for user: NewOrExistingUser, authenticatorSelection: AuthenticatorSelectionCriteria? = nil,
        attestation: String? = nil, hints: [String]? = nil, extensions: RegistrationExtensionInputs? = nil,
        mediation: Mediation? = nil
    ) async throws -> RegistrationBeginResponse {
        try await call(
            .registrationBegin,
            body: RegistrationBeginBody(
                user: user, authenticatorSelection: authenticatorSelection, attestation: attestation, hints: hints,
                extensions: extensions, mediation: mediation))
    }

    /// Verifies and stores the new passkey (the credential as `PublicKeyCredential.toJSON()` gave it).
    public func registrationFinish(
        _ credential: RegistrationResponseJSON, nickname: String? = nil
    ) async throws -> RegistrationFinishResponse {
        try await call(.registrationFinish, body: RegistrationFinishBody(credential: credential, nickname: nickname))
    }

    /// An account with no sign-in method yet (an existing password user, say), to upgrade to a passkey by id
    /// (``registrationBegin(for:authenticatorSelection:attestation:hints:extensions:mediation:)`` with
    /// `.existing(id:)`).
    public func createUser(name: String, displayName: String? = nil) async throws -> CreateUserResponse {
        try await call(.createUser, body: CreateUserBody(name: name, displayName: displayName))
    }

    /// Begins a sign-in: by name or id (`allowCredentials` lists the user's passkeys), or, with no user, for a
    /// discoverable credential (a passkey picked in the browser's or OS's UI).
    /// - Parameter extensions: `prf` (`eval`, `evalByCredential`), `largeBlob` (`.read` or `.write(blob)`).
    public func authenticationBegin(
        for user: SignInUser? = nil, userVerification: String? = nil, extensions: AuthenticationExtensionInputs? = nil
    ) async throws -> AuthenticationBeginResponse {
        try await call(
            .authenticationBegin,
            body: AuthenticationBeginBody(user: user, userVerification: userVerification, extensions: extensions))
    }

    /// Verifies a sign-in. An unknown passkey is 404 `credential_unknown`, with ``PasskeydError/signal`` for the
    /// page's `signalUnknownCredential`.
    public func authenticationFinish(_ credential: AuthenticationResponseJSON) async throws -> AuthenticationFinishResponse {
        try await call(.authenticationFinish, body: AuthenticationFinishBody(credential: credential))
    }

    /// The Signal API's arguments for a user, after your backend deleted a passkey or renamed the user.
    public func getUserSignals(userId: String) async throws -> AcceptedCredentialsSignal {
        try await call(.getUserSignals, path: ["userId": userId])
    }
}
