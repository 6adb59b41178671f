// Users and their passkeys as passkeyd's answers carry them. Members as openapi.json names them; timestamps are ISO
// 8601 strings (UTC, whole seconds), ids base64url.

/// An account.
public struct User: Sendable, Codable, Equatable {
    /// The user handle (WebAuthn `user.id`), base64url.
    public var id: String
    public var name: String
    public var displayName: String
    public var createdAt: String
}

/// A registered passkey (the `Credential` schema).
public struct Credential: Sendable, Codable, Equatable {
    /// The credential id, base64url.
    public var id: String
    /// COSE algorithm identifier (-7 ES256, -8 EdDSA, -257 RS256, …).
    public var publicKeyAlgorithm: Int
    public var signCount: Int
    /// The authenticator's AAGUID as a lowercase UUID; empty if unknown.
    public var aaguid: String
    /// The attestation statement format (`none`, `packed`, `fido-u2f`, …).
    public var attestationFormat: String
    /// `usb`, `nfc`, `ble`, `smart-card`, `hybrid`, `internal`.
    public var transports: [String]
    public var backupEligible: Bool
    public var backedUp: Bool
    /// Whether the user was verified at registration, or since in a sign-in.
    public var userVerified: Bool
    public var nickname: String?
    public var createdAt: String
    public var lastUsedAt: String?
    public var attestation: Attestation
    /// The passkey provider by name ("iCloud Keychain", …), when its AAGUID is known.
    public var provider: CredentialProvider?
    /// `modal` (a normal registration) or `conditional` (an automatic passkey upgrade: `userVerified` stays false
    /// until a sign-in with user verification).
    public var createdBy: String
    public var extensions: CredentialExtensions
}

/// A registered passkey as the admin API shows it: with its owner's id and the authenticator's icon.
public struct AdminCredential: Sendable, Codable, Equatable {
    public var id: String
    public var publicKeyAlgorithm: Int
    public var signCount: Int
    public var aaguid: String
    public var attestationFormat: String
    public var transports: [String]
    public var backupEligible: Bool
    public var backedUp: Bool
    public var userVerified: Bool
    public var nickname: String?
    public var createdAt: String
    public var lastUsedAt: String?
    /// The owner's user handle, base64url.
    public var userId: String
    public var attestation: AdminAttestation
    public var provider: CredentialProvider?
    /// `modal` or `conditional`.
    public var createdBy: String
    public var extensions: CredentialExtensions
}

/// What registration proved about the authenticator.
public struct Attestation: Sendable, Codable, Equatable {
    /// `none`, `self`, `basic`, `attca` or `anonca`.
    public var type: String
    /// `none`, `self`, `untrusted` or `trusted`.
    public var trust: String
    /// The subject of the root the chain ends at, when trusted.
    public var trustAnchor: String?
    /// The authenticator's name from FIDO metadata, when known at registration.
    public var authenticatorDescription: String?
}

/// ``Attestation`` with the authenticator's icon (a data: URL) from the FIDO metadata loaded now.
public struct AdminAttestation: Sendable, Codable, Equatable {
    public var type: String
    public var trust: String
    public var trustAnchor: String?
    public var authenticatorDescription: String?
    public var authenticatorIcon: String?
}

/// The passkey provider or authenticator by name (`PASSKEYD_PROVIDER_NAMES_FILE`, FIDO metadata), with its icons.
public struct CredentialProvider: Sendable, Codable, Equatable {
    public var name: String
    public var iconLight: String?
    public var iconDark: String?
}

/// What the registration's client extension results reported; each nil when the client did not report it.
public struct CredentialExtensions: Sendable, Codable, Equatable {
    /// `credProps.rk`: a discoverable credential (a passkey).
    public var discoverable: Bool?
    /// `prf.enabled`.
    public var prfEnabled: Bool?
    /// `largeBlob.supported`.
    public var largeBlobSupported: Bool?
}

/// The Signal API's arguments for one user: pass `{rpId, userId, allAcceptedCredentialIds}` to
/// `PublicKeyCredential.signalAllAcceptedCredentials` and `{rpId, userId, name, displayName}` to
/// `signalCurrentUserDetails`.
public struct AcceptedCredentialsSignal: Sendable, Codable, Equatable {
    public var rpId: String
    public var userId: String
    /// Every credential id of the user, oldest first.
    public var allAcceptedCredentialIds: [String]
    public var name: String
    public var displayName: String

    public init(rpId: String, userId: String, allAcceptedCredentialIds: [String], name: String, displayName: String) {
        self.rpId = rpId
        self.userId = userId
        self.allAcceptedCredentialIds = allAcceptedCredentialIds
        self.name = name
        self.displayName = displayName
    }
}

/// The arguments of `PublicKeyCredential.signalUnknownCredential`, on a sign-in refused with `credential_unknown`
/// (``PasskeydError/signal``): the passkey provider can hide a passkey passkeyd does not know.
public struct UnknownCredentialSignal: Sendable, Codable, Equatable {
    public var rpId: String
    public var credentialId: String

    public init(rpId: String, credentialId: String) {
        self.rpId = rpId
        self.credentialId = credentialId
    }
}
