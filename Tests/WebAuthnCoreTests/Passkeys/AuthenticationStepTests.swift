import CBORCodec
import COSECrypto
import Foundation
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// One test per §7.2 verification step that can fail, each failing with its own code, plus positive cases.
@Suite("Authentication §7.2")
struct AuthenticationStepTests {
    @Test("every algorithm authenticates, identified and discoverable", arguments: RegistrationStepTests.algorithms)
    func everyAlgorithm(_ algorithm: COSEAlgorithm) throws {
        var enrolled = try Fixture.enroll { $0.algorithm = algorithm }
        for identified in [true, false] {
            let (response, state) = try Fixture.assertion(&enrolled, identified: identified)
            let verified = try enrolled.rp.finishAuthentication(response, state: state, credential: enrolled.record, now: Fixture.now)
            #expect(verified.userVerified && verified.userHandle == Fixture.userHandle)
            #expect(verified.update.signCount == verified.signCount)
            enrolled.record.signCount = verified.update.signCount
        }
    }

    @Test("a parsed key supplied by the caller gives the same result")
    func cachedKey() throws {
        var enrolled = try Fixture.enroll()
        let key = try PublicKey(coseBytes: enrolled.record.publicKey)
        let (response, state) = try Fixture.assertion(&enrolled)
        _ = try enrolled.rp.finishAuthentication(response, state: state, credential: enrolled.record, publicKey: key, now: Fixture.now)
    }

    @Test("counters: zero stays fine, increases are returned, regressions rejected or reported")
    func signCounter() throws {
        var zero = try Fixture.enroll()
        for _ in 0..<3 {
            let (response, state) = try Fixture.assertion(&zero) { $0.counterIncrement = 0 }
            let verified = try zero.rp.finishAuthentication(response, state: state, credential: zero.record, now: Fixture.now)
            #expect(verified.signCountStatus == .notSupported && verified.update.signCount == 0)
        }
        var counting = try Fixture.enroll { $0.signCount = 10 }
        let (response, state) = try Fixture.assertion(&counting) { $0.counterIncrement = 5 }
        let verified = try counting.rp.finishAuthentication(response, state: state, credential: counting.record, now: Fixture.now)
        #expect(verified.signCountStatus == .increased && verified.update.signCount == 15)

        try Fixture.expectAssertionFailure(.signCountRegressed, counting) { $0.signCountOverride = 10 }
        try Fixture.expectAssertionFailure(.signCountRegressed, counting) { $0.signCountOverride = 3 }
        // A counter that drops to zero after counting is a regression too.
        try Fixture.expectAssertionFailure(.signCountRegressed, counting) { $0.signCountOverride = 0 }

        var reporting = counting
        reporting.rp.signCount = .reportOnly
        let (again, againState) = try Fixture.assertion(&reporting) { $0.signCountOverride = 4 }
        let reported = try reporting.rp.finishAuthentication(again, state: againState, credential: reporting.record, now: Fixture.now)
        #expect(reported.signCountStatus == .regressed)
        #expect(reported.update.signCount == 10, "the stored counter is never lowered")
    }

    @Test("backup state changes are reported")
    func backupStateChange() throws {
        var enrolled = try Fixture.enroll { $0.backupEligible = true; $0.backupState = false }
        let (response, state) = try Fixture.assertion(&enrolled) { $0.backupState = true }
        let verified = try enrolled.rp.finishAuthentication(response, state: state, credential: enrolled.record, now: Fixture.now)
        #expect(verified.backupState && verified.backupStateChanged && verified.update.backupState)
    }

