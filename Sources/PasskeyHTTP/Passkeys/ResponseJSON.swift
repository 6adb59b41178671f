import PasskeyApp
import Foundation
import PasskeyStore
import WebAuthnCore
import WebAuthnModel

struct UserJSON: Encodable {
    let id: String
    let name: String
    let displayName: String
    let createdAt: Date

    init(_ user: StoredUser) {
        id = Base64URL.encode(user.handle)
        name = user.name
        displayName = user.displayName
        createdAt = user.createdAt
    }
}

/// A credential as the API shows it. `nickname` and `lastUsedAt` are always present (null when unset); `userId`
/// only in the admin API.
struct CredentialJSON: Encodable {
    let id: String
    let userId: String?
    let publicKeyAlgorithm: Int
    let signCount: UInt32
    let aaguid: String
    let attestationFormat: String
    let transports: [String]
    let backupEligible: Bool
    let backedUp: Bool
    /// Whether the user was verified at registration (or, for a stored credential, ever: uvInitialized).
    let userVerified: Bool
    let nickname: String?
    let createdAt: Date
    let lastUsedAt: Date?
    let attestation: AttestationJSON
    /// The passkey provider or authenticator by name, for management screens; null when unknown.
    let provider: ProviderNames.Provider?
    /// `modal` (a normal registration) or `conditional` (an automatic upgrade: UV is established once `userVerified`).
    let createdBy: String
    /// What the registration's client extension results said (each null when not reported).
    let extensions: ExtensionsJSON

    struct ExtensionsJSON: Encodable {
        /// `credProps.rk`.
        let discoverable: Bool?
        /// `prf.enabled`.
        let prfEnabled: Bool?
        /// `largeBlob.supported`.
        let largeBlobSupported: Bool?

        enum CodingKeys: String, CodingKey { case discoverable, prfEnabled, largeBlobSupported }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(discoverable, forKey: .discoverable)
            try container.encode(prfEnabled, forKey: .prfEnabled)
            try container.encode(largeBlobSupported, forKey: .largeBlobSupported)
        }
    }

    /// What registration proved about the authenticator; `trustAnchor` and `authenticatorDescription` always present
    /// (null when unknown).
    struct AttestationJSON: Encodable {
        let type: String
        let trust: String
        let trustAnchor: String?
        let authenticatorDescription: String?
        /// Admin API only (present, possibly null): the icon (a data: URL) from the current FIDO metadata.
        let authenticatorIcon: String??

        enum CodingKeys: String, CodingKey { case type, trust, trustAnchor, authenticatorDescription, authenticatorIcon }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(type, forKey: .type)
            try container.encode(trust, forKey: .trust)
            try container.encode(trustAnchor, forKey: .trustAnchor)
            try container.encode(authenticatorDescription, forKey: .authenticatorDescription)
            if let authenticatorIcon { try container.encode(authenticatorIcon, forKey: .authenticatorIcon) }
        }
    }

    init(_ credential: StoredCredential, verified: VerifiedRegistration?, provider: ProviderNames.Provider?) {
        self.init(credential, verified: verified, userId: nil, authenticatorIcon: nil, provider: provider)
    }

    /// The admin API's form, with the owner's user id and the authenticator's icon (null when unknown).
    init(admin credential: StoredCredential, authenticatorIcon: String?, provider: ProviderNames.Provider?) {
        self.init(
            credential, verified: nil, userId: Base64URL.encode(credential.record.userHandle),
            authenticatorIcon: .some(authenticatorIcon), provider: provider)
    }

    private init(
        _ credential: StoredCredential, verified: VerifiedRegistration?, userId: String?, authenticatorIcon: String??,
        provider: ProviderNames.Provider?
    ) {
        self.provider = provider
        createdBy = (credential.createdBy ?? verified?.mediation)?.rawValue ?? "modal"
        let properties = credential.extensions
        extensions = ExtensionsJSON(
            discoverable: properties.discoverable, prfEnabled: properties.prfEnabled, largeBlobSupported: properties.largeBlobSupported)
        id = Base64URL.encode(credential.id)
        self.userId = userId
        publicKeyAlgorithm = credential.algorithm
        signCount = credential.record.signCount
        aaguid = Self.uuid(credential.aaguid)
        attestationFormat = credential.record.attestationFormat
        transports = credential.record.transports
        backupEligible = credential.record.backupEligible
        backedUp = credential.record.backupState
        userVerified = verified?.userVerified ?? credential.record.uvInitialized
        nickname = credential.nickname
        createdAt = credential.createdAt
        lastUsedAt = credential.lastUsedAt
        let verdict = credential.attestation
        attestation = AttestationJSON(
            type: verdict.type, trust: verdict.trust, trustAnchor: verdict.trustAnchor,
            authenticatorDescription: verdict.authenticatorDescription, authenticatorIcon: authenticatorIcon)
    }

    enum CodingKeys: String, CodingKey {
        case id, userId, publicKeyAlgorithm, signCount, aaguid, attestationFormat, transports, backupEligible, backedUp
        case userVerified, nickname, createdAt, lastUsedAt, attestation, provider, createdBy, extensions
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(userId, forKey: .userId)
        try container.encode(publicKeyAlgorithm, forKey: .publicKeyAlgorithm)
        try container.encode(signCount, forKey: .signCount)
        try container.encode(aaguid, forKey: .aaguid)
        try container.encode(attestationFormat, forKey: .attestationFormat)
        try container.encode(transports, forKey: .transports)
        try container.encode(backupEligible, forKey: .backupEligible)
        try container.encode(backedUp, forKey: .backedUp)
        try container.encode(userVerified, forKey: .userVerified)
        try container.encode(nickname, forKey: .nickname)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(lastUsedAt, forKey: .lastUsedAt)
        try container.encode(attestation, forKey: .attestation)
        try container.encode(provider, forKey: .provider)
        try container.encode(createdBy, forKey: .createdBy)
        try container.encode(extensions, forKey: .extensions)
    }

    /// The AAGUID in the canonical 8-4-4-4-12 lowercase form (on every response: no per-byte formatting calls).
    static func uuid(_ bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return "" }
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            digits.withUTF8Buffer { digits in
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    buffer[position] = digits[Int(byte >> 4)]
                    buffer[position + 1] = digits[Int(byte & 0x0F)]
                    position += 2
                }
            }
            return position
        }
    }
}

struct RegistrationResult: Encodable {
    let user: UserJSON
    let credential: CredentialJSON
    var session: SessionJSON? = nil
}

struct AuthenticationResult: Encodable {
    let user: UserJSON?
    let credential: CredentialJSON
    let userVerified: Bool
    let signCountStatus: String
    var session: SessionJSON? = nil
    var signal: AcceptedCredentialsSignal? = nil
}

/// What the client passes to the Signal API after a sign-in (or what `GET /v1/users/{userId}/signals` answers), so
/// the passkey provider drops passkeys the RP no longer accepts and shows current names:
/// `signalAllAcceptedCredentials({rpId, userId, allAcceptedCredentialIds})` and
/// `signalCurrentUserDetails({rpId, userId, name, displayName})`. Ids base64url.
struct AcceptedCredentialsSignal: Encodable, Equatable {
    let rpId: String
    let userId: String
    let allAcceptedCredentialIds: [String]
    let name: String
    let displayName: String

    init(rpID: String, user: StoredUser, credentialIDs: [[UInt8]]) {
        rpId = rpID
        userId = Base64URL.encode(user.handle)
        allAcceptedCredentialIds = credentialIDs.map(Base64URL.encode)
        name = user.name
        displayName = user.displayName
    }
}
