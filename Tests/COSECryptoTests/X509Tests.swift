import COSECrypto
import Foundation
import Testing

@Suite("X509 parsing")
struct X509ParsingTests {
    // MARK: roots

    @Test("every PEM in vectors/roots parses as a v3 CA", arguments: X509TestSupport.rootPEMFiles())
    func rootParses(file: String) throws {
        let certificate = try X509TestSupport.rootCertificate(file)
        #expect(certificate.version == 3)
        #expect(certificate.isCA == true)
        #expect(!certificate.subject.isEmpty)
        #expect(certificate.subject.attributes.allSatisfy { !$0.value.isEmpty })
        #expect(certificate.notBefore < certificate.notAfter)
        #expect(certificate.isSelfIssued)
        #expect(!certificate.signatureAlgorithmOID.isEmpty)
        #expect(certificate.subjectPublicKeyInfoDER.first == 0x30)
        // Self-signed roots verify their own signature and form a one-certificate chain inside their validity.
        #expect(certificate.isSignatureValid(issuer: certificate))
        let middle = certificate.notBefore.addingTimeInterval(certificate.notAfter.timeIntervalSince(certificate.notBefore) / 2)
        let chain = try ChainVerifier.verify(
            leaf: certificate, intermediates: [], anchors: TrustAnchors([certificate]),
            options: ChainVerificationOptions(time: middle))
        #expect(chain == [certificate])
    }

    @Test("the roots directory is not empty")
    func rootsPresent() {
        #expect(X509TestSupport.rootPEMFiles().count >= 12)
    }

    @Test("TrustAnchors.loadPEMFiles loads all roots")
    func loadPEMFiles() throws {
        let paths = X509TestSupport.rootPEMFiles().map { X509TestSupport.roots.appendingPathComponent($0).path }
        let anchors = try TrustAnchors.loadPEMFiles(paths)
        #expect(anchors.certificates.count == paths.count)
        #expect(throws: (any Error).self) { try TrustAnchors.loadPEMFiles(["/nonexistent/passkeyd-x509.pem"]) }
    }

    @Test("names, validity and extensions of known roots")
    func knownRootFields() throws {
        let yubico = try X509TestSupport.rootCertificate("yubico-u2f-root-ca-serial-457200631.pem")
        #expect(yubico.subject.values("CN") == ["Yubico U2F Root CA Serial 457200631"])
        #expect(yubico.subject.attributes.first?.oid == "2.5.4.3")
        #expect(yubico.notBefore == X509TestSupport.utc("2014-08-01T00:00:00Z"))
        #expect(yubico.notAfter == X509TestSupport.utc("2050-09-04T00:00:00Z"))  // GeneralizedTime (≥ 2050)
        #expect(yubico.pathLengthConstraint == 0)
        #expect(yubico.signatureAlgorithmOID == "1.2.840.113549.1.1.11")
        #expect(yubico.extendedKeyUsage.isEmpty)

        let w3c = try X509TestSupport.rootCertificate("w3c-webauthn-test-vectors-attestation-ca.pem")
        #expect(w3c.notAfter == X509TestSupport.utc("3024-01-01T00:00:00Z"))
        #expect(w3c.subject.values("C") == ["AA"])
        #expect(w3c.subject.values("O") == ["W3C"])
        #expect(w3c.subject.values("OU") == ["Authenticator Attestation CA"])
        #expect(w3c.subject.values("2.5.4.11") == ["Authenticator Attestation CA"])

        let apple = try X509TestSupport.rootCertificate("apple-webauthn-root-ca.pem")
        #expect(apple.notBefore == X509TestSupport.utc("2020-03-18T18:21:32Z"))
        #expect(apple.signatureAlgorithmOID == "1.2.840.10045.4.3.3")
        #expect(apple.isExtensionCritical(oid: "2.5.29.19") == true)
        #expect(apple.extensionValue(oid: "2.5.29.19") == [0x30, 0x03, 0x01, 0x01, 0xFF])
        #expect(apple.keyUsageCertSign == true)

        let google = try X509TestSupport.rootCertificate("google-hardware-attestation-root-1.pem")
        #expect(google.subject.values("serialNumber") == ["f92009e853b6b045"])
        #expect(google.notAfter == X509TestSupport.utc("2026-05-24T16:28:52Z"))
    }

