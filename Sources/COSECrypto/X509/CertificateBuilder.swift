internal import COpenSSL

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Issues X.509 certificates for tests: the software authenticator's attestation CA and leaves, fido-u2f
/// certificates, and deliberately odd certificates for negative tests. Not used on request paths.
///
/// Signature algorithm follows the issuer key: ECDSA with SHA-256 (P-256), SHA-384 (P-384) or SHA-512 (P-521);
/// RSA PKCS#1 v1.5 with SHA-256; Ed25519/Ed448 pure.
public struct CertificateBuilder: Sendable {
    /// The subject name (may be empty, as in TPM attestation certificates).
    public var subject: DistinguishedName
    /// The serial number.
    public var serialNumber: UInt64
    /// Start of validity.
    public var notBefore: Date
    /// End of validity.
    public var notAfter: Date
    /// basicConstraints cA; nil omits the extension.
    public var isCA: Bool?
    /// basicConstraints pathLenConstraint (only with `isCA == true`).
    public var pathLengthConstraint: Int?
    /// Whether basicConstraints is marked critical.
    public var basicConstraintsCritical: Bool = true
    /// keyUsage bits; nil omits the extension. Always marked critical when present.
    public var keyUsage: KeyUsage?
    /// Certificate version: 3 (default), or 1/2 for negative tests (then no extension may be requested).
    public var version: Int = 3
    /// extendedKeyUsage OIDs; empty omits the extension. Non-critical.
    public var extendedKeyUsage: [String]
    /// subjectAltName dNSName entries.
    public var subjectAlternativeDNSNames: [String] = []
    /// subjectAltName directoryName entries (TPM: manufacturer/model/version attributes).
    public var subjectAlternativeDirectoryNames: [DistinguishedName] = []
    /// Whether subjectAltName is critical; nil means "critical exactly when the subject is empty" (RFC 5280).
    public var subjectAlternativeNameCritical: Bool? = nil
    /// Add subjectKeyIdentifier (SHA-1 of the public key) and authorityKeyIdentifier (issuer's SKI) unless
    /// `extensions` already has one with that OID.
    public var includeKeyIdentifiers: Bool = true
    /// Extra extensions, added last, in order (``CertificateExtension/value`` is the raw extnValue DER). An entry
    /// with the OID of subjectKeyIdentifier or authorityKeyIdentifier replaces the automatic one.
    public var extensions: [CertificateExtension]

    /// Creates a builder.
    /// - Parameters:
    ///   - subject: subject name.
    ///   - serialNumber: serial number.
    ///   - notBefore: start of validity.
    ///   - notAfter: end of validity.
    ///   - isCA: basicConstraints cA, nil to omit basicConstraints.
    ///   - version: 1, 2 or 3.
    ///   - extensions: extra raw extensions.
    ///   - extendedKeyUsage: EKU OIDs (empty to omit).
    public init(
        subject: DistinguishedName,
        serialNumber: UInt64 = 1,
        notBefore: Date,
        notAfter: Date,
        isCA: Bool? = nil,
        version: Int = 3,
        extensions: [CertificateExtension] = [],
        extendedKeyUsage: [String] = []
    ) {
        self.subject = subject
        self.serialNumber = serialNumber
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.isCA = isCA
        self.version = version
        self.extensions = extensions
        self.extendedKeyUsage = extendedKeyUsage
    }

    /// Adds a raw extension (convenience for the tuple form).
    /// - Parameters:
    ///   - oid: dotted OID.
    ///   - critical: critical flag.
    ///   - derValue: DER contents of extnValue.
    public mutating func addExtension(oid: String, critical: Bool = false, derValue: [UInt8]) {
        extensions.append(CertificateExtension(oid: oid, critical: critical, derValue: derValue))
    }

