public import WebAuthnModel

/// A JWS in compact serialization (RFC 7515 §7.1), parsed but not verified.
///
/// Parsing checks structure only: the size cap, three parts of strict base64url, a protected header that is one JSON
/// object (duplicate members refused, as everywhere in passkeyd) with a string `alg`, a string `kid` if any, and no
/// `crit`. Nothing in it is trusted until ``JWSVerifier`` has checked the signature. Headers that name keys by
/// reference (`jku`, `jwk`, `x5u`) are never used to find a key: keys come from the caller.
public struct CompactJWS: Sendable {
    /// The header's `alg`, as written (it may name an algorithm nobody allows, e.g. `none`).
    public let algorithmName: String
    /// The header's `kid`.
    public let keyID: String?
    /// The header's `typ`.
    public let type: String?
    /// The whole protected header.
    public let header: [String: JSONValue]
    /// The decoded payload bytes.
    public let payload: [UInt8]
    /// `ASCII(BASE64URL(header) ‖ '.' ‖ BASE64URL(payload))`, the bytes the signature covers.
    public let signingInput: [UInt8]
    /// The decoded signature bytes.
    public let signature: [UInt8]

    /// Parses a compact JWS.
    /// - Parameters:
    ///   - compact: `header.payload.signature`, each base64url without padding.
    ///   - maxLength: the largest accepted serialization in bytes.
    /// - Throws: ``JOSEError/Code/tooLarge``, ``JOSEError/Code/malformed``, ``JOSEError/Code/criticalHeader``.
    public init(compact: some Collection<UInt8>, maxLength: Int) throws(JOSEError) {
        guard compact.count <= maxLength else {
            throw JOSEError(.tooLarge, "JWS of \(compact.count) bytes exceeds \(maxLength)")
        }
        let bytes = Array(compact)
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw JOSEError(.malformed, "compact JWS has \(parts.count) parts, not 3")
        }
        func decode(_ part: ArraySlice<UInt8>, _ what: String) throws(JOSEError) -> [UInt8] {
            guard let text = String(validating: part, as: UTF8.self), let decoded = Base64URL.decodeStrict(text) else {
                throw JOSEError(.malformed, "JWS \(what) is not base64url")
            }
            return decoded
        }
        let headerBytes = try decode(parts[0], "header")
        payload = try decode(parts[1], "payload")
        signature = try decode(parts[2], "signature")
        signingInput = Array(bytes[bytes.startIndex..<parts[1].endIndex])

        let headerValue: JSONValue
        do {
            headerValue = try JSONReader.parse(headerBytes, maxDepth: 8)
        } catch {
            throw JOSEError(.malformed, "JWS header: \(error)")
        }
        guard case .object(let members) = headerValue else {
            throw JOSEError(.malformed, "JWS header is not a JSON object")
        }
        // RFC 7515 §4.1.11: a recipient MUST reject a JWS with critical extensions it does not understand; this module
        // understands none, and an empty `crit` is itself invalid.
        if members["crit"] != nil {
            throw JOSEError(.criticalHeader, "JWS header has crit \(members["crit"].map { "\($0)" } ?? "")")
        }
        guard case .string(let alg)? = members["alg"] else {
            throw JOSEError(.malformed, "JWS header has no string alg")
        }
        switch members["kid"] {
        case nil: keyID = nil
        case .string(let kid)?: keyID = kid
        default: throw JOSEError(.malformed, "JWS header kid is not a string")
        }
        switch members["typ"] {
        case nil: type = nil
        case .string(let typ)?: type = typ
        default: throw JOSEError(.malformed, "JWS header typ is not a string")
        }
        algorithmName = alg
        header = members
    }

    /// The header's `alg` if this module knows it (`nil` for `none` and anything unknown).
    public var algorithm: JWSAlgorithm? { JWSAlgorithm(rawValue: algorithmName) }

    /// The header's `x5c` entries (standard base64 DER, leaf first), or `nil` when absent.
    /// - Throws: ``JOSEError/Code/malformed`` if `x5c` is not an array of strings.
    public func certificateChain() throws(JOSEError) -> [String]? {
        guard let value = header["x5c"] else { return nil }
        guard case .array(let entries) = value else { throw JOSEError(.malformed, "JWS header x5c is not an array") }
        var chain: [String] = []
        chain.reserveCapacity(entries.count)
        for entry in entries {
            guard case .string(let text) = entry else { throw JOSEError(.malformed, "JWS header x5c entry is not a string") }
            chain.append(text)
        }
        return chain
    }
}