    @Test("publicKey() imports the subject key of real certificates")
    func publicKeyImport() throws {
        let apple = try X509TestSupport.rootCertificate("apple-webauthn-root-ca.pem")  // P-384
        _ = try apple.publicKey()
        let google = try X509TestSupport.rootCertificate("google-hardware-attestation-root-2.pem")  // RSA 4096
        _ = try google.publicKey()
    }

    // MARK: real attestation certificates

    @Test("packed attestation certificate: AAGUID extension, EKU-less, CA=false")
    func packedYubiKeyLeaf() throws {
        let chain = try x509VectorChain("pywebauthn-packed-x5c-es256-yubikey")
        let leaf = try #require(chain.first)
        #expect(leaf.version == 3)
        #expect(leaf.isCA == false)
        #expect(leaf.subject.values("OU") == ["Authenticator Attestation"])
        let aaguid = try #require(leaf.extensionValue(oid: "1.3.6.1.4.1.45724.1.1.4"))
        #expect(aaguid.count == 18)
        #expect(Array(aaguid.prefix(2)) == [0x04, 0x10])
        #expect(leaf.isExtensionCritical(oid: "1.3.6.1.4.1.45724.1.1.4") == false)
        #expect(leaf.extensionValue(oid: "1.2.3.4") == nil)
        #expect(leaf.isExtensionCritical(oid: "1.2.3.4") == nil)
        #expect(leaf.extensionValue(oid: "not an oid") == nil)
        #expect(leaf.extensionValue(oid: "") == nil)
    }

    @Test("TPM AIK certificate: empty subject, SAN directoryName, EKU 2.23.133.8.3")
    func tpmAIK() throws {
        let chain = try x509VectorChain("yubico-java-windowshellotpm-registration")
        let aik = try #require(chain.first)
        #expect(aik.subject.isEmpty)
        #expect(aik.extendedKeyUsage.contains("2.23.133.8.3"))
        #expect(aik.isCA == false)
        let san = try #require(aik.subjectAlternativeNameDirectoryNames.first)
        #expect(!san.values("2.23.133.2.1").isEmpty)  // tcg-at-tpmManufacturer
        #expect(aik.isExtensionCritical(oid: "2.5.29.17") == true)
    }

    @Test("SafetyNet leaf: dNSName attest.android.com")
    func safetyNetDNSName() throws {
        let chain = try x509VectorChain("pywebauthn-android-safetynet")
        let leaf = try #require(chain.first)
        #expect(leaf.dnsNames.contains("attest.android.com") || leaf.subject.values("CN") == ["attest.android.com"])
    }

    /// First-generation Security Key by Yubico: the signature BIT STRING has 2 unused bits (non-zero). d2i_X509
    /// parses it, but OpenSSL 3 refuses the signature ("invalid bit string bits left"), so the chain to the
    /// Yubico root fails with chainSignatureInvalid even though Java accepts it. We do not work around this.
    @Test("Yubico Security Key (gen 1): parses, signature rejected by OpenSSL 3")
    func yubicoSecurityKeyBitString() throws {
        let leaf = try #require(try x509VectorChain("yubico-java-securitykey-registration").first)
        #expect(leaf.subject.values("CN") == ["Yubico U2F EE Serial 13831167861"])
        #expect(leaf.version == 3)
        let root = try X509TestSupport.rootCertificate("yubico-u2f-root-ca-serial-457200631.pem")
        #expect(leaf.issuer == root.subject)
        #expect(!leaf.isSignatureValid(issuer: root))
        let error = #expect(throws: CertificateError.chainSignatureInvalid) {
            try ChainVerifier.verify(
                leaf: leaf, intermediates: [], anchors: TrustAnchors([root]),
                options: ChainVerificationOptions(time: X509TestSupport.utc("2026-11-22T00:00:00Z")))
        }
        #expect(error?.reason.contains("certificate signature failure") == true)