    /// Issues and signs the certificate.
    /// - Parameters:
    ///   - publicKey: the subject public key.
    ///   - issuerKey: the signing key (the subject's own key when self-signing).
    ///   - issuer: the issuer certificate; nil for self-signed (issuer name = subject). Its key is not compared
    ///     with `issuerKey`, so mismatched signatures can be made deliberately.
    /// - Returns: the parsed certificate.
    /// - Throws: ``CertificateError/Code/issuanceFailed``, or ``CertificateError/Code/unsupportedSignatureAlgorithm``
    ///   for a key type this builder cannot sign with.
    public func issue(
        publicKey: PublicKey, signedBy issuerKey: PrivateKey, issuer: Certificate?
    ) throws(CertificateError) -> Certificate {
        func failed(_ what: String) -> CertificateError {
            CertificateError(code: .issuanceFailed, reason: "\(what): \(drainOpenSSLErrors())")
        }
        guard (1...3).contains(version) else {
            throw CertificateError(code: .issuanceFailed, reason: "version \(version)")
        }
        guard let start = x509TimeT(notBefore), let end = x509TimeT(notAfter) else {
            throw CertificateError(code: .issuanceFailed, reason: "validity out of range")
        }
        if pathLengthConstraint != nil && isCA != true {
            throw CertificateError(code: .issuanceFailed, reason: "pathLengthConstraint requires isCA == true")
        }
        let wantsExtensions =
            isCA != nil || keyUsage != nil || !extendedKeyUsage.isEmpty || !extensions.isEmpty
            || !subjectAlternativeDNSNames.isEmpty || !subjectAlternativeDirectoryNames.isEmpty
        guard version == 3 || !wantsExtensions else {
            throw CertificateError(code: .issuanceFailed, reason: "extensions need a version 3 certificate")
        }
        clearOpenSSLErrors()

        guard let x509 = unsafe X509_new() else { throw failed("X509_new") }
        defer { unsafe X509_free(x509) }

        guard unsafe X509_set_version(x509, version - 1) == 1 else { throw failed("X509_set_version") }
        guard unsafe ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serialNumber) == 1 else {
            throw failed("serialNumber")
        }
        guard unsafe ASN1_TIME_set(X509_getm_notBefore(x509), start) != nil else { throw failed("notBefore") }
        guard unsafe ASN1_TIME_set(X509_getm_notAfter(x509), end) != nil else { throw failed("notAfter") }

        let subjectName = try unsafe subject.makeX509Name()
        defer { unsafe X509_NAME_free(subjectName) }
        guard unsafe X509_set_subject_name(x509, subjectName) == 1 else { throw failed("subject") }
        if let issuer {
            guard unsafe X509_set_issuer_name(x509, X509_get_subject_name(issuer.x509)) == 1 else {
                throw failed("issuer")
            }
        } else {
            guard unsafe X509_set_issuer_name(x509, subjectName) == 1 else { throw failed("issuer") }
        }

        try unsafe publicKey.withX509EVPPKey { (pkey) throws(CertificateError) in
            guard unsafe X509_set_pubkey(x509, pkey) == 1 else { throw failed("X509_set_pubkey") }
        }

        if version == 3 {
            try unsafe addExtensions(to: x509, issuer: issuer)
        }

        try unsafe issuerKey.withX509EVPPKey { (pkey) throws(CertificateError) in
            let digest = try unsafe Self.digest(for: pkey)
            guard unsafe X509_sign(x509, pkey, digest) > 0 else { throw failed("X509_sign") }
        }

