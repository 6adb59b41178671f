public import CBORCodec
public import COSECrypto
public import Foundation
public import WebAuthnCore
public import WebAuthnModel

/// The attestation a software authenticator produces.
public enum SoftAttestation: Sendable {
    case none
    /// packed, signed with the credential key itself.
    case packedSelf
    /// packed with an x5c chain from `ca` (attestation key ES256).
    case packedFull(TestAttestationCA)
    /// fido-u2f with a certificate from `ca`; forces an all-zero AAGUID and an ES256 credential.
    case fidoU2F(TestAttestationCA)
    /// android-safetynet: a SafetyNet JWS signed by a certificate for attest.android.com from the options' CA.
    case androidSafetyNet(SoftSafetyNet)
    /// tpm (§8.3): an AIK certificate from `ca` (see ``RegistrationKnobs/tpm``); RSA or EC credential keys.
    case tpm(TestAttestationCA)
    /// android-key (§8.4): a Keystore certificate for the credential key from `ca` (see ``RegistrationKnobs/androidKey``).
    case androidKey(TestAttestationCA)
    /// apple (§8.8): an anonymous attestation certificate for the credential key from `ca` (see ``RegistrationKnobs/apple``).
    case apple(TestAttestationCA)
}

/// The client side of a ceremony: what the browser/OS writes into clientDataJSON.
public struct ClientKnobs: Sendable {
    public var origin: String
    public var type: String?
    /// Replaces the challenge text (base64url) the client echoes.
    public var challenge: String?
    public var crossOrigin: Bool?
    public var topOrigin: String?
    public var tokenBinding: JSONValue?
    /// Replaces clientDataJSON entirely.
    public var rawClientDataJSON: [UInt8]?
    public var clientExtensionResults: [String: JSONValue] = [:]

    public init(origin: String) { self.origin = origin }
}

/// Knobs for one `create()`.
public struct RegistrationKnobs: Sendable {
    public var client: ClientKnobs
    public var algorithm: COSEAlgorithm = .es256
    public var attestation: SoftAttestation = .none
    public var userPresent = true
    public var userVerified = true
    public var backupEligible = false
    public var backupState = false
    public var signCount: UInt32 = 0
    public var aaguid: [UInt8] = Array(repeating: 0x5A, count: 16)
    public var credentialIDLength = 32
    /// Uses this credential id (e.g. to register the same id twice).
    public var credentialID: [UInt8]?
    /// Uses this RP ID for rpIdHash instead of the one in the options.
    public var rpIDOverride: String?
    /// Writes `fmt` as this value (the statement stays as the real format produced it).
    public var fmtOverride: String?
    /// Sends this rawId/id instead of the real credential id.
    public var rawIDOverride: [UInt8]?
    /// Authenticator extension outputs (sets ED).
    public var authenticatorExtensions: CBORValue?
    public var transports: [String] = ["internal"]
    /// Applied to the COSE key map before it is encoded into authData.
    public var mutateCOSEKey: (@Sendable (CBORValue) -> CBORValue)?
    /// Applied to the finished authenticator data (after the attestation signature was made unless `mutateBeforeSigning`).
    public var mutateAuthenticatorData: (@Sendable ([UInt8]) -> [UInt8])?
    public var mutateBeforeSigning = false
    /// Applied to the attestation statement map before the attestation object is encoded.
    public var mutateStatement: (@Sendable (CBORValue) -> CBORValue)?
    /// Replaces the attestation object bytes entirely.
    public var rawAttestationObject: [UInt8]?
    /// Encodes the attestation object with indefinite-length maps (as some real Yubico keys do).
    public var indefiniteLengthMaps = false
    /// Passed to the x5c issuance for packed full attestation.
    public var certificateAAGUID: [UInt8]?? = .none
    public var certificateIsCA: Bool? = false
    public var certificateSubject: DistinguishedName?
    /// Knobs of the tpm, android-key and apple statements.
    public var tpm = TPMKnobs()
    public var androidKey = AndroidKeyKnobs()
    public var apple = AppleKnobs()
    /// Leaves the CA's intermediates out of x5c (tpm, android-key, apple).
    public var omitIntermediates = false

    public init(origin: String) { client = ClientKnobs(origin: origin) }
}

