internal import COpenSSL

#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

// Internal helpers shared by the X.509 files: OID text, ASN1 strings and times, i2d output.
// Every function copies what it reads into Swift values before returning; no pointer escapes.

/// The dotted-decimal text of an ASN1_OBJECT (e.g. "2.5.29.19"), or nil when there is none.
internal func x509DottedOID(_ object: OpaquePointer?) -> String? {
    guard let object = unsafe object else { return nil }
    // With a NULL buffer, OBJ_obj2txt returns the length the text needs (excluding the NUL).
    let needed = unsafe OBJ_obj2txt(nil, 0, object, 1)
    guard needed > 0, needed < 4096 else { return nil }
    var buffer = [CChar](repeating: 0, count: Int(needed) + 1)
    let written = unsafe buffer.withUnsafeMutableBufferPointer { buf in
        unsafe OBJ_obj2txt(buf.baseAddress, Int32(buf.count), object, 1)
    }
    guard written == needed else { return nil }
    return String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// OpenSSL's short name for an ASN1_OBJECT ("CN", "O", "serialNumber", ...), or the dotted OID for objects OpenSSL
/// does not know.
internal func x509ShortName(_ object: OpaquePointer?, dottedOID: String) -> String {
    guard let object = unsafe object else { return dottedOID }
    let nid = unsafe OBJ_obj2nid(object)
    guard nid != NID_undef, let sn = unsafe OBJ_nid2sn(nid) else { return dottedOID }
    return unsafe String(cString: sn)
}

/// Canonical dotted text for an OID given as dotted text, or nil when it is not a numeric OID.
internal func x509CanonicalOID(_ text: String) -> String? {
    guard !text.isEmpty, text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }) else { return nil }
    guard let object = unsafe OBJ_txt2obj(text, 1) else {
        clearOpenSSLErrors()
        return nil
    }
    defer { unsafe ASN1_OBJECT_free(object) }
    return unsafe x509DottedOID(object)
}

/// Copies the content octets of an ASN1_STRING (any string type, OCTET STRING, BIT STRING data).
internal func x509Bytes(_ string: UnsafePointer<ASN1_STRING>?) -> [UInt8] {
    guard let string = unsafe string else { return [] }
    let length = unsafe ASN1_STRING_length(string)
    guard length > 0, let data = unsafe ASN1_STRING_get0_data(string) else { return [] }
    return unsafe Array(UnsafeBufferPointer(start: data, count: Int(length)))
}

/// Converts any ASN.1 character string to a Swift String via ASN1_STRING_to_UTF8 (handles BMPString,
/// UniversalString, T61String, ...). Nil when OpenSSL cannot convert it (e.g. invalid UTF8String).
internal func x509UTF8String(_ string: UnsafePointer<ASN1_STRING>?) -> String? {
    guard let string = unsafe string else { return nil }
    var out: UnsafeMutablePointer<UInt8>? = nil
    let length = unsafe ASN1_STRING_to_UTF8(&out, string)
    guard length >= 0 else {
        unsafe passkeyd_x509_OPENSSL_free(out)
        clearOpenSSLErrors()
        return nil
    }
    defer { unsafe passkeyd_x509_OPENSSL_free(out) }
    guard let out = unsafe out else { return length == 0 ? "" : nil }
    let bytes = unsafe Array(UnsafeBufferPointer(start: out, count: Int(length)))
    return String(validating: bytes, as: UTF8.self)
}

/// Converts an ASN1_TIME (UTCTime or GeneralizedTime) to a Date, or nil when the time is malformed.
/// Never falls back to the current time (ASN1_TIME_to_tm would for a NULL input).
internal func x509Date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
    guard let time = unsafe time else { return nil }
    // `struct tm` counts as unsafe (it holds a `tm_zone` C string pointer, unused here): copy the numbers out.
    var fields = unsafe tm()
    guard unsafe ASN1_TIME_to_tm(time, &fields) == 1 else {
        clearOpenSSLErrors()
        return nil
    }
    let (year, month, day) = unsafe (Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday))
    let (hour, minute, second) = unsafe (Int(fields.tm_hour), Int(fields.tm_min), Int(fields.tm_sec))
    let seconds = x509SecondsSinceEpoch(
        year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    return Date(timeIntervalSince1970: Double(seconds))
}

/// Proleptic-Gregorian UTC date/time to seconds since 1970-01-01T00:00:00Z (days-from-civil, no libc timezone).
internal func x509SecondsSinceEpoch(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let monthIndex = month > 2 ? month - 3 : month + 9
    let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    return days * 86_400 + hour * 3_600 + minute * 60 + second
}

/// Whole seconds since the epoch for an explicit Date (rounded down), or nil for non-finite or absurd values.
internal func x509TimeT(_ date: Date) -> time_t? {
    let interval = date.timeIntervalSince1970.rounded(.down)
    // ±10^12 s is about ±31 700 years: far beyond any X.509 time, far inside time_t.
    guard interval.isFinite, abs(interval) < 1e12 else { return nil }
    return time_t(interval)
}

/// Runs an OpenSSL `i2d_*` function in its allocating mode and copies the DER out.
internal func x509EncodeDER(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int32) -> [UInt8]? {
    var out: UnsafeMutablePointer<UInt8>? = nil
    let length = unsafe encode(&out)
    defer { unsafe passkeyd_x509_OPENSSL_free(out) }
    guard length > 0, let out = unsafe out else { return nil }  // the caller reports the error queue
    return unsafe Array(UnsafeBufferPointer(start: out, count: Int(length)))
}
