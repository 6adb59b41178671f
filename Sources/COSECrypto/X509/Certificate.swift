internal import COpenSSL

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One extension of a certificate: read from a parsed certificate (``Certificate/extensions``) or handed to
/// ``CertificateBuilder/extensions`` to be written.
public struct CertificateExtension: Sendable, Hashable {
    /// Dotted OID of extnID, e.g. `"1.3.6.1.4.1.45724.1.1.4"` (id-fido-gen-ce-aaguid).
    public var oid: String
    /// The critical flag.
    public var isCritical: Bool
    /// The contents of extnValue: the DER *inside* the OCTET STRING (for id-fido-gen-ce-aaguid that is itself
    /// an OCTET STRING, `04 10` ‖ 16 bytes; the caller unwraps it).
    public var value: [UInt8]

    /// Creates an extension value.
    /// - Parameters:
    ///   - oid: dotted OID.
    ///   - isCritical: the critical flag.
    ///   - value: DER contents of extnValue.
    public init(oid: String, isCritical: Bool, value: [UInt8]) {
        self.oid = oid
        self.isCritical = isCritical
        self.value = value
    }

    /// Creates an extension value (the builder-style spelling of ``init(oid:isCritical:value:)``).
    /// - Parameters:
    ///   - oid: dotted OID.
    ///   - critical: the critical flag.
    ///   - derValue: DER contents of extnValue, e.g. `04 10` ‖ AAGUID for id-fido-gen-ce-aaguid.
    public init(oid: String, critical: Bool, derValue: [UInt8]) {
        self.init(oid: oid, isCritical: critical, value: derValue)
    }
}

/// The keyUsage bits (RFC 5280 §4.2.1.3).
public struct KeyUsage: OptionSet, Sendable, Hashable {
    /// The bits, bit 0 (digitalSignature) as `1 << 0`.
    public let rawValue: UInt16
    /// Creates a key usage set from raw bits.
    /// - Parameter rawValue: bit n is the keyUsage bit n of RFC 5280.
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// digitalSignature (0).
    public static let digitalSignature = KeyUsage(rawValue: 1 << 0)
    /// nonRepudiation / contentCommitment (1).
    public static let nonRepudiation = KeyUsage(rawValue: 1 << 1)
    /// keyEncipherment (2).
    public static let keyEncipherment = KeyUsage(rawValue: 1 << 2)
    /// dataEncipherment (3).
    public static let dataEncipherment = KeyUsage(rawValue: 1 << 3)
    /// keyAgreement (4).
    public static let keyAgreement = KeyUsage(rawValue: 1 << 4)
    /// keyCertSign (5).
    public static let keyCertSign = KeyUsage(rawValue: 1 << 5)
    /// cRLSign (6).
    public static let cRLSign = KeyUsage(rawValue: 1 << 6)
    /// encipherOnly (7).
    public static let encipherOnly = KeyUsage(rawValue: 1 << 7)
    /// decipherOnly (8).
    public static let decipherOnly = KeyUsage(rawValue: 1 << 8)
}

