import COSECrypto
import Foundation
import Testing

/// A root → intermediate → leaf hierarchy issued with CertificateBuilder.
struct X509TestPKI {
    let rootKey: PrivateKey
    let intermediateKey: PrivateKey
    let leafKey: PrivateKey
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate

    static let aaguid: [UInt8] = Array(0x10..<0x20)
    static let aaguidExtension: [UInt8] = [0x04, 0x10] + aaguid

    /// root 2020–2040, intermediate 2021–2035, leaf 2024-01-01 – 2026-01-01.
    static func make(algorithm: COSEAlgorithm = .es256) throws -> X509TestPKI {
        let utc = X509TestSupport.utc
        let rootKey = try PrivateKey.generate(for: algorithm)
        let intermediateKey = try PrivateKey.generate(for: algorithm)
        let leafKey = try PrivateKey.generate(for: .es256)

        var rootBuilder = CertificateBuilder(
            subject: DistinguishedName([("C", "US"), ("O", "passkeyd tests"), ("CN", "Test Root CA")]),
            serialNumber: 1, notBefore: utc("2020-01-01T00:00:00Z"), notAfter: utc("2040-01-01T00:00:00Z"),
            isCA: true)
        rootBuilder.keyUsage = [.keyCertSign, .cRLSign]
        let root = try rootBuilder.issue(publicKey: rootKey.publicKey, signedBy: rootKey, issuer: nil)

        var intermediateBuilder = CertificateBuilder(
            subject: DistinguishedName([("C", "US"), ("O", "passkeyd tests"), ("CN", "Test Intermediate CA")]),
            serialNumber: 2, notBefore: utc("2021-01-01T00:00:00Z"), notAfter: utc("2035-01-01T00:00:00Z"),
            isCA: true)
        intermediateBuilder.pathLengthConstraint = 0
        intermediateBuilder.keyUsage = [.keyCertSign, .cRLSign]
        let intermediate = try intermediateBuilder.issue(
            publicKey: intermediateKey.publicKey, signedBy: rootKey, issuer: root)

        let leafBuilder = CertificateBuilder(
            subject: DistinguishedName([
                ("C", "US"), ("O", "passkeyd tests"), ("OU", "Authenticator Attestation"), ("CN", "Test Leaf"),
            ]),
            serialNumber: 3, notBefore: utc("2024-01-01T00:00:00Z"), notAfter: utc("2026-01-01T00:00:00Z"),
            isCA: false,
            extensions: [.init(oid: "1.3.6.1.4.1.45724.1.1.4", critical: false, derValue: aaguidExtension)],
            extendedKeyUsage: ["2.23.133.8.3", "1.3.6.1.5.5.7.3.2"])
        let leaf = try leafBuilder.issue(publicKey: leafKey.publicKey, signedBy: intermediateKey, issuer: intermediate)
        return X509TestPKI(
            rootKey: rootKey, intermediateKey: intermediateKey, leafKey: leafKey,
            root: root, intermediate: intermediate, leaf: leaf)
    }

    func verify(
        at time: String, intermediates: [Certificate]? = nil, anchors: [Certificate]? = nil,
        leaf: Certificate? = nil, partial: Bool = false
    ) throws(CertificateError) -> [Certificate] {
        try ChainVerifier.verify(
            leaf: leaf ?? self.leaf, intermediates: intermediates ?? [intermediate],
            anchors: TrustAnchors(anchors ?? [root]),
            options: ChainVerificationOptions(time: X509TestSupport.utc(time), allowPartialChain: partial))
    }
}

@Suite("X509 chain verification")
struct X509ChainTests {
    let inside = "2025-01-01T00:00:00Z"

    @Test("valid chain verifies and returns leaf → intermediate → root")
    func validChain() throws {
        let pki = try X509TestPKI.make()
        let chain = try pki.verify(at: inside)
        #expect(chain == [pki.leaf, pki.intermediate, pki.root])
        #expect(chain[0] === pki.leaf)
        // Boundaries as OpenSSL applies them: notBefore is inclusive, notAfter is exclusive (one second earlier
        // is still valid).
        _ = try pki.verify(at: "2024-01-01T00:00:00Z")
        _ = try pki.verify(at: "2025-12-31T23:59:59Z")
        #expect(throws: CertificateError.chainExpired) { try pki.verify(at: "2026-01-01T00:00:00Z") }
    }

