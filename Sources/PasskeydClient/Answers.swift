public import WebAuthnModel

/// passkeyd's answers as typed values; member names exactly as in openapi.json (each type's `CodingKeys` lists
/// them, and the tests compare those lists with the document's schemas).

public struct User: Sendable, Decodable, Equatable {
    public let id: String
    public let name: String
    public let displayName: String
    public let createdAt: String

    public enum CodingKeys: String, CodingKey, CaseIterable { case id, name, displayName, createdAt }
}

/// The passkey provider by name (`PASSKEYD_PROVIDER_NAMES_FILE`).
public struct Provider: Sendable, Decodable, Equatable {
    public let name: String
    public let iconLight: String?
    public let iconDark: String?

    public enum CodingKeys: String, CodingKey, CaseIterable { case name, iconLight, iconDark }
}

public struct Credential: Sendable, Decodable, Equatable {
    public let id: String
    public let publicKeyAlgorithm: Int
    public let signCount: Int
    public let aaguid: String
    public let attestationFormat: String
    public let transports: [String]
    public let backupEligible: Bool
    public let backedUp: Bool
    public let userVerified: Bool
    public let nickname: String?
    public let createdAt: String
    public let lastUsedAt: String?
    public let attestation: Attestation
    public let provider: Provider?
    /// `modal` (a normal registration) or `conditional` (an automatic passkey upgrade: `userVerified` stays false
    /// until a sign-in with user verification).
    public let createdBy: String
    /// What the registration's client extension results reported.
    public let extensions: Extensions
    /// Admin API only.
    public let userId: String?

    public struct Attestation: Sendable, Decodable, Equatable {
        public let type: String
        public let trust: String
        public let trustAnchor: String?
        public let authenticatorDescription: String?
    }

    /// Each nil when the client did not report it.
    public struct Extensions: Sendable, Decodable, Equatable {
        /// `credProps.rk`: a discoverable credential (a passkey).
        public let discoverable: Bool?
        /// `prf.enabled`.
        public let prfEnabled: Bool?
        /// `largeBlob.supported`.
        public let largeBlobSupported: Bool?

        public enum CodingKeys: String, CodingKey, CaseIterable { case discoverable, prfEnabled, largeBlobSupported }
    }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, publicKeyAlgorithm, signCount, aaguid, attestationFormat, transports, backupEligible, backedUp
        case userVerified, nickname, createdAt, lastUsedAt, attestation, provider, createdBy, extensions, userId
    }
}

/// Pass to `PublicKeyCredential.signalAllAcceptedCredentials` and `signalCurrentUserDetails`.
public struct AcceptedCredentialsSignal: Sendable, Codable, Equatable {
    public let rpId: String
    public let userId: String
    public let allAcceptedCredentialIds: [String]
    public let name: String
    public let displayName: String

    public init(rpId: String, userId: String, allAcceptedCredentialIds: [String], name: String, displayName: String) {
        self.rpId = rpId
        self.userId = userId
        self.allAcceptedCredentialIds = allAcceptedCredentialIds
        self.name = name
        self.displayName = displayName
    }

    public enum CodingKeys: String, CodingKey, CaseIterable { case rpId, userId, allAcceptedCredentialIds, name, displayName }
}

/// Pass to `PublicKeyCredential.signalUnknownCredential`.
public struct UnknownCredentialSignal: Sendable, Codable, Equatable {
    public let rpId: String
    public let credentialId: String

    public init(rpId: String, credentialId: String) {
        self.rpId = rpId
        self.credentialId = credentialId
    }

    public enum CodingKeys: String, CodingKey, CaseIterable { case rpId, credentialId }
}

/// A session (with `PASSKEYD_SESSIONS=on`), kept as passkeyd sent it.
public struct Session: Sendable, Decodable, Equatable {
    public let accessToken: String
    public let tokenType: String
    public let expiresIn: Int
    public let refreshToken: String?
    public let refreshExpiresIn: Int
    public let sessionId: String
}

/// A registration begin's answer: the options, and `mediation` (`conditional`) only for an automatic passkey upgrade
/// (pass both to `navigator.credentials.create`).
public struct RegistrationBeginAnswer: Sendable, Decodable, Equatable {
    public let publicKey: CreationOptionsJSON
    public let mediation: String?

    public enum CodingKeys: String, CodingKey, CaseIterable { case publicKey, mediation }
}

public struct RegistrationResult: Sendable, Decodable, Equatable {
    public let user: User
    public let credential: Credential
    public let session: Session?

    public enum CodingKeys: String, CodingKey, CaseIterable { case user, credential, session }
}

public struct AuthenticationResult: Sendable, Decodable, Equatable {
    public let user: User?
    public let credential: Credential
    public let userVerified: Bool
    public let signCountStatus: String
    public let signal: AcceptedCredentialsSignal?
    public let session: Session?

    public enum CodingKeys: String, CodingKey, CaseIterable { case user, credential, userVerified, signCountStatus, signal, session }
}
