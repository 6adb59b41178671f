import CBORCodec
import COSECrypto
import Foundation
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// §8.5 android-safetynet, one test per verification step, with the software authenticator's SafetyNet JWS.
@Suite("android-safetynet §8.5")
struct SafetyNetTests {
    static func safetyNet(_ configure: (inout SoftSafetyNet) -> Void = { _ in }) -> SoftAttestation {
        var options = SoftSafetyNet(ca: Fixture.ca)
        options.timestamp = Fixture.now
        configure(&options)
        return .androidSafetyNet(options)
    }

    static func trustingRP(_ anchors: TrustAnchors = Fixture.ca.trustAnchors) -> RelyingParty {
        Fixture.relyingParty {
            $0.attestation = AttestationPolicy(requirement: .trustedRequired, trustAnchors: ["android-safetynet": anchors])
        }
    }

    @Test("a valid response registers: basic attestation, untrusted without anchors, trusted with them")
    func valid() throws {
        let untrusted = try Fixture.register { $0.attestation = Self.safetyNet() }
        #expect(untrusted.attestationFormat == "android-safetynet" && untrusted.attestationType == .basic)
        if case .untrusted = untrusted.attestationTrust {} else { Issue.record("expected untrusted, got \(untrusted.attestationTrust)") }

        let trusted = try Fixture.register(rp: Self.trustingRP()) { $0.attestation = Self.safetyNet() }
        #expect(trusted.attestationTrust == .trusted(anchorSubject: "passkeyd test attestation root"))
        #expect(trusted.attestationVerdict.format == "android-safetynet")
        #expect(trusted.attestationVerdict.trustAnchorSource == .configured)
        #expect(trusted.attestationVerdict.trustPath.count == 1)
        #expect(trusted.attestationVerdict.aaguid == AAGUID(bytes: Array(repeating: 0x5A, count: 16)))
    }

    @Test("attStmt must be {ver: text, response: bytes}")
    func statementShape() throws {
        try Fixture.expectRegistrationFailure(.malformedAttestationStatement) {
            $0.attestation = Self.safetyNet()
            $0.mutateStatement = { statement in
                .map((statement.mapEntries ?? []).filter { $0.key != .text("ver") })
            }
        }
        try Fixture.expectRegistrationFailure(.malformedAttestationStatement) {
            $0.attestation = Self.safetyNet()
            $0.mutateStatement = { statement in
                .map((statement.mapEntries ?? []).map { $0.key == .text("response") ? CBORMapEntry(.text("response"), .text("x")) : $0 })
            }
        }
    }

    @Test("response must be a compact JWS with x5c")
    func malformedJWS() throws {
        for bad in ["a.b", "not base64!.e30.AA", "e30.e30.AA"] {  // "e30" = "{}": no alg, no x5c
            try Fixture.expectRegistrationFailure(.jwsMalformed) {
                $0.attestation = Self.safetyNet()
                $0.mutateStatement = { statement in
                    .map((statement.mapEntries ?? []).map {
                        $0.key == .text("response") ? CBORMapEntry(.text("response"), .bytes(Array(bad.utf8))) : $0
                    })
                }
            }
        }
    }

    @Test("the JWS signature must verify with the x5c leaf (wrong key, flipped bit)")
    func signature() throws {
        try Fixture.expectRegistrationFailure(.jwsSignatureInvalid) { $0.attestation = Self.safetyNet { $0.signWithOtherKey = true } }
        try Fixture.expectRegistrationFailure(.jwsSignatureInvalid) { $0.attestation = Self.safetyNet { $0.corruptSignature = true } }
    }

    @Test("the signing certificate must be issued to attest.android.com")
    func hostname() throws {
        try Fixture.expectRegistrationFailure(.safetyNetHostnameMismatch) {
            $0.attestation = Self.safetyNet { $0.hostname = "attest.android.com.evil.test" }
        }
    }

    @Test("nonce must be base64(SHA-256(authData ‖ clientDataHash))")
    func nonce() throws {
        try Fixture.expectRegistrationFailure(.safetyNetNonceMismatch) {
            $0.attestation = Self.safetyNet { $0.nonceOverride = Data(repeating: 1, count: 32).base64EncodedString() }
        }
        // Binding: authData changed after the authenticator computed the nonce.
        try Fixture.expectRegistrationFailure(.safetyNetNonceMismatch) {
            $0.attestation = Self.safetyNet()
            $0.signCount = 1
            $0.mutateAuthenticatorData = { data in var data = data; data[36] ^= 0x02; return data }
        }
    }

