import COSECrypto
public import Foundation
public import WebAuthnCore

/// An account.
public struct StoredUser: Sendable, Hashable {
    /// The WebAuthn user handle (1...64 random bytes).
    public let handle: [UInt8]
    public let name: String
    public let displayName: String
    public let createdAt: Date

    public init(handle: [UInt8], name: String, displayName: String, createdAt: Date) {
        self.handle = handle
        self.name = name
        self.displayName = displayName
        self.createdAt = createdAt
    }
}

/// A registered credential with its bookkeeping.
public struct StoredCredential: Sendable, Hashable {
    /// What the engine needs to verify assertions.
    public var record: CredentialRecord
    public var algorithm: Int
    public var aaguid: [UInt8]
    public var nickname: String?
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// The raw attestation object and clientDataJSON from registration (audit, re-verification); nil when the read
    /// did not load them (the authentication path leaves these kilobytes in the database).
    public var attestationObject: [UInt8]?
    public var clientDataJSON: [UInt8]?
    /// What registration proved about the authenticator.
    public var attestation: StoredAttestation
    /// `.conditional` when an automatic upgrade created it (UP and UV may have been 0; `record.uvInitialized` says
    /// whether UV has been established since); nil for a normal registration.
    public var createdBy: CredentialMediation?
    /// What the registration's client extension results said about the credential.
    public var extensions: CredentialExtensionProperties

    public var id: [UInt8] { record.id }

    public init(
        record: CredentialRecord, algorithm: Int, aaguid: [UInt8], nickname: String?, createdAt: Date, lastUsedAt: Date?,
        attestationObject: [UInt8]?, clientDataJSON: [UInt8]?, attestation: StoredAttestation = .none,
        createdBy: CredentialMediation? = nil, extensions: CredentialExtensionProperties = .init()
    ) {
        self.attestation = attestation
        self.createdBy = createdBy
        self.extensions = extensions
        self.record = record
        self.algorithm = algorithm
        self.aaguid = aaguid
        self.nickname = nickname
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.attestationObject = attestationObject
        self.clientDataJSON = clientDataJSON
    }
}

/// The client extension outputs registration records (each nil when the client did not report it): `credProps.rk`,
/// `prf.enabled`, `largeBlob.supported`. PRF outputs and large blobs are never stored.
public struct CredentialExtensionProperties: Sendable, Hashable {
    public var discoverable: Bool?
    public var prfEnabled: Bool?
    public var largeBlobSupported: Bool?

    public init(discoverable: Bool? = nil, prfEnabled: Bool? = nil, largeBlobSupported: Bool? = nil) {
        self.discoverable = discoverable
        self.prfEnabled = prfEnabled
        self.largeBlobSupported = largeBlobSupported
    }

    /// What a verified registration reported.
    public init(_ registration: VerifiedRegistration) {
        self.init(
            discoverable: registration.discoverable, prfEnabled: registration.prfEnabled,
            largeBlobSupported: registration.largeBlobSupported)
    }
}

/// The attestation verdict stored with a credential: what registration could prove about the authenticator.
public struct StoredAttestation: Sendable, Hashable {
    /// The §6.5.4 attestation type: `none`, `self`, `basic`, `attca`, `anonca`.
    public var type: String
    /// `none`, `self`, `untrusted` (a chain reaching no configured or metadata root) or `trusted`.
    public var trust: String
    /// The subject of the root the chain ends at, when trusted.
    public var trustAnchor: String?
    /// The authenticator's description from FIDO metadata, when it was known at registration.
    public var authenticatorDescription: String?

    public init(type: String, trust: String, trustAnchor: String? = nil, authenticatorDescription: String? = nil) {
        self.type = type
        self.trust = trust
        self.trustAnchor = trustAnchor
        self.authenticatorDescription = authenticatorDescription
    }

    /// No attestation (also what credentials stored before verdicts were kept read as).
    public static let none = StoredAttestation(type: "none", trust: "none")

    /// The verdict of a verified registration.
    public init(_ registration: VerifiedRegistration) {
        let trust: String
        var anchor: String?
        switch registration.attestationTrust {
        case .none: trust = "none"
        case .selfAttested: trust = "self"
        case .untrusted: trust = "untrusted"
        case .trusted(let subject):
            trust = "trusted"
            anchor = subject
        }
        self.init(
            type: registration.attestationType.rawValue, trust: trust, trustAnchor: anchor,
            authenticatorDescription: registration.attestationVerdict.authenticatorDescription)
    }
}
