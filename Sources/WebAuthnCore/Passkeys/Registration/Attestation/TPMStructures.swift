import COSECrypto

// TPM 2.0 marshalled structures (TPM 2.0 Library Part 2), as the tpm attestation format (§8.3) carries them.
// These are TPM wire structures (big-endian integers and UINT16-size-prefixed buffers), not ASN.1; every read is
// bounds-checked and trailing bytes are refused.

/// TPM_ALG_ID values this verifier knows.
enum TPMAlgorithm {
    static let rsa: UInt16 = 0x0001
    static let sha1: UInt16 = 0x0004
    static let sha256: UInt16 = 0x000B
    static let sha384: UInt16 = 0x000C
    static let sha512: UInt16 = 0x000D
    static let null: UInt16 = 0x0010
    static let ecc: UInt16 = 0x0023

    /// The hash behind a TPM hash algorithm id (nameAlg), nil for others.
    static func hash(_ id: UInt16) -> HashAlgorithm? {
        switch id {
        case sha1: .sha1
        case sha256: .sha256
        case sha384: .sha384
        case sha512: .sha512
        default: nil
        }
    }
}

/// TPM_ECC_CURVE values for the NIST curves.
enum TPMECCCurve {
    static let nistP256: UInt16 = 0x0003
    static let nistP384: UInt16 = 0x0004
    static let nistP521: UInt16 = 0x0005
}

