public import COSECrypto
import Foundation
public import WebAuthnCore

/// A stand-in for the FIDO Metadata Service: a test root, a BLOB signing certificate under it, and BLOBs (MDS3
/// JWTs with `x5c`) built from entries the test chooses.
public final class TestMetadataService: Sendable {
    /// The root the relying party must be configured with.
    public let root: TestAttestationCA
    let signingKey: PrivateKey
    let signingCertificate: Certificate

    /// One entry of a BLOB.
    public struct Entry: Sendable {
        public var aaguid: AAGUID?
        public var attestationCertificateKeyIdentifiers: [String] = []
        public var statuses: [AuthenticatorStatus] = [.fidoCertified]
        public var description: String? = "passkeyd test authenticator"
        public var icon: String? = "data:image/png;base64,iVBORw0KGgo="
        public var attestationRootCertificates: [Certificate] = []

        public init(aaguid: AAGUID?) { self.aaguid = aaguid }
    }

    /// Creates the root and the BLOB signing certificate (valid 2023-11 … 2043-11).
    public init() throws {
        root = try TestAttestationCA(name: "passkeyd test FIDO metadata root")
        signingKey = try PrivateKey.generate(for: .es256)
        var builder = CertificateBuilder(
            subject: DistinguishedName([("C", "US"), ("O", "passkeyd tests"), ("CN", "mds.passkeyd.test")]),
            serialNumber: 2, notBefore: Date(timeIntervalSince1970: 1_700_000_000),
            notAfter: Date(timeIntervalSince1970: 1_700_000_000 + 20 * 365 * 86400))
        builder.isCA = false
        signingCertificate = try builder.issue(publicKey: signingKey.publicKey, signedBy: root.rootKey, issuer: root.root)
    }

    /// The trust anchors to give ``MetadataBLOB/verify(_:root:time:maxLength:)``.
    public var trustAnchors: TrustAnchors { root.trustAnchors }

    /// A signed BLOB.
    /// - Parameters:
    ///   - entries: the entries.
    ///   - number: `no`.
    ///   - nextUpdate: `nextUpdate` (`YYYY-MM-DD`).
    ///   - corruptSignature: flip a bit of the signature (a tampered BLOB).
    ///   - signingKey: sign with this key instead of the certificate's.
    /// - Returns: the JWT bytes.
    public func blob(
        entries: [Entry], number: Int = 1, nextUpdate: String = "2027-02-01", corruptSignature: Bool = false,
        signingKey: PrivateKey? = nil
    ) throws -> [UInt8] {
        let json: [[String: Any]] = entries.map { entry in
            var statement: [String: Any] = [
                "attestationRootCertificates": entry.attestationRootCertificates.map { Data($0.derEncoded).base64EncodedString() },
                "schema": 3, "protocolFamily": entry.aaguid == nil ? "u2f" : "fido2",
            ]
            if let description = entry.description { statement["description"] = description }
            if let icon = entry.icon { statement["icon"] = icon }
            var object: [String: Any] = [
                "metadataStatement": statement,
                "statusReports": entry.statuses.map { ["status": $0.rawValue, "effectiveDate": "2024-01-01"] },
                "timeOfLastStatusChange": "2024-01-01",
            ]
            if let aaguid = entry.aaguid {
                object["aaguid"] = aaguid.description
                statement["aaguid"] = aaguid.description
            }
            if !entry.attestationCertificateKeyIdentifiers.isEmpty {
                object["attestationCertificateKeyIdentifiers"] = entry.attestationCertificateKeyIdentifiers
            }
            return object
        }
        let payload: [String: Any] = [
            "legalHeader": "passkeyd test metadata", "no": number, "nextUpdate": nextUpdate, "entries": json,
        ]
        return try TestJWS.sign(
            payload: TestJWS.json(payload), key: signingKey ?? self.signingKey, certificates: [signingCertificate],
            corruptSignature: corruptSignature)
    }
}
