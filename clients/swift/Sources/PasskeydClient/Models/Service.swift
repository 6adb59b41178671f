// The service's probes and public documents.

public struct Health: Sendable, Codable, Equatable {
    /// `ok`.
    public var status: String
}

public struct Readiness: Sendable, Codable, Equatable {
    /// `ready` (not ready is a 503 ``PasskeydError``).
    public var status: String
}

/// One statement of `/.well-known/assetlinks.json` (Digital Asset Links): an Android app that may use the passkeys.
public struct AssetLink: Sendable, Codable, Equatable {
    public var relation: [String]
    public var target: Target

    public struct Target: Sendable, Codable, Equatable {
        /// `android_app`.
        public var namespace: String
        public var packageName: String
        public var sha256CertFingerprints: [String]

        enum CodingKeys: String, CodingKey {
            case namespace
            case packageName = "package_name"
            case sha256CertFingerprints = "sha256_cert_fingerprints"
        }
    }
}

/// `/.well-known/webauthn`: the related origins (WebAuthn Level 3 §5.11).
public struct RelatedOrigins: Sendable, Codable, Equatable {
    public var origins: [String]
}
