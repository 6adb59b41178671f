import CBORCodec
import COSECrypto
import Foundation
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// Fresh ceremonies with the software authenticator for tpm (§8.3), android-key (§8.4) and apple (§8.8): one
/// positive path per key type, and for every verification step a ceremony that fails exactly there.
enum FormatFixture {
    static let intermediateCA: TestAttestationCA = {
        do { return try TestAttestationCA(intermediateOf: Fixture.ca) } catch { fatalError("intermediate CA: \(error)") }
    }()
    static let otherCA: TestAttestationCA = {
        do { return try TestAttestationCA(name: "someone else's root") } catch { fatalError("other CA: \(error)") }
    }()

    /// A relying party that demands a chain to the test root for `format`.
    static func trusting(_ format: String, _ configure: (inout AttestationPolicy) -> Void = { _ in }) -> RelyingParty {
        Fixture.relyingParty {
            $0.attestation = AttestationPolicy(requirement: .trustedRequired, trustAnchors: [format: Fixture.ca.trustAnchors])
            configure(&$0.attestation)
        }
    }

    /// Replaces (or, with nil, removes) one member of the statement map.
    static func replacing(_ key: String, with value: CBORValue?) -> @Sendable (CBORValue) -> CBORValue {
        { statement in
            var entries = (statement.mapEntries ?? []).filter { $0.key.textValue != key }
            if let value { entries.append(CBORMapEntry(.text(key), value)) }
            return .map(entries)
        }
    }

    /// Applies `change` to one byte-string member of the statement.
    static func mutatingBytes(_ key: String, _ change: @escaping @Sendable ([UInt8]) -> [UInt8]) -> @Sendable (CBORValue) -> CBORValue {
        { statement in
            .map((statement.mapEntries ?? []).map { entry in
                guard entry.key.textValue == key, let bytes = entry.value.bytesValue else { return entry }
                return CBORMapEntry(entry.key, .bytes(change(bytes)))
            })
        }
    }

    static func flipLastByte(_ bytes: [UInt8]) -> [UInt8] {
        var copy = bytes
        copy[copy.count - 1] ^= 0x01
        return copy
    }

    /// Registers and checks the verdict: trusted, with the given attestation type.
    static func expectTrusted(
        _ format: String, type: AttestationType, sourceLocation: SourceLocation = #_sourceLocation,
        policy: (inout AttestationPolicy) -> Void = { _ in }, _ configure: (inout RegistrationKnobs) -> Void
    ) throws {
        let verified = try Fixture.register(rp: trusting(format, policy), configure)
        #expect(verified.attestationFormat == format, sourceLocation: sourceLocation)
        #expect(verified.attestationType == type, sourceLocation: sourceLocation)
        guard case .trusted = verified.attestationTrust else {
            Issue.record("expected a trusted chain, got \(verified.attestationTrust)", sourceLocation: sourceLocation)
            return
        }
    }

    /// The chain checks every format shares (§7.1 step 24 through AttestationTrustAssessment).
    static func expectChainChecks(_ format: String, _ attestation: @escaping (TestAttestationCA) -> SoftAttestation) throws {
        // A chain through an intermediate verifies when x5c carries it ...
        try expectTrusted(format, type: Self.type(format)) { $0.attestation = attestation(intermediateCA) }
        // ... and is broken without it.
        try Fixture.expectRegistrationFailure(.attestationUntrusted, rp: trusting(format)) {
            $0.attestation = attestation(intermediateCA)
            $0.omitIntermediates = true
        }
        // A root the relying party does not trust.
        try Fixture.expectRegistrationFailure(.attestationUntrusted, rp: trusting(format)) { $0.attestation = attestation(otherCA) }
        // Roots configured for another format only.
        let otherFormat = Fixture.relyingParty {
            $0.attestation = AttestationPolicy(requirement: .trustedRequired, trustAnchors: ["packed": Fixture.ca.trustAnchors])
        }
        try Fixture.expectRegistrationFailure(.attestationUntrusted, rp: otherFormat) { $0.attestation = attestation(Fixture.ca) }
        // Expired at verification time: refused as expired, not as a generic failure.
        // (the ceremony itself runs a day after the chain expired, so only the chain is stale).
        let later = Fixture.ca.root.notAfter.addingTimeInterval(86400)
        let rp = trusting(format)
        let (options, state) = rp.beginRegistration(
            user: Fixture.user(), excludeCredentials: [], challengeSource: FixedChallenges(), now: later)
        var knobs = RegistrationKnobs(origin: Fixture.origin)
        knobs.attestation = attestation(Fixture.ca)
        let (response, _) = try SoftAuthenticator.register(options: options, knobs: knobs)
        #expect(throws: WebAuthnError(.attestationCertificateExpired)) {
            try rp.finishRegistration(response, state: state, now: later)
        }
        // Under the default policy the same untrusted chain is accepted and reported as untrusted.
        let verified = try Fixture.register { $0.attestation = attestation(otherCA) }
        guard case .untrusted = verified.attestationTrust else {
            Issue.record("\(format): expected untrusted under the default policy, got \(verified.attestationTrust)")
            return
        }
    }

    static func type(_ format: String) -> AttestationType {
        switch format {
        case "tpm": .attestationCA
        case "apple": .anonymizationCA
        default: .basic
        }
    }
}

