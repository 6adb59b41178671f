public import COSECrypto
public import Foundation

/// A throwaway attestation PKI for tests: a root CA that issues attestation certificates for the software
/// authenticator (packed full attestation and fido-u2f).
public final class TestAttestationCA: Sendable {
    /// The issuing CA's key (the root's, or the intermediate's for ``init(intermediateOf:name:)``).
    public let rootKey: PrivateKey
    /// The issuing CA's certificate (the root, or the intermediate for ``init(intermediateOf:name:)``).
    public let root: Certificate
    /// Certificates between an issued leaf and the anchor, issuing CA first (`[]` for a root CA): what an
    /// authenticator appends to `x5c` after its leaf.
    public let chain: [Certificate]
    /// The self-signed root that chains end at.
    public let anchor: Certificate

    /// Creates a self-signed root valid from `notBefore` for `years`.
    public init(name: String = "passkeyd test attestation root", notBefore: Date = Date(timeIntervalSince1970: 1_700_000_000), years: Int = 30) throws {
        rootKey = try PrivateKey.generate(for: .es256)
        var builder = CertificateBuilder(
            subject: DistinguishedName([("C", "US"), ("O", "passkeyd tests"), ("CN", name)]),
            serialNumber: 1, notBefore: notBefore, notAfter: notBefore.addingTimeInterval(Double(years) * 365 * 86400))
        builder.isCA = true
        root = try builder.issue(publicKey: rootKey.publicKey, signedBy: rootKey, issuer: nil)
        chain = []
        anchor = root
    }

    /// An intermediate CA issued by `parent`: leaves it issues chain through it to `parent`'s anchor.
    public init(intermediateOf parent: TestAttestationCA, name: String = "passkeyd test attestation intermediate") throws {
        rootKey = try PrivateKey.generate(for: .es256)
        var builder = CertificateBuilder(
            subject: DistinguishedName([("C", "US"), ("O", "passkeyd tests"), ("CN", name)]),
            serialNumber: UInt64.random(in: 2...UInt64(Int64.max)), notBefore: parent.root.notBefore,
            notAfter: parent.root.notAfter)
        builder.isCA = true
        root = try builder.issue(publicKey: rootKey.publicKey, signedBy: parent.rootKey, issuer: parent.root)
        chain = [root] + parent.chain
        anchor = parent.anchor
    }

    /// A CA from its saved parts (a tool that keeps its test PKI in a file between runs).
    /// - Parameters:
    ///   - key: the issuing CA's key.
    ///   - certificate: the issuing CA's certificate.
    ///   - chain: certificates between it and the anchor, it first (`[]` for a root).
    ///   - anchor: the self-signed root.
    public init(key: PrivateKey, certificate: Certificate, chain: [Certificate], anchor: Certificate) {
        rootKey = key
        root = certificate
        self.chain = chain
        self.anchor = anchor
    }

    /// The anchor as trust anchors.
    public var trustAnchors: TrustAnchors { TrustAnchors([anchor]) }

    /// Issues a certificate from `builder` for `key`, signed by this CA.
    public func issue(_ builder: CertificateBuilder, for key: PublicKey) throws -> Certificate {
        try builder.issue(publicKey: key, signedBy: rootKey, issuer: root)
    }

    /// Issues an attestation certificate for `key`.
    /// - Parameters:
    ///   - key: the attestation public key.
    ///   - subject: defaults to a subject meeting packed §8.2.1.
    ///   - aaguid: when set, the id-fido-gen-ce-aaguid extension with these 16 bytes.
    ///   - isCA: basicConstraints cA (nil omits the extension).
    ///   - version: X.509 version (1 or 3).
    ///   - notBefore: start of validity.
    ///   - notAfter: end of validity.
    public func issueAttestationCertificate(
        for key: PublicKey,
        subject: DistinguishedName = DistinguishedName([
            ("C", "US"), ("O", "passkeyd tests"), ("OU", "Authenticator Attestation"), ("CN", "passkeyd soft authenticator"),
        ]),
        aaguid: [UInt8]? = nil, aaguidCritical: Bool = false, isCA: Bool? = false, version: Int = 3,
        notBefore: Date = Date(timeIntervalSince1970: 1_700_000_000),
        notAfter: Date = Date(timeIntervalSince1970: 1_700_000_000 + 20 * 365 * 86400)
    ) throws -> Certificate {
        var builder = CertificateBuilder(subject: subject, serialNumber: UInt64.random(in: 2...UInt64(Int64.max)), notBefore: notBefore, notAfter: notAfter)
        builder.isCA = isCA
        builder.version = version
        if let aaguid {
            builder.extensions.append(CertificateExtension(oid: "1.3.6.1.4.1.45724.1.1.4", critical: aaguidCritical, derValue: [0x04, 0x10] + aaguid))
        }
        return try builder.issue(publicKey: key, signedBy: rootKey, issuer: root)
    }
}
