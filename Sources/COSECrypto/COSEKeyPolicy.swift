/// Limits applied when importing public keys (COSE, SPKI).
///
/// The default follows RFC 8230 §6.1 (RSA moduli of at least 2048 bits) and caps the modulus at 8192 bits so a
/// client cannot make verification arbitrarily expensive. ``minimumRSAModulusBits`` below 2048 only takes effect in a
/// policy made by ``unsafeAllowingSmallRSAKeys(minimumBits:)``; otherwise 2048 stays the floor, whatever is assigned.
public struct COSEKeyPolicy: Sendable, Hashable {
    /// The smallest accepted RSA modulus, in bits (default 2048). See the type's note on values below 2048.
    public var minimumRSAModulusBits: Int = 2048
    /// The largest accepted RSA modulus, in bits (default 8192).
    public var maximumRSAModulusBits: Int = 8192
    /// Set only by ``unsafeAllowingSmallRSAKeys(minimumBits:)``.
    private var allowsSmallRSAKeys = false

    /// The safe default policy (2048...8192-bit RSA).
    public static let `default` = COSEKeyPolicy()

    /// The default policy: 2048...8192-bit RSA.
    public init() {}

    /// A policy that accepts RSA moduli down to `minimumBits`, e.g. for old attestation certificates or test
    /// vectors. Unsafe: RFC 8230 requires at least 2048 bits.
    /// - Parameter minimumBits: The smallest accepted modulus size in bits.
    public static func unsafeAllowingSmallRSAKeys(minimumBits: Int) -> COSEKeyPolicy {
        var policy = COSEKeyPolicy()
        policy.minimumRSAModulusBits = minimumBits
        policy.allowsSmallRSAKeys = true
        return policy
    }

    /// For keys this process generated or loaded from its own fixtures: any RSA size OpenSSL can handle.
    internal static let ownKeys: COSEKeyPolicy = {
        var policy = COSEKeyPolicy.unsafeAllowingSmallRSAKeys(minimumBits: 0)
        policy.maximumRSAModulusBits = 16384
        return policy
    }()

    /// The minimum that is actually enforced.
    internal var effectiveMinimumRSAModulusBits: Int {
        allowsSmallRSAKeys ? minimumRSAModulusBits : max(minimumRSAModulusBits, 2048)
    }
}
