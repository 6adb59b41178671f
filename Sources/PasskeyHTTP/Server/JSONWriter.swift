import PasskeyApp
import Foundation
import WebAuthnModel

/// Writes the begin and finish responses' JSON straight into bytes.
///
/// Foundation's `JSONEncoder` cost more than a tenth of passkeyd's CPU per sign-in (perf, issue 6): it builds a
/// tree of boxed values and sorts keys on every call. The finish responses have a fixed shape, so their types
/// write themselves in the same form `API.encoder` produces (keys sorted, dates as ISO 8601 in UTC without
/// fractional seconds, `nil` members as the Encodable types do); a test checks both agree on every member.
/// Strings are escaped like error bodies (`JSONString`): quotes, backslashes, control characters, DEL, U+2028/9.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the next member or element needs a comma before it.
    private var needsComma = false

    init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    /// A member name; the value follows with one of the value writers.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            // Most strings (ids in base64url, names, dates) need no escape: one copy.
            if !utf8.contains(where: Self.mayNeedEscape) {
                bytes.append(contentsOf: utf8)
            } else {
                appendEscaped(utf8)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Whether `byte` is escaped, or may start U+2028/U+2029 (E2 80 A8/A9).
    private static func mayNeedEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F || byte == 0xE2
    }

    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0x00..<0x20, 0x7F: appendUnicodeEscape(UInt32(byte))
            case 0xE2 where index + 1 < utf8.count && utf8[index] == 0x80 && (utf8[index + 1] == 0xA8 || utf8[index + 1] == 0xA9):
                appendUnicodeEscape(utf8[index + 1] == 0xA8 ? 0x2028 : 0x2029)
                index += 2
            default: bytes.append(byte)
            }
        }
    }

    /// A member name that is not a literal (an extension's): escaped like a string value.
    mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A JSON value as parsed from a request (extension inputs): object members in sorted order, as `API.encoder`
    /// writes them; a whole number within ±2^53 without a fraction, any other number in Swift's shortest form.
    mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .string(let text): string(text)
        case .number(let number):
            if number.isFinite, number == number.rounded(), abs(number) <= 9_007_199_254_740_992 {
                integer(Int64(number))
            } else {
                separate()
                bytes.append(contentsOf: (number.isFinite ? number.description : "null").utf8)
                needsComma = true
            }
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let members):
            beginObject()
            for name in members.keys.sorted() {
                key(name)
                self.value(members[name]!)
            }
            endObject()
        }
    }

    mutating func strings(_ values: [String]) {
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    mutating func integer(_ value: some BinaryInteger) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    mutating func bool(_ value: Bool) {
        separate()
        let literal: StaticString = value ? "true" : "false"
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
        needsComma = true
    }

    mutating func optionalBool(_ value: Bool?) {
        if let value { bool(value) } else { null() }
    }

    mutating func null() {
        separate()
        ("null" as StaticString).withUTF8Buffer { bytes.append(contentsOf: $0) }
        needsComma = true
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` in UTC, whole seconds (what `JSONEncoder.DateEncodingStrategy.iso8601` writes).
    mutating func date(_ value: Date) {
        var seconds = time_t(value.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        separate()
        bytes.append(UInt8(ascii: "\""))
        digits(Int(parts.tm_year) + 1900, width: 4)
        bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, width: 2)
        bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), width: 2)
        bytes.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), width: 2)
        bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), width: 2)
        bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), width: 2)
        bytes.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
        needsComma = true
    }

    mutating func date(_ value: Date?) {
        if let value { date(value) } else { null() }
    }

    private mutating func digits(_ value: Int, width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = max(0, value)
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    private mutating func appendUnicodeEscape(_ scalar: UInt32) {
        let hex: StaticString = "0123456789abcdef"
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
        hex.withUTF8Buffer { hex in
            for shift in stride(from: 12, through: 0, by: -4) { bytes.append(hex[Int((scalar >> UInt32(shift)) & 0xF)]) }
        }
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }
}

// MARK: the finish responses, keys in sorted order

extension UserJSON {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("createdAt"); writer.date(createdAt)
        writer.key("displayName"); writer.string(displayName)
        writer.key("id"); writer.string(id)
        writer.key("name"); writer.string(name)
        writer.endObject()
    }
}

extension CredentialJSON {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("aaguid"); writer.string(aaguid)
        writer.key("attestation")
        writer.beginObject()
        writer.key("authenticatorDescription"); writer.string(attestation.authenticatorDescription)
        if let icon = attestation.authenticatorIcon { writer.key("authenticatorIcon"); writer.string(icon) }
        writer.key("trust"); writer.string(attestation.trust)
        writer.key("trustAnchor"); writer.string(attestation.trustAnchor)
        writer.key("type"); writer.string(attestation.type)
        writer.endObject()
        writer.key("attestationFormat"); writer.string(attestationFormat)
        writer.key("backedUp"); writer.bool(backedUp)
        writer.key("backupEligible"); writer.bool(backupEligible)
        writer.key("createdAt"); writer.date(createdAt)
        writer.key("createdBy"); writer.string(createdBy)
        writer.key("extensions")
        writer.beginObject()
        writer.key("discoverable"); writer.optionalBool(extensions.discoverable)
        writer.key("largeBlobSupported"); writer.optionalBool(extensions.largeBlobSupported)
        writer.key("prfEnabled"); writer.optionalBool(extensions.prfEnabled)
        writer.endObject()
        writer.key("id"); writer.string(id)
        writer.key("lastUsedAt"); writer.date(lastUsedAt)
        writer.key("nickname"); writer.string(nickname)
        writer.key("provider")
        if let provider {
            writer.beginObject()
            writer.key("iconDark"); writer.string(provider.iconDark)
            writer.key("iconLight"); writer.string(provider.iconLight)
            writer.key("name"); writer.string(provider.name)
            writer.endObject()
        } else {
            writer.null()
        }
        writer.key("publicKeyAlgorithm"); writer.integer(publicKeyAlgorithm)
        writer.key("signCount"); writer.integer(signCount)
        writer.key("transports")
        writer.beginArray()
        for transport in transports { writer.string(transport) }
        writer.endArray()
        if let userId { writer.key("userId"); writer.string(userId) }
        writer.key("userVerified"); writer.bool(userVerified)
        writer.endObject()
    }
}

extension RegistrationResult {
    var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("credential"); credential.write(to: &writer)
        if let session { writer.key("session"); session.write(to: &writer) }
        writer.key("user"); user.write(to: &writer)
        writer.endObject()
        return writer.bytes
    }
}

extension AuthenticationResult {
    var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("credential"); credential.write(to: &writer)
        if let session { writer.key("session"); session.write(to: &writer) }
        writer.key("signCountStatus"); writer.string(signCountStatus)
        if let signal { writer.key("signal"); signal.write(to: &writer) }
        if let user { writer.key("user"); user.write(to: &writer) }
        writer.key("userVerified"); writer.bool(userVerified)
        writer.endObject()
        return writer.bytes
    }
}

extension AcceptedCredentialsSignal {
    /// Members in JSONEncoder's sorted order.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("allAcceptedCredentialIds")
        writer.beginArray()
        for id in allAcceptedCredentialIds { writer.string(id) }
        writer.endArray()
        writer.key("displayName"); writer.string(displayName)
        writer.key("name"); writer.string(name)
        writer.key("rpId"); writer.string(rpId)
        writer.key("userId"); writer.string(userId)
        writer.endObject()
    }
}

extension SessionJSON {
    /// Members in JSONEncoder's sorted order; the refresh token left out when it travels in a cookie.
    func write(to writer: inout JSONWriter, includeRefreshToken: Bool = true) {
        writer.beginObject()
        writer.key("accessToken"); writer.string(accessToken)
        writer.key("expiresIn"); writer.integer(expiresIn)
        writer.key("refreshExpiresIn"); writer.integer(refreshExpiresIn)
        if includeRefreshToken { writer.key("refreshToken"); writer.string(refreshToken) }
        writer.key("sessionId"); writer.string(sessionId)
        writer.key("tokenType"); writer.string(tokenType)
        writer.endObject()
    }
}

// MARK: the begin responses, keys in sorted order, nil members omitted (as the synthesized Encodable does)

extension CredentialDescriptorJSON {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id"); writer.string(id)
        if let transports { writer.key("transports"); writer.strings(transports) }
        writer.key("type"); writer.string(type)
        writer.endObject()
    }
}

extension JSONWriter {
    mutating func descriptors(_ descriptors: [CredentialDescriptorJSON]) {
        beginArray()
        for descriptor in descriptors { descriptor.write(to: &self) }
        endArray()
    }

    mutating func extensions(_ extensions: [String: JSONValue]?) {
        if let extensions { key("extensions"); value(.object(extensions)) }
    }
}

extension RequestOptionsJSON {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("allowCredentials"); writer.descriptors(allowCredentials)
        writer.key("challenge"); writer.string(challenge)
        writer.extensions(extensions)
        if let hints { writer.key("hints"); writer.strings(hints) }
        if let rpId { writer.key("rpId"); writer.string(rpId) }
        if let timeout { writer.key("timeout"); writer.integer(timeout) }
        if let userVerification { writer.key("userVerification"); writer.string(userVerification) }
        writer.endObject()
    }

    /// `{"publicKey": …}`: an authentication begin's answer.
    var answerBytes: [UInt8] {
        var writer = JSONWriter(capacity: 256 + allowCredentials.count * 128)
        writer.beginObject()
        writer.key("publicKey"); write(to: &writer)
        writer.endObject()
        return writer.bytes
    }
}

extension CreationOptionsJSON {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let attestation { writer.key("attestation"); writer.string(attestation) }
        if let attestationFormats { writer.key("attestationFormats"); writer.strings(attestationFormats) }
        if let selection = authenticatorSelection {
            writer.key("authenticatorSelection")
            writer.beginObject()
            if let attachment = selection.authenticatorAttachment { writer.key("authenticatorAttachment"); writer.string(attachment) }
            if let required = selection.requireResidentKey { writer.key("requireResidentKey"); writer.bool(required) }
            if let residentKey = selection.residentKey { writer.key("residentKey"); writer.string(residentKey) }
            if let verification = selection.userVerification { writer.key("userVerification"); writer.string(verification) }
            writer.endObject()
        }
        writer.key("challenge"); writer.string(challenge)
        writer.key("excludeCredentials"); writer.descriptors(excludeCredentials)
        writer.extensions(extensions)
        if let hints { writer.key("hints"); writer.strings(hints) }
        writer.key("pubKeyCredParams")
        writer.beginArray()
        for parameters in pubKeyCredParams {
            writer.beginObject()
            writer.key("alg"); writer.integer(parameters.alg)
            writer.key("type"); writer.string(parameters.type)
            writer.endObject()
        }
        writer.endArray()
        writer.key("rp")
        writer.beginObject()
        if let id = rp.id { writer.key("id"); writer.string(id) }
        writer.key("name"); writer.string(rp.name)
        writer.endObject()
        if let timeout { writer.key("timeout"); writer.integer(timeout) }
        writer.key("user")
        writer.beginObject()
        writer.key("displayName"); writer.string(user.displayName)
        writer.key("id"); writer.string(user.id)
        writer.key("name"); writer.string(user.name)
        writer.endObject()
        writer.endObject()
    }

    /// `{"mediation"?, "publicKey"}`: a registration begin's answer.
    func answerBytes(mediation: String?) -> [UInt8] {
        var writer = JSONWriter(capacity: 512 + excludeCredentials.count * 128)
        writer.beginObject()
        if let mediation { writer.key("mediation"); writer.string(mediation) }
        writer.key("publicKey"); write(to: &writer)
        writer.endObject()
        return writer.bytes
    }
}
