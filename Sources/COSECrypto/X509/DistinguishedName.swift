internal import COpenSSL

/// One attribute of a relative distinguished name, e.g. `CN=Yubico U2F EE Serial 13831167861`.
public struct RDNAttribute: Sendable, Hashable, CustomStringConvertible {
    /// Dotted OID of the attribute type, e.g. `"2.5.4.3"`. Empty when built from a short name OpenSSL does not know.
    public var oid: String
    /// OpenSSL's short name (`"C"`, `"O"`, `"OU"`, `"CN"`, `"serialNumber"`, ...), or the dotted OID when OpenSSL
    /// has no name for the type (e.g. the TCG attributes `2.23.133.2.1` in TPM certificates).
    public var shortName: String
    /// The value converted to UTF-8 (from PrintableString, UTF8String, BMPString, ...).
    public var value: String

    /// Creates an attribute from its parts; no lookup is done.
    /// - Parameters:
    ///   - oid: dotted OID of the type.
    ///   - shortName: short name of the type.
    ///   - value: the value.
    public init(oid: String, shortName: String, value: String) {
        self.oid = oid
        self.shortName = shortName
        self.value = value
    }

    /// Creates an attribute from a short name (`"CN"`), long name (`"commonName"`) or dotted OID, looking up the
    /// other form with OpenSSL. An unknown name leaves ``oid`` empty (issuing with it then fails).
    /// - Parameters:
    ///   - type: short name, long name or dotted OID of the attribute type.
    ///   - value: the value.
    public init(_ type: String, _ value: String) {
        self.value = value
        if let object = unsafe OBJ_txt2obj(type, 0) {
            defer { unsafe ASN1_OBJECT_free(object) }
            let oid = unsafe x509DottedOID(object) ?? ""
            self.oid = oid
            self.shortName = oid.isEmpty ? type : unsafe x509ShortName(object, dottedOID: oid)
        } else {
            clearOpenSSLErrors()
            self.oid = ""
            self.shortName = type
        }
    }

    /// `shortName=value`.
    public var description: String { "\(shortName)=\(value)" }
}

/// An X.509 distinguished name as an ordered list of attributes (RDN sequence order, first RDN first; the
/// attributes of a multi-valued RDN appear one after another).
public struct DistinguishedName: Sendable, Hashable, CustomStringConvertible {
    /// The attributes in encoding order.
    public var attributes: [RDNAttribute]

    /// Creates a name from attributes.
    /// - Parameter attributes: the attributes in encoding order.
    public init(attributes: [RDNAttribute]) {
        self.attributes = attributes
    }

    /// Creates a name from `(type, value)` pairs, where type is a short name (`"C"`, `"O"`, `"OU"`, `"CN"`), long
    /// name or dotted OID; see ``RDNAttribute/init(_:_:)``.
    /// - Parameter pairs: the attributes in encoding order.
    public init(_ pairs: [(String, String)]) {
        self.attributes = pairs.map { RDNAttribute($0.0, $0.1) }
    }

    /// The empty name (as in TPM attestation certificates).
    public static let empty = DistinguishedName(attributes: [])

    /// All values whose type has this short name (or dotted OID), in order.
    /// - Parameter shortName: e.g. `"C"`, `"O"`, `"OU"`, `"CN"`, or a dotted OID.
    /// - Returns: the matching values; empty when there is none.
    public func values(_ shortName: String) -> [String] {
        attributes.filter { $0.shortName == shortName || $0.oid == shortName }.map(\.value)
    }

    /// True when the name has no attributes.
    public var isEmpty: Bool { attributes.isEmpty }

    /// `CN=...,O=...` in encoding order (for logs; not an RFC 4514 string).
    public var description: String { attributes.map(\.description).joined(separator: ",") }
}

extension DistinguishedName {
    /// Copies an X509_NAME into a Swift value. Throws when an attribute value cannot be converted to UTF-8.
    internal init(copying name: OpaquePointer?) throws(CertificateError) {
        guard let name = unsafe name else {
            throw CertificateError(code: .malformedCertificate, reason: "missing name")
        }
        let count = unsafe X509_NAME_entry_count(name)
        var attributes: [RDNAttribute] = []
        attributes.reserveCapacity(Int(max(count, 0)))
        for index in 0..<max(count, 0) {
            guard let entry = unsafe X509_NAME_get_entry(name, index),
                let object = unsafe X509_NAME_ENTRY_get_object(entry),
                let oid = unsafe x509DottedOID(object)
            else {
                throw CertificateError(code: .malformedCertificate, reason: "unreadable name attribute type")
            }
            guard let value = unsafe x509UTF8String(X509_NAME_ENTRY_get_data(entry)) else {
                throw CertificateError(
                    code: .malformedCertificate, reason: "name attribute \(oid) is not a convertible string")
            }
            let shortName = unsafe x509ShortName(object, dottedOID: oid)
            attributes.append(RDNAttribute(oid: oid, shortName: shortName, value: value))
        }
        self.attributes = attributes
    }

    /// Builds a newly allocated X509_NAME (owned by the caller: X509_NAME_free) with UTF8String values
    /// (PrintableString where the type requires it, e.g. countryName).
    internal func makeX509Name() throws(CertificateError) -> OpaquePointer {
        guard let name = unsafe X509_NAME_new() else {
            throw CertificateError(code: .issuanceFailed, reason: "X509_NAME_new: \(drainOpenSSLErrors())")
        }
        for attribute in attributes {
            let field = attribute.oid.isEmpty ? attribute.shortName : attribute.oid
            let bytes = Array(attribute.value.utf8)
            let ok = unsafe bytes.withUnsafeBufferPointer { buf in
                unsafe X509_NAME_add_entry_by_txt(
                    name, field, MBSTRING_UTF8, buf.baseAddress, Int32(buf.count), -1, 0)
            }
            guard ok == 1 else {
                unsafe X509_NAME_free(name)
                throw CertificateError(
                    code: .issuanceFailed, reason: "name attribute \(field): \(drainOpenSSLErrors())")
            }
        }
        return unsafe name
    }
}