    @Test("valid chains for RSA, P-384 and Ed25519 CAs", arguments: [COSEAlgorithm.rs256, .es384, .edDSA])
    func otherAlgorithms(algorithm: COSEAlgorithm) throws {
        let pki = try X509TestPKI.make(algorithm: algorithm)
        let expectedOID: String
        switch algorithm {
        case .rs256: expectedOID = "1.2.840.113549.1.1.11"
        case .es384: expectedOID = "1.2.840.10045.4.3.3"
        default: expectedOID = "1.3.101.112"
        }
        #expect(pki.root.signatureAlgorithmOID == expectedOID)
        #expect(pki.leaf.signatureAlgorithmOID == expectedOID)
        #expect(try pki.verify(at: inside).count == 3)
    }

    @Test("expired at a later time")
    func expired() throws {
        let pki = try X509TestPKI.make()
        let error = #expect(throws: CertificateError.chainExpired) { try pki.verify(at: "2026-01-01T00:00:01Z") }
        #expect(error?.reason.contains("depth 0") == true)
        #expect(throws: CertificateError.chainExpired) { try pki.verify(at: "2036-01-01T00:00:00Z") }
    }

    @Test("not yet valid at an earlier time")
    func notYetValid() throws {
        let pki = try X509TestPKI.make()
        #expect(throws: CertificateError.chainNotYetValid) { try pki.verify(at: "2023-12-31T23:59:59Z") }
        #expect(throws: CertificateError.chainNotYetValid) { try pki.verify(at: "2019-06-01T00:00:00Z") }
    }

