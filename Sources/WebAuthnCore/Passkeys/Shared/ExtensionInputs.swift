public import WebAuthnModel

/// Limits on the client extension inputs a begin passes through.
public struct ExtensionLimits: Sendable, Hashable {
    /// Largest PRF salt (`eval.first`, `eval.second`, and each of `evalByCredential`'s), in bytes.
    public var prfSaltMaxBytes = 64
    /// Most entries in `prf.evalByCredential`.
    public var prfCredentialsMax = 64
    /// Largest `largeBlob.write`, in bytes (`PASSKEYD_LARGE_BLOB_MAX_BYTES`).
    public var largeBlobMaxBytes = 4096

    public init() {}

    public static let `default` = ExtensionLimits()
}

/// The client extension inputs passkeyd passes through to the options, validated: `credProps` (registration),
/// `prf` and `largeBlob` (both ceremonies, with the members each ceremony allows, WebAuthn L3 §10.1.4 and §10.1.5),
/// and CTAP's registration extensions `credentialProtectionPolicy` with `enforceCredentialProtectionPolicy`
/// (credProtect) and `minPinLength`. Anything else is `extension_unsupported`; a malformed input, or one of another
/// ceremony, is `extension_input_invalid`. Pure; the begin endpoints call it before any I/O.
public enum ExtensionInputs {
    /// Which ceremony the inputs are for.
    public enum Ceremony: Sendable { case registration, authentication }

    /// Returns `inputs` unchanged when every one is known and well-formed for `ceremony`.
    public static func validated(
        _ inputs: [String: JSONValue], for ceremony: Ceremony, limits: ExtensionLimits = .default
    ) throws(WebAuthnError) -> [String: JSONValue] {
        for (name, value) in inputs {
            switch name {
            case "credProps", "minPinLength":
                guard ceremony == .registration else { throw invalid("\(name) is a registration extension") }
                guard value == .bool(true) else { throw invalid("\(name) must be true") }
            case "credentialProtectionPolicy":
                guard ceremony == .registration else { throw invalid("\(name) is a registration extension") }
                guard case .string(let policy) = value, Self.credentialProtectionPolicies.contains(policy) else {
                    throw invalid("credentialProtectionPolicy must be one of \(Self.credentialProtectionPolicies.sorted())")
                }
            case "enforceCredentialProtectionPolicy":
                guard ceremony == .registration else { throw invalid("\(name) is a registration extension") }
                guard value.boolValue != nil else { throw invalid("enforceCredentialProtectionPolicy must be a boolean") }
            case "prf":
                try prf(value, ceremony, limits)
            case "largeBlob":
                try largeBlob(value, ceremony, limits)
            default:
                throw WebAuthnError(.extensionUnsupported, "extension \(name.debugDescription) is not passed through")
            }
        }
        return inputs
    }

    private static func invalid(_ reason: String) -> WebAuthnError { WebAuthnError(.extensionInputInvalid, reason) }

    static let credentialProtectionPolicies: Set<String> = [
        "userVerificationOptional", "userVerificationOptionalWithCredentialIDList", "userVerificationRequired",
    ]

    /// `inputs` with `prf.evalByCredential` cut to the entries whose key is one of `allowed` (§10.1.4: the client
    /// refuses a key outside allowCredentials, and any key when allowCredentials is empty: a discoverable request keeps
    /// an empty `evalByCredential`).
    static func restrictingEvalByCredential(_ inputs: [String: JSONValue], to allowed: [[UInt8]]) -> [String: JSONValue] {
        guard case .object(var prf)? = inputs["prf"], case .object(let entries)? = prf["evalByCredential"] else { return inputs }
        let ids = Set(allowed)
        prf["evalByCredential"] = .object(entries.filter { key, _ in Base64URL.decodeStrict(key).map(ids.contains) ?? false })
        var restricted = inputs
        restricted["prf"] = .object(prf)
        return restricted
    }

