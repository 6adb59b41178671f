public import COSECrypto

/// The App Attest environment a key was attested in, read from the attestation's AAGUID.
public enum AppAttestEnvironment: String, Sendable, Hashable, CaseIterable, Codable {
    /// AAGUID `appattest` followed by seven 0x00 bytes: an App Store / TestFlight build.
    case production
    /// AAGUID `appattestdevelop`: a development build (refused unless allowed).
    case development

    /// The 16-byte AAGUID that names this environment.
    public var aaguid: [UInt8] {
        switch self {
        case .production: Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
        case .development: Array("appattestdevelop".utf8)
        }
    }

    /// The environment an AAGUID names; nil for any other value.
    public init?(aaguid: [UInt8]) {
        guard let match = Self.allCases.first(where: { $0.aaguid == aaguid }) else { return nil }
        self = match
    }
}

/// One app allowed to attest keys: its App ID `teamId.bundleId` (the rpId App Attest hashes into authData).
public struct AppAttestApp: Sendable, Hashable {
    /// `TEAMID.bundle.id`, e.g. `1234567890.com.example.myapp`.
    public let appID: String

    /// Creates an app from its App ID.
    /// - Returns: nil unless the value is a ten-character alphanumeric team id, a dot and a non-empty bundle id of
    ///   letters, digits, `.` and `-` (Apple's bundle identifier alphabet).
    public init?(appID: String) {
        let parts = appID.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
              !parts[1].isEmpty, parts[1].count <= 255,
              parts[1].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") })
        else { return nil }
        self.appID = appID
    }

    /// Creates an app from its parts.
    public init?(teamID: String, bundleID: String) { self.init(appID: "\(teamID).\(bundleID)") }

    /// SHA-256 of the App ID: the rpIdHash of its keys' authenticator data.
    public var rpIDHash: [UInt8] { Digest.sha256(Array(appID.utf8)) }
}

/// What attestations are checked against: the apps, the environments and the root. A value; nothing is read from
/// disk or from the clock here.
public struct AppAttestConfiguration: Sendable {
    /// The apps whose keys may be attested.
    public var apps: [AppAttestApp]
    /// The environments accepted (production only unless development is explicitly allowed).
    public var environments: Set<AppAttestEnvironment>
    /// The trust anchor(s): Apple App Attestation Root CA in production, a test root in tests. Never `x5c`'s own.
    public var roots: TrustAnchors

    /// Creates a configuration.
    /// - Parameters:
    ///   - apps: the allowed apps.
    ///   - allowDevelopment: also accept keys from development builds (`appattestdevelop`).
    ///   - roots: the trust anchors.
    public init(apps: [AppAttestApp], allowDevelopment: Bool = false, roots: TrustAnchors) {
        self.apps = apps
        self.environments = allowDevelopment ? [.production, .development] : [.production]
        self.roots = roots
    }

    /// The configured app whose rpIdHash this is.
    func app(rpIDHash: some Collection<UInt8>) -> AppAttestApp? {
        apps.first { constantTimeEquals($0.rpIDHash, rpIDHash) }
    }
}