/// Knobs for one `get()`.
public struct AssertionKnobs: Sendable {
    public var client: ClientKnobs
    public var userPresent = true
    public var userVerified = true
    public var backupEligible: Bool?
    public var backupState: Bool?
    /// Added to the credential's counter (0 keeps it; the credential's counter only moves if > 0).
    public var counterIncrement: UInt32 = 1
    /// Uses exactly this counter.
    public var signCountOverride: UInt32?
    public var rpIDOverride: String?
    public var includeUserHandle = true
    public var userHandleOverride: [UInt8]?
    public var rawIDOverride: [UInt8]?
    public var authenticatorExtensions: CBORValue?
    /// Sets the AT flag and appends these bytes (an assertion must never carry attested data).
    public var setAttestedCredentialFlag = false
    public var mutateAuthenticatorData: (@Sendable ([UInt8]) -> [UInt8])?
    public var mutateBeforeSigning = false
    /// Flips a bit in the signature.
    public var corruptSignature = false
    /// Signs with this key instead of the credential's.
    public var signingKeyOverride: PrivateKey?

    public init(origin: String) { client = ClientKnobs(origin: origin) }
}

/// A credential the software authenticator holds.
public struct SoftCredential: Sendable {
    public let id: [UInt8]
    public let privateKey: PrivateKey
    public let algorithm: COSEAlgorithm
    public let rpID: String
    public let userHandle: [UInt8]
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backupState: Bool
    /// The COSE key bytes the relying party stores.
    public let publicKeyCOSE: [UInt8]

    /// A credential made outside ``SoftAuthenticator/register(options:knobs:)`` (e.g. bulk-seeded by the load generator).
    public init(
        id: [UInt8], privateKey: PrivateKey, algorithm: COSEAlgorithm, rpID: String, userHandle: [UInt8], signCount: UInt32,
        backupEligible: Bool, backupState: Bool, publicKeyCOSE: [UInt8]
    ) {
        self.id = id
        self.privateKey = privateKey
        self.algorithm = algorithm
        self.rpID = rpID
        self.userHandle = userHandle
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.publicKeyCOSE = publicKeyCOSE
    }
}

/// A WebAuthn authenticator plus client in software: produces the JSON a browser would send, for every algorithm
/// the engine supports and for `none`, `packed` (self and full), `fido-u2f` and `android-safetynet`, with knobs to break each step.
public enum SoftAuthenticator {
    public enum Failure: Error { case badOptions(String) }