    @Test("an unrelated anchor is untrusted")
    func untrustedAnchor() throws {
        let pki = try X509TestPKI.make()
        let other = try X509TestPKI.make()
        #expect(throws: CertificateError.chainUntrusted) { try pki.verify(at: inside, anchors: [other.root]) }
        #expect(throws: CertificateError.chainUntrusted) { try pki.verify(at: inside, anchors: []) }
        // Missing intermediate: no path.
        #expect(throws: CertificateError.chainUntrusted) { try pki.verify(at: inside, intermediates: []) }
        // A self-signed leaf that is not an anchor.
        #expect(throws: CertificateError.chainUntrusted) {
            try pki.verify(at: inside, intermediates: [], anchors: [other.root], leaf: pki.root)
        }
    }

    @Test("a leaf with a corrupted signature fails")
    func corruptedSignature() throws {
        let pki = try X509TestPKI.make()
        var der = pki.leaf.derEncoded
        der[der.count - 1] ^= 0x01  // last byte of the ECDSA signature value
        let tampered: Certificate
        do {
            tampered = try Certificate(derEncoded: der)
        } catch {
            #expect(error.code == .malformedCertificate)
            return
        }
        #expect(!tampered.isSignatureValid(issuer: pki.intermediate))
        #expect(pki.leaf.isSignatureValid(issuer: pki.intermediate))
        #expect(throws: CertificateError.chainSignatureInvalid) { try pki.verify(at: inside, leaf: tampered) }
    }

    @Test("a tampered TBS field fails the signature check")
    func tamperedTBS() throws {
        let pki = try X509TestPKI.make()
        var der = pki.leaf.derEncoded
        let cn = Array("Test Leaf".utf8)
        let position = try #require(der.indices.first { der[$0...].starts(with: cn) })
        der[position] = UInt8(ascii: "B")
        let tampered = try Certificate(derEncoded: der)
        #expect(tampered.subject.values("CN") == ["Best Leaf"])
        #expect(throws: CertificateError.chainSignatureInvalid) { try pki.verify(at: inside, leaf: tampered) }
    }

    /// SimpleWebAuthn GHSA-6hxq-p678-4hr2: the walk must end at a configured anchor, not at any self-signed
    /// certificate inside x5c.
    @Test("attacker's self-signed root among the intermediates is not trusted")
    func attackerRootInIntermediates() throws {
        let pki = try X509TestPKI.make()
        let utc = X509TestSupport.utc
        let attackerKey = try PrivateKey.generate(for: .es256)
        let attackerRoot = try CertificateBuilder(
            subject: DistinguishedName([("CN", "Attacker Root")]),
            notBefore: utc("2020-01-01T00:00:00Z"), notAfter: utc("2040-01-01T00:00:00Z"), isCA: true
        ).issue(publicKey: attackerKey.publicKey, signedBy: attackerKey, issuer: nil)
        let attackerLeaf = try CertificateBuilder(
            subject: DistinguishedName([("CN", "Attacker Leaf")]),
            notBefore: utc("2020-01-01T00:00:00Z"), notAfter: utc("2040-01-01T00:00:00Z"), isCA: false
        ).issue(publicKey: pki.leafKey.publicKey, signedBy: attackerKey, issuer: attackerRoot)
        let error = #expect(throws: CertificateError.chainUntrusted) {
            try pki.verify(at: inside, intermediates: [attackerRoot], leaf: attackerLeaf)
        }
        #expect(error?.reason.contains("self-signed") == true)

        // Same attack with a root that copies the real root's name and omits key identifiers.
        var impostorBuilder = CertificateBuilder(
            subject: pki.root.subject,
            notBefore: utc("2020-01-01T00:00:00Z"), notAfter: utc("2040-01-01T00:00:00Z"), isCA: true)
        impostorBuilder.includeKeyIdentifiers = false
        let impostor = try impostorBuilder.issue(publicKey: attackerKey.publicKey, signedBy: attackerKey, issuer: nil)
        var impostorLeafBuilder = CertificateBuilder(
            subject: DistinguishedName([("CN", "Impostor Leaf")]),
            notBefore: utc("2020-01-01T00:00:00Z"), notAfter: utc("2040-01-01T00:00:00Z"), isCA: false)
        impostorLeafBuilder.includeKeyIdentifiers = false
        let impostorLeaf = try impostorLeafBuilder.issue(
            publicKey: pki.leafKey.publicKey, signedBy: attackerKey, issuer: impostor)
        #expect(throws: CertificateError.self) {
            try pki.verify(at: inside, intermediates: [impostor], leaf: impostorLeaf)
        }
        // Trusting the attacker root explicitly is the only way to accept it.
        #expect(try pki.verify(at: inside, intermediates: [], anchors: [attackerRoot], leaf: attackerLeaf).count == 2)
    }

    @Test("an intermediate as anchor works only with allowPartialChain")
    func partialChain() throws {
        let pki = try X509TestPKI.make()
        #expect(throws: CertificateError.chainUntrusted) {
            try pki.verify(at: inside, intermediates: [], anchors: [pki.intermediate])
        }
        let chain = try pki.verify(at: inside, intermediates: [], anchors: [pki.intermediate], partial: true)
        #expect(chain == [pki.leaf, pki.intermediate])
        // Partial chains still check validity and signatures.
        #expect(throws: CertificateError.chainExpired) {
            try pki.verify(at: "2027-01-01T00:00:00Z", intermediates: [], anchors: [pki.intermediate], partial: true)
        }
        // A leaf configured as its own anchor is accepted only as a partial chain.
        #expect(throws: CertificateError.chainUntrusted) {
            try pki.verify(at: inside, intermediates: [], anchors: [pki.leaf])
        }
        #expect(try pki.verify(at: inside, intermediates: [], anchors: [pki.leaf], partial: true) == [pki.leaf])
    }

    @Test("duplicate anchors and duplicate intermediates are harmless")
    func duplicates() throws {
        let pki = try X509TestPKI.make()
        let chain = try pki.verify(
            at: inside, intermediates: [pki.intermediate, pki.intermediate], anchors: [pki.root, pki.root])
        #expect(chain == [pki.leaf, pki.intermediate, pki.root])
    }

    @Test("intermediates may be given in any order, with extras")
    func intermediateOrder() throws {
        let pki = try X509TestPKI.make()
        let other = try X509TestPKI.make()
        let chain = try pki.verify(at: inside, intermediates: [other.intermediate, pki.root, pki.intermediate])
        #expect(chain == [pki.leaf, pki.intermediate, pki.root])
    }

    @Test("maxDepth limits the number of intermediates")
    func maxDepth() throws {
        let pki = try X509TestPKI.make()
        var options = ChainVerificationOptions(time: X509TestSupport.utc(inside))
        options.maxDepth = 0
        #expect(throws: CertificateError.chainInvalid) {
            try ChainVerifier.verify(
                leaf: pki.leaf, intermediates: [pki.intermediate], anchors: TrustAnchors([pki.root]), options: options)
        }
        options.maxDepth = 1
        #expect(
            try ChainVerifier.verify(
                leaf: pki.leaf, intermediates: [pki.intermediate], anchors: TrustAnchors([pki.root]), options: options
            ).count == 3)
    }

    @Test("a CA=false intermediate cannot issue")
    func nonCAIntermediate() throws {
        let pki = try X509TestPKI.make()
        let utc = X509TestSupport.utc
        let key = try PrivateKey.generate(for: .es256)
        let child = try CertificateBuilder(
            subject: DistinguishedName([("CN", "Child of a leaf")]),
            notBefore: utc("2024-06-01T00:00:00Z"), notAfter: utc("2025-06-01T00:00:00Z"), isCA: false
        ).issue(publicKey: key.publicKey, signedBy: pki.leafKey, issuer: pki.leaf)
        #expect(throws: CertificateError.chainInvalid) {
            try pki.verify(at: inside, intermediates: [pki.leaf, pki.intermediate], leaf: child)
        }
    }

    @Test("verification time must be explicit and representable")
    func absurdTime() throws {
        let pki = try X509TestPKI.make()
        #expect(throws: CertificateError.chainInvalid) {
            try ChainVerifier.verify(
                leaf: pki.leaf, intermediates: [pki.intermediate], anchors: TrustAnchors([pki.root]),
                options: ChainVerificationOptions(time: .distantFuture.addingTimeInterval(.infinity)))
        }
    }
}

