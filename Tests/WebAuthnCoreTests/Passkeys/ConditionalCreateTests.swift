import COSECrypto
import Foundation
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// Automatic passkey upgrades (conditional create, §7.1 step 15's exception) and the client extensions passkeyd
/// passes through (§10.1.3–§10.1.5).
@Suite("Conditional create and extensions")
struct ConditionalCreateTests {
    /// Begins a registration with `mediation` and runs the soft authenticator with `knobs`.
    static func registration(
        rp: RelyingParty = Fixture.relyingParty(), mediation: CredentialMediation?,
        _ configure: (inout RegistrationKnobs) -> Void = { _ in }
    ) throws -> (options: CreationOptionsJSON, response: RegistrationResponseJSON, state: RegistrationState, credential: SoftCredential) {
        let (options, state) = rp.beginRegistration(
            user: Fixture.user(), excludeCredentials: [], request: RegistrationRequest(mediation: mediation),
            challengeSource: FixedChallenges(), now: Fixture.now)
        var knobs = RegistrationKnobs(origin: Fixture.origin)
        configure(&knobs)
        let (response, credential) = try SoftAuthenticator.register(options: options, knobs: knobs)
        return (options, response, state, credential)
    }

    static func silent(_ knobs: inout RegistrationKnobs) {
        knobs.userPresent = false
        knobs.userVerified = false
    }

    @Test("a conditional ceremony asks for UV preferred under a UV-required policy and keeps its mediation in the state")
    func options() throws {
        let conditional = try Self.registration(mediation: .conditional)
        #expect(conditional.options.authenticatorSelection?.userVerification == "preferred")
        #expect(conditional.state.mediation == .conditional)
        let normal = try Self.registration(mediation: nil)
        #expect(normal.options.authenticatorSelection?.userVerification == "required")
        #expect(normal.state.mediation == nil)
        // The state survives the store's encoding; a normal one carries no mediation.
        #expect(try RegistrationState(stateBytes: conditional.state.stateBytes) == conditional.state)
        #expect(try RegistrationState(stateBytes: normal.state.stateBytes).mediation == nil)
    }