@Suite("tpm attestation (§8.3)")
struct TPMAttestationTests {
    typealias F = FormatFixture

    @Test("RSA and ECC credential keys, RSA and EC AIKs, SHA-1 and SHA-256 names, RS1 certInfo signature: trusted")
    func positive() throws {
        for credential in [COSEAlgorithm.rs256, .es256, .es384, .es512, .ps256] {
            try F.expectTrusted("tpm", type: .attestationCA) {
                $0.algorithm = credential
                $0.attestation = .tpm(Fixture.ca)
            }
        }
        for aik in [COSEAlgorithm.es256, .rs1, .rs384, .ps256] {
            try F.expectTrusted("tpm", type: .attestationCA) {
                $0.attestation = .tpm(Fixture.ca)
                $0.tpm.aikAlgorithm = aik
            }
        }
        for nameAlg: UInt16 in [0x0004, 0x000C, 0x000D] {
            try F.expectTrusted("tpm", type: .attestationCA) {
                $0.attestation = .tpm(Fixture.ca)
                $0.tpm.nameAlg = nameAlg
            }
        }
        // The explicit exponent 65537 is the same key as the default (0).
        try F.expectTrusted("tpm", type: .attestationCA) {
            $0.algorithm = .rs256
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.rsaDefaultExponentAsZero = false
        }
        // The id-fido-gen-ce-aaguid extension, when present and equal, is fine.
        try F.expectTrusted("tpm", type: .attestationCA) {
            $0.attestation = .tpm(Fixture.ca)
            $0.certificateAAGUID = .some(Array(repeating: 0x5A, count: 16))
        }
    }

    @Test("statement syntax: ver 2.0, certInfo, pubArea, x5c")
    func syntax() throws {
        try Fixture.expectRegistrationFailure(.tpmVersionUnsupported) { $0.attestation = .tpm(Fixture.ca); $0.tpm.version = "1.2" }
        for member in ["ver", "alg", "sig", "certInfo", "pubArea"] {
            try Fixture.expectRegistrationFailure(.malformedAttestationStatement) {
                $0.attestation = .tpm(Fixture.ca)
                $0.mutateStatement = F.replacing(member, with: nil)
            }
        }
        // "Verify that x5c is present." (checked after certInfo, in spec order)
        try Fixture.expectRegistrationFailure(.malformedAttestationStatement) {
            $0.attestation = .tpm(Fixture.ca)
            $0.mutateStatement = F.replacing("x5c", with: nil)
        }
    }

