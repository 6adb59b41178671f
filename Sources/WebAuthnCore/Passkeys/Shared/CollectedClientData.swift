public import WebAuthnModel
import COSECrypto

/// `CollectedClientData` (§5.8.1), parsed from clientDataJSON. Unknown members are ignored.
public struct CollectedClientData: Sendable {
    public let type: String
    /// The challenge as it appears (base64url text).
    public let challenge: String
    public let origin: String
    public let crossOrigin: Bool?
    public let topOrigin: String?
    /// `tokenBinding` as sent (Level 2 clients; removed in Level 3).
    public let tokenBinding: JSONValue?

    /// Parses clientDataJSON (UTF-8, a leading BOM is stripped, §7.1 step 5). Unknown members are ignored;
    /// duplicate members are refused so no two parsers can read different origins from one document.
    /// - Throws: `malformedClientData`.
    public init(json bytes: [UInt8]) throws(WebAuthnError) {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let parsed: JSONValue
        do {
            parsed = try JSONReader.parse(body, maxDepth: 8)
        } catch {
            throw WebAuthnError(.malformedClientData, "clientDataJSON: \(error)")
        }
        guard case .object(let members) = parsed else {
            throw WebAuthnError(.malformedClientData, "clientDataJSON is not an object")
        }
        func string(_ key: String) throws(WebAuthnError) -> String {
            guard case .string(let value)? = members[key] else {
                throw WebAuthnError(.malformedClientData, "\(key) is missing or not a string")
            }
            return value
        }
        type = try string("type")
        challenge = try string("challenge")
        origin = try string("origin")
        switch members["crossOrigin"] {
        case nil: crossOrigin = nil
        case .bool(let value)?: crossOrigin = value
        default: throw WebAuthnError(.malformedClientData, "crossOrigin is not a boolean")
        }
        switch members["topOrigin"] {
        case nil: topOrigin = nil
        case .string(let value)?: topOrigin = value
        default: throw WebAuthnError(.malformedClientData, "topOrigin is not a string")
        }
        tokenBinding = members["tokenBinding"]
    }

    /// The challenge bytes, when the challenge member is valid base64url.
    public var challengeBytes: [UInt8]? { Base64URL.decodeStrict(challenge) }
}

/// The client-data checks shared by both ceremonies, one function per W3C step so each has its own error.
enum ClientDataChecks {
    /// Runs the client-data steps in spec order: §7.1 steps 7–11 / §7.2 steps 10–14, then Level 2's tokenBinding.
    static func verify(
        _ data: CollectedClientData, type: String, challenge: [UInt8], rp: RelyingParty
    ) throws(WebAuthnError) {
        // "Verify that the value of C.type is webauthn.create / webauthn.get."
        try checkType(data, expected: type)
        // "Verify that the value of C.challenge equals the base64url encoding of pkOptions.challenge."
        try checkChallenge(data, expected: challenge)
        // "Verify that the value of C.origin is an origin expected by the Relying Party."
        try checkOrigin(data, rp: rp)
        // "If C.crossOrigin is present and set to true, verify that the Relying Party expects ... an iframe that is
        // not same-origin with its ancestors."
        try checkCrossOrigin(data, rp: rp)
        // "If C.topOrigin is present: verify that the Relying Party expects ... and C.topOrigin matches an origin ..."
        try checkTopOrigin(data, rp: rp)
        try checkTokenBinding(data)
    }

    /// §7.1 step 7 / §7.2 step 10.
    static func checkType(_ data: CollectedClientData, expected: String) throws(WebAuthnError) {
        guard data.type == expected else {
            throw WebAuthnError(.clientDataTypeMismatch, "type is \(data.type.debugDescription), expected \(expected)")
        }
    }

    /// §7.1 step 8 / §7.2 step 11: constant-time comparison of the challenge bytes.
    static func checkChallenge(_ data: CollectedClientData, expected: [UInt8]) throws(WebAuthnError) {
        guard let received = data.challengeBytes, constantTimeEquals(received, expected) else {
            throw WebAuthnError(.challengeMismatch, "challenge does not match this ceremony")
        }
    }

    /// §7.1 step 9 / §7.2 step 12: exact match against the allowed origins.
    static func checkOrigin(_ data: CollectedClientData, rp: RelyingParty) throws(WebAuthnError) {
        guard rp.allowedOrigins.contains(data.origin) else {
            throw WebAuthnError(.originNotAllowed, "origin \(data.origin.debugDescription) is not allowed")
        }
    }

    /// §7.1 step 10 / §7.2 step 13.
    static func checkCrossOrigin(_ data: CollectedClientData, rp: RelyingParty) throws(WebAuthnError) {
        guard data.crossOrigin == true else { return }
        guard case .allow = rp.crossOrigin else {
            throw WebAuthnError(.crossOriginNotAllowed, "crossOrigin is true")
        }
    }

    /// §7.1 step 11 / §7.2 step 14.
    static func checkTopOrigin(_ data: CollectedClientData, rp: RelyingParty) throws(WebAuthnError) {
        guard let topOrigin = data.topOrigin else { return }
        guard case .allow(let topOrigins) = rp.crossOrigin, topOrigins.contains(topOrigin) else {
            throw WebAuthnError(.topOriginNotAllowed, "topOrigin \(topOrigin.debugDescription) is not allowed")
        }
    }

    /// Level 2 step "tokenBinding": when it is an object its status must be a known value; `present` claims a
    /// TLS token binding this server does not terminate, so it is refused. Non-object values (old Chrome sent
    /// the string "unused") are ignored, as Level 3 no longer defines the member.
    static func checkTokenBinding(_ data: CollectedClientData) throws(WebAuthnError) {
        guard let tokenBinding = data.tokenBinding, case .object = tokenBinding else { return }
        switch tokenBinding["status"]?.stringValue {
        case "supported": return
        case "present": throw WebAuthnError(.tokenBindingInvalid, "token binding present but not supported by this server")
        case let other: throw WebAuthnError(.tokenBindingInvalid, "tokenBinding.status \(String(describing: other))")
        }
    }
}