@Suite("X509 certificate builder and accessors")
struct X509BuilderTests {
    @Test("issued leaf exposes extensions, EKU, basic constraints, names and key")
    func leafFields() throws {
        let pki = try X509TestPKI.make()
        let leaf = pki.leaf
        #expect(leaf.version == 3)
        #expect(leaf.serialNumber == [0x03])
        #expect(leaf.isCA == false)
        #expect(leaf.pathLengthConstraint == nil)
        #expect(leaf.isExtensionCritical(oid: "2.5.29.19") == true)
        #expect(leaf.extensionValue(oid: "2.5.29.19") == [0x30, 0x00])
        #expect(leaf.extensionValue(oid: "1.3.6.1.4.1.45724.1.1.4") == X509TestPKI.aaguidExtension)
        #expect(leaf.isExtensionCritical(oid: "1.3.6.1.4.1.45724.1.1.4") == false)
        #expect(leaf.extendedKeyUsage == ["2.23.133.8.3", "1.3.6.1.5.5.7.3.2"])
        #expect(leaf.keyUsage == nil)
        #expect(leaf.keyUsageCertSign == nil)
        #expect(leaf.subject.values("OU") == ["Authenticator Attestation"])
        #expect(leaf.subject.values("C") == ["US"])
        #expect(leaf.issuer == pki.intermediate.subject)
        #expect(leaf.notBefore == X509TestSupport.utc("2024-01-01T00:00:00Z"))
        #expect(leaf.notAfter == X509TestSupport.utc("2026-01-01T00:00:00Z"))
        #expect(leaf.signatureAlgorithmOID == "1.2.840.10045.4.3.2")
        #expect(try leaf.publicKey().isEqual(to: pki.leafKey.publicKey))
        #expect(!(try leaf.publicKey().isEqual(to: pki.rootKey.publicKey)))
        // Key identifiers: leaf AKI = intermediate SKI.
        let ski = try #require(pki.intermediate.extensionValue(oid: "2.5.29.14"))
        let aki = try #require(leaf.extensionValue(oid: "2.5.29.35"))
        #expect(aki == [0x30, UInt8(ski.count)] + [0x80] + ski.dropFirst())

        #expect(pki.root.isCA == true)
        #expect(pki.root.keyUsage == [.keyCertSign, .cRLSign])
        #expect(pki.root.keyUsageCertSign == true)
        #expect(pki.root.isSelfIssued)
        #expect(pki.intermediate.pathLengthConstraint == 0)
        #expect(pki.root.extensions.map(\.oid) == ["2.5.29.19", "2.5.29.15", "2.5.29.14", "2.5.29.35"])
    }