        guard let der = unsafe x509EncodeDER({ unsafe i2d_X509(x509, $0) }) else { throw failed("i2d_X509") }
        do {
            return try Certificate(derEncoded: der)
        } catch {
            throw CertificateError(code: .issuanceFailed, reason: "issued certificate does not parse: \(error.reason)")
        }
    }

    // MARK: - private

    /// The digest for the issuer key: nil (pure) for EdDSA.
    private static func digest(for pkey: OpaquePointer) throws(CertificateError) -> OpaquePointer? {
        let type = unsafe EVP_PKEY_get_base_id(pkey)
        switch type {
        case EVP_PKEY_ED25519, EVP_PKEY_ED448:
            return nil
        case EVP_PKEY_RSA:
            return unsafe EVP_sha256()
        case EVP_PKEY_EC:
            switch unsafe EVP_PKEY_get_bits(pkey) {
            case 256: return unsafe EVP_sha256()
            case 384: return unsafe EVP_sha384()
            case 521: return unsafe EVP_sha512()
            default: break
            }
        default:
            break
        }
        throw CertificateError(code: .unsupportedSignatureAlgorithm, reason: "issuer key type \(type)")
    }

    private func addExtensions(to x509: OpaquePointer, issuer: Certificate?) throws(CertificateError) {
        let explicit = Set(extensions.map(\.oid))

        if let isCA {
            // BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER OPTIONAL }
            var body: [UInt8] = isCA ? [0x01, 0x01, 0xFF] : []
            if let pathLength = pathLengthConstraint {
                guard (0...0x7FFF_FFFF).contains(pathLength) else {
                    throw CertificateError(code: .issuanceFailed, reason: "pathLengthConstraint \(pathLength)")
                }
                body += derInteger(UInt64(pathLength))
            }
            try unsafe add(x509, oid: "2.5.29.19", critical: basicConstraintsCritical, der: derTLV(0x30, body))
        }
        if let keyUsage {
            try unsafe add(x509, oid: "2.5.29.15", critical: true, der: derKeyUsage(keyUsage))
        }
        if !extendedKeyUsage.isEmpty {
            var body: [UInt8] = []
            for oid in extendedKeyUsage {
                body += try derOID(oid)
            }
            try unsafe add(x509, oid: "2.5.29.37", critical: false, der: derTLV(0x30, body))
        }
        if !subjectAlternativeDNSNames.isEmpty || !subjectAlternativeDirectoryNames.isEmpty {
            let critical = subjectAlternativeNameCritical ?? subject.isEmpty
            try unsafe addSubjectAltName(to: x509, critical: critical)
        }
        if includeKeyIdentifiers {
            if !explicit.contains("2.5.29.14") {
                let ski = try unsafe keyIdentifier(of: x509)
                try unsafe add(x509, oid: "2.5.29.14", critical: false, der: derTLV(0x04, ski))
            }
            if !explicit.contains("2.5.29.35") {
                let aki: [UInt8]
                if let issuer {
                    // The issuer's subjectKeyIdentifier (OCTET STRING, short form) if it has one, else computed.
                    if let value = issuer.extensionValue(oid: "2.5.29.14"), value.count >= 2, value[0] == 0x04,
                        value[1] < 0x80, Int(value[1]) == value.count - 2
                    {
                        aki = Array(value.dropFirst(2))
                    } else {
                        aki = try unsafe keyIdentifier(of: issuer.x509)
                    }
                } else {
                    aki = try unsafe keyIdentifier(of: x509)
                }
                // AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] IMPLICIT OCTET STRING, ... }
                try unsafe add(x509, oid: "2.5.29.35", critical: false, der: derTLV(0x30, derTLV(0x80, aki)))
            }
        }
        for raw in extensions {
            try unsafe add(x509, oid: raw.oid, critical: raw.isCritical, der: raw.value)
        }
    }

    private func addSubjectAltName(to x509: OpaquePointer, critical: Bool) throws(CertificateError) {
        func failed(_ what: String) -> CertificateError {
            CertificateError(code: .issuanceFailed, reason: "subjectAltName \(what): \(drainOpenSSLErrors())")
        }
        guard let names = unsafe passkeyd_x509_sk_GENERAL_NAME_new_null() else { throw failed("stack") }
        defer { unsafe GENERAL_NAMES_free(names) }
        for dns in subjectAlternativeDNSNames {
            guard let ia5 = unsafe ASN1_IA5STRING_new() else { throw failed("IA5String") }
            let bytes = Array(dns.utf8)
            let set = unsafe bytes.withUnsafeBufferPointer { buf in
                unsafe ASN1_STRING_set(ia5, buf.baseAddress, Int32(buf.count))
            }
            guard set == 1, let name = unsafe GENERAL_NAME_new() else {
                unsafe ASN1_IA5STRING_free(ia5)
                throw failed("dNSName")
            }
            unsafe GENERAL_NAME_set0_value(name, GEN_DNS, UnsafeMutableRawPointer(ia5))  // name owns ia5
            guard unsafe passkeyd_x509_sk_GENERAL_NAME_push(names, name) > 0 else {
                unsafe GENERAL_NAME_free(name)
                throw failed("push")
            }
        }
        for directoryName in subjectAlternativeDirectoryNames {
            let x509Name = try unsafe directoryName.makeX509Name()
            guard let name = unsafe GENERAL_NAME_new() else {
                unsafe X509_NAME_free(x509Name)
                throw failed("GENERAL_NAME_new")
            }
            unsafe GENERAL_NAME_set0_value(name, GEN_DIRNAME, UnsafeMutableRawPointer(x509Name))  // name owns it
            guard unsafe passkeyd_x509_sk_GENERAL_NAME_push(names, name) > 0 else {
                unsafe GENERAL_NAME_free(name)
                throw failed("push")
            }
        }
        guard unsafe X509_add1_ext_i2d(x509, NID_subject_alt_name, UnsafeMutableRawPointer(names),
                                       critical ? 1 : 0, UInt(X509V3_ADD_APPEND)) == 1
        else { throw failed("X509_add1_ext_i2d") }
    }

    /// Adds one extension with raw DER contents.
    private func add(_ x509: OpaquePointer, oid: String, critical: Bool, der: [UInt8]) throws(CertificateError) {
        func failed(_ what: String) -> CertificateError {
            CertificateError(code: .issuanceFailed, reason: "extension \(oid) \(what): \(drainOpenSSLErrors())")
        }
        guard x509CanonicalOID(oid) != nil, let object = unsafe OBJ_txt2obj(oid, 1) else { throw failed("OID") }
        defer { unsafe ASN1_OBJECT_free(object) }
        guard let octets = unsafe ASN1_OCTET_STRING_new() else { throw failed("ASN1_OCTET_STRING_new") }
        defer { unsafe ASN1_OCTET_STRING_free(octets) }
        let set = unsafe der.withUnsafeBufferPointer { buf in
            unsafe ASN1_OCTET_STRING_set(octets, buf.baseAddress, Int32(buf.count))
        }
        guard set == 1 else { throw failed("ASN1_OCTET_STRING_set") }
        guard let ext = unsafe X509_EXTENSION_create_by_OBJ(nil, object, critical ? 1 : 0, octets) else {
            throw failed("X509_EXTENSION_create_by_OBJ")
        }
        defer { unsafe X509_EXTENSION_free(ext) }
        guard unsafe X509_add_ext(x509, ext, -1) == 1 else { throw failed("X509_add_ext") }  // copies ext
    }

    /// RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey BIT STRING contents.
    private func keyIdentifier(of x509: OpaquePointer) throws(CertificateError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        let ok = unsafe digest.withUnsafeMutableBufferPointer { buf in
            unsafe X509_pubkey_digest(x509, EVP_sha1(), buf.baseAddress, &length)
        }
        guard ok == 1, length > 0, Int(length) <= digest.count else {
            throw CertificateError(code: .issuanceFailed, reason: "key identifier: \(drainOpenSSLErrors())")
        }
        return Array(digest.prefix(Int(length)))
    }
}