    @Test("pubArea must be a well-formed TPMT_PUBLIC describing the credential key")
    func pubArea() throws {
        // Truncated, trailing bytes, unknown type.
        for mutate: @Sendable ([UInt8]) -> [UInt8] in [{ Array($0.dropLast()) }, { $0 + [0] }, { [0x00, 0x25] + $0.dropFirst(2) }] {
            try Fixture.expectRegistrationFailure(.tpmPubAreaInvalid) { $0.attestation = .tpm(Fixture.ca); $0.tpm.mutatePubArea = mutate }
        }
        // symmetric must be TPM_ALG_NULL (bytes 10...11).
        try Fixture.expectRegistrationFailure(.tpmPubAreaInvalid) {
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.mutatePubArea = { var b = $0; b[11] = 0x06; return b }
        }
        // A signing scheme (bytes 12...13) with its hashAlg (TPM 2.0 Part 2), or without it (the legacy layout
        // java-webauthn-server writes): both describe the same key.
        for withHash in [true, false] {
            try F.expectTrusted("tpm", type: .attestationCA) {
                $0.algorithm = .rs256
                $0.attestation = .tpm(Fixture.ca)
                $0.tpm.mutatePubArea = { b in Array(b[0..<12]) + [0x00, 0x14] + (withHash ? [0x00, 0x0B] : []) + Array(b[14...]) }
            }
        }
        // unique (EC y / RSA modulus) differs from the credential key.
        for algorithm in [COSEAlgorithm.es256, .rs256] {
            try Fixture.expectRegistrationFailure(.tpmPubAreaKeyMismatch) {
                $0.algorithm = algorithm
                $0.attestation = .tpm(Fixture.ca)
                $0.tpm.mutatePubArea = F.flipLastByte
            }
        }
        // ECC curveID (bytes 14...15 after type, nameAlg, attributes, empty authPolicy, symmetric, scheme).
        try Fixture.expectRegistrationFailure(.tpmPubAreaKeyMismatch) {
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.mutatePubArea = { var b = $0; b[15] = 0x04; return b }
        }
        // RSA exponent (bytes 16...19) and keyBits (14...15).
        try Fixture.expectRegistrationFailure(.tpmPubAreaKeyMismatch) {
            $0.algorithm = .rs256
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.mutatePubArea = { var b = $0; b[19] = 0x03; return b }
        }
        try Fixture.expectRegistrationFailure(.tpmPubAreaKeyMismatch) {
            $0.algorithm = .rs256
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.mutatePubArea = { var b = $0; b[14] = 0x04; return b }
        }
        // An RSA pubArea for an EC credential key.
        try Fixture.expectRegistrationFailure(.tpmPubAreaKeyMismatch) {
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.mutatePubArea = { _ in
                [0x00, 0x01, 0x00, 0x0B, 0, 6, 4, 0x72, 0, 0, 0x00, 0x10, 0x00, 0x10, 0x08, 0x00, 0, 0, 0, 0, 0x01, 0x00]
                    + Array(repeating: 0xC5, count: 256)
            }
        }
    }

    @Test("certInfo: structure, magic, type, extraData, attested name")
    func certInfo() throws {
        try Fixture.expectRegistrationFailure(.tpmCertInfoInvalid) {
            $0.attestation = .tpm(Fixture.ca)
            $0.mutateStatement = F.mutatingBytes("certInfo") { Array($0.dropLast(3)) }
        }
        try Fixture.expectRegistrationFailure(.tpmCertInfoInvalid) {
            $0.attestation = .tpm(Fixture.ca)
            $0.mutateStatement = F.mutatingBytes("certInfo") { $0 + [0] }
        }
        try Fixture.expectRegistrationFailure(.tpmMagicInvalid) { $0.attestation = .tpm(Fixture.ca); $0.tpm.magic = 0xFF54_4348 }
        try Fixture.expectRegistrationFailure(.tpmAttestTypeInvalid) { $0.attestation = .tpm(Fixture.ca); $0.tpm.type = 0x8018 }
        try Fixture.expectRegistrationFailure(.tpmExtraDataMismatch) {
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.extraDataOverride = Array(repeating: 7, count: 32)
        }
        // extraData hashed with SHA-256 while alg is RS1 (SHA-1): the hash must be alg's.
        try Fixture.expectRegistrationFailure(.tpmExtraDataMismatch) {
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.aikAlgorithm = .rs1
            $0.tpm.extraDataOverride = Array(repeating: 7, count: 20)
        }
        // Wrong digest, and the right digest under another algorithm id than pubArea.nameAlg.
        try Fixture.expectRegistrationFailure(.tpmAttestedNameMismatch) {
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.attestedNameOverride = [0x00, 0x0B] + Array(repeating: 1, count: 32)
        }
        try Fixture.expectRegistrationFailure(.tpmAttestedNameMismatch) {
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.nameAlg = 0x0004
            $0.tpm.attestedNameOverride = [0x00, 0x0B] + Array(repeating: 1, count: 20)
        }
        // A nameAlg that is not a hash.
        try Fixture.expectRegistrationFailure(.tpmPubAreaInvalid) { $0.attestation = .tpm(Fixture.ca); $0.tpm.nameAlg = 0x0001 }
    }

