public import COSECrypto
public import Foundation

/// Everything the engine needs to know about one relying party: identity, origins and the policies of both
/// ceremonies. A value with safe defaults; anything weaker is named unsafe.
public struct RelyingParty: Sendable {
    /// The RP ID (a registrable domain suffix of the origins), e.g. `"example.com"`.
    public let id: String
    /// Human-readable name shown by authenticators.
    public var name: String
    /// Exact origins accepted in `clientData.origin`: web origins (`https://example.com`) and native-app
    /// origins (`android:apk-key-hash:…`, `ios:bundle-id:…`). No suffix or subdomain matching.
    public var allowedOrigins: Set<String>
    /// Cross-origin iframe policy.
    public var crossOrigin: CrossOriginPolicy = .reject
    public var userVerification: UserVerificationPolicy = .required
    public var algorithms: AlgorithmPolicy = .default
    public var attestation: AttestationPolicy = .default
    public var backupEligibility: BackupEligibilityPolicy = .any
    public var signCount: SignCountPolicy = .reject
    public var keyPolicy: COSEKeyPolicy = .default
    /// How long a challenge lives (W3C recommends 300 s – 600 s; the default is 300 s).
    public var challengeTimeout: Duration = .seconds(300)
    /// Resident key preference sent in creation options: `"required"`, `"preferred"` or `"discouraged"`.
    public var residentKey: String = "preferred"
    /// The legacy U2F AppID (`appid` extension) to offer in authentication, for credentials registered through U2F.
    public var legacyAppID: String?
    /// When set, an assertion with the UP flag clear is accepted. The FIDO conformance suite expects this;
    /// W3C §7.2 forbids it.
    public var allowMissingUserPresenceUnsafe: Bool = false
    /// Whether a registration may be begun with `mediation: "conditional"` (an automatic passkey upgrade, §7.1 step
    /// 15's exception): its finish accepts UP=0 and UV=0 for that ceremony only. On by default: the ceremony is only
    /// ever begun for a user the caller has already signed in, and the credential records that UV is not
    /// established.
    public var conditionalCreate: Bool = true

    /// SHA-256 of the RP ID, computed once.
    public let rpIDHash: [UInt8]

    /// Creates a relying party with safe defaults.
    /// - Parameters:
    ///   - id: the RP ID.
    ///   - name: the display name.
    ///   - allowedOrigins: exact origins accepted in client data.
    public init(id: String, name: String, allowedOrigins: Set<String>) {
        self.id = id
        self.name = name
        self.allowedOrigins = allowedOrigins
        self.rpIDHash = Digest.sha256(Array(id.utf8))
    }

    /// The timeout in whole milliseconds (sub-millisecond parts dropped).
    var timeoutMilliseconds: Int {
        let (seconds, attoseconds) = challengeTimeout.components
        return Int(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    func expiry(from now: Date) -> Date {
        let (seconds, attoseconds) = challengeTimeout.components
        return now.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }
}

/// Where challenges come from. Injected so tests are deterministic; the default is OpenSSL's CSPRNG.
public protocol ChallengeSource: Sendable {
    /// Returns `count` unpredictable bytes.
    func bytes(count: Int) -> [UInt8]
}

/// The production challenge source: OpenSSL `RAND_bytes`.
public struct SystemChallengeSource: ChallengeSource {
    public init() {}
    public func bytes(count: Int) -> [UInt8] { SecureRandom.bytes(count: count) }
}