    /// Runs `navigator.credentials.create()` against `options`.
    public static func register(
        options: CreationOptionsJSON, knobs: RegistrationKnobs
    ) throws -> (response: RegistrationResponseJSON, credential: SoftCredential) {
        guard let challenge = Base64URL.decode(options.challenge), let userHandle = Base64URL.decode(options.user.id) else {
            throw Failure.badOptions("challenge/user.id")
        }
        let rpID = options.rp.id ?? "localhost"
        var algorithm = knobs.algorithm
        var aaguid = knobs.aaguid
        if case .fidoU2F = knobs.attestation {
            algorithm = .es256
            aaguid = Array(repeating: 0, count: 16)
        }
        let key = try PrivateKey.generate(for: algorithm)
        let credentialID = knobs.credentialID ?? SecureRandom.bytes(count: knobs.credentialIDLength)
        var coseKey = key.coseKey(algorithm: algorithm)
        if let mutate = knobs.mutateCOSEKey { coseKey = mutate(coseKey) }
        let coseBytes = CBOREncoder.encode(coseKey)

        var flags: UInt8 = 0x40
        if knobs.userPresent { flags |= 0x01 }
        if knobs.userVerified { flags |= 0x04 }
        if knobs.backupEligible { flags |= 0x08 }
        if knobs.backupState { flags |= 0x10 }
        if knobs.authenticatorExtensions != nil { flags |= 0x80 }
        var authData = Digest.sha256(Array((knobs.rpIDOverride ?? rpID).utf8))
        authData.append(flags)
        authData += bigEndian(knobs.signCount)
        authData += aaguid
        authData += [UInt8(truncatingIfNeeded: credentialID.count >> 8), UInt8(truncatingIfNeeded: credentialID.count)]
        authData += credentialID
        authData += coseBytes
        if let extensions = knobs.authenticatorExtensions { authData += CBOREncoder.encode(extensions) }
        if knobs.mutateBeforeSigning, let mutate = knobs.mutateAuthenticatorData { authData = mutate(authData) }

        let clientDataJSON = clientData(knobs.client, type: "webauthn.create", challenge: challenge)
        let clientDataHash = Digest.sha256(clientDataJSON)
        let signed = authData + clientDataHash

        var statement: CBORValue
        var fmt: String
        switch knobs.attestation {
        case .none:
            fmt = "none"
            statement = .map([])
        case .packedSelf:
            fmt = "packed"
            statement = .map([
                CBORMapEntry(.text("alg"), CBORValue(Int64(algorithm.rawValue))),
                CBORMapEntry(.text("sig"), .bytes(try key.sign(signed, algorithm: algorithm))),
            ])
        case .packedFull(let ca):
            fmt = "packed"
            let attestationKey = try PrivateKey.generate(for: .es256)
            var certificateAAGUID: [UInt8]? = aaguid
            if case .some(let override) = knobs.certificateAAGUID { certificateAAGUID = override }
            let certificate: Certificate
            if let subject = knobs.certificateSubject {
                certificate = try ca.issueAttestationCertificate(
                    for: attestationKey.publicKey, subject: subject, aaguid: certificateAAGUID, isCA: knobs.certificateIsCA)
            } else {
                certificate = try ca.issueAttestationCertificate(
                    for: attestationKey.publicKey, aaguid: certificateAAGUID, isCA: knobs.certificateIsCA)
            }
            statement = .map([
                CBORMapEntry(.text("alg"), CBORValue(Int64(COSEAlgorithm.es256.rawValue))),
                CBORMapEntry(.text("sig"), .bytes(try attestationKey.sign(signed, algorithm: .es256))),
                CBORMapEntry(.text("x5c"), .array([.bytes(certificate.derEncoded)])),
            ])
        case .fidoU2F(let ca):
            fmt = "fido-u2f"
            let attestationKey = try PrivateKey.generate(for: .es256)
            let certificate = try ca.issueAttestationCertificate(for: attestationKey.publicKey, isCA: nil)
            var verificationData: [UInt8] = [0x00]
            verificationData += authData[0..<32]
            verificationData += clientDataHash
            verificationData += credentialID
            verificationData += key.publicKey.ecUncompressedPoint ?? []
            statement = .map([
                CBORMapEntry(.text("sig"), .bytes(try attestationKey.sign(verificationData, algorithm: .es256))),
                CBORMapEntry(.text("x5c"), .array([.bytes(certificate.derEncoded)])),
            ])
        case .androidSafetyNet(let options):
            fmt = "android-safetynet"
            statement = .map([
                CBORMapEntry(.text("ver"), .text("14366018")),
                CBORMapEntry(.text("response"), .bytes(try options.statement(signed: signed))),
            ])
        case .tpm(let ca):
            fmt = "tpm"
            var certificateAAGUID: [UInt8]? = nil
            if case .some(let override) = knobs.certificateAAGUID { certificateAAGUID = override }
            statement = try SoftAttestationFormats.tpm(
                ca: ca, knobs: knobs.tpm, credentialKey: key.publicKey, signed: signed, aaguid: certificateAAGUID)
        case .androidKey(let ca):
            fmt = "android-key"
            statement = try SoftAttestationFormats.androidKey(
                ca: ca, knobs: knobs.androidKey, credentialKey: key, algorithm: algorithm, signed: signed,
                clientDataHash: clientDataHash)
        case .apple(let ca):
            fmt = "apple"
            statement = try SoftAttestationFormats.apple(ca: ca, knobs: knobs.apple, credentialKey: key.publicKey, signed: signed)
        }
        if knobs.omitIntermediates, let entries = statement.mapEntries {
            statement = .map(entries.map { entry in
                guard entry.key.textValue == "x5c", let first = entry.value.arrayValue?.first else { return entry }
                return CBORMapEntry(entry.key, .array([first]))
            })
        }
        if let override = knobs.fmtOverride { fmt = override }
        if let mutate = knobs.mutateStatement { statement = mutate(statement) }
        if !knobs.mutateBeforeSigning, let mutate = knobs.mutateAuthenticatorData { authData = mutate(authData) }
        let attestationObject = knobs.rawAttestationObject ?? CBOREncoder.encode(
            .map([
                CBORMapEntry(.text("fmt"), .text(fmt)),
                CBORMapEntry(.text("attStmt"), statement),
                CBORMapEntry(.text("authData"), .bytes(authData)),
            ]), indefiniteLengthMaps: knobs.indefiniteLengthMaps)

        let rawID = knobs.rawIDOverride ?? credentialID
        let response = RegistrationResponseJSON(
            id: Base64URL.encode(rawID), rawId: Base64URL.encode(rawID),
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URL.encode(clientDataJSON), attestationObject: Base64URL.encode(attestationObject),
                transports: knobs.transports),
            authenticatorAttachment: "platform", clientExtensionResults: knobs.client.clientExtensionResults)
        let credential = SoftCredential(
            id: credentialID, privateKey: key, algorithm: algorithm, rpID: rpID, userHandle: userHandle,
            signCount: knobs.signCount, backupEligible: knobs.backupEligible, backupState: knobs.backupState,
            publicKeyCOSE: coseBytes)
        return (response, credential)
    }

    /// Runs `navigator.credentials.get()` against `options` with `credential`, advancing its counter.
    public static func authenticate(
        options: RequestOptionsJSON, credential: inout SoftCredential, knobs: AssertionKnobs
    ) throws -> AuthenticationResponseJSON {
        guard let challenge = Base64URL.decode(options.challenge) else { throw Failure.badOptions("challenge") }
        let rpID = knobs.rpIDOverride ?? options.rpId ?? credential.rpID
        if let override = knobs.signCountOverride {
            credential.signCount = override
        } else if credential.signCount > 0 || knobs.counterIncrement > 0 {
            credential.signCount &+= knobs.counterIncrement
        }
        let backupEligible = knobs.backupEligible ?? credential.backupEligible
        let backupState = knobs.backupState ?? credential.backupState
        var flags: UInt8 = 0
        if knobs.userPresent { flags |= 0x01 }
        if knobs.userVerified { flags |= 0x04 }
        if backupEligible { flags |= 0x08 }
        if backupState { flags |= 0x10 }
        if knobs.setAttestedCredentialFlag { flags |= 0x40 }
        if knobs.authenticatorExtensions != nil { flags |= 0x80 }
        var authData = Digest.sha256(Array(rpID.utf8))
        authData.append(flags)
        authData += bigEndian(credential.signCount)
        if let extensions = knobs.authenticatorExtensions { authData += CBOREncoder.encode(extensions) }
        if knobs.mutateBeforeSigning, let mutate = knobs.mutateAuthenticatorData { authData = mutate(authData) }

        let clientDataJSON = clientData(knobs.client, type: "webauthn.get", challenge: challenge)
        let signingKey = knobs.signingKeyOverride ?? credential.privateKey
        var signature = try signingKey.sign(authData + Digest.sha256(clientDataJSON), algorithm: credential.algorithm)
        if knobs.corruptSignature { signature[signature.count / 2] ^= 0x01 }
        if !knobs.mutateBeforeSigning, let mutate = knobs.mutateAuthenticatorData { authData = mutate(authData) }

        let rawID = knobs.rawIDOverride ?? credential.id
        let userHandle = knobs.userHandleOverride ?? credential.userHandle
        return AuthenticationResponseJSON(
            id: Base64URL.encode(rawID), rawId: Base64URL.encode(rawID),
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URL.encode(clientDataJSON), authenticatorData: Base64URL.encode(authData),
                signature: Base64URL.encode(signature),
                userHandle: knobs.includeUserHandle ? Base64URL.encode(userHandle) : nil),
            authenticatorAttachment: "platform", clientExtensionResults: knobs.client.clientExtensionResults)
    }

    /// The clientDataJSON a browser would build (member order as Chrome writes it).
    static func clientData(_ knobs: ClientKnobs, type: String, challenge: [UInt8]) -> [UInt8] {
        if let raw = knobs.rawClientDataJSON { return raw }
        var json = "{\"type\":\(quoted(knobs.type ?? type)),\"challenge\":\(quoted(knobs.challenge ?? Base64URL.encode(challenge))),\"origin\":\(quoted(knobs.origin))"
        if let crossOrigin = knobs.crossOrigin { json += ",\"crossOrigin\":\(crossOrigin)" }
        if let topOrigin = knobs.topOrigin { json += ",\"topOrigin\":\(quoted(topOrigin))" }
        if let tokenBinding = knobs.tokenBinding,
            let encoded = try? JSONEncoder().encode(tokenBinding), let text = String(data: encoded, encoding: .utf8)
        {
            json += ",\"tokenBinding\":\(text)"
        }
        json += "}"
        return Array(json.utf8)
    }

    static func quoted(_ text: String) -> String {
        guard let data = try? JSONEncoder().encode(text), let string = String(data: data, encoding: .utf8) else { return "\"\"" }
        return string
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