    @Test("sig must verify over certInfo with the AIK key and alg")
    func signature() throws {
        try Fixture.expectRegistrationFailure(.attestationSignatureInvalid) {
            $0.attestation = .tpm(Fixture.ca)
            $0.mutateStatement = F.mutatingBytes("sig", F.flipLastByte)
        }
        // An AIK key the verifier does not accept (RSA below 2048 bits).
        try Fixture.expectRegistrationFailure(.attestationCertificateInvalid) {
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.aikRSABits = 1024
        }
        // alg names an EC algorithm while the AIK is RSA.
        try Fixture.expectRegistrationFailure(.attestationAlgorithmMismatch) {
            $0.attestation = .tpm(Fixture.ca)
            $0.mutateStatement = F.replacing("alg", with: CBORValue(Int64(COSEAlgorithm.es256.rawValue)))
            $0.tpm.extraDataOverride = nil
        }
    }

    @Test("AIK certificate requirements (§8.3.1), each on its own")
    func aikCertificate() throws {
        try Fixture.expectRegistrationFailure(.tpmAIKVersionInvalid) { $0.attestation = .tpm(Fixture.ca); $0.tpm.aikCertificateVersion = 1 }
        try Fixture.expectRegistrationFailure(.tpmAIKSubjectNotEmpty) {
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.aikSubject = DistinguishedName([("CN", "not empty")])
        }
        try Fixture.expectRegistrationFailure(.tpmAIKSubjectAltNameInvalid) { $0.attestation = .tpm(Fixture.ca); $0.tpm.manufacturer = nil }
        try Fixture.expectRegistrationFailure(.tpmAIKSubjectAltNameInvalid) { $0.attestation = .tpm(Fixture.ca); $0.tpm.model = nil }
        try Fixture.expectRegistrationFailure(.tpmAIKSubjectAltNameInvalid) { $0.attestation = .tpm(Fixture.ca); $0.tpm.firmwareVersion = nil }
        try Fixture.expectRegistrationFailure(.tpmAIKSubjectAltNameInvalid) {
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.manufacturer = nil; $0.tpm.model = nil; $0.tpm.firmwareVersion = nil
        }
        try Fixture.expectRegistrationFailure(.tpmAIKSubjectAltNameInvalid) { $0.attestation = .tpm(Fixture.ca); $0.tpm.manufacturer = "Nuvoton" }
        try Fixture.expectRegistrationFailure(.tpmManufacturerUnknown) { $0.attestation = .tpm(Fixture.ca); $0.tpm.manufacturer = "id:12345678" }
        try Fixture.expectRegistrationFailure(.tpmAIKExtendedKeyUsageMissing) { $0.attestation = .tpm(Fixture.ca); $0.tpm.aikExtendedKeyUsage = [] }
        try Fixture.expectRegistrationFailure(.tpmAIKExtendedKeyUsageMissing) {
            $0.attestation = .tpm(Fixture.ca)
            $0.tpm.aikExtendedKeyUsage = ["1.3.6.1.5.5.7.3.2"]
        }
        try Fixture.expectRegistrationFailure(.tpmAIKIsCA) { $0.attestation = .tpm(Fixture.ca); $0.tpm.aikIsCA = true }
        try Fixture.expectRegistrationFailure(.attestationAAGUIDMismatch) {
            $0.attestation = .tpm(Fixture.ca)
            $0.certificateAAGUID = .some(Array(repeating: 0x11, count: 16))
        }
    }

    @Test("test TPM manufacturers are refused unless allowTestTPMManufacturersUnsafe; lower-case registry ids are accepted")
    func testManufacturers() throws {
        for id in ["id:FFFFF1D0", "id:00000000"] {
            try Fixture.expectRegistrationFailure(.tpmManufacturerUnknown, rp: F.trusting("tpm")) {
                $0.attestation = .tpm(Fixture.ca)
                $0.tpm.manufacturer = id
            }
            try F.expectTrusted("tpm", type: .attestationCA, policy: { $0.allowTestTPMManufacturersUnsafe = true }) {
                $0.attestation = .tpm(Fixture.ca)
                $0.tpm.manufacturer = id
            }
        }
        try F.expectTrusted("tpm", type: .attestationCA) { $0.attestation = .tpm(Fixture.ca); $0.tpm.manufacturer = "id:49424d00" }
    }

    @Test("chain: intermediates, broken chain, untrusted root, expiry")
    func chain() throws {
        try F.expectChainChecks("tpm") { .tpm($0) }
    }
}

@Suite("android-key attestation (§8.4)")
struct AndroidKeyAttestationTests {
    typealias F = FormatFixture