    @Test("standard padded base64 from iOS clients is accepted")
    func standardBase64() throws {
        var enrolled = try Fixture.enroll()
        let (options, state) = enrolled.rp.beginAuthentication(
            allowCredentials: [CredentialDescriptor(id: enrolled.record.id)], userHandle: enrolled.record.userHandle,
            challengeSource: FixedChallenges(fill: 3), now: Fixture.now)
        var json = try SoftAuthenticator.authenticate(options: options, credential: &enrolled.credential, knobs: AssertionKnobs(origin: Fixture.origin))
        func standard(_ text: String) -> String { Data(Base64URL.decode(text) ?? []).base64EncodedString() }
        json.rawId = standard(json.rawId)
        json.id = standard(json.id)
        json.response.clientDataJSON = standard(json.response.clientDataJSON)
        json.response.authenticatorData = standard(json.response.authenticatorData)
        json.response.signature = standard(json.response.signature)
        json.response.userHandle = json.response.userHandle.map(standard)
        _ = try enrolled.rp.finishAuthentication(UnverifiedAuthenticationResponse(json), state: state, credential: enrolled.record, now: Fixture.now)
    }

    // MARK: step 3
    @Test func step3_shape() throws {
        var enrolled = try Fixture.enroll()
        let (options, _) = enrolled.rp.beginAuthentication(allowCredentials: [], userHandle: nil, now: Fixture.now)
        let good = try SoftAuthenticator.authenticate(options: options, credential: &enrolled.credential, knobs: AssertionKnobs(origin: Fixture.origin))
        var json = good
        json.type = "public-key "
        #expect(throws: WebAuthnError(.invalidCredentialType)) { try UnverifiedAuthenticationResponse(json) }
        json = good
        json.id = Base64URL.encode([1])
        #expect(throws: WebAuthnError(.credentialIDMismatch)) { try UnverifiedAuthenticationResponse(json) }
        json = good
        json.response.signature = "***"
        #expect(throws: WebAuthnError(.malformedBase64)) { try UnverifiedAuthenticationResponse(json) }
        json = good
        json.response.authenticatorData = ""
        #expect(throws: WebAuthnError(.malformedResponse)) { try UnverifiedAuthenticationResponse(json) }
    }
    @Test func challengeExpired() throws {
        try Fixture.expectAssertionFailure(.challengeExpired, try Fixture.enroll(), now: Fixture.now.addingTimeInterval(300))
    }

    // MARK: steps 5–6
    @Test func step5_allowCredentials() throws {
        try Fixture.expectAssertionFailure(.credentialNotAllowed, try Fixture.enroll(), allow: [[1, 2, 3]])
    }
    @Test func step6_recordIsTheAssertedCredential() throws {
        let enrolled = try Fixture.enroll()
        var other = enrolled.record
        other.id = [9, 9, 9]
        try Fixture.expectAssertionFailure(.credentialIDMismatch, enrolled, allow: [enrolled.record.id], record: other)
    }
    @Test func step6_identifiedUser() throws {
        let enrolled = try Fixture.enroll()
        var someoneElses = enrolled.record
        someoneElses.userHandle = Array(repeating: 0xCD, count: 32)
        // The identified user (state) does not own the record.
        try Fixture.expectAssertionFailure(.credentialNotOwnedByUser, enrolled, record: someoneElses)
        // userHandle present but different from the identified user.
        try Fixture.expectAssertionFailure(.userHandleMismatch, enrolled) { $0.userHandleOverride = Array(repeating: 0xCD, count: 32) }
        // userHandle absent in an identified flow is fine (U2F keys do not return one).
        var fine = enrolled
        let (response, state) = try Fixture.assertion(&fine) { $0.includeUserHandle = false }
        _ = try fine.rp.finishAuthentication(response, state: state, credential: fine.record, now: Fixture.now)
    }
    @Test func step6_discoverable() throws {
        let enrolled = try Fixture.enroll()
        try Fixture.expectAssertionFailure(.userHandleMissing, enrolled, identified: false) { $0.includeUserHandle = false }
        try Fixture.expectAssertionFailure(.userHandleMismatch, enrolled, identified: false) { $0.userHandleOverride = [1, 2, 3] }
    }