    @Test("absent extensions read as nil / empty")
    func absentExtensions() throws {
        let key = try PrivateKey.generate(for: .es256)
        var builder = CertificateBuilder(
            subject: DistinguishedName([("CN", "bare")]),
            notBefore: X509TestSupport.utc("2024-01-01T00:00:00Z"), notAfter: X509TestSupport.utc("2025-01-01T00:00:00Z"))
        builder.includeKeyIdentifiers = false
        let certificate = try builder.issue(publicKey: key.publicKey, signedBy: key, issuer: nil)
        #expect(certificate.version == 3)
        #expect(certificate.isCA == nil)
        #expect(certificate.pathLengthConstraint == nil)
        #expect(certificate.keyUsageCertSign == nil)
        #expect(certificate.extendedKeyUsage == [])
        #expect(certificate.subjectAlternativeNameDirectoryNames == [])
        #expect(certificate.dnsNames == [])
        #expect(certificate.extensions == [])
        #expect(certificate.extensionValue(oid: "2.5.29.19") == nil)
        #expect(certificate.isExtensionCritical(oid: "2.5.29.19") == nil)
        #expect(certificate.extensionValue(oid: "1.3.6.1.4.1.45724.1.1.4") == nil)
    }

    @Test("version 1 certificate issues and parses")
    func versionOne() throws {
        let key = try PrivateKey.generate(for: .es256)
        let builder = CertificateBuilder(
            subject: DistinguishedName([("CN", "v1")]),
            notBefore: X509TestSupport.utc("2024-01-01T00:00:00Z"), notAfter: X509TestSupport.utc("2025-01-01T00:00:00Z"),
            version: 1)
        let certificate = try builder.issue(publicKey: key.publicKey, signedBy: key, issuer: nil)
        #expect(certificate.version == 1)
        #expect(certificate.extensions.isEmpty)
        #expect(certificate.isCA == nil)
        #expect(try Certificate(derEncoded: certificate.derEncoded).version == 1)
        // Extensions cannot be requested on a v1 certificate.
        var withCA = builder
        withCA.isCA = false
        #expect(throws: CertificateError.issuanceFailed) { try withCA.issue(publicKey: key.publicKey, signedBy: key, issuer: nil) }
        var badVersion = builder
        badVersion.version = 4
        #expect(throws: CertificateError.issuanceFailed) { try badVersion.issue(publicKey: key.publicKey, signedBy: key, issuer: nil) }
    }

    @Test("TPM-style certificate: empty subject, critical SAN directoryName, dNSName")
    func tpmStyle() throws {
        let key = try PrivateKey.generate(for: .es256)
        var builder = CertificateBuilder(
            subject: .empty,
            notBefore: X509TestSupport.utc("2024-01-01T00:00:00Z"), notAfter: X509TestSupport.utc("2025-01-01T00:00:00Z"),
            isCA: false, extendedKeyUsage: ["2.23.133.8.3"])
        builder.subjectAlternativeDirectoryNames = [
            DistinguishedName([("2.23.133.2.1", "id:FFFFF1D0"), ("2.23.133.2.2", "FIDO"), ("2.23.133.2.3", "id:F1D00002")])
        ]
        builder.subjectAlternativeDNSNames = ["attest.example"]
        let certificate = try builder.issue(publicKey: key.publicKey, signedBy: key, issuer: nil)
        #expect(certificate.subject.isEmpty)
        #expect(certificate.isExtensionCritical(oid: "2.5.29.17") == true)
        let san = try #require(certificate.subjectAlternativeNameDirectoryNames.first)
        #expect(san.values("2.23.133.2.1") == ["id:FFFFF1D0"])
        #expect(san.values("2.23.133.2.3") == ["id:F1D00002"])
        #expect(san.attributes.map(\.oid) == ["2.23.133.2.1", "2.23.133.2.2", "2.23.133.2.3"])
        #expect(certificate.dnsNames == ["attest.example"])
        #expect(certificate.extendedKeyUsage == ["2.23.133.8.3"])
    }