/// An immutable X.509 certificate.
///
/// Owns exactly one `X509*` (freed in `deinit`). Every field is read and copied into Swift values during `init`,
/// and the handle is never mutated afterwards, so instances are safe to share across threads
/// (`@unchecked Sendable`). Equality and hashing use the DER bytes.
///
/// Parsing is deliberately strict: the bytes must be exactly one certificate (no trailing bytes), times and name
/// strings must be decodable, an extension OID may appear only once (RFC 5280 §4.2), and the basicConstraints,
/// keyUsage, extendedKeyUsage and subjectAltName extensions must decode when present. Any failure is
/// ``CertificateError/Code/malformedCertificate``.
@safe
public final class Certificate: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The owned OpenSSL certificate. Only read (never mutated) after init; freed once in deinit.
    internal let x509: OpaquePointer

    /// The exact bytes the certificate was parsed from.
    public let derEncoded: [UInt8]
    /// 1, 2 or 3 (`X509_get_version` + 1).
    public let version: Int
    /// The serialNumber content octets (two's complement, big-endian, as encoded).
    public let serialNumber: [UInt8]
    /// The subject name.
    public let subject: DistinguishedName
    /// The issuer name.
    public let issuer: DistinguishedName
    /// Start of the validity period.
    public let notBefore: Date
    /// End of the validity period. RFC 5280 calls it inclusive; OpenSSL's chain verification (``ChainVerifier``)
    /// already treats the exact second as expired.
    public let notAfter: Date
    /// basicConstraints cA; nil when the extension is absent.
    public let isCA: Bool?
    /// basicConstraints pathLenConstraint; nil when absent (or when basicConstraints is absent).
    public let pathLengthConstraint: Int?
    /// keyUsage bits; nil when the extension is absent.
    public let keyUsage: KeyUsage?
    /// Dotted OIDs of extendedKeyUsage, in order; `[]` when the extension is absent.
    public let extendedKeyUsage: [String]
    /// The directoryName entries of subjectAltName (TPM attestation certificates put the TPM manufacturer, model
    /// and version here); `[]` when absent.
    public let subjectAlternativeNameDirectoryNames: [DistinguishedName]
    /// The dNSName entries of subjectAltName, as encoded (IA5String); `[]` when absent.
    public let dnsNames: [String]
    /// Every extension, in encoding order.
    public let extensions: [CertificateExtension]
    /// The SubjectPublicKeyInfo DER, as in the certificate (not decoded, so unknown key types still parse).
    public let subjectPublicKeyInfoDER: [UInt8]
    /// Dotted OID of the outer signatureAlgorithm, e.g. `"1.2.840.10045.4.3.2"` (ecdsa-with-SHA256).
    public let signatureAlgorithmOID: String

    /// keyUsage keyCertSign; nil when keyUsage is absent.
    public var keyUsageCertSign: Bool? { keyUsage.map { $0.contains(.keyCertSign) } }

    /// True when subject and issuer are the same name (a self-issued certificate; says nothing about signatures).
    public var isSelfIssued: Bool { subject == issuer }

    /// Parses one DER-encoded certificate.
    /// - Parameter derEncoded: exactly one certificate; trailing bytes are rejected.
    /// - Throws: ``CertificateError/Code/malformedCertificate``.
    public convenience init(derEncoded: [UInt8]) throws(CertificateError) {
        let handle = try unsafe Certificate.decode(derEncoded)
        try unsafe self.init(takingOwnershipOf: handle, derEncoded: derEncoded)
    }

    /// Takes ownership of `handle` (one reference) and reads all fields. Frees `handle` if reading fails.
    internal init(takingOwnershipOf handle: OpaquePointer, derEncoded: [UInt8]) throws(CertificateError) {
        let fields: Fields
        do {
            fields = try unsafe Fields(reading: handle)
        } catch {
            unsafe X509_free(handle)
            throw error
        }
        unsafe self.x509 = handle
        self.derEncoded = derEncoded
        self.version = fields.version
        self.serialNumber = fields.serialNumber
        self.subject = fields.subject
        self.issuer = fields.issuer
        self.notBefore = fields.notBefore
        self.notAfter = fields.notAfter
        self.isCA = fields.isCA
        self.pathLengthConstraint = fields.pathLengthConstraint
        self.keyUsage = fields.keyUsage
        self.extendedKeyUsage = fields.extendedKeyUsage
        self.subjectAlternativeNameDirectoryNames = fields.directoryNames
        self.dnsNames = fields.dnsNames
        self.extensions = fields.extensions
        self.subjectPublicKeyInfoDER = fields.spki
        self.signatureAlgorithmOID = fields.signatureAlgorithmOID
    }

    deinit {
        unsafe X509_free(x509)
    }

    /// Parses every `CERTIFICATE` block of a PEM text, in order. Text outside the blocks and blocks of other
    /// types (keys, CRLs) are skipped.
    /// - Parameter pem: PEM text.
    /// - Returns: at least one certificate.
    /// - Throws: ``CertificateError/Code/malformedPEM`` when there is no certificate block or a block's base64
    ///   is broken; ``CertificateError/Code/malformedCertificate`` when a block's DER is not a certificate.
    public static func parsePEM(_ pem: String) throws(CertificateError) -> [Certificate] {
        let text = Array(pem.utf8)
        guard !text.isEmpty, text.count <= Int(Int32.max) else {
            throw CertificateError(code: .malformedPEM, reason: "empty or oversized PEM text")
        }
        clearOpenSSLErrors()
        let blocks: [[UInt8]] = try unsafe text.withUnsafeBufferPointer { (buf) throws(CertificateError) -> [[UInt8]] in
            guard let bio = unsafe BIO_new_mem_buf(buf.baseAddress, Int32(buf.count)) else {
                throw CertificateError(code: .malformedPEM, reason: "BIO_new_mem_buf: \(drainOpenSSLErrors())")
            }
            defer { unsafe BIO_free(bio) }
            var blocks: [[UInt8]] = []
            while true {
                var name: UnsafeMutablePointer<CChar>? = nil
                var header: UnsafeMutablePointer<CChar>? = nil
                var data: UnsafeMutablePointer<UInt8>? = nil
                var length: Int = 0
                let ok = unsafe PEM_read_bio(bio, &name, &header, &data, &length)
                defer {
                    unsafe passkeyd_x509_OPENSSL_free(name)
                    unsafe passkeyd_x509_OPENSSL_free(header)
                    unsafe passkeyd_x509_OPENSSL_free(data)
                }
                guard ok == 1 else {
                    let error = ERR_peek_last_error()
                    if passkeyd_x509_err_is_pem_no_start_line(error) == 1 {
                        clearOpenSSLErrors()
                        break
                    }
                    throw CertificateError(code: .malformedPEM, reason: "PEM_read_bio: \(drainOpenSSLErrors())")
                }
                let label = unsafe name.map { unsafe String(cString: $0) } ?? ""
                guard label == "CERTIFICATE" || label == "X509 CERTIFICATE" else { continue }
                guard let data = unsafe data, length > 0 else {
                    throw CertificateError(code: .malformedPEM, reason: "empty \(label) block")
                }
                blocks.append(unsafe Array(UnsafeBufferPointer(start: data, count: length)))
            }
            return blocks
        }
        guard !blocks.isEmpty else {
            throw CertificateError(code: .malformedPEM, reason: "no CERTIFICATE block")
        }
        var certificates: [Certificate] = []
        certificates.reserveCapacity(blocks.count)
        for block in blocks {
            certificates.append(try Certificate(derEncoded: block))
        }
        return certificates
    }

    /// The DER of this certificate as one PEM `CERTIFICATE` block (64-character lines, trailing newline).
    public var pemEncoded: String {
        let base64 = Data(derEncoded).base64EncodedString()
        var lines = ["-----BEGIN CERTIFICATE-----"]
        var index = base64.startIndex
        while index < base64.endIndex {
            let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            lines.append(String(base64[index..<end]))
            index = end
        }
        lines.append("-----END CERTIFICATE-----")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The DER contents of extnValue (the bytes inside the OCTET STRING) of the extension with this OID.
    /// - Parameter oid: dotted OID, e.g. `"1.3.6.1.4.1.45724.1.1.4"`.
    /// - Returns: the value, or nil when the certificate has no such extension (or `oid` is not a dotted OID).
    public func extensionValue(oid: String) -> [UInt8]? {
        certificateExtension(oid: oid)?.value
    }

    /// The critical flag of the extension with this OID.
    /// - Parameter oid: dotted OID.
    /// - Returns: the flag, or nil when the certificate has no such extension.
    public func isExtensionCritical(oid: String) -> Bool? {
        certificateExtension(oid: oid)?.isCritical
    }

    /// The extension with this OID (extension OIDs are unique: duplicates are rejected at parse time).
    /// - Parameter oid: dotted OID.
    /// - Returns: the extension, or nil when absent.
    public func certificateExtension(oid: String) -> CertificateExtension? {
        let key = extensions.contains { $0.oid == oid } ? oid : x509CanonicalOID(oid)
        guard let key else { return nil }
        return extensions.first { $0.oid == key }
    }

    /// The subject public key, imported with ``PublicKey/init(spkiDER:algorithm:policy:)`` under
    /// ``COSEKeyPolicy/default`` (RSA 2048...8192 bits; EC P-256/384/521, Ed25519, Ed448).
    /// - Throws: ``CertificateError/Code/unsupportedPublicKey`` when the key type or parameters are not supported
    ///   (the ``CryptoError`` is in the reason).
    public func publicKey() throws(CertificateError) -> PublicKey {
        try publicKey(policy: .default)
    }

    /// The subject public key, imported under an explicit key policy.
    /// - Parameter policy: RSA size limits.
    /// - Throws: ``CertificateError/Code/unsupportedPublicKey`` with the ``CryptoError`` in the reason.
    public func publicKey(policy: COSEKeyPolicy) throws(CertificateError) -> PublicKey {
        do {
            return try PublicKey(spkiDER: subjectPublicKeyInfoDER, policy: policy)
        } catch {
            throw CertificateError(code: .unsupportedPublicKey, reason: String(reflecting: error))
        }
    }

    /// Whether `issuer`'s public key verifies this certificate's signature (`X509_verify`). Checks nothing else:
    /// not names, key identifiers, validity or trust. Use ``ChainVerifier`` for chains.
    /// - Parameter issuer: the presumed issuer.
    /// - Returns: true when the signature verifies.
    public func isSignatureValid(issuer: Certificate) -> Bool {
        clearOpenSSLErrors()
        guard let key = unsafe X509_get0_pubkey(issuer.x509) else {
            clearOpenSSLErrors()
            return false
        }
        let result = unsafe X509_verify(x509, key)
        clearOpenSSLErrors()
        return withExtendedLifetime(issuer) { result == 1 }
    }

    /// `subject` (for logs).
    public var description: String { "Certificate(subject: \(subject), issuer: \(issuer))" }

    /// Compares the DER bytes.
    public static func == (lhs: Certificate, rhs: Certificate) -> Bool {
        lhs === rhs || lhs.derEncoded == rhs.derEncoded
    }

    /// Hashes the DER bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(derEncoded)
    }

    // MARK: - parsing

    /// d2i_X509 on the whole buffer; returns an owned X509* or throws. Rejects trailing bytes.
    private static func decode(_ der: [UInt8]) throws(CertificateError) -> OpaquePointer {
        guard !der.isEmpty else {
            throw CertificateError(code: .malformedCertificate, reason: "empty input")
        }
        guard der.count <= Int(Int32.max) else {
            throw CertificateError(code: .malformedCertificate, reason: "input too large")
        }
        clearOpenSSLErrors()
        return try unsafe der.withUnsafeBufferPointer { (buf) throws(CertificateError) -> OpaquePointer in
            guard let base = buf.baseAddress else {
                throw CertificateError(code: .malformedCertificate, reason: "empty input")
            }
            var cursor: UnsafePointer<UInt8>? = unsafe base
            guard let handle = unsafe d2i_X509(nil, &cursor, buf.count) else {
                throw CertificateError(code: .malformedCertificate, reason: "d2i_X509: \(drainOpenSSLErrors())")
            }
            let consumed = unsafe cursor.map { unsafe base.distance(to: $0) } ?? -1
            guard consumed == buf.count else {
                unsafe X509_free(handle)
                throw CertificateError(
                    code: .malformedCertificate,
                    reason: "\(buf.count - consumed) trailing bytes after the certificate")
            }
            return unsafe handle
        }
    }

    /// Everything read from the X509* at init, as Swift values.
    private struct Fields {
        var version = 0
        var serialNumber: [UInt8] = []
        var subject = DistinguishedName.empty
        var issuer = DistinguishedName.empty
        var notBefore = Date(timeIntervalSince1970: 0)
        var notAfter = Date(timeIntervalSince1970: 0)
        var isCA: Bool? = nil
        var pathLengthConstraint: Int? = nil
        var keyUsage: KeyUsage? = nil
        var extendedKeyUsage: [String] = []
        var directoryNames: [DistinguishedName] = []
        var dnsNames: [String] = []
        var extensions: [CertificateExtension] = []
        var spki: [UInt8] = []
        var signatureAlgorithmOID = ""

        init(reading x509: OpaquePointer) throws(CertificateError) {
            func malformed(_ reason: String) -> CertificateError {
                CertificateError(code: .malformedCertificate, reason: reason)
            }
            let rawVersion = unsafe X509_get_version(x509)
            guard (0...2).contains(rawVersion) else { throw malformed("version field \(rawVersion)") }
            version = Int(rawVersion) + 1

            serialNumber = unsafe x509Bytes(X509_get0_serialNumber(x509))
            subject = try unsafe DistinguishedName(copying: X509_get_subject_name(x509))
            issuer = try unsafe DistinguishedName(copying: X509_get_issuer_name(x509))

            guard let start = unsafe x509Date(X509_get0_notBefore(x509)) else { throw malformed("notBefore") }
            guard let end = unsafe x509Date(X509_get0_notAfter(x509)) else { throw malformed("notAfter") }
            notBefore = start
            notAfter = end

            var algorithm: UnsafePointer<X509_ALGOR>? = nil
            unsafe X509_get0_signature(nil, &algorithm, x509)
            var algorithmObject: OpaquePointer? = nil
            unsafe X509_ALGOR_get0(&algorithmObject, nil, nil, algorithm)
            guard let oid = unsafe x509DottedOID(algorithmObject) else { throw malformed("signatureAlgorithm") }
            signatureAlgorithmOID = oid

            guard let publicKeyInfo = unsafe X509_get_X509_PUBKEY(x509),
                let spkiDER = unsafe x509EncodeDER({ unsafe i2d_X509_PUBKEY(publicKeyInfo, $0) })
            else { throw malformed("subjectPublicKeyInfo: \(drainOpenSSLErrors())") }
            spki = spkiDER

            try unsafe readExtensions(x509, malformed: malformed)

            // Fill OpenSSL's cached extension data (EXFLAG_*) now, while this thread owns the object, so later
            // concurrent readers (chain verification) never populate it. Certificates OpenSSL considers invalid
            // still parse here; chain verification rejects them. Any errors it queued are noise for us.
            _ = unsafe X509_get_extension_flags(x509)
            clearOpenSSLErrors()
        }

        private mutating func readExtensions(
            _ x509: OpaquePointer, malformed: (String) -> CertificateError
        ) throws(CertificateError) {
            let count = unsafe X509_get_ext_count(x509)
            if count > 0 && version < 3 {
                throw malformed("extensions in a version \(version) certificate")
            }
            var seen = Set<String>()
            for index in 0..<max(count, 0) {
                guard let ext = unsafe X509_get_ext(x509, index),
                    let oid = unsafe x509DottedOID(X509_EXTENSION_get_object(ext))
                else { throw malformed("unreadable extension \(index)") }
                guard seen.insert(oid).inserted else { throw malformed("duplicate extension \(oid)") }
                let critical = unsafe X509_EXTENSION_get_critical(ext) != 0
                let value = unsafe x509Bytes(X509_EXTENSION_get_data(ext))
                extensions.append(CertificateExtension(oid: oid, isCritical: critical, value: value))
            }

            // basicConstraints
            if seen.contains("2.5.29.19") {
                guard let raw = unsafe X509_get_ext_d2i(x509, NID_basic_constraints, nil, nil) else {
                    throw malformed("basicConstraints: \(drainOpenSSLErrors())")
                }
                let bc = unsafe raw.assumingMemoryBound(to: BASIC_CONSTRAINTS.self)
                defer { unsafe BASIC_CONSTRAINTS_free(bc) }
                isCA = unsafe passkeyd_x509_basic_constraints_ca(bc) == 1
                var pathLength = 0
                switch unsafe passkeyd_x509_basic_constraints_pathlen(bc, &pathLength) {
                case 0: pathLengthConstraint = nil
                case 1: pathLengthConstraint = pathLength
                default: throw malformed("basicConstraints pathLenConstraint out of range")
                }
            }

            // keyUsage
            if seen.contains("2.5.29.15") {
                guard let raw = unsafe X509_get_ext_d2i(x509, NID_key_usage, nil, nil) else {
                    throw malformed("keyUsage: \(drainOpenSSLErrors())")
                }
                let bits = unsafe raw.assumingMemoryBound(to: ASN1_BIT_STRING.self)
                defer { unsafe ASN1_BIT_STRING_free(bits) }
                var usage: UInt16 = 0
                for bit in 0..<9 where unsafe ASN1_BIT_STRING_get_bit(bits, Int32(bit)) == 1 {
                    usage |= 1 << UInt16(bit)
                }
                keyUsage = KeyUsage(rawValue: usage)
            }

            // extendedKeyUsage
            if seen.contains("2.5.29.37") {
                guard let raw = unsafe X509_get_ext_d2i(x509, NID_ext_key_usage, nil, nil) else {
                    throw malformed("extendedKeyUsage: \(drainOpenSSLErrors())")
                }
                let stack = OpaquePointer(raw)
                defer { unsafe passkeyd_x509_sk_ASN1_OBJECT_pop_free(stack) }
                for index in 0..<max(unsafe passkeyd_x509_sk_ASN1_OBJECT_num(stack), 0) {
                    guard let oid = unsafe x509DottedOID(passkeyd_x509_sk_ASN1_OBJECT_value(stack, index)) else {
                        throw malformed("extendedKeyUsage entry \(index)")
                    }
                    extendedKeyUsage.append(oid)
                }
            }

            // subjectAltName
            if seen.contains("2.5.29.17") {
                guard let raw = unsafe X509_get_ext_d2i(x509, NID_subject_alt_name, nil, nil) else {
                    throw malformed("subjectAltName: \(drainOpenSSLErrors())")
                }
                let names = OpaquePointer(raw)
                defer { unsafe GENERAL_NAMES_free(names) }
                for index in 0..<max(unsafe passkeyd_x509_sk_GENERAL_NAME_num(names), 0) {
                    guard let name = unsafe passkeyd_x509_sk_GENERAL_NAME_value(names, index) else { continue }
                    var type: Int32 = -1
                    let value = unsafe GENERAL_NAME_get0_value(name, &type)
                    switch type {
                    case GEN_DNS:
                        let string = unsafe value?.assumingMemoryBound(to: ASN1_IA5STRING.self)
                        dnsNames.append(String(decoding: unsafe x509Bytes(string), as: UTF8.self))
                    case GEN_DIRNAME:
                        directoryNames.append(try unsafe DistinguishedName(copying: value.map { OpaquePointer($0) }))
                    default:
                        break
                    }
                }
            }
        }
    }
}
