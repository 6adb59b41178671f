public import CBORCodec
public import COSECrypto
public import WebAuthnModel

/// The attestation type a format's verification procedure established (§6.5.4).
public enum AttestationType: String, Sendable, Codable, Hashable {
    case none
    case `self`
    /// Basic or AttCA: an attestation certificate chain (the two cannot be told apart without metadata).
    case basic
    case attestationCA = "attca"
    case anonymizationCA = "anonca"
}

/// What the relying party could establish about the attestation's trustworthiness (§7.1 steps 23–24).
public enum AttestationTrust: Sendable, Hashable {
    /// No attestation (`none`).
    case none
    /// Self attestation: the credential key signed its own attestation.
    case selfAttested
    /// A certificate chain that does not reach a configured trust anchor (reason for the logs).
    case untrusted(reason: String)
    /// A chain that reaches a configured trust anchor; the subject of that anchor.
    case trusted(anchorSubject: String)
}

/// Where the trust anchor that ended an attestation chain came from.
public enum TrustAnchorSource: String, Sendable, Hashable, Codable {
    /// The relying party's configured roots for the format.
    case configured
    /// The authenticator's FIDO metadata statement (`attestationRootCertificates`).
    case metadata
}

/// Everything registration established about the authenticator (§7.1 steps 21–24), to store with the
/// credential and show to administrators.
public struct AttestationVerdict: Sendable, Hashable {
    /// The attestation statement format (`fmt`).
    public let format: String
    /// The attestation type the format's procedure established.
    public let type: AttestationType
    /// The trust assessment.
    public let trust: AttestationTrust
    /// The authenticator's AAGUID (all zero for U2F and many platform authenticators).
    public let aaguid: AAGUID?
    /// The attestation trust path (x5c, DER, leaf first); empty for none/self.
    public let trustPath: [[UInt8]]
    /// Where the anchor of a trusted chain came from; nil unless the trust is `.trusted`.
    public let trustAnchorSource: TrustAnchorSource?
    /// `metadataStatement.description` from FIDO metadata, when the authenticator has an entry.
    public let authenticatorDescription: String?
    /// `metadataStatement.icon` (a `data:` URL) from FIDO metadata.
    public let authenticatorIcon: String?
    /// The statuses of the entry's status reports, in BLOB order (none refused by the policy, or registration
    /// would have failed).
    public let metadataStatuses: [AuthenticatorStatus]
}

/// A registration that passed every verification step. Only the engine creates these; storage accepts
/// nothing else, so an unverified response cannot reach the credential table.
public struct VerifiedRegistration: Sendable {
    public let credentialID: [UInt8]
    /// The COSE_Key bytes exactly as the authenticator sent them (the stored form).
    public let publicKey: [UInt8]
    public let algorithm: COSEAlgorithm
    public let signCount: UInt32
    /// 16 bytes; all zero for U2F authenticators and for `none` attestation from most platforms.
    public let aaguid: [UInt8]
    public let attestationFormat: String
    public let attestationType: AttestationType
    public let attestationTrust: AttestationTrust
    /// The attestation certificates (DER, leaf first), when the format has them.
    public let attestationCertificates: [[UInt8]]
    /// The attestation verdict: format, type, trust, AAGUID, trust path and what FIDO metadata says.
    public let attestationVerdict: AttestationVerdict
    public let userVerified: Bool
    public let backupEligible: Bool
    public let backupState: Bool
    /// Transports the client reported (`response.transports`), filtered to known values.
    public let transports: [String]
    public let user: UserEntity
    /// The raw attestation object and clientDataJSON, for audit and later re-verification.
    public let attestationObject: [UInt8]
    public let clientDataJSON: [UInt8]
    /// `credProps.rk` from the client extension results, if the client reported it.
    public let discoverable: Bool?
    public let authenticatorAttachment: String?
    public let authenticatorExtensions: CBORValue?
    /// The client extension results as sent. Storage keeps only the three flags below: never store or log the rest
    /// (a client may send PRF results or a large blob, the user's secrets).
    public let clientExtensionResults: [String: JSONValue]
    /// `.conditional` when this was an automatic upgrade (a conditional create, UP and UV may be 0).
    public let mediation: CredentialMediation?
    /// `prf.enabled` from the client extension results, if reported.
    public let prfEnabled: Bool?
    /// `largeBlob.supported` from the client extension results, if reported.
    public let largeBlobSupported: Bool?

    /// The record to store for later authentications.
    public var credentialRecord: CredentialRecord {
        CredentialRecord(
            id: credentialID, userHandle: user.id, publicKey: publicKey, signCount: signCount,
            backupEligible: backupEligible, backupState: backupState, uvInitialized: userVerified,
            transports: transports, attestationFormat: attestationFormat)
    }
}

/// A stored credential, as the relying party keeps it (§7.1 step 27).
public struct CredentialRecord: Sendable, Hashable {
    public var id: [UInt8]
    /// The owner's user handle.
    public var userHandle: [UInt8]
    /// COSE_Key bytes.
    public var publicKey: [UInt8]
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backupState: Bool
    public var uvInitialized: Bool
    public var transports: [String]
    public var attestationFormat: String

    public init(
        id: [UInt8], userHandle: [UInt8], publicKey: [UInt8], signCount: UInt32, backupEligible: Bool,
        backupState: Bool, uvInitialized: Bool, transports: [String], attestationFormat: String
    ) {
        self.id = id
        self.userHandle = userHandle
        self.publicKey = publicKey
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.uvInitialized = uvInitialized
        self.transports = transports
        self.attestationFormat = attestationFormat
    }
}

/// How the signature counter moved (§7.2 step 22).
public enum SignCountStatus: String, Sendable, Hashable {
    /// Both counters are zero: the authenticator does not count (normal for passkeys).
    case notSupported = "not_supported"
    /// The counter increased.
    case increased
    /// The counter did not increase: possible clone (only returned under `SignCountPolicy.reportOnly`).
    case regressed
}

/// The state change storage must apply after a successful assertion (§7.2 step 24).
public struct CredentialUpdate: Sendable, Hashable {
    public let credentialID: [UInt8]
    /// The new counter; never lower than the stored one. Apply it conditionally
    /// (`... WHERE sign_count < $new`) so concurrent finishes cannot move it backwards.
    public let signCount: UInt32
    public let backupState: Bool
    public let uvInitialized: Bool
    /// True (the normal case): write counter and backup state only while the stored counter is still below
    /// `signCount` (or both are zero: the authenticator has no counter); if a concurrent finish moved it first,
    /// the update is stale and the assertion must be refused (`sign_count_regressed`). False only for a regression
    /// accepted under ``SignCountPolicy/reportOnly``: record the use, leave counter and backup state alone.
    public let advancesCounter: Bool
}

/// An assertion that passed every verification step.
public struct VerifiedAuthentication: Sendable {
    public let credentialID: [UInt8]
    public let userHandle: [UInt8]
    public let userVerified: Bool
    public let backupEligible: Bool
    public let backupState: Bool
    /// True when BS differs from the stored value (a passkey was backed up or lost its backup).
    public let backupStateChanged: Bool
    public let signCount: UInt32
    public let signCountStatus: SignCountStatus
    public let authenticatorAttachment: String?
    public let authenticatorExtensions: CBORValue?
    public let clientExtensionResults: [String: JSONValue]
    /// What storage must write.
    public let update: CredentialUpdate
}