    @Test("unicode names round-trip")
    func unicodeNames() throws {
        let key = try PrivateKey.generate(for: .es256)
        let certificate = try CertificateBuilder(
            subject: DistinguishedName([("CN", "Zürich ✓ 鍵"), ("O", "Ünïcödé")]),
            notBefore: X509TestSupport.utc("2024-01-01T00:00:00Z"), notAfter: X509TestSupport.utc("2025-01-01T00:00:00Z")
        ).issue(publicKey: key.publicKey, signedBy: key, issuer: nil)
        #expect(certificate.subject.values("CN") == ["Zürich ✓ 鍵"])
        #expect(certificate.subject.values("O") == ["Ünïcödé"])
        #expect(certificate.subject.values("commonName") == [])  // short names only
        // OpenSSL's string table enforces size bounds (e.g. O needs 1...64 characters).
        #expect(throws: CertificateError.issuanceFailed) {
            try CertificateBuilder(
                subject: DistinguishedName([("O", "")]),
                notBefore: X509TestSupport.utc("2024-01-01T00:00:00Z"), notAfter: X509TestSupport.utc("2025-01-01T00:00:00Z")
            ).issue(publicKey: key.publicKey, signedBy: key, issuer: nil)
        }
    }

    @Test("bad builder input fails with issuanceFailed")
    func badInput() throws {
        let key = try PrivateKey.generate(for: .es256)
        let base = CertificateBuilder(
            subject: DistinguishedName([("CN", "x")]),
            notBefore: X509TestSupport.utc("2024-01-01T00:00:00Z"), notAfter: X509TestSupport.utc("2025-01-01T00:00:00Z"))
        var badName = base
        badName.subject = DistinguishedName([("NoSuchAttributeType", "x")])
        #expect(throws: CertificateError.issuanceFailed) { try badName.issue(publicKey: key.publicKey, signedBy: key, issuer: nil) }
        var badOID = base
        badOID.addExtension(oid: "not.an.oid", derValue: [0x05, 0x00])
        #expect(throws: CertificateError.issuanceFailed) { try badOID.issue(publicKey: key.publicKey, signedBy: key, issuer: nil) }
        var badEKU = base
        badEKU.extendedKeyUsage = ["serverAuth?"]
        #expect(throws: CertificateError.issuanceFailed) { try badEKU.issue(publicKey: key.publicKey, signedBy: key, issuer: nil) }
        var duplicate = base
        duplicate.addExtension(oid: "1.2.3.4", derValue: [0x05, 0x00])
        duplicate.addExtension(oid: "1.2.3.4", derValue: [0x05, 0x00])
        // OpenSSL writes both; the parser rejects duplicated extensions (RFC 5280 §4.2).
        #expect(throws: CertificateError.issuanceFailed) { try duplicate.issue(publicKey: key.publicKey, signedBy: key, issuer: nil) }
        var pathWithoutCA = base
        pathWithoutCA.pathLengthConstraint = 1
        #expect(throws: CertificateError.issuanceFailed) { try pathWithoutCA.issue(publicKey: key.publicKey, signedBy: key, issuer: nil) }
    }

    @Test("PEM round trip of an issued certificate")
    func pemRoundTrip() throws {
        let pki = try X509TestPKI.make()
        let text = pki.root.pemEncoded + pki.intermediate.pemEncoded + pki.leaf.pemEncoded
        #expect(try Certificate.parsePEM(text) == [pki.root, pki.intermediate, pki.leaf])
    }

    @Test("certificates are shareable across tasks")
    func concurrentUse() async throws {
        let pki = try X509TestPKI.make()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var verified = 0
                    for _ in 0..<25 {
                        verified += try pki.verify(at: "2025-01-01T00:00:00Z").count
                        _ = pki.leaf.extensionValue(oid: "1.3.6.1.4.1.45724.1.1.4")
                    }
                    return verified
                }
            }
            var total = 0
            for try await count in group { total += count }
            #expect(total == 8 * 25 * 3)
        }
    }
}