/// A big-endian reader over a TPM structure.
struct TPMReader {
    struct Truncated: Error {}

    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func uint8() throws(Truncated) -> UInt8 {
        guard offset < bytes.count else { throw Truncated() }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() throws(Truncated) -> UInt16 {
        let raw = try fixed(2)
        return UInt16(raw[0]) << 8 | UInt16(raw[1])
    }

    mutating func uint32() throws(Truncated) -> UInt32 {
        let raw = try fixed(4)
        return raw.reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64() throws(Truncated) -> UInt64 {
        let raw = try fixed(8)
        return raw.reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func fixed(_ count: Int) throws(Truncated) -> [UInt8] {
        guard count >= 0, bytes.count - offset >= count else { throw Truncated() }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// A TPM2B_*: UINT16 size, then that many bytes.
    mutating func sized() throws(Truncated) -> [UInt8] {
        try fixed(Int(try uint16()))
    }
}

/// TPMT_PUBLIC for an RSA or ECC key (§8.3 `pubArea`).
struct TPMTPublic {
    enum Parameters: Equatable {
        /// TPMS_RSA_PARMS: keyBits, exponent (0 means the default 2^16 + 1).
        case rsa(keyBits: UInt16, exponent: UInt32)
        /// TPMS_ECC_PARMS: curveID.
        case ecc(curveID: UInt16)
    }

    enum Unique: Equatable {
        /// TPM2B_PUBLIC_KEY_RSA: the modulus.
        case rsa(modulus: [UInt8])
        /// TPMS_ECC_POINT: x, y.
        case ecc(x: [UInt8], y: [UInt8])
    }

    let type: UInt16
    let nameAlg: UInt16
    let objectAttributes: UInt32
    let parameters: Parameters
    let unique: Unique

    struct Malformed: Error {
        let reason: String
        /// Whether a non-NULL scheme was read (the legacy layout is worth a try).
        var schemeWasSet = false
    }

    /// Parses a TPMT_PUBLIC. `symmetric` must be TPM_ALG_NULL (TPM 2.0 Part 2 §12.2.3.7: only restricted
    /// decryption keys have one; a WebAuthn credential is a signing key). A non-NULL `scheme` is followed by its
    /// hashAlg (TPMS_SCHEME_HASH); when that reading does not consume the buffer exactly, the layout without the
    /// hashAlg is tried, as java-webauthn-server's test authenticator writes it and py_webauthn, go-webauthn and
    /// SimpleWebAuthn read it. Either way every byte must be consumed and parameters/unique are then compared
    /// exactly with the credential key, so the fallback cannot make a different key pass.
    init(_ bytes: [UInt8]) throws(Malformed) {
        do {
            self = try Self.parse(bytes, schemeDetails: true)
        } catch let strict {
            guard strict.schemeWasSet, let legacy = try? Self.parse(bytes, schemeDetails: false) else { throw strict }
            self = legacy
        }
    }

    private init(type: UInt16, nameAlg: UInt16, objectAttributes: UInt32, parameters: Parameters, unique: Unique) {
        self.type = type
        self.nameAlg = nameAlg
        self.objectAttributes = objectAttributes
        self.parameters = parameters
        self.unique = unique
    }

    private static func parse(_ bytes: [UInt8], schemeDetails: Bool) throws(Malformed) -> TPMTPublic {
        var reader = TPMReader(bytes)
        var schemeWasSet = false
        let result: TPMTPublic
        do {
            let type = try reader.uint16()
            let nameAlg = try reader.uint16()
            let objectAttributes = try reader.uint32()
            _ = try reader.sized()  // authPolicy
            guard try reader.uint16() == TPMAlgorithm.null else {
                throw Malformed(reason: "pubArea.parameters.symmetric is not TPM_ALG_NULL (not a signing key)")
            }
            // TPMT_{RSA,ECC}_SCHEME scheme: NULL, or a signing scheme followed by its hashAlg.
            let scheme = try reader.uint16()
            if scheme != TPMAlgorithm.null {
                schemeWasSet = true
                if schemeDetails { _ = try reader.uint16() }
            }
            let parameters: Parameters
            let unique: Unique
            switch type {
            case TPMAlgorithm.rsa:
                let keyBits = try reader.uint16()
                let exponent = try reader.uint32()
                parameters = .rsa(keyBits: keyBits, exponent: exponent)
                unique = .rsa(modulus: try reader.sized())
            case TPMAlgorithm.ecc:
                let curveID = try reader.uint16()
                // TPMT_KDF_SCHEME kdf: NULL, or a scheme followed by its hashAlg.
                let kdf = try reader.uint16()
                if kdf != TPMAlgorithm.null { _ = try reader.uint16() }
                parameters = .ecc(curveID: curveID)
                let x = try reader.sized()
                let y = try reader.sized()
                unique = .ecc(x: x, y: y)
            default:
                throw Malformed(reason: "pubArea type 0x\(String(type, radix: 16)) is neither RSA nor ECC")
            }
            result = TPMTPublic(type: type, nameAlg: nameAlg, objectAttributes: objectAttributes, parameters: parameters, unique: unique)
        } catch var error as Malformed {
            error.schemeWasSet = schemeWasSet
            throw error
        } catch {
            throw Malformed(reason: "pubArea is truncated", schemeWasSet: schemeWasSet)
        }
        guard reader.isAtEnd else { throw Malformed(reason: "pubArea has trailing bytes", schemeWasSet: schemeWasSet) }
        return result
    }
}

/// TPMS_ATTEST carrying a TPMS_CERTIFY_INFO (§8.3 `certInfo`).
struct TPMSAttest {
    static let generatedValue: UInt32 = 0xFF54_4347
    static let attestCertify: UInt16 = 0x8017

    let magic: UInt32
    let type: UInt16
    let qualifiedSigner: [UInt8]
    let extraData: [UInt8]
    let clock: UInt64
    let resetCount: UInt32
    let restartCount: UInt32
    let safe: UInt8
    let firmwareVersion: UInt64
    /// TPMS_CERTIFY_INFO.name.
    let attestedName: [UInt8]
    /// TPMS_CERTIFY_INFO.qualifiedName.
    let attestedQualifiedName: [UInt8]

    struct Malformed: Error { let reason: String }

    /// Parses the structure. The union `attested` is read as TPMS_CERTIFY_INFO whatever `type` says; the caller
    /// checks `type` (a different type leaves trailing bytes or truncation, reported as malformed only after the
    /// magic and type checks in spec order).
    init(_ bytes: [UInt8]) throws(Malformed) {
        var reader = TPMReader(bytes)
        do {
            magic = try reader.uint32()
            type = try reader.uint16()
            qualifiedSigner = try reader.sized()
            extraData = try reader.sized()
            clock = try reader.uint64()
            resetCount = try reader.uint32()
            restartCount = try reader.uint32()
            safe = try reader.uint8()
            firmwareVersion = try reader.uint64()
            attestedName = try reader.sized()
            attestedQualifiedName = try reader.sized()
        } catch {
            throw Malformed(reason: "certInfo is truncated")
        }
        guard reader.isAtEnd else { throw Malformed(reason: "certInfo has trailing bytes") }
    }
}

extension Array where Element == UInt8 {
    /// The bytes without leading zero octets (big-endian integer comparison).
    var strippingLeadingZeros: ArraySlice<UInt8> {
        let firstNonZero = firstIndex { $0 != 0 } ?? endIndex
        return self[firstNonZero...]
    }
}