    @Test("ctsProfileMatch must be true unless the policy relaxes it")
    func ctsProfile() throws {
        try Fixture.expectRegistrationFailure(.safetyNetCTSProfileMismatch) { $0.attestation = Self.safetyNet { $0.ctsProfileMatch = false } }
        try Fixture.expectRegistrationFailure(.safetyNetCTSProfileMismatch) { $0.attestation = Self.safetyNet { $0.ctsProfileMatch = nil } }
        let relaxed = Fixture.relyingParty { $0.attestation.safetyNet.requireCTSProfileMatch = false }
        let verified = try Fixture.register(rp: relaxed) { $0.attestation = Self.safetyNet { $0.ctsProfileMatch = false } }
        #expect(verified.attestationFormat == "android-safetynet")
    }

    @Test("timestampMs must lie within the policy window")
    func timestamp() throws {
        try Fixture.expectRegistrationFailure(.safetyNetTimestampInvalid) {
            $0.attestation = Self.safetyNet { $0.timestamp = Fixture.now.addingTimeInterval(-61) }
        }
        try Fixture.expectRegistrationFailure(.safetyNetTimestampInvalid) {
            $0.attestation = Self.safetyNet { $0.timestamp = Fixture.now.addingTimeInterval(61) }
        }
        try Fixture.expectRegistrationFailure(.safetyNetTimestampInvalid) { $0.attestation = Self.safetyNet { $0.timestamp = nil } }
        _ = try Fixture.register { $0.attestation = Self.safetyNet { $0.timestamp = Fixture.now.addingTimeInterval(-59) } }
        let patient = Fixture.relyingParty { $0.attestation.safetyNet.maxAge = 3600 }
        _ = try Fixture.register(rp: patient) { $0.attestation = Self.safetyNet { $0.timestamp = Fixture.now.addingTimeInterval(-1800) } }
        let unchecked = Fixture.relyingParty { $0.attestation.safetyNet.skipTimestampCheckUnsafe = true }
        _ = try Fixture.register(rp: unchecked) { $0.attestation = Self.safetyNet { $0.timestamp = nil } }
    }

    @Test("a timestampMs far outside Int's range of seconds is refused, not a trap (found while writing the fuzz targets)")
    func extremeTimestamp() throws {
        for milliseconds in [1e300, -1e300, 1e22, -1e22, Double.greatestFiniteMagnitude] {
            try Fixture.expectRegistrationFailure(.safetyNetTimestampInvalid) {
                $0.attestation = Self.safetyNet { $0.timestampMillisecondsOverride = milliseconds }
            }
        }
    }

    @Test("trusted-required: untrusted root, broken chain and expired chain are refused")
    func chain() throws {
        // No anchors for the format at all.
        let noAnchors = Fixture.relyingParty { $0.attestation = AttestationPolicy(requirement: .trustedRequired, trustAnchors: [:]) }
        try Fixture.expectRegistrationFailure(.attestationUntrusted, rp: noAnchors) { $0.attestation = Self.safetyNet() }
        // Anchors of another CA: the chain is broken (issuer not found).
        let otherRoot = try TestAttestationCA(name: "some other root")
        try Fixture.expectRegistrationFailure(.attestationUntrusted, rp: Self.trustingRP(otherRoot.trustAnchors)) {
            $0.attestation = Self.safetyNet()
        }
        // Expired signing certificate.
        try Fixture.expectRegistrationFailure(.attestationCertificateExpired, rp: Self.trustingRP()) {
            $0.attestation = Self.safetyNet { $0.notAfter = Fixture.now.addingTimeInterval(-1) }
        }
        // Anchors configured for another format do not count.
        let packedOnly = Fixture.relyingParty {
            $0.attestation = AttestationPolicy(requirement: .trustedRequired, trustAnchors: ["packed": Fixture.ca.trustAnchors])
        }
        try Fixture.expectRegistrationFailure(.attestationUntrusted, rp: packedOnly) { $0.attestation = Self.safetyNet() }
    }
}
