public import COSECrypto

/// The user-verification requirement in W3C terms.
public enum UserVerificationRequirement: String, Sendable, Codable, Hashable {
    case required, preferred, discouraged
}

/// How the relying party treats user verification. Safe default: `.required`.
/// The weaker settings are spelled out as unsafe because they let a stolen unlocked device sign in.
public enum UserVerificationPolicy: Sendable, Hashable {
    /// Ask for UV and refuse any ceremony without the UV flag.
    case required
    /// Ask for UV ("preferred") but accept ceremonies without it; the result reports `userVerified`.
    case preferredUnsafe
    /// Ask authenticators not to verify ("discouraged"); accept either way.
    case discouragedUnsafe

    /// The value sent in options for this policy.
    var requirement: UserVerificationRequirement {
        switch self {
        case .required: .required
        case .preferredUnsafe: .preferred
        case .discouragedUnsafe: .discouraged
        }
    }

    /// The effective requirement when a caller asks for `requested` in one ceremony: never weaker than the policy.
    func effective(_ requested: UserVerificationRequirement?) -> UserVerificationRequirement {
        guard self != .required else { return .required }
        return requested ?? requirement
    }
}

/// Which credential algorithms the relying party asks for and accepts, in preference order.
public struct AlgorithmPolicy: Sendable, Hashable {
    /// The algorithms, most preferred first. They become `pubKeyCredParams`.
    public private(set) var algorithms: [COSEAlgorithm]

    /// ES256, EdDSA, RS256: what nearly every authenticator supports.
    public static let `default` = AlgorithmPolicy(checked: [.es256, .edDSA, .rs256])

    /// Every algorithm the engine implements except RS1.
    public static let allModern = AlgorithmPolicy(checked: [
        .es256, .esp256, .edDSA, .ed25519, .es384, .esp384, .es512, .esp512, .ed448,
        .ps256, .ps384, .ps512, .rs256, .rs384, .rs512,
    ])

    /// A custom list. RS1 (RSASSA-PKCS1-v1_5 with SHA-1) is dropped here; use ``unsafeIncludingRS1(_:)`` for it.
    public init(_ algorithms: [COSEAlgorithm]) {
        self.algorithms = algorithms.filter { $0 != .rs1 }
    }

    private init(checked algorithms: [COSEAlgorithm]) { self.algorithms = algorithms }

    /// A list that may contain RS1, whose SHA-1 signatures are forgeable in principle. Needed only for old
    /// Windows Hello TPMs and the FIDO conformance suite.
    public static func unsafeIncludingRS1(_ algorithms: [COSEAlgorithm]) -> AlgorithmPolicy {
        AlgorithmPolicy(checked: algorithms)
    }
}

/// What the relying party does when an authenticator's signature counter does not increase.
public enum SignCountPolicy: Sendable, Hashable {
    /// Refuse the assertion (`sign_count_regressed`) and leave the stored counter unchanged. Default.
    case reject
    /// Accept the assertion but report `.regressed` in the result (the stored counter is still never lowered).
    case reportOnly
}

/// Which attestations registration accepts, and which roots it trusts.
public struct AttestationPolicy: Sendable {
    /// How much trust registration demands.
    public enum Requirement: Sendable, Hashable {
        /// Accept `none`, self attestation and chains that do not reach a trust anchor; record what was proven.
        case anyVerified
        /// Accept only attestations whose certificate chain reaches a configured trust anchor.
        case trustedRequired
        /// Accept self attestation and chains that reach a trust anchor; refuse `none` and chains that reach
        /// no anchor. Proves the authenticator holds the credential key and signed this very authenticator data,
        /// without requiring a vendor PKI.
        case selfOrTrusted
        /// Accept `none` and self attestation (recorded as such: they prove nothing about the authenticator's make)
        /// and chains that reach a trust anchor; refuse chains that reach no anchor (§7.1 step 24: an attestation
        /// that verified but is not trustworthy "SHOULD fail"). What the FIDO conformance tools expect.
        case trustedChains

        /// Whether a `none` attestation is refused.
        var refusesNone: Bool { self == .selfOrTrusted || self == .trustedRequired }

