import COSECrypto
import Foundation
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// The attestation policy of issue 4: requirement values, AAGUID lists, the verdict.
@Suite("Attestation policy")
struct AttestationPolicyTests {
    static let softAAGUID = AAGUID(bytes: Array(repeating: 0x5A, count: 16))!

    @Test("configuration names map to requirements")
    func configurationNames() {
        #expect(AttestationPolicy.Requirement(configurationName: "none") == .anyVerified)
        #expect(AttestationPolicy.Requirement(configurationName: "any-verified") == .anyVerified)
        #expect(AttestationPolicy.Requirement(configurationName: "self-ok") == .selfOrTrusted)
        #expect(AttestationPolicy.Requirement(configurationName: "trusted-required") == .trustedRequired)
        #expect(AttestationPolicy.Requirement(configurationName: "trusted-chains") == .trustedChains)
        #expect(AttestationPolicy.Requirement(configurationName: "Trusted-Required") == nil)
        #expect(AttestationPolicy.Requirement(configurationName: "") == nil)
        for requirement in [AttestationPolicy.Requirement.anyVerified, .selfOrTrusted, .trustedRequired, .trustedChains] {
            #expect(AttestationPolicy.Requirement(configurationName: requirement.configurationName) == requirement)
        }
    }

    @Test("defaults are safe: refused statuses, no lists, ctsProfileMatch required, 60 s window")
    func defaults() {
        let policy = AttestationPolicy.default
        #expect(policy.refusedStatuses == [.revoked, .userVerificationBypass, .attestationKeyCompromise, .userKeyRemoteCompromise, .userKeyPhysicalCompromise])
        #expect(policy.aaguidAllowList == nil && policy.aaguidDenyList.isEmpty && policy.metadata == nil)
        #expect(policy.safetyNet.requireCTSProfileMatch && policy.safetyNet.maxAge == 60 && !policy.safetyNet.skipTimestampCheckUnsafe)
    }

    @Test("AAGUID text form")
    func aaguidText() {
        let aaguid = AAGUID("CB69481E-8FF7-4039-93EC-0A2729A154A8")
        #expect(aaguid?.description == "cb69481e-8ff7-4039-93ec-0a2729a154a8")
        #expect(AAGUID("cb69481e8ff7403993ec0a2729a154a8") == aaguid)
        #expect(AAGUID("cb69481e-8ff7-4039-93ec-0a2729a154") == nil)
        #expect(AAGUID("zz69481e-8ff7-4039-93ec-0a2729a154a8") == nil)
        #expect(AAGUID(bytes: [1, 2]) == nil)
        #expect(AAGUID(bytes: Array(repeating: 0, count: 16))?.isZero == true)
    }

    @Test("self-ok: self attestation and trusted chains pass; none and untrusted chains are refused")
    func selfOK() throws {
        let rp = Fixture.relyingParty {
            $0.attestation = AttestationPolicy(requirement: .selfOrTrusted, trustAnchors: ["packed": Fixture.ca.trustAnchors])
        }
        #expect(try Fixture.register(rp: rp) { $0.attestation = .packedSelf }.attestationTrust == .selfAttested)
        if case .trusted = try Fixture.register(rp: rp, { $0.attestation = .packedFull(Fixture.ca) }).attestationTrust {} else {
            Issue.record("expected trusted")
        }
        try Fixture.expectRegistrationFailure(.attestationNotAllowed, rp: rp) { $0.attestation = .none }
        let otherCA = try TestAttestationCA(name: "unknown vendor")
        try Fixture.expectRegistrationFailure(.attestationUntrusted, rp: rp) { $0.attestation = .packedFull(otherCA) }
        // Asks for attestation in the options.
        let (options, _) = rp.beginRegistration(user: Fixture.user(), excludeCredentials: [], challengeSource: FixedChallenges(), now: Fixture.now)
        #expect(options.attestation == "direct")
    }

    @Test("trusted-required refuses none and self; any-verified accepts everything that verifies")
    func requirements() throws {
        let strict = Fixture.relyingParty {
            $0.attestation = AttestationPolicy(requirement: .trustedRequired, trustAnchors: ["packed": Fixture.ca.trustAnchors])
        }
        try Fixture.expectRegistrationFailure(.attestationNotAllowed, rp: strict) { $0.attestation = .none }
        try Fixture.expectRegistrationFailure(.attestationNotAllowed, rp: strict) { $0.attestation = .packedSelf }
        let lax = Fixture.relyingParty()
        #expect(try Fixture.register(rp: lax) { $0.attestation = .none }.attestationVerdict.type == .none)
    }

    @Test("the AAGUID deny-list refuses; the allow-list admits only its members")
    func aaguidLists() throws {
        let denying = Fixture.relyingParty { $0.attestation.aaguidDenyList = [Self.softAAGUID] }
        try Fixture.expectRegistrationFailure(.aaguidDenied, rp: denying) { $0.attestation = .packedSelf }
        _ = try Fixture.register(rp: denying) { $0.attestation = .packedSelf; $0.aaguid = Array(repeating: 0x11, count: 16) }

        let allowing = Fixture.relyingParty { $0.attestation.aaguidAllowList = [Self.softAAGUID] }
        _ = try Fixture.register(rp: allowing) { $0.attestation = .packedSelf }
        try Fixture.expectRegistrationFailure(.aaguidNotAllowed, rp: allowing) {
            $0.attestation = .packedSelf
            $0.aaguid = Array(repeating: 0x11, count: 16)
        }
        // Deny wins over allow.
        let both = Fixture.relyingParty {
            $0.attestation.aaguidAllowList = [Self.softAAGUID]
            $0.attestation.aaguidDenyList = [Self.softAAGUID]
        }
        try Fixture.expectRegistrationFailure(.aaguidDenied, rp: both) { $0.attestation = .packedSelf }
    }

    @Test("the verdict reports format, type, trust, AAGUID and trust path")
    func verdict() throws {
        let rp = Fixture.relyingParty {
            $0.attestation = AttestationPolicy(requirement: .anyVerified, trustAnchors: ["packed": Fixture.ca.trustAnchors])
        }
        let verified = try Fixture.register(rp: rp) { $0.attestation = .packedFull(Fixture.ca) }
        let verdict = verified.attestationVerdict
        #expect(verdict.format == "packed" && verdict.type == .basic)
        #expect(verdict.trust == .trusted(anchorSubject: "passkeyd test attestation root"))
        #expect(verdict.trustAnchorSource == .configured)
        #expect(verdict.aaguid == Self.softAAGUID)
        #expect(verdict.trustPath == verified.attestationCertificates)
        #expect(verdict.authenticatorDescription == nil && verdict.metadataStatuses.isEmpty)
        let selfVerdict = try Fixture.register(rp: rp) { $0.attestation = .packedSelf }.attestationVerdict
        #expect(selfVerdict.trustAnchorSource == nil && selfVerdict.trustPath.isEmpty)
    }
}
