public import COSECrypto

/// An App Store environment as the signed payloads name it.
public enum AppStoreEnvironment: String, Sendable, Hashable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    /// StoreKit Testing in Xcode: signed by a self-signed certificate on the developer's Mac, proves nothing.
    case xcode = "Xcode"
    /// Apple's libraries' local testing mode: no signature checks at all.
    case localTesting = "LocalTesting"

    /// Whether data of this environment is signed by Apple (Production, Sandbox) rather than by a local tool.
    public var isAppleSigned: Bool { self == .production || self == .sandbox }
}

/// What signed App Store data must be to be accepted: a value with safe defaults (Production only; Xcode and
/// LocalTesting data refused).
public struct AppStorePolicy: Sendable {
    /// The only certificates a chain may end at (Apple Root CA - G3 in production). `x5c[2]` is never trusted.
    public var roots: TrustAnchors
    /// The app's bundle id.
    public var bundleID: String
    /// The app's Apple ID (App Store Connect), checked on notifications while Production is accepted.
    public var appAppleID: Int64?
    /// The environments accepted. Production only by default; add Sandbox for App Review and TestFlight.
    public var environments: Set<AppStoreEnvironment>
    /// When set, transactions of other products are refused (``AppStoreError/Code/productUnknown``).
    public var productIDs: Set<String>?
    /// Largest accepted compact JWS, in bytes (a notification carries two more JWS inside).
    public var maxJWSBytes: Int = 64 * 1024

    /// Creates a policy.
    /// - Parameters:
    ///   - roots: the trust anchors.
    ///   - bundleID: the app's bundle id.
    ///   - appAppleID: the app's Apple ID (required to accept Production notifications).
    ///   - environments: accepted environments (Production only unless given).
    ///   - productIDs: an optional allow-list of product ids.
    public init(
        roots: TrustAnchors, bundleID: String, appAppleID: Int64? = nil,
        environments: Set<AppStoreEnvironment> = [.production], productIDs: Set<String>? = nil
    ) {
        self.roots = roots
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.environments = environments
        self.productIDs = productIDs
    }

    /// Whether data claiming Xcode or LocalTesting is decoded without an Apple signature. Never in production: such
    /// data can be made by anyone. Only ``unsafeAllowingLocalEnvironments()`` turns it on.
    public private(set) var acceptsUnsignedLocalEnvironments = false

    /// This policy, also accepting Xcode and LocalTesting data whose signature is not Apple's (development only).
    public func unsafeAllowingLocalEnvironments() -> AppStorePolicy {
        var copy = self
        copy.acceptsUnsignedLocalEnvironments = true
        copy.environments.formUnion([.xcode, .localTesting])
        return copy
    }
}

/// The OIDs Apple's libraries require on the chain.
public enum AppStoreOID {
    /// On the leaf: Mac App Store and iTunes Store Receipt Signing.
    public static let leaf = "1.2.840.113635.100.6.11.1"
    /// On the intermediate: Apple Worldwide Developer Relations.
    public static let intermediate = "1.2.840.113635.100.6.2.1"
}