    @Test("UP=0 and UV=0 are accepted for a conditional ceremony only, and the result says UV is not established")
    func upgradeAcceptsSilentCreation() throws {
        let rp = Fixture.relyingParty()
        let upgrade = try Self.registration(rp: rp, mediation: .conditional, Self.silent)
        let verified = try rp.finishRegistration(upgrade.response, state: upgrade.state, now: Fixture.now)
        #expect(verified.mediation == .conditional)
        #expect(!verified.userVerified && !verified.credentialRecord.uvInitialized)

        // The same silent response against a normal ceremony: step 15 refuses it, and UV=0 alone fails step 16.
        let normal = try Self.registration(rp: rp, mediation: nil, Self.silent)
        #expect(throws: WebAuthnError(.userNotPresent)) { try rp.finishRegistration(normal.response, state: normal.state, now: Fixture.now) }
        let unverified = try Self.registration(rp: rp, mediation: nil) { $0.userVerified = false }
        #expect(throws: WebAuthnError(.userNotVerified)) {
            try rp.finishRegistration(unverified.response, state: unverified.state, now: Fixture.now)
        }
        // A modal create answered to a conditional ceremony (UP=1, UV=1) is fine and establishes UV at once.
        let modal = try Self.registration(rp: rp, mediation: .conditional)
        let established = try rp.finishRegistration(modal.response, state: modal.state, now: Fixture.now)
        #expect(established.mediation == .conditional && established.credentialRecord.uvInitialized)
    }

    @Test("everything else is verified as usual in a conditional ceremony")
    func upgradeChecksEverythingElse() throws {
        let rp = Fixture.relyingParty { $0.algorithms = AlgorithmPolicy([.es256]) }
        func expect(_ code: WebAuthnError.Code, _ configure: (inout RegistrationKnobs) -> Void) throws {
            let attempt = try Self.registration(rp: rp, mediation: .conditional) {
                Self.silent(&$0)
                configure(&$0)
            }
            #expect(throws: WebAuthnError(code)) { try rp.finishRegistration(attempt.response, state: attempt.state, now: Fixture.now) }
        }
        try expect(.challengeMismatch) { $0.client.challenge = Base64URL.encode(Array(repeating: 9, count: 32)) }
        try expect(.originNotAllowed) { $0.client.origin = "https://evil.test" }
        try expect(.rpIDHashMismatch) { $0.rpIDOverride = "evil.test" }
        try expect(.algorithmNotAllowed) { $0.algorithm = .edDSA }
        try expect(.backupStateInvalid) { $0.backupState = true }
        let expired = try Self.registration(rp: rp, mediation: .conditional, Self.silent)
        #expect(throws: WebAuthnError(.challengeExpired)) {
            try rp.finishRegistration(expired.response, state: expired.state, now: Fixture.now.addingTimeInterval(301))
        }
    }

    @Test("with conditional create turned off, a conditional state no longer relaxes UP or UV")
    func switchedOff() throws {
        let upgrade = try Self.registration(mediation: .conditional, Self.silent)
        let off = Fixture.relyingParty { $0.conditionalCreate = false }
        #expect(throws: WebAuthnError(.userNotPresent)) { try off.finishRegistration(upgrade.response, state: upgrade.state, now: Fixture.now) }
    }

    @Test("an unknown mediation in a stored state is refused, not read as a normal ceremony")
    func unknownMediationInState() throws {
        let state = try Self.registration(mediation: .conditional).state
        var bytes = state.stateBytes
        let marker = Array("conditional".utf8)
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: marker) })
        bytes[start] = UInt8(ascii: "k")  // "konditional"
        #expect(throws: CeremonyStateError.self) { try RegistrationState(stateBytes: bytes) }
    }

    @Test("an upgraded credential signs in only with UV=1 where UV is required, and its first UV sign-in establishes UV")
    func uvEstablishment() throws {
        let rp = Fixture.relyingParty()
        let upgrade = try Self.registration(rp: rp, mediation: .conditional, Self.silent)
        let verified = try rp.finishRegistration(upgrade.response, state: upgrade.state, now: Fixture.now)
        var enrolled = Fixture.Enrolled(rp: rp, credential: upgrade.credential, record: verified.credentialRecord)
        #expect(!enrolled.record.uvInitialized)
        try Fixture.expectAssertionFailure(.userNotVerified, enrolled) { $0.userVerified = false }
        let (response, state) = try Fixture.assertion(&enrolled)
        let signedIn = try rp.finishAuthentication(response, state: state, credential: enrolled.record, now: Fixture.now)
        #expect(signedIn.userVerified && signedIn.update.uvInitialized)

        // Under a lax policy a UV=0 sign-in is accepted but does not establish UV.
        let lax = Fixture.relyingParty { $0.userVerification = .preferredUnsafe }
        var laxEnrolled = Fixture.Enrolled(rp: lax, credential: upgrade.credential, record: verified.credentialRecord)
        let (laxResponse, laxState) = try Fixture.assertion(&laxEnrolled) { $0.userVerified = false }
        let laxSignIn = try lax.finishAuthentication(laxResponse, state: laxState, credential: laxEnrolled.record, now: Fixture.now)
        #expect(!laxSignIn.userVerified && !laxSignIn.update.uvInitialized)
    }

    // MARK: extension outputs

    @Test("credProps.rk, prf.enabled and largeBlob.supported are read; nothing else of the outputs")
    func extensionOutputs() throws {
        let verified = try Fixture.register {
            $0.client.clientExtensionResults = [
                "credProps": .object(["rk": .bool(true)]),
                "prf": .object(["enabled": .bool(true), "results": .object(["first": .string("c2VjcmV0")])]),
                "largeBlob": .object(["supported": .bool(false), "blob": .string("YmxvYg")]),
            ]
        }
        #expect(verified.discoverable == true && verified.prfEnabled == true && verified.largeBlobSupported == false)
        let silent = try Fixture.register()
        #expect(silent.discoverable == nil && silent.prfEnabled == nil && silent.largeBlobSupported == nil)
        for bad: [String: JSONValue] in [
            ["prf": .bool(true)], ["prf": .object(["enabled": .string("yes")])],
            ["largeBlob": .array([])], ["largeBlob": .object(["supported": .number(1)])],
        ] {
            try Fixture.expectRegistrationFailure(.extensionOutputInvalid) { $0.client.clientExtensionResults = bad }
        }
    }

    // MARK: extension inputs

    static let salt = Base64URL.encode(Array(repeating: 1, count: 32))
    static let credentialID = Base64URL.encode(Array(repeating: 2, count: 32))

    @Test("the inputs passkeyd passes through, in the ceremony each belongs to")
    func validInputs() throws {
        let registration: [[String: JSONValue]] = [
            ["credProps": .bool(true)],
            ["prf": .object([:])],
            ["prf": .object(["eval": .object(["first": .string(Self.salt), "second": .string(Self.salt)])])],
            ["largeBlob": .object(["support": .string("preferred")])],
            ["largeBlob": .object(["support": .string("required")])],
            ["credentialProtectionPolicy": .string("userVerificationRequired"), "enforceCredentialProtectionPolicy": .bool(true)],
            ["minPinLength": .bool(true)],
        ]
        for inputs in registration { #expect(try ExtensionInputs.validated(inputs, for: .registration) == inputs) }
        let authentication: [[String: JSONValue]] = [
            ["prf": .object(["eval": .object(["first": .string(Self.salt)])])],
            ["prf": .object(["evalByCredential": .object([Self.credentialID: .object(["first": .string(Self.salt)])])])],
            ["largeBlob": .object(["read": .bool(true)])],
            ["largeBlob": .object(["write": .string(Base64URL.encode(Array(repeating: 3, count: 4096)))])],
        ]
        for inputs in authentication { #expect(try ExtensionInputs.validated(inputs, for: .authentication) == inputs) }
    }

    @Test("each rule refuses its own violation", arguments: [
        // (ceremony is registration?, inputs as JSON, code)
        (true, #"{"appid": "https://x.test"}"#, "extension_unsupported"),
        (false, #"{"hmacGetSecret": {"salt1": "AQ"}}"#, "extension_unsupported"),
        (false, #"{"credentialProtectionPolicy": "userVerificationRequired"}"#, "extension_input_invalid"),
        (true, #"{"credentialProtectionPolicy": "always"}"#, "extension_input_invalid"),
        (true, #"{"enforceCredentialProtectionPolicy": "yes"}"#, "extension_input_invalid"),
        (true, #"{"minPinLength": 4}"#, "extension_input_invalid"),
        (false, #"{"credProps": true}"#, "extension_input_invalid"),
        (true, #"{"credProps": false}"#, "extension_input_invalid"),
        (true, #"{"prf": true}"#, "extension_input_invalid"),
        (true, #"{"prf": {"evalByCredential": {}}}"#, "extension_input_invalid"),
        (true, #"{"prf": {"eval": {}}}"#, "extension_input_invalid"),
        (true, #"{"prf": {"eval": {"first": "not base64!"}}}"#, "extension_input_invalid"),
        (true, #"{"prf": {"eval": {"first": "AQ", "third": "AQ"}}}"#, "extension_input_invalid"),
        (false, #"{"prf": {"eval": {"first": "AQ", "second": ""}}}"#, "extension_input_invalid"),
        (false, #"{"prf": {"evalByCredential": {"": {"first": "AQ"}}}}"#, "extension_input_invalid"),
        (false, #"{"prf": {"evalByCredential": []}}"#, "extension_input_invalid"),
        (true, #"{"largeBlob": {"support": "always"}}"#, "extension_input_invalid"),
        (true, #"{"largeBlob": {"read": true}}"#, "extension_input_invalid"),
        (false, #"{"largeBlob": {"support": "required"}}"#, "extension_input_invalid"),
        (false, #"{"largeBlob": {"read": true, "write": "AQ"}}"#, "extension_input_invalid"),
        (false, #"{"largeBlob": {"read": false}}"#, "extension_input_invalid"),
        (false, #"{"largeBlob": {}}"#, "extension_input_invalid"),
    ])
    func invalidInputs(registration: Bool, json: String, code: String) throws {
        guard case .object(let inputs) = try JSONReader.parse(Array(json.utf8)) else { Issue.record("not an object"); return }
        #expect(throws: WebAuthnError(WebAuthnError.Code(rawValue: code))) {
            try ExtensionInputs.validated(inputs, for: registration ? .registration : .authentication)
        }
    }

    @Test("prf.evalByCredential keeps only allowCredentials' entries, none in a discoverable request")
    func evalByCredentialFollowsAllowCredentials() throws {
        let allowed: [UInt8] = Array(repeating: 2, count: 32), other: [UInt8] = Array(repeating: 5, count: 32)
        let salts: JSONValue = .object(["first": .string(Self.salt)])
        let inputs: [String: JSONValue] = [
            "prf": .object(["evalByCredential": .object([Base64URL.encode(allowed): salts, Base64URL.encode(other): salts])]),
        ]
        let (options, _) = Fixture.relyingParty().beginAuthentication(
            allowCredentials: [CredentialDescriptor(id: allowed)], userHandle: Fixture.userHandle, extensions: inputs,
            challengeSource: FixedChallenges(), now: Fixture.now)
        #expect(options.extensions?["prf"] == .object(["evalByCredential": .object([Base64URL.encode(allowed): salts])]))
        // A discoverable request (no allowCredentials): none is kept, as the client refuses any.
        let (discoverable, _) = Fixture.relyingParty().beginAuthentication(
            allowCredentials: [], userHandle: nil, extensions: inputs, challengeSource: FixedChallenges(), now: Fixture.now)
        #expect(discoverable.extensions?["prf"] == .object(["evalByCredential": .object([:])]))
    }

    @Test("size limits: PRF salts of 65 bytes, too many credentials, a blob over the configured size")
    func limits() throws {
        let long = Base64URL.encode(Array(repeating: 1, count: 65))
        #expect(throws: WebAuthnError(.extensionInputInvalid)) {
            try ExtensionInputs.validated(["prf": .object(["eval": .object(["first": .string(long)])])], for: .registration)
        }
        var many: [String: JSONValue] = [:]
        for index in 0..<65 { many[Base64URL.encode([UInt8(index), 1, 2, 3])] = .object(["first": .string(Self.salt)]) }
        #expect(throws: WebAuthnError(.extensionInputInvalid)) {
            try ExtensionInputs.validated(["prf": .object(["evalByCredential": .object(many)])], for: .authentication)
        }
        var small = ExtensionLimits()
        small.largeBlobMaxBytes = 16
        let blob: [String: JSONValue] = ["largeBlob": .object(["write": .string(Base64URL.encode(Array(repeating: 3, count: 17)))])]
        #expect(throws: WebAuthnError(.extensionInputInvalid)) { try ExtensionInputs.validated(blob, for: .authentication, limits: small) }
        #expect(try ExtensionInputs.validated(blob, for: .authentication) == blob)
    }
}
