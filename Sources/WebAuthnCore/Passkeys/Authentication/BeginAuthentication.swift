public import Foundation
public import WebAuthnModel

extension RelyingParty {
    /// Starts an authentication ceremony (§7.2 step 1).
    ///
    /// - Parameters:
    ///   - allowCredentials: the identified user's credentials; empty for a discoverable / conditional-UI request.
    ///   - userHandle: the identified user's handle, or nil when the assertion's userHandle will identify the user.
    ///   - userVerification: a per-ceremony request; never weaker than the policy.
    ///   - hints: client hints (`security-key`, `client-device`, `hybrid`).
    ///   - extensions: extension inputs to pass through; `appid` is added when `legacyAppID` is configured, and
    ///     `prf.evalByCredential` keeps only the entries of `allowCredentials` (§10.1.4: the client refuses others).
    ///   - challengeSource: randomness for the challenge.
    ///   - now: the current time.
    /// - Returns: the options for the client and the state to keep for `finishAuthentication`.
    public func beginAuthentication(
        allowCredentials: [CredentialDescriptor], userHandle: [UInt8]?,
        userVerification requested: UserVerificationRequirement? = nil, hints: [String]? = nil,
        extensions requestedExtensions: [String: JSONValue]? = nil,
        challengeSource: some ChallengeSource = SystemChallengeSource(), now: Date
    ) -> (options: RequestOptionsJSON, state: AuthenticationState) {
        let challenge = challengeSource.bytes(count: OptionValues.challengeLength)
        let uv = userVerification.effective(requested)
        var extensions = requestedExtensions.map { ExtensionInputs.restrictingEvalByCredential($0, to: allowCredentials.map(\.id)) }
        if let legacyAppID {
            extensions = extensions ?? [:]
            extensions?["appid"] = .string(legacyAppID)
        }
        let options = RequestOptionsJSON(
            challenge: Base64URL.encode(challenge), timeout: timeoutMilliseconds, rpId: id,
            allowCredentials: allowCredentials.map {
                CredentialDescriptorJSON(id: Base64URL.encode($0.id), transports: $0.transports.isEmpty ? nil : $0.transports)
            },
            userVerification: uv.rawValue, hints: OptionValues.hints(hints), extensions: extensions)
        let state = AuthenticationState(
            challenge: challenge, userVerification: uv, allowCredentialIDs: allowCredentials.map(\.id),
            userHandle: userHandle, appID: legacyAppID, expiresAt: expiry(from: now))
        return (options, state)
    }
}
