/// Reading the W3C response shapes from parsed JSON without `Codable` (the assertion hot path).
public struct JSONShapeError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }

    /// Parses a document, turning reader failures into shape errors.
    static func parse(_ bytes: some Collection<UInt8>) throws(JSONShapeError) -> JSONValue {
        do {
            return try JSONReader.parse(bytes)
        } catch {
            throw JSONShapeError(error.description)
        }
    }
}

extension JSONValue {
    func members(_ what: String) throws(JSONShapeError) -> [String: JSONValue] {
        guard case .object(let members) = self else { throw JSONShapeError("\(what) is not an object") }
        return members
    }
}

extension [String: JSONValue] {
    func string(_ key: String) throws(JSONShapeError) -> String {
        guard case .string(let value)? = self[key] else { throw JSONShapeError("\(key) is missing or not a string") }
        return value
    }

    /// A string member that may be absent or null.
    func optionalString(_ key: String) throws(JSONShapeError) -> String? {
        switch self[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw JSONShapeError("\(key) is not a string")
        }
    }

    func optionalObject(_ key: String) throws(JSONShapeError) -> [String: JSONValue]? {
        switch self[key] {
        case nil, .null?: return nil
        case .object(let value)?: return value
        default: throw JSONShapeError("\(key) is not an object")
        }
    }

    func optionalStrings(_ key: String) throws(JSONShapeError) -> [String]? {
        switch self[key] {
        case nil, .null?: return nil
        case .array(let values)?:
            var strings: [String] = []
            for value in values {
                guard case .string(let string) = value else { throw JSONShapeError("\(key) has a non-string element") }
                strings.append(string)
            }
            return strings
        default: throw JSONShapeError("\(key) is not an array")
        }
    }
}

extension AuthenticationResponseJSON {
    /// Reads an `AuthenticationResponseJSON` from parsed JSON; unknown members are ignored.
    public init(json: JSONValue) throws(JSONShapeError) {
        let members = try json.members("credential")
        guard case .object(let response)? = members["response"] else { throw JSONShapeError("response is missing or not an object") }
        self.init(
            id: try members.string("id"), rawId: try members.string("rawId"), type: try members.string("type"),
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: try response.string("clientDataJSON"),
                authenticatorData: try response.string("authenticatorData"), signature: try response.string("signature"),
                userHandle: try response.optionalString("userHandle")),
            authenticatorAttachment: try members.optionalString("authenticatorAttachment"),
            clientExtensionResults: try members.optionalObject("clientExtensionResults") ?? [:])
    }

    /// Parses and reads an `AuthenticationResponseJSON` from UTF-8 JSON bytes.
    public init(jsonBytes: some Collection<UInt8>) throws(JSONShapeError) {
        try self.init(json: JSONShapeError.parse(jsonBytes))
    }
}

extension RegistrationResponseJSON {
    /// Reads a `RegistrationResponseJSON` from parsed JSON; unknown members are ignored.
    public init(json: JSONValue) throws(JSONShapeError) {
        let members = try json.members("credential")
        guard case .object(let response)? = members["response"] else { throw JSONShapeError("response is missing or not an object") }
        let algorithm: Int?
        switch response["publicKeyAlgorithm"] {
        case nil, .null?: algorithm = nil
        case .number(let number)? where number == number.rounded() && abs(number) < 1e9: algorithm = Int(number)
        default: throw JSONShapeError("publicKeyAlgorithm is not an integer")
        }
        self.init(
            id: try members.string("id"), rawId: try members.string("rawId"), type: try members.string("type"),
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: try response.string("clientDataJSON"),
                attestationObject: try response.string("attestationObject"),
                authenticatorData: try response.optionalString("authenticatorData"),
                transports: try response.optionalStrings("transports"),
                publicKey: try response.optionalString("publicKey"), publicKeyAlgorithm: algorithm),
            authenticatorAttachment: try members.optionalString("authenticatorAttachment"),
            clientExtensionResults: try members.optionalObject("clientExtensionResults") ?? [:])
    }

    /// Parses and reads a `RegistrationResponseJSON` from UTF-8 JSON bytes.
    public init(jsonBytes: some Collection<UInt8>) throws(JSONShapeError) {
        try self.init(json: JSONShapeError.parse(jsonBytes))
    }
}