    // MARK: steps 9–14: client data
    @Test func step9_clientDataMalformed() throws {
        try Fixture.expectAssertionFailure(.malformedClientData, try Fixture.enroll()) { $0.client.rawClientDataJSON = Array("[]".utf8) }
        try Fixture.expectAssertionFailure(.malformedClientData, try Fixture.enroll()) {
            $0.client.rawClientDataJSON = Array(#"{"type":"webauthn.get","challenge":1,"origin":"https://passkeyd.test"}"#.utf8)
        }
    }
    @Test func step10_type() throws {
        try Fixture.expectAssertionFailure(.clientDataTypeMismatch, try Fixture.enroll()) { $0.client.type = "webauthn.create" }
    }
    @Test func step11_challenge() throws {
        try Fixture.expectAssertionFailure(.challengeMismatch, try Fixture.enroll()) { $0.client.challenge = Base64URL.encode(FixedChallenges(fill: 8).bytes(count: 32)) }
        try Fixture.expectAssertionFailure(.challengeMismatch, try Fixture.enroll()) { $0.client.challenge = Base64URL.encode(FixedChallenges(fill: 7).bytes(count: 31)) }
    }
    @Test func step12_origin() throws {
        try Fixture.expectAssertionFailure(.originNotAllowed, try Fixture.enroll()) { $0.client.origin = "https://passkeyd.test.evil.test" }
        try Fixture.expectAssertionFailure(.originNotAllowed, try Fixture.enroll()) { $0.client.origin = "android:apk-key-hash:unknown" }
    }
    @Test func step13_crossOrigin() throws {
        try Fixture.expectAssertionFailure(.crossOriginNotAllowed, try Fixture.enroll()) { $0.client.crossOrigin = true }
    }
    @Test func step14_topOrigin() throws {
        try Fixture.expectAssertionFailure(.topOriginNotAllowed, try Fixture.enroll()) { $0.client.topOrigin = "https://evil.test" }
    }
    @Test func tokenBinding() throws {
        try Fixture.expectAssertionFailure(.tokenBindingInvalid, try Fixture.enroll()) { $0.client.tokenBinding = .object(["status": .string("present")]) }
    }

    // MARK: steps 15–19: authenticator data
    @Test func authenticatorDataMalformed() throws {
        try Fixture.expectAssertionFailure(.malformedAuthenticatorData, try Fixture.enroll()) { $0.mutateAuthenticatorData = { $0 + [0] } }
        try Fixture.expectAssertionFailure(.malformedAuthenticatorData, try Fixture.enroll()) { $0.mutateAuthenticatorData = { Array($0.prefix(30)) } }
        try Fixture.expectAssertionFailure(.unexpectedAttestedCredentialData, try Fixture.enroll()) {
            $0.mutateBeforeSigning = true
            $0.mutateAuthenticatorData = { data in
                var d = data
                d[32] |= 0x40
                return d + Array(repeating: 0, count: 16) + [0, 1, 7] + CBOREncoder.encode(.map([]))
            }
        }
    }
    @Test func step15_rpIdHash() throws {
        try Fixture.expectAssertionFailure(.rpIDHashMismatch, try Fixture.enroll()) { $0.rpIDOverride = "evil.test" }
    }
    @Test func step15_appid() throws {
        var rp = Fixture.relyingParty()
        rp.legacyAppID = "https://passkeyd.test/u2f-app-id.json"
        var enrolled = try Fixture.enroll(rp: rp) { $0.attestation = .fidoU2F(Fixture.ca) }
        let (response, state) = try Fixture.assertion(&enrolled) {
            $0.rpIDOverride = "https://passkeyd.test/u2f-app-id.json"
            $0.client.clientExtensionResults = ["appid": .bool(true)]
        }
        #expect(state.appID == rp.legacyAppID)
        _ = try rp.finishAuthentication(response, state: state, credential: enrolled.record, now: Fixture.now)
        // Without the extension output the AppID hash is not accepted.
        try Fixture.expectAssertionFailure(.rpIDHashMismatch, enrolled) { $0.rpIDOverride = "https://passkeyd.test/u2f-app-id.json" }
    }
    @Test func step16_userPresent() throws {
        try Fixture.expectAssertionFailure(.userNotPresent, try Fixture.enroll()) { $0.userPresent = false }
    }
    @Test func step17_userVerified() throws {
        try Fixture.expectAssertionFailure(.userNotVerified, try Fixture.enroll()) { $0.userVerified = false }
        var lax = try Fixture.enroll(rp: Fixture.relyingParty { $0.userVerification = .preferredUnsafe })
        let (response, state) = try Fixture.assertion(&lax) { $0.userVerified = false }
        #expect(try lax.rp.finishAuthentication(response, state: state, credential: lax.record, now: Fixture.now).userVerified == false)
        // The ceremony's own requirement holds even under a lax policy.
        var strictCeremony = lax
        let (strictResponse, strictState) = try Fixture.assertion(&strictCeremony, userVerification: .required) { $0.userVerified = false }
        #expect(throws: WebAuthnError(.userNotVerified)) {
            try lax.rp.finishAuthentication(strictResponse, state: strictState, credential: lax.record, now: Fixture.now)
        }
    }
    @Test func step18_backupStateWithoutEligibility() throws {
        try Fixture.expectAssertionFailure(.backupStateInvalid, try Fixture.enroll()) { $0.backupEligible = false; $0.backupState = true }
    }
    @Test func step19_backupEligibilityChanged() throws {
        try Fixture.expectAssertionFailure(.backupEligibilityMismatch, try Fixture.enroll()) { $0.backupEligible = true }
        try Fixture.expectAssertionFailure(.backupEligibilityMismatch, try Fixture.enroll { $0.backupEligible = true }) { $0.backupEligible = false }
    }