// MARK: - minimal DER encoding for extension values (also used by AttestationExtensions.swift)

func derLength(_ count: Int) -> [UInt8] {
    if count < 0x80 { return [UInt8(count)] }
    var bytes: [UInt8] = []
    var remaining = count
    while remaining > 0 {
        bytes.insert(UInt8(remaining & 0xFF), at: 0)
        remaining >>= 8
    }
    return [0x80 | UInt8(bytes.count)] + bytes
}

func derTLV(_ tag: UInt8, _ body: [UInt8]) -> [UInt8] {
    [tag] + derLength(body.count) + body
}

private func derInteger(_ value: UInt64) -> [UInt8] {
    var bytes: [UInt8] = []
    var remaining = value
    repeat {
        bytes.insert(UInt8(remaining & 0xFF), at: 0)
        remaining >>= 8
    } while remaining > 0
    if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
    return derTLV(0x02, bytes)
}

private func derOID(_ oid: String) throws(CertificateError) -> [UInt8] {
    guard x509CanonicalOID(oid) != nil, let object = unsafe OBJ_txt2obj(oid, 1) else {
        throw CertificateError(code: .issuanceFailed, reason: "bad OID \(oid): \(drainOpenSSLErrors())")
    }
    defer { unsafe ASN1_OBJECT_free(object) }
    guard let der = unsafe x509EncodeDER({ unsafe i2d_ASN1_OBJECT(object, $0) }) else {
        throw CertificateError(code: .issuanceFailed, reason: "i2d_ASN1_OBJECT \(oid): \(drainOpenSSLErrors())")
    }
    return der
}

/// KeyUsage ::= BIT STRING, DER: trailing zero bits removed and counted as unused bits.
private func derKeyUsage(_ usage: KeyUsage) -> [UInt8] {
    guard usage.rawValue != 0 else { return [0x03, 0x01, 0x00] }
    var highest = 0
    for bit in 0..<9 where usage.rawValue & (1 << UInt16(bit)) != 0 { highest = bit }
    let byteCount = highest / 8 + 1
    var bytes = [UInt8](repeating: 0, count: byteCount)
    for bit in 0...highest where usage.rawValue & (1 << UInt16(bit)) != 0 {
        bytes[bit / 8] |= 0x80 >> UInt8(bit % 8)
    }
    let unused = UInt8(7 - highest % 8)
    return derTLV(0x03, [unused] + bytes)
}
