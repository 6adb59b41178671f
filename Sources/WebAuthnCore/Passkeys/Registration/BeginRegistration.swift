public import Foundation
public import WebAuthnModel

/// Caller choices for one registration, within the relying party's policy.
public struct RegistrationRequest: Sendable {
    public var authenticatorSelection: AuthenticatorSelectionJSON?
    public var attestation: String?
    public var hints: [String]?
    public var extensions: [String: JSONValue]?
    /// `.conditional` begins an automatic upgrade: the options ask for user verification `preferred` (browsers refuse
    /// a conditional create that requires it) and the state remembers it, so the finish accepts UP=0 and UV=0. The
    /// caller begins one only for a user it has signed in, and only while ``RelyingParty/conditionalCreate`` is on.
    public var mediation: CredentialMediation?

    public init(
        authenticatorSelection: AuthenticatorSelectionJSON? = nil, attestation: String? = nil, hints: [String]? = nil,
        extensions: [String: JSONValue]? = nil, mediation: CredentialMediation? = nil
    ) {
        self.authenticatorSelection = authenticatorSelection
        self.attestation = attestation
        self.hints = hints
        self.extensions = extensions
        self.mediation = mediation
    }
}

enum OptionValues {
    static let hints: Set<String> = ["security-key", "client-device", "hybrid"]
    static let residentKeys: Set<String> = ["required", "preferred", "discouraged"]
    static let attachments: Set<String> = ["platform", "cross-platform"]
    static let conveyances: Set<String> = ["none", "indirect", "direct", "enterprise"]
    /// Size of generated challenges (W3C: at least 16 bytes).
    static let challengeLength = 32

    static func hints(_ requested: [String]?) -> [String]? {
        guard let requested else { return nil }
        return requested.filter { hints.contains($0) }
    }
}

extension RelyingParty {
    /// Starts a registration ceremony (§7.1 step 1).
    ///
    /// - Parameters:
    ///   - user: the account; its handle must already be fixed (a known user keeps theirs).
    ///   - excludeCredentials: the user's existing credentials, so an authenticator is not registered twice.
    ///   - request: caller choices; user verification can only be made stricter than the policy, and
    ///     attestation is forced to `direct` when the policy requires a trusted chain.
    ///   - challengeSource: randomness for the challenge.
    ///   - now: the current time (challenge expiry is computed from it).
    /// - Returns: the options for the client and the state to keep for `finishRegistration`.
    public func beginRegistration(
        user: UserEntity, excludeCredentials: [CredentialDescriptor], request: RegistrationRequest = .init(),
        challengeSource: some ChallengeSource = SystemChallengeSource(), now: Date
    ) -> (options: CreationOptionsJSON, state: RegistrationState) {
        let challenge = challengeSource.bytes(count: OptionValues.challengeLength)
        let requestedSelection = request.authenticatorSelection
        var uv = userVerification.effective(
            requestedSelection?.userVerification.flatMap(UserVerificationRequirement.init(rawValue:)))
        if request.mediation == .conditional, uv == .required { uv = .preferred }
        let residentKey = requestedSelection?.residentKey.flatMap { OptionValues.residentKeys.contains($0) ? $0 : nil }
            ?? (requestedSelection?.requireResidentKey == true ? "required" : self.residentKey)
        let selection = AuthenticatorSelectionJSON(
            authenticatorAttachment: requestedSelection?.authenticatorAttachment.flatMap {
                OptionValues.attachments.contains($0) ? $0 : nil
            },
            residentKey: residentKey, requireResidentKey: residentKey == "required", userVerification: uv.rawValue)

        var conveyance = request.attestation.flatMap { OptionValues.conveyances.contains($0) ? $0 : nil }
            ?? attestation.conveyance
        if attestation.requirement.refusesNone, conveyance == "none" { conveyance = "direct" }

        var extensions = request.extensions ?? [:]
        extensions["credProps"] = .bool(true)

        let algorithmIDs = algorithms.algorithms.map(\.rawValue)
        let options = CreationOptionsJSON(
            rp: RelyingPartyEntityJSON(id: id, name: name),
            user: UserEntityJSON(id: Base64URL.encode(user.id), name: user.name, displayName: user.displayName),
            challenge: Base64URL.encode(challenge),
            pubKeyCredParams: algorithmIDs.map { CredentialParametersJSON(alg: $0) },
            timeout: timeoutMilliseconds,
            excludeCredentials: excludeCredentials.map {
                CredentialDescriptorJSON(id: Base64URL.encode($0.id), transports: $0.transports.isEmpty ? nil : $0.transports)
            },
            authenticatorSelection: selection,
            hints: OptionValues.hints(request.hints),
            attestation: conveyance,
            extensions: extensions)
        let state = RegistrationState(
            challenge: challenge, user: user, userVerification: uv, algorithms: algorithmIDs,
            expiresAt: expiry(from: now), mediation: request.mediation)
        return (options, state)
    }
}
