// Decoders for the attestation-specific certificate extensions WebAuthn formats read. OpenSSL has no typed
// parser for them, so they are walked with ``DERElement`` (ASN1_get_object / d2i_ASN1_INTEGER) here, inside the
// OpenSSL wrapper; the ceremony engine only sees the decoded Swift values.

/// The Android Keystore attestation extension (OID 1.3.6.1.4.1.11129.2.1.17), the parts WebAuthn §8.4 reads.
///
/// ```
/// KeyDescription ::= SEQUENCE {
///     attestationVersion INTEGER, attestationSecurityLevel SecurityLevel (ENUMERATED),
///     keymasterVersion INTEGER, keymasterSecurityLevel SecurityLevel,
///     attestationChallenge OCTET STRING, uniqueId OCTET STRING,
///     softwareEnforced AuthorizationList, teeEnforced AuthorizationList, ... }
/// ```
public struct AndroidKeyDescription: Sendable, Hashable {
    /// The extension's OID.
    public static let oid = "1.3.6.1.4.1.11129.2.1.17"

    /// The fields of an AuthorizationList WebAuthn uses (every field is `[n] EXPLICIT`, all optional).
    public struct AuthorizationList: Sendable, Hashable {
        /// `purpose [1] EXPLICIT SET OF INTEGER`; nil when absent.
        public var purpose: [Int64]?
        /// `allApplications [600] EXPLICIT NULL`: present or not.
        public var allApplications: Bool
        /// `origin [702] EXPLICIT INTEGER`; nil when absent.
        public var origin: Int64?

        /// Creates a list (tests).
        public init(purpose: [Int64]? = nil, allApplications: Bool = false, origin: Int64? = nil) {
            self.purpose = purpose
            self.allApplications = allApplications
            self.origin = origin
        }
    }

    /// KM_ORIGIN_GENERATED.
    public static let originGenerated: Int64 = 0
    /// KM_PURPOSE_SIGN.
    public static let purposeSign: Int64 = 2

    public var attestationVersion: Int64
    public var attestationSecurityLevel: Int64
    public var keymasterVersion: Int64
    public var keymasterSecurityLevel: Int64
    public var attestationChallenge: [UInt8]
    public var uniqueID: [UInt8]
    public var softwareEnforced: AuthorizationList
    public var teeEnforced: AuthorizationList

    /// Decodes the extension value (the DER inside extnValue).
    /// - Throws: ``CertificateError/Code/malformedCertificate`` when it is not a KeyDescription.
    public init(derEncoded der: [UInt8]) throws(CertificateError) {
        func malformed(_ reason: String) -> CertificateError {
            CertificateError(code: .malformedCertificate, reason: "KeyDescription: \(reason)")
        }
        let sequence = try DERElement.parse(der)
        guard sequence.isUniversal(DERElement.sequenceTag) else { throw malformed("not a SEQUENCE") }
        let fields = try sequence.children()
        // Later versions append fields; the first eight are fixed.
        guard fields.count >= 8 else { throw malformed("\(fields.count) fields") }
        attestationVersion = try fields[0].integerValue()
        attestationSecurityLevel = try fields[1].integerValue()
        keymasterVersion = try fields[2].integerValue()
        keymasterSecurityLevel = try fields[3].integerValue()
        attestationChallenge = try fields[4].octetStringValue()
        uniqueID = try fields[5].octetStringValue()
        softwareEnforced = try Self.authorizationList(fields[6])
        teeEnforced = try Self.authorizationList(fields[7])
    }

    static func authorizationList(_ element: DERElement) throws(CertificateError) -> AuthorizationList {
        func malformed(_ reason: String) -> CertificateError {
            CertificateError(code: .malformedCertificate, reason: "AuthorizationList: \(reason)")
        }
        guard element.isUniversal(DERElement.sequenceTag) else { throw malformed("not a SEQUENCE") }
        var list = AuthorizationList()
        var seen = Set<Int>()
        for item in try element.children() {
            guard item.tagClass == .contextSpecific, item.isConstructed else {
                throw malformed("entry is not an explicit context-specific tag")
            }
            guard seen.insert(item.tagNumber).inserted else { throw malformed("duplicate tag [\(item.tagNumber)]") }
            switch item.tagNumber {
            case 1:
                let set = try item.explicitInner()
                guard set.isUniversal(DERElement.setTag) else { throw malformed("purpose is not a SET") }
                var purposes: [Int64] = []
                for purpose in try set.children() { purposes.append(try purpose.integerValue()) }
                list.purpose = purposes
            case 600:
                let null = try item.explicitInner()
                guard null.isUniversal(DERElement.nullTag), null.content.isEmpty else {
                    throw malformed("allApplications is not NULL")
                }
                list.allApplications = true
            case 702:
                list.origin = try item.explicitInner().integerValue()
            default:
                break  // other authorizations are not WebAuthn's concern
            }
        }
        return list
    }
}

