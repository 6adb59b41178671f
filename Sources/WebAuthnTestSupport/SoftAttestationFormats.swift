import CBORCodec
public import COSECrypto

/// How the software authenticator builds a `tpm` attestation, with knobs to break each §8.3 step.
public struct TPMKnobs: Sendable {
    /// The AIK's algorithm (`attStmt.alg`): RS256, RS1, ES256, ...
    public var aikAlgorithm: COSEAlgorithm = .rs256
    /// The AIK's RSA modulus size (RSA AIKs only).
    public var aikRSABits = 2048
    /// pubArea.nameAlg (TPM_ALG_SHA256 by default).
    public var nameAlg: UInt16 = 0x000B
    public var magic: UInt32 = 0xFF54_4347
    public var type: UInt16 = 0x8017
    /// `ver` in the statement.
    public var version: String = "2.0"
    /// Replaces certInfo.extraData.
    public var extraDataOverride: [UInt8]?
    /// Replaces certInfo.attested.name.
    public var attestedNameOverride: [UInt8]?
    /// Applied to the marshalled pubArea before the Name is computed (so only the key comparison can fail).
    public var mutatePubArea: (@Sendable ([UInt8]) -> [UInt8])?
    /// Writes the RSA exponent as 0 (the TPM default, meaning 65537) instead of 65537.
    public var rsaDefaultExponentAsZero = true
    /// AIK certificate: subject (TPM AIK certificates have an empty one).
    public var aikSubject: DistinguishedName = .empty
    /// AIK certificate: SAN TPM attributes; nil omits the attribute.
    public var manufacturer: String? = "id:4E544300"  // Nuvoton, a registered TCG vendor id
    public var model: String? = "passkeyd soft TPM"
    public var firmwareVersion: String? = "id:13"
    /// AIK certificate: extendedKeyUsage.
    public var aikExtendedKeyUsage: [String] = ["2.23.133.8.3"]
    /// AIK certificate: basicConstraints cA (nil omits it).
    public var aikIsCA: Bool? = false
    /// AIK certificate: X.509 version (1 drops every extension).
    public var aikCertificateVersion = 3

    public init() {}
}

/// How the software authenticator builds an `android-key` attestation.
public struct AndroidKeyKnobs: Sendable {
    /// Replaces attestationChallenge (default: clientDataHash).
    public var challengeOverride: [UInt8]?
    public var teeEnforced = AndroidKeyDescription.AuthorizationList(purpose: [2], origin: 0)
    public var softwareEnforced = AndroidKeyDescription.AuthorizationList()
    /// Leaves the KeyDescription extension out.
    public var omitKeyDescription = false
    /// Replaces the extension value with these bytes.
    public var rawKeyDescription: [UInt8]?
    /// Certifies (and signs with) this key instead of the credential key.
    public var certifiedKeyOverride: PrivateKey?

    public init() {}
}

/// How the software authenticator builds an `apple` attestation.
public struct AppleKnobs: Sendable {
    /// Replaces the nonce (default: SHA-256(authData ‖ clientDataHash)).
    public var nonceOverride: [UInt8]?
    /// Leaves the nonce extension out.
    public var omitNonce = false
    /// Replaces the extension value with these bytes.
    public var rawNonceExtension: [UInt8]?
    /// Certifies this key instead of the credential key.
    public var certifiedKeyOverride: PublicKey?

    public init() {}
}

/// Builders for the tpm, android-key and apple statements.
enum SoftAttestationFormats {
    static func u16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func u32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func sized(_ bytes: [UInt8]) -> [UInt8] { u16(UInt16(bytes.count)) + bytes }

    static func hash(forNameAlg nameAlg: UInt16) -> HashAlgorithm {
        switch nameAlg {
        case 0x0004: .sha1
        case 0x000C: .sha384
        case 0x000D: .sha512
        default: .sha256
        }
    }

    /// TPMT_PUBLIC for the credential key.
    static func pubArea(for key: PublicKey, knobs: TPMKnobs) throws -> [UInt8] {
        var bytes: [UInt8] = []
        if let (modulus, exponent) = key.rsaPublicComponents {
            let exponentValue = exponent.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            bytes += u16(0x0001) + u16(knobs.nameAlg) + u32(0x0006_0472) + sized([])
            bytes += u16(0x0010) + u16(0x0010) + u16(UInt16(modulus.count * 8))
            bytes += u32(knobs.rsaDefaultExponentAsZero && exponentValue == 65537 ? 0 : exponentValue)
            bytes += sized(modulus)
        } else if let point = key.ecUncompressedPoint {
            let size = (point.count - 1) / 2
            let curve: UInt16 = size == 32 ? 0x0003 : size == 48 ? 0x0004 : 0x0005
            bytes += u16(0x0023) + u16(knobs.nameAlg) + u32(0x0006_0472) + sized([])
            bytes += u16(0x0010) + u16(0x0010) + u16(curve) + u16(0x0010)
            bytes += sized(Array(point[1...size])) + sized(Array(point[(size + 1)...]))
        } else {
            throw SoftAuthenticator.Failure.badOptions("tpm attestation needs an RSA or EC credential key")
        }
        return bytes
    }

