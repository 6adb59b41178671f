internal import COpenSSL

/// One DER element (tag, length, contents), read with OpenSSL's `ASN1_get_object`.
///
/// For the contents of certificate extensions OpenSSL has no typed parser for (Android KeyDescription, Apple's
/// anonymous attestation nonce). Strict: definite lengths only, no trailing bytes; parsing is one level at a time
/// (``children()``), so nesting depth is bounded by the caller's structure, never by recursion here. Integers are
/// decoded by `d2i_ASN1_INTEGER` / `d2i_ASN1_ENUMERATED`, which enforce minimal encodings. Everything is copied
/// into Swift values; no pointer leaves this file.
public struct DERElement: Sendable, Hashable {
    /// The class bits of the identifier octet.
    public enum TagClass: Sendable, Hashable {
        case universal, application, contextSpecific, `private`
    }

    /// The tag class.
    public let tagClass: TagClass
    /// The tag number (high-tag-number form decoded, e.g. 702 for Android's `origin`).
    public let tagNumber: Int
    /// The constructed bit.
    public let isConstructed: Bool
    /// The whole element, identifier and length octets included.
    public let encoded: [UInt8]
    /// The contents octets.
    public let content: [UInt8]

    /// Universal tag numbers used by the attestation extension decoders.
    public static let booleanTag = 1, integerTag = 2, octetStringTag = 4, nullTag = 5, enumeratedTag = 10
    public static let sequenceTag = 16, setTag = 17

    /// Parses exactly one element; trailing bytes are rejected.
    /// - Parameter der: the DER bytes.
    /// - Throws: ``CertificateError/Code/malformedCertificate`` (the decoders serve certificate extensions).
    public static func parse(_ der: [UInt8]) throws(CertificateError) -> DERElement {
        let elements = try parseAll(der)
        guard elements.count == 1 else {
            throw CertificateError(code: .malformedCertificate, reason: "DER: expected one element, found \(elements.count)")
        }
        return elements[0]
    }

    /// Parses a concatenation of elements (the contents of a SEQUENCE or SET).
    static func parseAll(_ der: [UInt8]) throws(CertificateError) -> [DERElement] {
        guard der.count <= Int(Int32.max) else {
            throw CertificateError(code: .malformedCertificate, reason: "DER: input too large")
        }
        func malformed(_ reason: String) -> CertificateError {
            CertificateError(code: .malformedCertificate, reason: "DER: \(reason)")
        }
        clearOpenSSLErrors()
        return try unsafe der.withUnsafeBufferPointer { (buffer) throws(CertificateError) -> [DERElement] in
            guard let base = buffer.baseAddress else { return [] }
            var elements: [DERElement] = []
            var offset = 0
            while offset < buffer.count {
                var cursor: UnsafePointer<UInt8>? = unsafe base + offset
                var length = 0
                var tag: Int32 = 0
                var xclass: Int32 = 0
                let remaining = buffer.count - offset
                let flags = unsafe ASN1_get_object(&cursor, &length, &tag, &xclass, remaining)
                // 0x80: error (including a length running past the end); 0x21: indefinite length (BER, not DER).
                guard flags & 0x80 == 0 else { throw malformed("ASN1_get_object: \(drainOpenSSLErrors())") }
                guard flags != 0x21 else { throw malformed("indefinite length") }
                guard let after = unsafe cursor else { throw malformed("no cursor") }
                let headerLength = unsafe after - (base + offset)
                guard headerLength > 0, length >= 0, length <= remaining - headerLength else {
                    throw malformed("length out of range")
                }
                let start = offset + headerLength
                let end = start + length
                let tagClass: TagClass
                switch xclass {
                case V_ASN1_UNIVERSAL: tagClass = .universal
                case V_ASN1_APPLICATION: tagClass = .application
                case V_ASN1_CONTEXT_SPECIFIC: tagClass = .contextSpecific
                default: tagClass = .private
                }
                elements.append(
                    DERElement(
                        tagClass: tagClass, tagNumber: Int(tag), isConstructed: flags & 0x20 != 0,
                        encoded: unsafe Array(buffer[offset..<end]), content: unsafe Array(buffer[start..<end])))
                offset = end
            }
            return elements
        }
    }

    /// The elements inside a constructed element, in order.
    /// - Throws: ``CertificateError/Code/malformedCertificate`` when the element is primitive or its contents are
    ///   not a sequence of elements.
    public func children() throws(CertificateError) -> [DERElement] {
        guard isConstructed else {
            throw CertificateError(code: .malformedCertificate, reason: "DER: tag \(tagNumber) is not constructed")
        }
        return try Self.parseAll(content)
    }

    /// Whether this is the universal element with tag `number`.
    public func isUniversal(_ number: Int) -> Bool { tagClass == .universal && tagNumber == number }

    /// Whether this is the context-specific element `[number]`.
    public func isContextSpecific(_ number: Int) -> Bool { tagClass == .contextSpecific && tagNumber == number }

    /// The value of an INTEGER or ENUMERATED that fits in 64 bits (`d2i_ASN1_INTEGER` / `d2i_ASN1_ENUMERATED`,
    /// then `ASN1_*_get_int64`).
    public func integerValue() throws(CertificateError) -> Int64 {
        let isInteger = isUniversal(Self.integerTag)
        guard isInteger || isUniversal(Self.enumeratedTag), !isConstructed else {
            throw CertificateError(code: .malformedCertificate, reason: "DER: tag \(tagNumber) is not an INTEGER/ENUMERATED")
        }
        clearOpenSSLErrors()
        let result: Int64? = unsafe encoded.withUnsafeBufferPointer { buffer -> Int64? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            var value: Int64 = 0
            if isInteger {
                guard let integer = unsafe d2i_ASN1_INTEGER(nil, &cursor, buffer.count) else { return nil }
                defer { unsafe ASN1_INTEGER_free(integer) }
                guard unsafe ASN1_INTEGER_get_int64(&value, integer) == 1 else { return nil }
            } else {
                guard let enumerated = unsafe d2i_ASN1_ENUMERATED(nil, &cursor, buffer.count) else { return nil }
                defer { unsafe ASN1_ENUMERATED_free(enumerated) }
                guard unsafe ASN1_ENUMERATED_get_int64(&value, enumerated) == 1 else { return nil }
            }
            guard let end = unsafe cursor, unsafe end == buffer.baseAddress! + buffer.count else { return nil }
            return value
        }
        guard let result else {
            throw CertificateError(code: .malformedCertificate, reason: "DER: bad integer: \(drainOpenSSLErrors())")
        }
        return result
    }

    /// The contents of a primitive OCTET STRING.
    public func octetStringValue() throws(CertificateError) -> [UInt8] {
        guard isUniversal(Self.octetStringTag), !isConstructed else {
            throw CertificateError(code: .malformedCertificate, reason: "DER: tag \(tagNumber) is not an OCTET STRING")
        }
        return content
    }

    /// The single element inside an EXPLICIT tag.
    public func explicitInner() throws(CertificateError) -> DERElement {
        let inner = try children()
        guard inner.count == 1 else {
            throw CertificateError(code: .malformedCertificate, reason: "DER: explicit tag [\(tagNumber)] holds \(inner.count) elements")
        }
        return inner[0]
    }
}
