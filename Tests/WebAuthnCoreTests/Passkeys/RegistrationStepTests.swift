import CBORCodec
import COSECrypto
import Foundation
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// One test per §7.1 verification step that can fail, each failing with its own code, plus positive cases.
@Suite("Registration §7.1")
struct RegistrationStepTests {
    static let algorithms: [COSEAlgorithm] = [
        .es256, .esp256, .es384, .esp384, .es512, .esp512, .edDSA, .ed25519, .ed448, .rs256, .rs384, .rs512, .ps256,
        .ps384, .ps512,
    ]

    @Test("every algorithm registers with none, packed self and packed full attestation", arguments: algorithms)
    func everyAlgorithm(_ algorithm: COSEAlgorithm) throws {
        for attestation in [SoftAttestation.none, .packedSelf, .packedFull(Fixture.ca)] {
            let verified = try Fixture.register { $0.algorithm = algorithm; $0.attestation = attestation }
            #expect(verified.algorithm == algorithm)
            #expect(verified.userVerified)
            #expect(try PublicKey(coseBytes: verified.publicKey).algorithm == algorithm)
        }
    }

    @Test("attestation types and trust are reported")
    func attestationResults() throws {
        let none = try Fixture.register { $0.attestation = .none }
        #expect(none.attestationType == .none && none.attestationTrust == .none)
        let selfAttested = try Fixture.register { $0.attestation = .packedSelf }
        #expect(selfAttested.attestationType == .self && selfAttested.attestationTrust == .selfAttested)
        let untrusted = try Fixture.register { $0.attestation = .packedFull(Fixture.ca) }
        #expect(untrusted.attestationType == .basic)
        if case .untrusted = untrusted.attestationTrust {} else { Issue.record("expected untrusted, got \(untrusted.attestationTrust)") }
        let trustingRP = Fixture.relyingParty {
            $0.attestation = AttestationPolicy(requirement: .trustedRequired, trustAnchors: ["packed": Fixture.ca.trustAnchors, "fido-u2f": Fixture.ca.trustAnchors])
        }
        let trusted = try Fixture.register(rp: trustingRP) { $0.attestation = .packedFull(Fixture.ca) }
        if case .trusted = trusted.attestationTrust {} else { Issue.record("expected trusted, got \(trusted.attestationTrust)") }
        #expect(trusted.attestationCertificates.count == 1)
        let u2f = try Fixture.register(rp: trustingRP) { $0.attestation = .fidoU2F(Fixture.ca) }
        #expect(u2f.attestationFormat == "fido-u2f" && u2f.aaguid == Array(repeating: 0, count: 16))
    }

    @Test("result carries flags, transports, counters, credProps and the stored form")
    func resultContents() throws {
        let verified = try Fixture.register {
            $0.backupEligible = true
            $0.backupState = true
            $0.signCount = 7
            $0.transports = ["internal", "hybrid", "bogus"]
            $0.client.clientExtensionResults = ["credProps": .object(["rk": .bool(true)])]
            $0.authenticatorExtensions = .map([CBORMapEntry(.text("credProtect"), .unsigned(2))])
        }
        #expect(verified.backupEligible && verified.backupState && verified.signCount == 7)
        #expect(verified.transports == ["internal", "hybrid"])
        #expect(verified.discoverable == true)
        #expect(verified.authenticatorExtensions?[text: "credProtect"] == .unsigned(2))
        #expect(verified.credentialRecord.userHandle == Fixture.userHandle)
        #expect(verified.aaguid == Array(repeating: 0x5A, count: 16))
    }

    @Test("indefinite-length attestation objects, standard base64 and a native-app origin are accepted")
    func tolerantInput() throws {
        _ = try Fixture.register { $0.indefiniteLengthMaps = true; $0.attestation = .packedSelf }
        var (response, state, _) = try Fixture.registration()
        for keyPath in [\RegistrationResponseJSON.response.clientDataJSON, \.response.attestationObject] {
            let bytes = Base64URL.decode(response[keyPath: keyPath]) ?? []
            response[keyPath: keyPath] = Data(bytes).base64EncodedString()
        }
        _ = try Fixture.relyingParty().finishRegistration(response, state: state, now: Fixture.now)
        _ = try Fixture.register { $0.client.origin = "ios:bundle-id:test.passkeyd.app" }
    }