    @Test("EC and RSA credential keys in the TEE: trusted, Basic")
    func positive() throws {
        for algorithm in [COSEAlgorithm.es256, .rs256, .es384] {
            try F.expectTrusted("android-key", type: .basic) {
                $0.algorithm = algorithm
                $0.attestation = .androidKey(Fixture.ca)
            }
        }
        // Several purposes, SIGN among them.
        try F.expectTrusted("android-key", type: .basic) {
            $0.attestation = .androidKey(Fixture.ca)
            $0.androidKey.teeEnforced.purpose = [3, 2]
        }
    }

    @Test("sig over authData ‖ clientDataHash with the certificate key")
    func signature() throws {
        try Fixture.expectRegistrationFailure(.attestationSignatureInvalid) {
            $0.attestation = .androidKey(Fixture.ca)
            $0.mutateStatement = F.mutatingBytes("sig", F.flipLastByte)
        }
        try Fixture.expectRegistrationFailure(.malformedAttestationStatement) {
            $0.attestation = .androidKey(Fixture.ca)
            $0.mutateStatement = F.replacing("x5c", with: nil)
        }
    }

    @Test("the certificate key must be the credential key")
    func wrongKey() throws {
        let other = try PrivateKey.generate(for: .es256)
        try Fixture.expectRegistrationFailure(.androidKeyPublicKeyMismatch) {
            $0.attestation = .androidKey(Fixture.ca)
            $0.androidKey.certifiedKeyOverride = other
        }
    }

    @Test("KeyDescription: present, well-formed, attestationChallenge == clientDataHash")
    func keyDescription() throws {
        try Fixture.expectRegistrationFailure(.androidKeyDescriptionInvalid) { $0.attestation = .androidKey(Fixture.ca); $0.androidKey.omitKeyDescription = true }
        for raw: [UInt8] in [[0x30, 0x00], [0x04, 0x00], [0x30, 0x80, 0x00, 0x00], [0x30, 0x03, 0x02, 0x01, 0x03, 0x00]] {
            try Fixture.expectRegistrationFailure(.androidKeyDescriptionInvalid) {
                $0.attestation = .androidKey(Fixture.ca)
                $0.androidKey.rawKeyDescription = raw
            }
        }
        try Fixture.expectRegistrationFailure(.androidKeyChallengeMismatch) {
            $0.attestation = .androidKey(Fixture.ca)
            $0.androidKey.challengeOverride = Array(repeating: 0, count: 32)
        }
    }

    @Test("authorization lists: no allApplications, origin GENERATED and purpose SIGN in teeEnforced")
    func authorizationLists() throws {
        try Fixture.expectRegistrationFailure(.androidKeyAllApplications) {
            $0.attestation = .androidKey(Fixture.ca)
            $0.androidKey.teeEnforced.allApplications = true
        }
        try Fixture.expectRegistrationFailure(.androidKeyAllApplications) {
            $0.attestation = .androidKey(Fixture.ca)
            $0.androidKey.softwareEnforced.allApplications = true
        }
        try Fixture.expectRegistrationFailure(.androidKeyOriginInvalid) {
            $0.attestation = .androidKey(Fixture.ca)
            $0.androidKey.teeEnforced.origin = 2  // KM_ORIGIN_IMPORTED
        }
        try Fixture.expectRegistrationFailure(.androidKeyOriginInvalid) { $0.attestation = .androidKey(Fixture.ca); $0.androidKey.teeEnforced.origin = nil }
        try Fixture.expectRegistrationFailure(.androidKeyPurposeInvalid) {
            $0.attestation = .androidKey(Fixture.ca)
            $0.androidKey.teeEnforced.purpose = [0, 1]  // ENCRYPT, DECRYPT
        }
        try Fixture.expectRegistrationFailure(.androidKeyPurposeInvalid) { $0.attestation = .androidKey(Fixture.ca); $0.androidKey.teeEnforced.purpose = nil }
    }

    @Test("software-enforced origin/purpose only with androidKeyAllowSoftwareEnforcedUnsafe")
    func softwareEnforced() throws {
        let softwareOnly: (inout RegistrationKnobs) -> Void = {
            $0.attestation = .androidKey(Fixture.ca)
            $0.androidKey.teeEnforced = .init()
            $0.androidKey.softwareEnforced = .init(purpose: [2], origin: 0)
        }
        try Fixture.expectRegistrationFailure(.androidKeyOriginInvalid, rp: F.trusting("android-key"), softwareOnly)
        try F.expectTrusted("android-key", type: .basic, policy: { $0.androidKeyAllowSoftwareEnforcedUnsafe = true }, softwareOnly)
        // The union still refuses a contradicting origin in either list.
        try Fixture.expectRegistrationFailure(
            .androidKeyOriginInvalid, rp: F.trusting("android-key") { $0.androidKeyAllowSoftwareEnforcedUnsafe = true }
        ) {
            $0.attestation = .androidKey(Fixture.ca)
            $0.androidKey.softwareEnforced = .init(origin: 2)
        }
    }