    // MARK: steps 20–22
    @Test func step21_storedKeyInvalid() throws {
        let enrolled = try Fixture.enroll()
        var broken = enrolled.record
        broken.publicKey = [0xA0]
        try Fixture.expectAssertionFailure(.storedPublicKeyInvalid, enrolled, record: broken)
    }
    @Test func step21_signature() throws {
        try Fixture.expectAssertionFailure(.signatureInvalid, try Fixture.enroll()) { $0.corruptSignature = true }
        let other = try PrivateKey.generate(for: .es256)
        try Fixture.expectAssertionFailure(.signatureInvalid, try Fixture.enroll()) { $0.signingKeyOverride = other }
        // Signed data changed after signing.
        try Fixture.expectAssertionFailure(.signatureInvalid, try Fixture.enroll()) { $0.mutateAuthenticatorData = { var d = $0; d[32] ^= 0x02; return d } }
        try Fixture.expectAssertionFailure(.signatureInvalid, try Fixture.enroll()) { $0.mutateAuthenticatorData = { var d = $0; d[36] ^= 0x80; return d } }
    }
    @Test func step21_psychicSignature() throws {
        var enrolled = try Fixture.enroll()
        let (options, state) = enrolled.rp.beginAuthentication(
            allowCredentials: [CredentialDescriptor(id: enrolled.record.id)], userHandle: enrolled.record.userHandle,
            challengeSource: FixedChallenges(fill: 7), now: Fixture.now)
        var json = try SoftAuthenticator.authenticate(options: options, credential: &enrolled.credential, knobs: AssertionKnobs(origin: Fixture.origin))
        for bad: [UInt8] in [[0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00], Array(repeating: 0, count: 64), [0x30]] {
            json.response.signature = Base64URL.encode(bad)
            #expect(throws: WebAuthnError(.signatureInvalid)) {
                try enrolled.rp.finishAuthentication(UnverifiedAuthenticationResponse(json), state: state, credential: enrolled.record, now: Fixture.now)
            }
        }
    }
}