/// Apple's anonymous attestation nonce extension (OID 1.2.840.113635.100.8.2), WebAuthn §8.8:
/// `SEQUENCE { [1] EXPLICIT OCTET STRING nonce }`.
public enum AppleAnonymousAttestationNonce {
    /// The extension's OID.
    public static let oid = "1.2.840.113635.100.8.2"

    /// Decodes the extension value (the DER inside extnValue) to the nonce.
    /// - Throws: ``CertificateError/Code/malformedCertificate`` when it does not have that shape.
    public static func decode(_ der: [UInt8]) throws(CertificateError) -> [UInt8] {
        let sequence = try DERElement.parse(der)
        guard sequence.isUniversal(DERElement.sequenceTag) else {
            throw CertificateError(code: .malformedCertificate, reason: "Apple nonce: not a SEQUENCE")
        }
        let items = try sequence.children()
        guard items.count == 1, items[0].isContextSpecific(1), items[0].isConstructed else {
            throw CertificateError(code: .malformedCertificate, reason: "Apple nonce: expected exactly [1]")
        }
        return try items[0].explicitInner().octetStringValue()
    }

    /// Encodes a nonce as the extension value (for test attestations).
    public static func encode(_ nonce: [UInt8]) -> [UInt8] {
        let octets = derTLV(0x04, nonce)
        return derTLV(0x30, derTLV(0xA1, octets))
    }
}

extension AndroidKeyDescription {
    /// Encodes a KeyDescription (attestation version 3 layout) for test attestations.
    /// - Returns: the DER for extnValue.
    public func derEncoded() -> [UInt8] {
        func integer(_ value: Int64, tag: UInt8 = 0x02) -> [UInt8] {
            var bytes: [UInt8] = []
            var remaining = value
            repeat {
                bytes.insert(UInt8(truncatingIfNeeded: remaining), at: 0)
                remaining >>= 8
            } while remaining != 0 && remaining != -1
            if value >= 0, bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
            if value < 0, bytes[0] & 0x80 == 0 { bytes.insert(0xFF, at: 0) }
            return derTLV(tag, bytes)
        }
        func explicit(_ number: Int, _ inner: [UInt8]) -> [UInt8] {
            // Context-specific, constructed; high-tag-number form above 30.
            if number < 31 { return derTLV(0xA0 | UInt8(number), inner) }
            var digits: [UInt8] = []
            var remaining = number
            repeat {
                digits.insert(UInt8(remaining & 0x7F), at: 0)
                remaining >>= 7
            } while remaining > 0
            for index in 0..<(digits.count - 1) { digits[index] |= 0x80 }
            return [0xBF] + digits + derLength(inner.count) + inner
        }
        func list(_ list: AuthorizationList) -> [UInt8] {
            var body: [UInt8] = []
            if let purpose = list.purpose {
                body += explicit(1, derTLV(0x31, purpose.flatMap { integer($0) }))
            }
            if list.allApplications { body += explicit(600, [0x05, 0x00]) }
            if let origin = list.origin { body += explicit(702, integer(origin)) }
            return derTLV(0x30, body)
        }
        var body: [UInt8] = []
        body += integer(attestationVersion)
        body += integer(attestationSecurityLevel, tag: 0x0A)
        body += integer(keymasterVersion)
        body += integer(keymasterSecurityLevel, tag: 0x0A)
        body += derTLV(0x04, attestationChallenge)
        body += derTLV(0x04, uniqueID)
        body += list(softwareEnforced)
        body += list(teeEnforced)
        return derTLV(0x30, body)
    }

    /// Creates a description (test attestations).
    public init(
        attestationChallenge: [UInt8], softwareEnforced: AuthorizationList, teeEnforced: AuthorizationList,
        attestationVersion: Int64 = 3, securityLevel: Int64 = 1
    ) {
        self.attestationVersion = attestationVersion
        self.attestationSecurityLevel = securityLevel
        self.keymasterVersion = 4
        self.keymasterSecurityLevel = securityLevel
        self.attestationChallenge = attestationChallenge
        self.uniqueID = []
        self.softwareEnforced = softwareEnforced
        self.teeEnforced = teeEnforced
    }
}

extension Certificate {
    /// The Android KeyDescription extension, decoded; nil when the certificate has none.
    /// - Throws: ``CertificateError/Code/malformedCertificate`` when the extension is present but malformed.
    public func androidKeyDescription() throws(CertificateError) -> AndroidKeyDescription? {
        guard let value = extensionValue(oid: AndroidKeyDescription.oid) else { return nil }
        return try AndroidKeyDescription(derEncoded: value)
    }

    /// Apple's anonymous attestation nonce, decoded; nil when the certificate has no such extension.
    /// - Throws: ``CertificateError/Code/malformedCertificate`` when the extension is present but malformed.
    public func appleAttestationNonce() throws(CertificateError) -> [UInt8]? {
        guard let value = extensionValue(oid: AppleAnonymousAttestationNonce.oid) else { return nil }
        return try AppleAnonymousAttestationNonce.decode(value)
    }
}

// DER writing for test attestations uses `derTLV` / `derLength` from CertificateBuilder.swift.