    @Test("chain: intermediates, broken chain, untrusted root, expiry")
    func chain() throws {
        try F.expectChainChecks("android-key") { .androidKey($0) }
    }
}

@Suite("apple attestation (§8.8)")
struct AppleAttestationTests {
    typealias F = FormatFixture

    @Test("nonce and key match: trusted, AnonCA")
    func positive() throws {
        for algorithm in [COSEAlgorithm.es256, .es384] {
            try F.expectTrusted("apple", type: .anonymizationCA) { $0.algorithm = algorithm; $0.attestation = .apple(Fixture.ca) }
        }
    }

    @Test("nonce extension: present, well-formed, equal to SHA-256(authData ‖ clientDataHash)")
    func nonce() throws {
        try Fixture.expectRegistrationFailure(.appleNonceExtensionInvalid) { $0.attestation = .apple(Fixture.ca); $0.apple.omitNonce = true }
        for raw: [UInt8] in [[0x04, 0x01, 0x00], [0x30, 0x00], [0x30, 0x04, 0xA2, 0x02, 0x04, 0x00]] {
            try Fixture.expectRegistrationFailure(.appleNonceExtensionInvalid) { $0.attestation = .apple(Fixture.ca); $0.apple.rawNonceExtension = raw }
        }
        try Fixture.expectRegistrationFailure(.appleNonceMismatch) {
            $0.attestation = .apple(Fixture.ca)
            $0.apple.nonceOverride = Array(repeating: 9, count: 32)
        }
        try Fixture.expectRegistrationFailure(.malformedAttestationStatement) {
            $0.attestation = .apple(Fixture.ca)
            $0.mutateStatement = F.replacing("x5c", with: nil)
        }
    }

    @Test("the certificate key must be the credential key")
    func wrongKey() throws {
        let other = try PrivateKey.generate(for: .es256)
        try Fixture.expectRegistrationFailure(.applePublicKeyMismatch) {
            $0.attestation = .apple(Fixture.ca)
            $0.apple.certifiedKeyOverride = other.publicKey
        }
    }

    @Test("chain: intermediates, broken chain, untrusted root, expiry")
    func chain() throws {
        try F.expectChainChecks("apple") { .apple($0) }
    }
}

@Suite("attestation extension decoders (OpenSSL DER reader)")
struct AttestationExtensionDecoderTests {
    @Test("KeyDescription round-trips, including the high tag numbers 600 and 702")
    func keyDescription() throws {
        let description = AndroidKeyDescription(
            attestationChallenge: Array(repeating: 0xCD, count: 32),
            softwareEnforced: .init(purpose: [2, 3], allApplications: true, origin: 1),
            teeEnforced: .init(purpose: [2], origin: 0))
        let decoded = try AndroidKeyDescription(derEncoded: description.derEncoded())
        #expect(decoded == description)
    }

    @Test("DER reader refuses trailing bytes, indefinite lengths, overlong lengths and non-minimal integers")
    func strictness() throws {
        #expect(throws: CertificateError.malformedCertificate) { try DERElement.parse([0x05, 0x00, 0x00]) }
        #expect(throws: CertificateError.malformedCertificate) { try DERElement.parse([0x30, 0x80, 0x05, 0x00, 0x00, 0x00]) }
        #expect(throws: CertificateError.malformedCertificate) { try DERElement.parse([0x04, 0x05, 0x00]) }
        #expect(throws: CertificateError.malformedCertificate) { try DERElement.parse([0x02, 0x02, 0x00, 0x01]).integerValue() }
        #expect(try DERElement.parse([0x02, 0x02, 0x00, 0x80]).integerValue() == 128)
        #expect(try DERElement.parse([0x0A, 0x01, 0x02]).integerValue() == 2)
        // A KeyDescription needs its eight leading fields.
        #expect(throws: CertificateError.malformedCertificate) { try AndroidKeyDescription(derEncoded: [0x30, 0x02, 0x30, 0x00]) }
    }

    @Test("Apple nonce round-trips")
    func appleNonce() throws {
        let nonce = Array(0..<32).map { UInt8($0) }
        #expect(try AppleAnonymousAttestationNonce.decode(AppleAnonymousAttestationNonce.encode(nonce)) == nonce)
    }
}