    // MARK: step 3: response shape
    @Test func step3_credentialType() throws {
        try Fixture.expectRegistrationFailure(.invalidCredentialType, mutateResponse: { $0.type = "password" }) { _ in }
    }
    @Test func step3_idDiffersFromRawId() throws {
        try Fixture.expectRegistrationFailure(.credentialIDMismatch, mutateResponse: { $0.id = Base64URL.encode([1, 2, 3]) }) { _ in }
    }
    @Test func step3_badBase64() throws {
        try Fixture.expectRegistrationFailure(.malformedBase64, mutateResponse: { $0.response.attestationObject = "not base64!" }) { _ in }
    }
    @Test func step3_emptyClientData() throws {
        try Fixture.expectRegistrationFailure(.malformedResponse, mutateResponse: { $0.response.clientDataJSON = "" }) { _ in }
    }
    @Test func challengeExpired() throws {
        try Fixture.expectRegistrationFailure(.challengeExpired, now: Fixture.now.addingTimeInterval(301)) { _ in }
    }

    // MARK: steps 5–11: client data
    @Test func step6_clientDataNotJSON() throws {
        try Fixture.expectRegistrationFailure(.malformedClientData) { $0.client.rawClientDataJSON = Array("{\"type\":".utf8) }
        try Fixture.expectRegistrationFailure(.malformedClientData) { $0.client.rawClientDataJSON = [0xFF, 0xFE, 0x7B, 0x7D] }
        try Fixture.expectRegistrationFailure(.malformedClientData) {
            $0.client.rawClientDataJSON = Array(#"{"type":"webauthn.create","origin":"https://passkeyd.test"}"#.utf8)
        }
    }
    @Test func step5_clientDataWithBOMAccepted() throws {
        let rp = Fixture.relyingParty()
        let (options, state) = rp.beginRegistration(user: Fixture.user(), excludeCredentials: [], challengeSource: FixedChallenges(), now: Fixture.now)
        var knobs = RegistrationKnobs(origin: Fixture.origin)
        knobs.client.rawClientDataJSON = [0xEF, 0xBB, 0xBF] + Array(#"{"type":"webauthn.create","challenge":"\#(options.challenge)","origin":"https://passkeyd.test","unknown":{"x":[1]}}"#.utf8)
        let (response, _) = try SoftAuthenticator.register(options: options, knobs: knobs)
        _ = try rp.finishRegistration(response, state: state, now: Fixture.now)
    }
    @Test func step7_type() throws {
        try Fixture.expectRegistrationFailure(.clientDataTypeMismatch) { $0.client.type = "webauthn.get" }
        try Fixture.expectRegistrationFailure(.clientDataTypeMismatch) { $0.client.type = "" }
    }
    @Test func step8_challenge() throws {
        try Fixture.expectRegistrationFailure(.challengeMismatch) { $0.client.challenge = Base64URL.encode(Array(repeating: 0x42, count: 32)) }
        try Fixture.expectRegistrationFailure(.challengeMismatch) { $0.client.challenge = "" }
        try Fixture.expectRegistrationFailure(.challengeMismatch) { $0.client.challenge = "%%%" }
        // The right bytes in padded standard base64 are not the base64url encoding the spec demands.
        let padded = Data(FixedChallenges().bytes(count: 32)).base64EncodedString()
        if padded.contains("+") || padded.contains("/") || padded.contains("=") {
            try Fixture.expectRegistrationFailure(.challengeMismatch) { $0.client.challenge = padded }
        }
    }
    @Test func step9_origin() throws {
        for origin in ["https://evil.test", "https://passkeyd.test.evil.test", "https://sub.passkeyd.test", "http://passkeyd.test",
                       "https://passkeyd.test:8443", "https://PASSKEYD.test", "null", ""] {
            try Fixture.expectRegistrationFailure(.originNotAllowed) { $0.client.origin = origin }
        }
    }
    @Test func step10_crossOrigin() throws {
        try Fixture.expectRegistrationFailure(.crossOriginNotAllowed) { $0.client.crossOrigin = true }
        _ = try Fixture.register { $0.client.crossOrigin = false }
        let rp = Fixture.relyingParty { $0.crossOrigin = .allow(topOrigins: ["https://top.test"]) }
        _ = try Fixture.register(rp: rp) { $0.client.crossOrigin = true; $0.client.topOrigin = "https://top.test" }
    }
    @Test func step11_topOrigin() throws {
        try Fixture.expectRegistrationFailure(.topOriginNotAllowed) { $0.client.topOrigin = "https://top.test" }
        let rp = Fixture.relyingParty { $0.crossOrigin = .allow(topOrigins: ["https://top.test"]) }
        try Fixture.expectRegistrationFailure(.topOriginNotAllowed, rp: rp) {
            $0.client.crossOrigin = true
            $0.client.topOrigin = "https://evil.test"
        }
    }
    @Test func tokenBinding() throws {
        try Fixture.expectRegistrationFailure(.tokenBindingInvalid) { $0.client.tokenBinding = .object(["status": .string("present"), "id": .string("AAAA")]) }
        try Fixture.expectRegistrationFailure(.tokenBindingInvalid) { $0.client.tokenBinding = .object(["status": .string("bogus")]) }
        try Fixture.expectRegistrationFailure(.tokenBindingInvalid) { $0.client.tokenBinding = .object([:]) }
        _ = try Fixture.register { $0.client.tokenBinding = .object(["status": .string("supported")]) }
    }

    // MARK: step 13: attestation object and authenticator data
    @Test func step13_attestationObject() throws {
        let bad: [[UInt8]] = [
            [0x01], [0x80], [0xA0], [0xA1, 0x63, 0x66, 0x6D, 0x74, 0x01],  // int; []; {}; {"fmt": 1}
            CBOREncoder.encode(.map([CBORMapEntry(.text("fmt"), .text("none")), CBORMapEntry(.text("attStmt"), .map([]))])),
            CBOREncoder.encode(.map([CBORMapEntry(.text("fmt"), .text("none")), CBORMapEntry(.text("attStmt"), .array([])), CBORMapEntry(.text("authData"), .bytes(Array(repeating: 0, count: 37)))])),
            CBOREncoder.encode(.map([CBORMapEntry(.text("fmt"), .text("none")), CBORMapEntry(.text("attStmt"), .map([])), CBORMapEntry(.text("authData"), .text("x"))])),
            CBOREncoder.encode(.map([CBORMapEntry(.text("fmt"), .text("none")), CBORMapEntry(.text("attStmt"), .map([])), CBORMapEntry(.text("authData"), .bytes([]))])),
            [0x9A, 0xFF, 0xFF, 0xFF, 0xFF], [0xA1, 0x63, 0x66, 0x6D],
        ]
        for bytes in bad {
            try Fixture.expectRegistrationFailure(.malformedAttestationObject) { $0.rawAttestationObject = bytes }
        }
        // Trailing bytes after the attestation object.
        var (response, state, _) = try Fixture.registration()
        response.response.attestationObject = Base64URL.encode((Base64URL.decode(response.response.attestationObject) ?? []) + [0x00])
        #expect(throws: WebAuthnError(.malformedAttestationObject)) {
            try Fixture.relyingParty().finishRegistration(response, state: state, now: Fixture.now)
        }
    }
    @Test func step13_authenticatorData() throws {
        try Fixture.expectRegistrationFailure(.malformedAuthenticatorData) { $0.mutateAuthenticatorData = { $0 + [0x00] } }
        try Fixture.expectRegistrationFailure(.malformedAuthenticatorData) { $0.mutateAuthenticatorData = { Array($0.prefix(36)) } }
        try Fixture.expectRegistrationFailure(.malformedAuthenticatorData) { $0.mutateAuthenticatorData = { Array($0.prefix(60)) } }
        // credentialIdLength 0xFFFF with far fewer bytes behind it.
        try Fixture.expectRegistrationFailure(.malformedAuthenticatorData) {
            $0.mutateAuthenticatorData = { var data = $0; data[53] = 0xFF; data[54] = 0xFF; return data }
        }
        // ED set without extensions.
        try Fixture.expectRegistrationFailure(.malformedAuthenticatorData) { $0.mutateAuthenticatorData = { var data = $0; data[32] |= 0x80; return data } }
    }
    @Test func step13_attestedCredentialDataMissing() throws {
        try Fixture.expectRegistrationFailure(.attestedCredentialDataMissing) {
            $0.mutateAuthenticatorData = { var data = Array($0.prefix(37)); data[32] &= ~0x40; return data }
        }
        // AT clear but attested data present: leftover bytes.
        try Fixture.expectRegistrationFailure(.malformedAuthenticatorData) { $0.mutateAuthenticatorData = { var data = $0; data[32] &= ~0x40; return data } }
    }
    @Test func step13_rawIdIsAttestedCredentialId() throws {
        try Fixture.expectRegistrationFailure(.credentialIDMismatch) { $0.rawIDOverride = Array(repeating: 9, count: 32) }
    }

    // MARK: steps 14–19: authenticator data checks
    @Test func step14_rpIdHash() throws {
        try Fixture.expectRegistrationFailure(.rpIDHashMismatch) { $0.rpIDOverride = "evil.test" }
    }
    @Test func step15_userPresent() throws {
        try Fixture.expectRegistrationFailure(.userNotPresent) { $0.userPresent = false }
    }
    @Test func step16_userVerified() throws {
        try Fixture.expectRegistrationFailure(.userNotVerified) { $0.userVerified = false }
        // A caller cannot weaken the policy through the request.
        let rp = Fixture.relyingParty()
        let (options, state) = rp.beginRegistration(
            user: Fixture.user(), excludeCredentials: [],
            request: RegistrationRequest(authenticatorSelection: AuthenticatorSelectionJSON(userVerification: "discouraged")),
            challengeSource: FixedChallenges(), now: Fixture.now)
        #expect(options.authenticatorSelection?.userVerification == "required")
        var knobs = RegistrationKnobs(origin: Fixture.origin)
        knobs.userVerified = false
        let (response, _) = try SoftAuthenticator.register(options: options, knobs: knobs)
        #expect(throws: WebAuthnError(.userNotVerified)) { try rp.finishRegistration(response, state: state, now: Fixture.now) }
        // Under an explicitly unsafe policy, UV may be absent and is reported.
        let lax = Fixture.relyingParty { $0.userVerification = .preferredUnsafe }
        #expect(try Fixture.register(rp: lax) { $0.userVerified = false }.userVerified == false)
    }
    @Test func step17_backupStateWithoutEligibility() throws {
        try Fixture.expectRegistrationFailure(.backupStateInvalid) { $0.backupEligible = false; $0.backupState = true }
    }
    @Test func step18_backupEligibilityPolicy() throws {
        let deviceBound = Fixture.relyingParty { $0.backupEligibility = .requireDeviceBound }
        try Fixture.expectRegistrationFailure(.backupEligibilityMismatch, rp: deviceBound) { $0.backupEligible = true }
        let synced = Fixture.relyingParty { $0.backupEligibility = .requireBackupEligible }
        try Fixture.expectRegistrationFailure(.backupEligibilityMismatch, rp: synced) { $0.backupEligible = false }
    }

    // MARK: step 20: algorithm and key
    @Test func step20_algorithmNotRequested() throws {
        let rp = Fixture.relyingParty { $0.algorithms = AlgorithmPolicy([.es256]) }
        try Fixture.expectRegistrationFailure(.algorithmNotAllowed, rp: rp) { $0.algorithm = .edDSA }
        // RS1 is never requested unless named unsafe.
        #expect(!AlgorithmPolicy([.rs1, .es256]).algorithms.contains(.rs1))
        try Fixture.expectRegistrationFailure(.algorithmNotAllowed) { $0.algorithm = .rs1 }
        let legacy = Fixture.relyingParty { $0.algorithms = .unsafeIncludingRS1([.rs1]) }
        _ = try Fixture.register(rp: legacy) { $0.algorithm = .rs1; $0.attestation = .packedSelf }
    }
    @Test func step20_invalidPublicKey() throws {
        // A point off the curve.
        try Fixture.expectRegistrationFailure(.invalidPublicKey) {
            $0.mutateCOSEKey = { key in
                guard case .map(var entries) = key else { return key }
                for index in entries.indices where entries[index].key == CBORValue(-3) {
                    if case .bytes(var y) = entries[index].value { y[31] ^= 0x01; entries[index].value = .bytes(y) }
                }
                return .map(entries)
            }
        }
        // An extra (private) parameter.
        try Fixture.expectRegistrationFailure(.invalidPublicKey) {
            $0.mutateCOSEKey = { key in
                guard case .map(let entries) = key else { return key }
                return .map(entries + [CBORMapEntry(CBORValue(-4), .bytes(Array(repeating: 1, count: 32)))])
            }
        }
        // Missing alg.
        try Fixture.expectRegistrationFailure(.invalidPublicKey) {
            $0.mutateCOSEKey = { key in
                guard case .map(let entries) = key else { return key }
                return .map(entries.filter { $0.key != CBORValue(3) })
            }
        }
    }

    // MARK: steps 21–22: formats
    @Test func step21_unsupportedFormat() throws {
        try Fixture.expectRegistrationFailure(.unsupportedAttestationFormat) { $0.fmtOverride = "Packed" }
        try Fixture.expectRegistrationFailure(.unsupportedAttestationFormat) { $0.fmtOverride = "tpm-ish" }
    }
    @Test func step22_none() throws {
        try Fixture.expectRegistrationFailure(.malformedAttestationStatement) {
            $0.mutateStatement = { _ in .map([CBORMapEntry(.text("sig"), .bytes([1]))]) }
        }
        // A packed statement labelled "none" (FIDO Resp-7 F-1).
        try Fixture.expectRegistrationFailure(.malformedAttestationStatement) { $0.attestation = .packedFull(Fixture.ca); $0.fmtOverride = "none" }
    }
    @Test func step22_packedSelf() throws {
        try Fixture.expectRegistrationFailure(.malformedAttestationStatement) { $0.attestation = .packedSelf; $0.mutateStatement = { _ in .map([]) } }
        try Fixture.expectRegistrationFailure(.malformedAttestationStatement) {
            $0.attestation = .packedSelf
            $0.mutateStatement = { _ in .map([CBORMapEntry(.text("alg"), .text("ES256")), CBORMapEntry(.text("sig"), .bytes([1]))]) }
        }
        try Fixture.expectRegistrationFailure(.malformedAttestationStatement) {
            $0.attestation = .packedSelf
            $0.mutateStatement = { _ in .map([CBORMapEntry(.text("alg"), CBORValue(-7)), CBORMapEntry(.text("sig"), .bytes([]))]) }
        }
        try Fixture.expectRegistrationFailure(.attestationSignatureInvalid) { $0.attestation = .packedSelf; $0.mutateAuthenticatorData = { var d = $0; d[36] ^= 1; return d } }
        try Fixture.expectRegistrationFailure(.attestationAlgorithmMismatch) {
            $0.attestation = .packedSelf
            $0.mutateStatement = { statement in
                guard case .map(var entries) = statement else { return statement }
                entries[0].value = CBORValue(-257)
                return .map(entries)
            }
        }
    }
    @Test func step22_packedFull() throws {
        // authData changed after the attestation key signed it.
        try Fixture.expectRegistrationFailure(.attestationSignatureInvalid) {
            $0.attestation = .packedFull(Fixture.ca)
            $0.mutateAuthenticatorData = { var d = $0; d[33] ^= 1; return d }
        }
        try Fixture.expectRegistrationFailure(.malformedAttestationStatement) {
            $0.attestation = .packedFull(Fixture.ca)
            $0.mutateStatement = { statement in
                guard case .map(var entries) = statement else { return statement }
                entries[2].value = .array([])
                return .map(entries)
            }
        }
        try Fixture.expectRegistrationFailure(.attestationCertificateInvalid) {
            $0.attestation = .packedFull(Fixture.ca)
            $0.mutateStatement = { statement in
                guard case .map(var entries) = statement else { return statement }
                entries[2].value = .array([.bytes([0x30, 0x03, 0x02, 0x01, 0x01])])
                return .map(entries)
            }
        }
        try Fixture.expectRegistrationFailure(.attestationCertificateInvalid) { $0.attestation = .packedFull(Fixture.ca); $0.certificateIsCA = true }
        try Fixture.expectRegistrationFailure(.attestationCertificateInvalid) {
            $0.attestation = .packedFull(Fixture.ca)
            $0.certificateSubject = DistinguishedName([("C", "US"), ("O", "x"), ("OU", "Something Else"), ("CN", "x")])
        }
        try Fixture.expectRegistrationFailure(.attestationAAGUIDMismatch) {
            $0.attestation = .packedFull(Fixture.ca)
            $0.certificateAAGUID = .some(Array(repeating: 0x11, count: 16))
        }
        // Without the AAGUID extension the certificate is still acceptable.
        _ = try Fixture.register { $0.attestation = .packedFull(Fixture.ca); $0.certificateAAGUID = .some(nil) }
    }
    @Test func step22_fidoU2F() throws {
        try Fixture.expectRegistrationFailure(.attestationSignatureInvalid) {
            $0.attestation = .fidoU2F(Fixture.ca)
            $0.mutateStatement = { statement in
                guard case .map(var entries) = statement, case .bytes(var sig) = entries[0].value else { return statement }
                sig[sig.count - 3] ^= 1
                entries[0].value = .bytes(sig)
                return .map(entries)
            }
        }
        try Fixture.expectRegistrationFailure(.malformedAttestationStatement) {
            $0.attestation = .fidoU2F(Fixture.ca)
            $0.mutateStatement = { statement in
                guard case .map(var entries) = statement, case .array(let certs) = entries[1].value else { return statement }
                entries[1].value = .array(certs + certs)
                return .map(entries)
            }
        }
        try Fixture.expectRegistrationFailure(.attestationCertificateInvalid) {
            $0.attestation = .fidoU2F(Fixture.ca)
            $0.mutateStatement = { statement in
                guard case .map(var entries) = statement else { return statement }
                entries[1].value = .array([.bytes([0x30, 0x00])])
                return .map(entries)
            }
        }
        // A non-zero AAGUID is accepted (W3C §8.6 does not constrain it) and reported.
        let reported = try Fixture.register {
            $0.attestation = .fidoU2F(Fixture.ca)
            $0.mutateAuthenticatorData = { var d = $0; d[37] = 1; return d }
            $0.mutateBeforeSigning = true
        }
        #expect(reported.aaguid.first == 1)
    }

    // MARK: steps 23–24: trust
    @Test func step24_trust() throws {
        let strict = Fixture.relyingParty {
            $0.attestation = AttestationPolicy(requirement: .trustedRequired, trustAnchors: ["packed": Fixture.ca.trustAnchors])
        }
        try Fixture.expectRegistrationFailure(.attestationNotAllowed, rp: strict) { $0.attestation = .none }
        try Fixture.expectRegistrationFailure(.attestationNotAllowed, rp: strict) { $0.attestation = .packedSelf }
        let otherCA = try TestAttestationCA(name: "someone else's root")
        try Fixture.expectRegistrationFailure(.attestationUntrusted, rp: strict) { $0.attestation = .packedFull(otherCA) }
        // The same chain 40 years on: the ceremony itself is fresh, the certificates have expired.
        let later = Date(timeIntervalSince1970: 1_700_000_000 + 40 * 365 * 86400)
        let (options, state) = strict.beginRegistration(user: Fixture.user(), excludeCredentials: [], challengeSource: FixedChallenges(), now: later)
        var knobs = RegistrationKnobs(origin: Fixture.origin)
        knobs.attestation = .packedFull(Fixture.ca)
        let (response, _) = try SoftAuthenticator.register(options: options, knobs: knobs)
        #expect(throws: WebAuthnError(.attestationCertificateExpired)) { try strict.finishRegistration(response, state: state, now: later) }
        // Trust anchors for another format do not count.
        let wrongFormat = Fixture.relyingParty {
            $0.attestation = AttestationPolicy(requirement: .trustedRequired, trustAnchors: ["fido-u2f": Fixture.ca.trustAnchors])
        }
        try Fixture.expectRegistrationFailure(.attestationUntrusted, rp: wrongFormat) { $0.attestation = .packedFull(Fixture.ca) }
    }

    // MARK: step 25, 28
    @Test func step25_credentialIdTooLong() throws {
        try Fixture.expectRegistrationFailure(.credentialIDTooLong) { $0.credentialIDLength = 1024 }
        _ = try Fixture.register { $0.credentialIDLength = 1023 }
    }
    @Test func step28_extensionOutputs() throws {
        try Fixture.expectRegistrationFailure(.extensionOutputInvalid) { $0.client.clientExtensionResults = ["credProps": .string("yes")] }
        try Fixture.expectRegistrationFailure(.extensionOutputInvalid) { $0.client.clientExtensionResults = ["credProps": .object(["rk": .string("true")])] }
        // Unsolicited outputs are ignored.
        _ = try Fixture.register { $0.client.clientExtensionResults = ["somethingNew": .number(1)] }
    }
}
