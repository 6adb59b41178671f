import COSECrypto
import Foundation
import Testing

/// Every attestation certificate in the shared registration vectors, run through the parser and (where the
/// collector found one with OpenSSL) the chain verifier at the collector's time.
@Suite("X509 real-world attestation chains")
struct X509VectorTests {
    static let cases = X509VectorCase.all()

    @Test("the vectors contain certificate chains")
    func vectorsPresent() {
        #expect(Self.cases.count >= 60)
    }

    @Test("every x5c certificate parses", arguments: cases)
    func parses(vector: X509VectorCase) throws {
        for (index, der) in vector.x5c.enumerated() {
            let certificate = try Certificate(derEncoded: der)
            #expect(certificate.derEncoded == der, "x5c[\(index)]")
            #expect((1...3).contains(certificate.version), "x5c[\(index)]")
            #expect(certificate.notBefore < certificate.notAfter, "x5c[\(index)]")
        }
    }

    @Test("chains verify to the root the collector found, at its time", arguments: cases.filter { !$0.chainsTo.isEmpty })
    func chainsVerify(vector: X509VectorCase) throws {
        let certificates = try vector.x5c.map { try Certificate(derEncoded: $0) }
        let leaf = try #require(certificates.first)
        for (rootFile, time) in vector.chainsTo {
            let root = try X509TestSupport.rootCertificate(rootFile)
            let chain = try ChainVerifier.verify(
                leaf: leaf, intermediates: Array(certificates.dropFirst()), anchors: TrustAnchors([root]),
                options: ChainVerificationOptions(time: time))
            #expect(chain.first == leaf)
            #expect(chain.last == root)
            // A time long before issuance is rejected, and an unrelated anchor is not trusted.
            #expect(throws: CertificateError.chainNotYetValid) {
                try ChainVerifier.verify(
                    leaf: leaf, intermediates: Array(certificates.dropFirst()), anchors: TrustAnchors([root]),
                    options: ChainVerificationOptions(time: X509TestSupport.utc("1960-01-01T00:00:00Z")))
            }
            let other = try X509TestSupport.rootCertificate(
                rootFile == "w3c-webauthn-test-vectors-attestation-ca.pem"
                    ? "apple-webauthn-root-ca.pem" : "w3c-webauthn-test-vectors-attestation-ca.pem")
            #expect(throws: CertificateError.chainUntrusted) {
                try ChainVerifier.verify(
                    leaf: leaf, intermediates: Array(certificates.dropFirst()), anchors: TrustAnchors([other]),
                    options: ChainVerificationOptions(time: time))
            }
        }
    }

    /// The collector checked only attStmt.x5c; this vector's chain sits in the SafetyNet JWS header and ends at
    /// GlobalSign R2 (expired 2021-12-15). Covered by `safetyNetChainToExpiredRoot` below.
    static let anchoredOutsideCollector: Set<String> = ["yubico-java-gen-androidsafetynet-realexample"]

    @Test(
        "chains the collector could not anchor do not verify to any root",
        arguments: cases.filter { $0.chainsTo.isEmpty && !anchoredOutsideCollector.contains($0.name) })
    func unanchoredChainsFail(vector: X509VectorCase) throws {
        let certificates = try vector.x5c.map { try Certificate(derEncoded: $0) }
        let leaf = try #require(certificates.first)
        let paths = X509TestSupport.rootPEMFiles().map { X509TestSupport.roots.appendingPathComponent($0).path }
        let anchors = try TrustAnchors.loadPEMFiles(paths)
        // Inside every certificate's validity when there is such a time, so failures are not about time.
        let start = certificates.map(\.notBefore).max() ?? Date(timeIntervalSince1970: 0)
        #expect(throws: CertificateError.self) {
            try ChainVerifier.verify(
                leaf: leaf, intermediates: Array(certificates.dropFirst()), anchors: anchors,
                options: ChainVerificationOptions(time: start.addingTimeInterval(1)))
        }
    }

    @Test("SafetyNet JWS chain verifies to GlobalSign R2 at the JWS time, and is expired today")
    func safetyNetChainToExpiredRoot() throws {
        let chain = try x509VectorChain("yubico-java-gen-androidsafetynet-realexample")
        let leaf = try #require(chain.first)
        #expect(leaf.dnsNames.contains("attest.android.com") || leaf.subject.values("CN") == ["attest.android.com"])
        let r2 = try X509TestSupport.rootCertificate("globalsign-root-ca-r2.pem")
        let verified = try ChainVerifier.verify(
            leaf: leaf, intermediates: Array(chain.dropFirst()), anchors: TrustAnchors([r2]),
            options: ChainVerificationOptions(time: X509TestSupport.utc("2019-01-15T14:17:02Z")))
        #expect(verified.last == r2)
        #expect(throws: CertificateError.chainExpired) {
            try ChainVerifier.verify(
                leaf: leaf, intermediates: Array(chain.dropFirst()), anchors: TrustAnchors([r2]),
                options: ChainVerificationOptions(time: X509TestSupport.utc("2026-11-22T00:00:00Z")))
        }
        // x5c carries its own copy of the R2 root: without R2 among the anchors it is not trusted.
        let r1 = try X509TestSupport.rootCertificate("globalsign-root-ca-r1.pem")
        #expect(throws: CertificateError.chainUntrusted) {
            try ChainVerifier.verify(
                leaf: leaf, intermediates: Array(chain.dropFirst()), anchors: TrustAnchors([r1]),
                options: ChainVerificationOptions(time: X509TestSupport.utc("2019-01-15T14:17:02Z")))
        }
    }
}
