/// Resource limits applied while decoding untrusted CBOR.
///
/// Every limit is enforced by the Swift side while streaming, before any memory is
/// set aside for the item concerned.
public struct CBORLimits: Sendable, Hashable {
    /// Maximum total input length in bytes (checked before decoding starts).
    public var maxInputBytes: Int
    /// Maximum nesting of arrays, maps and tags (a top-level array has depth 1). Decoding itself
    /// is not recursive, but comparing and releasing a ``CBORValue`` is, so keep this small.
    public var maxDepth: Int
    /// Maximum number of data items in the input. Every item counts, including containers,
    /// tags and each chunk of an indefinite-length string.
    public var maxItems: Int
    /// Maximum length in bytes of one byte or text string, after joining indefinite-length chunks.
    public var maxStringBytes: Int
    /// Whether indefinite-length strings, arrays and maps are accepted.
    public var allowIndefiniteLength: Bool
    /// Whether integers, lengths, counts and tag numbers must use their shortest encoding
    /// (CTAP2 canonical form, used for COSE keys).
    public var requireMinimalIntegers: Bool

    /// Creates limits; every parameter has the default of ``default``.
    /// - Parameters:
    ///   - maxInputBytes: Maximum input length (default 1 MiB).
    ///   - maxDepth: Maximum nesting of arrays/maps/tags (default 16).
    ///   - maxItems: Maximum number of data items (default 8192).
    ///   - maxStringBytes: Maximum length of one string (default 64 KiB).
    ///   - allowIndefiniteLength: Accept indefinite-length items (default `true`).
    ///   - requireMinimalIntegers: Reject non-shortest integer/length encodings (default `false`).
    public init(
        maxInputBytes: Int = 1 << 20,
        maxDepth: Int = 16,
        maxItems: Int = 8192,
        maxStringBytes: Int = 1 << 16,
        allowIndefiniteLength: Bool = true,
        requireMinimalIntegers: Bool = false
    ) {
        self.maxInputBytes = maxInputBytes
        self.maxDepth = maxDepth
        self.maxItems = maxItems
        self.maxStringBytes = maxStringBytes
        self.allowIndefiniteLength = allowIndefiniteLength
        self.requireMinimalIntegers = requireMinimalIntegers
    }

    /// The default limits, sized for WebAuthn attestation objects.
    public static let `default` = CBORLimits()

    /// Limits for a COSE public key (RFC 9052 §7, as embedded in authenticator data): CTAP2
    /// canonical integers and lengths, definite lengths only, depth ≤ 4, ≤ 64 items and ≤ 4 KiB
    /// per string (enough for an RSA-16384 modulus). Map key order is not checked.
    public static let coseKey = CBORLimits(
        maxDepth: 4,
        maxItems: 64,
        maxStringBytes: 4096,
        allowIndefiniteLength: false,
        requireMinimalIntegers: true
    )
}