    static func tpm(
        ca: TestAttestationCA, knobs: TPMKnobs, credentialKey: PublicKey, signed: [UInt8], aaguid: [UInt8]?
    ) throws -> CBORValue {
        var pubArea = try pubArea(for: credentialKey, knobs: knobs)
        if let mutate = knobs.mutatePubArea { pubArea = mutate(pubArea) }
        let name = u16(knobs.nameAlg) + Digest.hash(hash(forNameAlg: knobs.nameAlg), pubArea)
        let extraData = knobs.extraDataOverride ?? Digest.hash(knobs.aikAlgorithm.hashAlgorithm ?? .sha256, signed)
        var certInfo = u32(knobs.magic) + u16(knobs.type)
        certInfo += sized(u16(0x000B) + Array(repeating: 0x11, count: 32))  // qualifiedSigner
        certInfo += sized(extraData)
        certInfo += Array(repeating: 0, count: 8) + u32(1) + u32(0) + [1]  // clockInfo
        certInfo += Array(repeating: 0x20, count: 8)  // firmwareVersion
        certInfo += sized(knobs.attestedNameOverride ?? name) + sized([])

        let aikKey = try PrivateKey.generate(for: knobs.aikAlgorithm == .rs1 ? .rs256 : knobs.aikAlgorithm, rsaBits: knobs.aikRSABits)
        var builder = CertificateBuilder(
            subject: knobs.aikSubject, serialNumber: UInt64.random(in: 2...UInt64(Int64.max)),
            notBefore: ca.root.notBefore, notAfter: ca.root.notAfter)
        builder.version = knobs.aikCertificateVersion
        if knobs.aikCertificateVersion == 3 {
            builder.isCA = knobs.aikIsCA
            builder.extendedKeyUsage = knobs.aikExtendedKeyUsage
            var attributes: [(String, String)] = []
            if let manufacturer = knobs.manufacturer { attributes.append(("2.23.133.2.1", manufacturer)) }
            if let model = knobs.model { attributes.append(("2.23.133.2.2", model)) }
            if let version = knobs.firmwareVersion { attributes.append(("2.23.133.2.3", version)) }
            if !attributes.isEmpty { builder.subjectAlternativeDirectoryNames = [DistinguishedName(attributes)] }
            if let aaguid {
                builder.extensions.append(CertificateExtension(oid: "1.3.6.1.4.1.45724.1.1.4", critical: false, derValue: [0x04, 0x10] + aaguid))
            }
        } else {
            builder.includeKeyIdentifiers = false
        }
        let aik = try ca.issue(builder, for: aikKey.publicKey)
        let sig = try aikKey.sign(certInfo, algorithm: knobs.aikAlgorithm)
        return .map([
            CBORMapEntry(.text("ver"), .text(knobs.version)),
            CBORMapEntry(.text("alg"), CBORValue(Int64(knobs.aikAlgorithm.rawValue))),
            CBORMapEntry(.text("x5c"), .array(([aik] + ca.chain).map { .bytes($0.derEncoded) })),
            CBORMapEntry(.text("sig"), .bytes(sig)),
            CBORMapEntry(.text("certInfo"), .bytes(certInfo)),
            CBORMapEntry(.text("pubArea"), .bytes(pubArea)),
        ])
    }

    static func androidKey(
        ca: TestAttestationCA, knobs: AndroidKeyKnobs, credentialKey: PrivateKey, algorithm: COSEAlgorithm,
        signed: [UInt8], clientDataHash: [UInt8]
    ) throws -> CBORValue {
        let certifiedKey = knobs.certifiedKeyOverride ?? credentialKey
        var builder = CertificateBuilder(
            subject: DistinguishedName([("CN", "Android Keystore Key")]), serialNumber: 1,
            notBefore: ca.root.notBefore, notAfter: ca.root.notAfter)
        if !knobs.omitKeyDescription {
            let description = AndroidKeyDescription(
                attestationChallenge: knobs.challengeOverride ?? clientDataHash,
                softwareEnforced: knobs.softwareEnforced, teeEnforced: knobs.teeEnforced)
            builder.extensions.append(
                CertificateExtension(
                    oid: AndroidKeyDescription.oid, critical: false, derValue: knobs.rawKeyDescription ?? description.derEncoded()))
        }
        let leaf = try ca.issue(builder, for: certifiedKey.publicKey)
        let sig = try certifiedKey.sign(signed, algorithm: algorithm)
        return .map([
            CBORMapEntry(.text("alg"), CBORValue(Int64(algorithm.rawValue))),
            CBORMapEntry(.text("sig"), .bytes(sig)),
            CBORMapEntry(.text("x5c"), .array(([leaf] + ca.chain).map { .bytes($0.derEncoded) })),
        ])
    }

    static func apple(ca: TestAttestationCA, knobs: AppleKnobs, credentialKey: PublicKey, signed: [UInt8]) throws -> CBORValue {
        var builder = CertificateBuilder(
            subject: DistinguishedName([("CN", "passkeyd soft Apple credential"), ("OU", "AAA Certification"), ("O", "passkeyd tests")]),
            serialNumber: UInt64.random(in: 2...UInt64(Int64.max)), notBefore: ca.root.notBefore, notAfter: ca.root.notAfter)
        if !knobs.omitNonce {
            let value = knobs.rawNonceExtension ?? AppleAnonymousAttestationNonce.encode(knobs.nonceOverride ?? Digest.sha256(signed))
            builder.extensions.append(CertificateExtension(oid: AppleAnonymousAttestationNonce.oid, critical: false, derValue: value))
        }
        let leaf = try ca.issue(builder, for: knobs.certifiedKeyOverride ?? credentialKey)
        return .map([CBORMapEntry(.text("x5c"), .array(([leaf] + ca.chain).map { .bytes($0.derEncoded) }))])
    }
}