        // The second-generation Security Key's certificate chains normally.
        let leaf2 = try #require(try x509VectorChain("yubico-java-securitykey2-registration").first)
        let chain = try ChainVerifier.verify(
            leaf: leaf2, intermediates: [], anchors: TrustAnchors([root]),
            options: ChainVerificationOptions(time: X509TestSupport.utc("2026-11-22T00:00:00Z")))
        #expect(chain == [leaf2, root])
    }

    /// fido2-net-lib android-key: the leaf's AuthorityKeyIdentifier does not match the intermediate's
    /// SubjectKeyIdentifier. The intermediate's key does verify the leaf signature, but OpenSSL's issuer check
    /// (X509_check_issued) rejects the pair, so even with the intermediate as a partial-chain anchor the chain
    /// fails with "unable to get local issuer certificate" → chainUntrusted.
    @Test("f2n android-key: AKI ≠ SKI means no chain even with partial chains")
    func f2nAndroidKeyAKIMismatch() throws {
        let chain = try x509VectorChain("f2n-android-key")
        try #require(chain.count == 2)
        let (leaf, intermediate) = (chain[0], chain[1])
        #expect(leaf.issuer == intermediate.subject)
        #expect(leaf.isSignatureValid(issuer: intermediate))
        let aki = try #require(leaf.extensionValue(oid: "2.5.29.35"))
        let ski = try #require(intermediate.extensionValue(oid: "2.5.29.14"))
        #expect(!aki.suffix(20).elementsEqual(ski.suffix(20)))
        let time = X509TestSupport.utc("2026-11-22T00:00:00Z")
        let error = #expect(throws: CertificateError.chainUntrusted) {
            try ChainVerifier.verify(
                leaf: leaf, intermediates: [], anchors: TrustAnchors([intermediate]),
                options: ChainVerificationOptions(time: time, allowPartialChain: true))
        }
        #expect(error?.reason.contains("unable to get local issuer certificate") == true)
        #expect(throws: CertificateError.chainUntrusted) {
            try ChainVerifier.verify(
                leaf: leaf, intermediates: [intermediate], anchors: TrustAnchors([intermediate]),
                options: ChainVerificationOptions(time: time, allowPartialChain: true))
        }
    }

    /// fido2-net-lib TPM AIK certificates (also behind SimpleWebAuthn's swa-tpm-*-fido2-net-lib vectors): the
    /// authorityKeyIdentifier encodes keyIdentifier as a constructed [0] (A0) instead of primitive (80), and
    /// certificatePolicies is odd too. The certificate parses (we do not decode AKI or policies), its
    /// multi-valued SAN directoryName is readable, but OpenSSL marks it invalid, so no chain is built even with
    /// the intermediate as a partial-chain anchor.
    @Test("fido2-net-lib TPM AIK with a malformed AKI parses but never chains")
    func fido2NetLibTPMAIK() throws {
        let chain = try x509VectorChain("swa-tpm-rs256-sha256-fido2-net-lib")
        try #require(chain.count == 2)
        let aik = chain[0]
        #expect(aik.subject.isEmpty)
        #expect(aik.extensionValue(oid: "2.5.29.35")?.prefix(4).elementsEqual([0x30, 0x16, 0xA0, 0x14]) == true)
        let san = try #require(aik.subjectAlternativeNameDirectoryNames.first)
        #expect(Set(san.attributes.map(\.oid)) == ["2.23.133.2.1", "2.23.133.2.2", "2.23.133.2.3"])
        #expect(san.values("2.23.133.2.1") == ["id:FFFFF1D0"])
        #expect(aik.isSignatureValid(issuer: chain[1]))
        let time = aik.notBefore.addingTimeInterval(86_400)
        #expect(throws: CertificateError.chainUntrusted) {
            try ChainVerifier.verify(
                leaf: aik, intermediates: [], anchors: TrustAnchors([chain[1]]),
                options: ChainVerificationOptions(time: time, allowPartialChain: true))
        }
    }

    // MARK: malformed input

    @Test("malformed DER is rejected with malformedCertificate", arguments: [
        ("empty", [UInt8]()),
        ("one byte", [0x30]),
        ("empty sequence", [0x30, 0x00]),
        ("huge length", [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]),
        ("indefinite garbage", [0x30, 0x80, 0x00, 0x00]),
        ("integer", [0x02, 0x01, 0x01]),
        ("ascii", Array("-----BEGIN CERTIFICATE-----".utf8)),
    ])
    func malformedFixed(label: String, bytes: [UInt8]) {
        #expect(throws: CertificateError.malformedCertificate, "\(label)") { try Certificate(derEncoded: bytes) }
    }

    @Test("every truncation of a real certificate is rejected")
    func truncations() throws {
        let der = try X509TestSupport.rootCertificate("yubico-u2f-root-ca-serial-457200631.pem").derEncoded
        for length in 0..<der.count {
            #expect(throws: CertificateError.malformedCertificate) { try Certificate(derEncoded: Array(der.prefix(length))) }
        }
    }

    @Test("trailing bytes are rejected")
    func trailingBytes() throws {
        let der = try X509TestSupport.rootCertificate("apple-webauthn-root-ca.pem").derEncoded
        #expect(throws: Never.self) { try Certificate(derEncoded: der) }
        for suffix: [UInt8] in [[0x00], [0x30, 0x00], der] {
            let error = #expect(throws: CertificateError.malformedCertificate) { try Certificate(derEncoded: der + suffix) }
            #expect(error?.reason.contains("trailing") == true)
        }
    }

    @Test("random garbage and single-byte mutations never crash")
    func garbageAndMutations() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        for length in [1, 2, 3, 16, 100, 1000, 5000] {
            for _ in 0..<20 {
                var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: next()) }
                if length > 4 && next() % 2 == 0 { bytes[0] = 0x30 }  // look like a SEQUENCE
                #expect(throws: CertificateError.self) { try Certificate(derEncoded: bytes) }
            }
        }
        // Flip each byte of a real certificate: the result either parses or throws malformedCertificate.
        let der = try X509TestSupport.rootCertificate("w3c-webauthn-test-vectors-attestation-ca.pem").derEncoded
        for index in der.indices {
            var mutated = der
            mutated[index] ^= 0xFF
            do {
                let certificate = try Certificate(derEncoded: mutated)
                #expect(certificate.derEncoded == mutated)
            } catch {
                #expect(error.code == .malformedCertificate)
            }
        }
    }

    // MARK: PEM

    @Test("parsePEM returns every CERTIFICATE block and skips other text")
    func pemBundle() throws {
        let apple = try X509TestSupport.rootCertificate("apple-webauthn-root-ca.pem")
        let yubico = try X509TestSupport.rootCertificate("yubico-u2f-root-ca-serial-457200631.pem")
        let bundle = "# a comment\nSubject: whatever\n" + apple.pemEncoded
            + "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n"
            + "\r\n" + yubico.pemEncoded.replacingOccurrences(of: "\n", with: "\r\n")
        let parsed = try Certificate.parsePEM(bundle)
        #expect(parsed == [apple, yubico])
        #expect(parsed.map(\.derEncoded) == [apple.derEncoded, yubico.derEncoded])
    }

    @Test("parsePEM rejects text without certificates and broken blocks")
    func pemMalformed() throws {
        #expect(throws: CertificateError.malformedPEM) { try Certificate.parsePEM("") }
        #expect(throws: CertificateError.malformedPEM) { try Certificate.parsePEM("hello") }
        #expect(throws: CertificateError.malformedPEM) {
            try Certificate.parsePEM("-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n")
        }
        #expect(throws: CertificateError.malformedPEM) {
            try Certificate.parsePEM("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n")
        }
        #expect(throws: CertificateError.malformedPEM) {
            try Certificate.parsePEM("-----BEGIN CERTIFICATE-----\nMIIB\n")  // no END line
        }
        // Valid base64, but not a certificate.
        #expect(throws: CertificateError.malformedCertificate) {
            try Certificate.parsePEM("-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n")
        }
    }

    @Test("error equality compares codes only; description hides the reason")
    func errorSemantics() {
        let a = CertificateError(code: .chainExpired, reason: "depth 0")
        #expect(a == CertificateError.chainExpired)
        #expect(a != CertificateError.chainNotYetValid)
        #expect(a.description == "CertificateError(chainExpired)")
        #expect(String(reflecting: a).contains("depth 0"))
    }
}