    private static func object(_ value: JSONValue, _ name: String, allowed: Set<String>) throws(WebAuthnError) -> [String: JSONValue] {
        guard case .object(let members) = value else { throw invalid("\(name) must be an object") }
        for key in members.keys where !allowed.contains(key) {
            throw invalid("\(name).\(key) is not allowed here")
        }
        return members
    }

    /// base64url bytes of 1...`maximum` bytes.
    private static func bytes(_ value: JSONValue?, _ name: String, maximum: Int) throws(WebAuthnError) {
        guard case .string(let text)? = value, let decoded = Base64URL.decodeStrict(text) else {
            throw invalid("\(name) must be base64url")
        }
        guard (1...maximum).contains(decoded.count) else { throw invalid("\(name) must be 1-\(maximum) bytes") }
    }

    /// `{first, second?}` (AuthenticationExtensionsPRFValues).
    private static func salts(_ value: JSONValue, _ name: String, _ limits: ExtensionLimits) throws(WebAuthnError) {
        let members = try object(value, name, allowed: ["first", "second"])
        try bytes(members["first"], name + ".first", maximum: limits.prfSaltMaxBytes)
        if let second = members["second"] { try bytes(second, name + ".second", maximum: limits.prfSaltMaxBytes) }
    }

    /// §10.1.4: `eval` in both ceremonies; `evalByCredential` only in `get()` (create() refuses it), keyed by
    /// base64url credential ids.
    private static func prf(_ value: JSONValue, _ ceremony: Ceremony, _ limits: ExtensionLimits) throws(WebAuthnError) {
        let allowed: Set<String> = ceremony == .registration ? ["eval"] : ["eval", "evalByCredential"]
        let members = try object(value, "prf", allowed: allowed)
        if let eval = members["eval"] { try salts(eval, "prf.eval", limits) }
        if let byCredential = members["evalByCredential"] {
            guard case .object(let entries) = byCredential else { throw invalid("prf.evalByCredential must be an object") }
            guard entries.count <= limits.prfCredentialsMax else {
                throw invalid("prf.evalByCredential has more than \(limits.prfCredentialsMax) entries")
            }
            for (id, salts) in entries {
                guard let decoded = Base64URL.decodeStrict(id), !decoded.isEmpty, decoded.count <= 1023 else {
                    throw invalid("prf.evalByCredential keys must be base64url credential ids")
                }
                try self.salts(salts, "prf.evalByCredential[\(id)]", limits)
            }
        }
    }

    /// §10.1.5: create() takes only `support` ("required" or "preferred"); get() takes `read: true` or `write`, not
    /// both, and never `support`.
    private static func largeBlob(_ value: JSONValue, _ ceremony: Ceremony, _ limits: ExtensionLimits) throws(WebAuthnError) {
        switch ceremony {
        case .registration:
            let members = try object(value, "largeBlob", allowed: ["support"])
            switch members["support"] {
            case nil, .string("required")?, .string("preferred")?: break
            default: throw invalid("largeBlob.support must be \"required\" or \"preferred\"")
            }
        case .authentication:
            let members = try object(value, "largeBlob", allowed: ["read", "write"])
            switch (members["read"], members["write"]) {
            case (.bool(true)?, nil): break
            case (nil, let write?): try bytes(write, "largeBlob.write", maximum: limits.largeBlobMaxBytes)
            case (_?, _?): throw invalid("largeBlob takes read or write, not both")
            case (_?, nil): throw invalid("largeBlob.read must be true")
            case (nil, nil): throw invalid("largeBlob needs read or write")
            }
        }
    }
}

extension WebAuthnError.Code {
    /// A begin asked for a client extension passkeyd does not pass through.
    public static let extensionUnsupported = WebAuthnError.Code(rawValue: "extension_unsupported")
    /// A begin's client extension input is malformed or not allowed in this ceremony.
    public static let extensionInputInvalid = WebAuthnError.Code(rawValue: "extension_input_invalid")
}
