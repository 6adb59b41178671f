import CBORCodec
import COSECrypto
import Foundation
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// A deterministic challenge source.
struct FixedChallenges: ChallengeSource {
    var fill: UInt8 = 0x42
    func bytes(count: Int) -> [UInt8] { (0..<count).map { fill &+ UInt8(truncatingIfNeeded: $0) } }
}

enum Fixture {
    static let rpID = "passkeyd.test"
    static let origin = "https://passkeyd.test"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let userHandle: [UInt8] = Array(repeating: 0xAB, count: 32)
    static let ca: TestAttestationCA = {
        do { return try TestAttestationCA() } catch { fatalError("test CA: \(error)") }
    }()

    static func relyingParty(_ configure: (inout RelyingParty) -> Void = { _ in }) -> RelyingParty {
        var rp = RelyingParty(id: rpID, name: "passkeyd tests", allowedOrigins: [origin, "ios:bundle-id:test.passkeyd.app"])
        rp.algorithms = .allModern
        configure(&rp)
        return rp
    }

    static func user() -> UserEntity {
        do { return try UserEntity(id: userHandle, name: "alice", displayName: "Alice") } catch { fatalError("\(error)") }
    }

    /// Begins a registration and runs the soft authenticator with `knobs`.
    static func registration(
        rp: RelyingParty = relyingParty(), _ configure: (inout RegistrationKnobs) -> Void = { _ in }
    ) throws -> (response: RegistrationResponseJSON, state: RegistrationState, credential: SoftCredential) {
        let (options, state) = rp.beginRegistration(
            user: user(), excludeCredentials: [], challengeSource: FixedChallenges(), now: now)
        var knobs = RegistrationKnobs(origin: origin)
        configure(&knobs)
        let (response, credential) = try SoftAuthenticator.register(options: options, knobs: knobs)
        return (response, state, credential)
    }

    /// Registers with `registrationKnobs` and returns the verified result.
    static func register(
        rp: RelyingParty = relyingParty(), _ configure: (inout RegistrationKnobs) -> Void = { _ in }
    ) throws -> VerifiedRegistration {
        let (response, state, _) = try registration(rp: rp, configure)
        return try rp.finishRegistration(response, state: state, now: now)
    }

    /// Expects registration to fail with `code`.
    static func expectRegistrationFailure(
        _ code: WebAuthnError.Code, rp: RelyingParty = relyingParty(),
        mutateResponse: (inout RegistrationResponseJSON) -> Void = { _ in }, now: Date = now,
        sourceLocation: SourceLocation = #_sourceLocation, _ configure: (inout RegistrationKnobs) -> Void
    ) throws {
        var (response, state, _) = try registration(rp: rp, configure)
        mutateResponse(&response)
        #expect(throws: WebAuthnError(code), sourceLocation: sourceLocation) {
            try rp.finishRegistration(response, state: state, now: now)
        }
    }

    /// A registered credential plus everything needed to authenticate with it.
    struct Enrolled {
        var rp: RelyingParty
        var credential: SoftCredential
        var record: CredentialRecord
    }

    static func enroll(
        rp: RelyingParty = relyingParty(), _ configure: (inout RegistrationKnobs) -> Void = { _ in }
    ) throws -> Enrolled {
        let (response, state, credential) = try registration(rp: rp, configure)
        let verified = try rp.finishRegistration(response, state: state, now: now)
        return Enrolled(rp: rp, credential: credential, record: verified.credentialRecord)
    }

    /// Runs one assertion. `identified` = the user was identified (username flow) vs discoverable.
    static func assertion(
        _ enrolled: inout Enrolled, identified: Bool = true, allow: [[UInt8]]? = nil,
        userVerification: UserVerificationRequirement? = nil,
        _ configure: (inout AssertionKnobs) -> Void = { _ in }
    ) throws -> (response: UnverifiedAuthenticationResponse, state: AuthenticationState) {
        let allowList = (allow ?? [enrolled.record.id]).map { CredentialDescriptor(id: $0) }
        let (options, state) = enrolled.rp.beginAuthentication(
            allowCredentials: identified ? allowList : [], userHandle: identified ? enrolled.record.userHandle : nil,
            userVerification: userVerification, challengeSource: FixedChallenges(fill: 7), now: now)
        var knobs = AssertionKnobs(origin: origin)
        configure(&knobs)
        let json = try SoftAuthenticator.authenticate(options: options, credential: &enrolled.credential, knobs: knobs)
        return (try UnverifiedAuthenticationResponse(json), state)
    }

    static func expectAssertionFailure(
        _ code: WebAuthnError.Code, _ enrolled: Enrolled, identified: Bool = true, allow: [[UInt8]]? = nil,
        record: CredentialRecord? = nil, now: Date = now, sourceLocation: SourceLocation = #_sourceLocation,
        _ configure: (inout AssertionKnobs) -> Void = { _ in }
    ) throws {
        var enrolled = enrolled
        let (response, state) = try assertion(&enrolled, identified: identified, allow: allow, configure)
        #expect(throws: WebAuthnError(code), sourceLocation: sourceLocation) {
            try enrolled.rp.finishAuthentication(response, state: state, credential: record ?? enrolled.record, now: now)
        }
    }
}