        /// The requirement for a configuration value.
        /// - Parameter configurationName: `"none"` or `"any-verified"`, `"trusted-chains"`, `"self-ok"`,
        ///   `"trusted-required"` (case-sensitive).
        /// - Returns: nil for any other value.
        public init?(configurationName: String) {
            switch configurationName {
            case "none", "any-verified": self = .anyVerified
            case "self-ok": self = .selfOrTrusted
            case "trusted-required": self = .trustedRequired
            case "trusted-chains": self = .trustedChains
            default: return nil
            }
        }

        /// The canonical configuration name (`any-verified`, `trusted-chains`, `self-ok`, `trusted-required`).
        public var configurationName: String {
            switch self {
            case .anyVerified: "any-verified"
            case .selfOrTrusted: "self-ok"
            case .trustedRequired: "trusted-required"
            case .trustedChains: "trusted-chains"
            }
        }
    }

    public var requirement: Requirement
    /// Trust anchors by attestation format identifier (`"packed"`, `"fido-u2f"`, ...).
    public var trustAnchors: [String: TrustAnchors]
    /// Trust anchors' last certificate in `x5c` as a partial chain (FIDO conformance test data). Unsafe.
    public var trustLastCertificateUnsafe: Bool = false
    /// Which attestation conveyance to ask for in creation options.
    public var conveyance: String

    // MARK: safetynet / metadata / policy (issue 4)
    /// When set, only authenticators whose AAGUID is listed may register (checked at §7.1 step 24). An AAGUID is
    /// only as trustworthy as the attestation vouching for it: pair an allow-list with `.trustedRequired`.
    public var aaguidAllowList: Set<AAGUID>? = nil
    /// Authenticators whose AAGUID is listed are refused (`aaguid_denied`), whatever the attestation.
    public var aaguidDenyList: Set<AAGUID> = []
    /// FIDO Metadata status reports that make registration fail (`authenticator_status_refused`) when any report
    /// of the authenticator's metadata entry has one of them.
    public var refusedStatuses: Set<AuthenticatorStatus> = AuthenticatorStatus.defaultRefused
    /// A verified FIDO Metadata Service BLOB: its statements' attestationRootCertificates become trust anchors for
    /// their authenticator, their status reports are checked, their description/icon go into the verdict.
    public var metadata: MetadataIndex? = nil
    /// android-safetynet options (ctsProfileMatch, timestamp window).
    public var safetyNet: SafetyNetPolicy = SafetyNetPolicy()

    /// Accept any attestation that verifies; ask for none. The default for a consumer passkey service.
    public static let `default` = AttestationPolicy(requirement: .anyVerified, trustAnchors: [:], conveyance: "none")

    public init(requirement: Requirement, trustAnchors: [String: TrustAnchors], conveyance: String = "direct") {
        self.requirement = requirement
        self.trustAnchors = trustAnchors
        self.conveyance = conveyance
    }

    // MARK: tpm / android-key / apple options (issue 4). Safe defaults; the `Unsafe` ones weaken verification.

    /// tpm: also accept the TPM manufacturer ids used by test TPMs, which are not in the TCG vendor ID registry:
    /// `id:FFFFF1D0` (FIDO conformance tools, fido2-net-lib) and `id:00000000` (the W3C spec's test vectors,
    /// java-webauthn-server's test authenticator). Never for production: anyone can mint such a certificate.
    public var allowTestTPMManufacturersUnsafe: Bool = false
    /// android-key: check origin/purpose in the union of `teeEnforced` and `softwareEnforced` (§8.4 "otherwise use
    /// the union") instead of `teeEnforced` only, i.e. accept keys that never lived in a TEE or StrongBox.
    public var androidKeyAllowSoftwareEnforcedUnsafe: Bool = false
}

/// What the relying party demands of backup eligibility (BE) at registration.
public enum BackupEligibilityPolicy: Sendable, Hashable {
    /// Accept single-device and multi-device credentials. Default.
    case any
    /// Only device-bound credentials (BE clear), e.g. for high-assurance accounts.
    case requireDeviceBound
    /// Only synced passkeys (BE set).
    case requireBackupEligible
}

/// Cross-origin (iframe) ceremonies, §7.1 steps 10–11. Default: refused.
public enum CrossOriginPolicy: Sendable, Hashable {
    /// Refuse `crossOrigin: true` and any `topOrigin`.
    case reject
    /// Allow embedding in the listed top-level origins only.
    case allow(topOrigins: Set<String>)
}
