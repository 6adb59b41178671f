import CBORCodec
import COSECrypto
public import Foundation
public import WebAuthnModel

/// Transports a client may report; anything else is dropped rather than stored.
let knownTransports: Set<String> = ["usb", "nfc", "ble", "smart-card", "hybrid", "internal", "cable"]

/// Limits for the attestation object (real ones with certificate chains are a few KiB).
let attestationObjectLimits = CBORLimits(
    maxInputBytes: 65536, maxDepth: 8, maxItems: 1024, maxStringBytes: 32768,
    allowIndefiniteLength: true, requireMinimalIntegers: false)

/// Shared decoding of the response's binary members (§7.1 / §7.2 step 3).
enum ResponseDecoding {
    static func bytes(_ text: String, _ member: String) throws(WebAuthnError) -> [UInt8] {
        guard let bytes = Base64URL.decode(text) else {
            throw WebAuthnError(.malformedBase64, "\(member) is not base64url")
        }
        return bytes
    }

    static func nonEmptyBytes(_ text: String, _ member: String) throws(WebAuthnError) -> [UInt8] {
        let value = try bytes(text, member)
        guard !value.isEmpty else { throw WebAuthnError(.malformedResponse, "\(member) is empty") }
        return value
    }

    /// `type == "public-key"`, `rawId` decodes, and `id` encodes the same bytes (GitLab #585333: never trust one and verify the other).
    static func credentialID(id: String, rawId: String, type: String) throws(WebAuthnError) -> [UInt8] {
        guard type == "public-key" else {
            throw WebAuthnError(.invalidCredentialType, "credential type \(type.debugDescription)")
        }
        let raw = try nonEmptyBytes(rawId, "rawId")
        guard let idBytes = Base64URL.decode(id) else { throw WebAuthnError(.malformedBase64, "id is not base64url") }
        guard idBytes == raw else { throw WebAuthnError(.credentialIDMismatch, "id and rawId differ") }
        return raw
    }

    static func checkNotExpired(_ expiresAt: Date, now: Date) throws(WebAuthnError) {
        guard now < expiresAt else { throw WebAuthnError(.challengeExpired, "ceremony expired at \(expiresAt)") }
    }
}

extension RelyingParty {
    /// Verifies a registration response, every step of WebAuthn L3 §7.1 in order.
    ///
    /// Step 26 (the credential id is not registered yet, for any user) needs storage: the caller enforces it with a
    /// unique constraint when it stores the returned record, and must not treat this result as stored before that.
    /// - Parameters:
    ///   - response: the client's `RegistrationResponseJSON`, unverified.
    ///   - state: the state `beginRegistration` returned, consumed exactly once by the caller.
    ///   - now: the verification time (challenge expiry and attestation certificate validity).
    /// - Returns: the verified registration.
    /// - Throws: `WebAuthnError` with the code of the first step that failed.
    public func finishRegistration(
        _ response: RegistrationResponseJSON, state: RegistrationState, now: Date
    ) throws(WebAuthnError) -> VerifiedRegistration {
        // Step 3: "Let response be credential.response. If response is not an instance of AuthenticatorAttestationResponse, abort."
        let credentialID = try ResponseDecoding.credentialID(id: response.id, rawId: response.rawId, type: response.type)
        let clientDataJSON = try ResponseDecoding.nonEmptyBytes(response.response.clientDataJSON, "clientDataJSON")
        let attestationObjectBytes = try ResponseDecoding.nonEmptyBytes(
            response.response.attestationObject, "attestationObject")
        try ResponseDecoding.checkNotExpired(state.expiresAt, now: now)

        // Step 4: "Let clientExtensionResults be the result of calling credential.getClientExtensionResults()."
        let clientExtensionResults = response.clientExtensionResults ?? [:]

        // Steps 5–6: "Let JSONtext be the result of running UTF-8 decode on clientDataJSON." / parse it as C.
        let clientData = try CollectedClientData(json: clientDataJSON)
        // Steps 7–11 (type, challenge, origin, crossOrigin, topOrigin) and Level 2's tokenBinding.
        try ClientDataChecks.verify(clientData, type: "webauthn.create", challenge: state.challenge, rp: self)

        // Step 12: "Let hash be the result of computing a hash over response.clientDataJSON using SHA-256."
        let clientDataHash = Digest.sha256(clientDataJSON)

        // Step 13: "Perform CBOR decoding on the attestationObject field ... to obtain fmt, authData and attStmt."
        let (fmt, statement, authenticatorData) = try Self.decodeAttestationObject(attestationObjectBytes)
        guard let attested = authenticatorData.attestedCredentialData else {
            throw WebAuthnError(.attestedCredentialDataMissing, "AT flag clear in a registration")
        }
        guard attested.credentialID == credentialID else {
            throw WebAuthnError(.credentialIDMismatch, "rawId differs from the attested credential id")
        }

        // Step 14: "Verify that the rpIdHash in authData is the SHA-256 hash of the RP ID expected by the Relying Party."
        guard authenticatorData.rpIDHash.elementsEqual(rpIDHash) else {
            throw WebAuthnError(.rpIDHashMismatch, "rpIdHash is not SHA-256(\(id))")
        }
        let flags = authenticatorData.flags
        // Steps 15–17: UP set, UV set when required, BS only with BE. Step 15: "If options.mediation is not set to
        // conditional, verify that the UP bit of the flags in authData is set." The mediation is the state's (begin's
        // choice), never the response's; a conditional create's UV=0 is accepted and recorded (UV not established).
        let conditional = state.mediation == .conditional && conditionalCreate
        try FlagChecks.verify(
            flags,
            userVerificationRequired: !conditional && (state.userVerification == .required || userVerification == .required),
            allowMissingUserPresence: conditional || allowMissingUserPresenceUnsafe)
        // Steps 18–19: "If the Relying Party uses the credential's backup eligibility to inform its user experience
        // flows and/or policies, evaluate the BE bit ..."
        switch backupEligibility {
        case .any: break
        case .requireDeviceBound where flags.contains(.backupEligible):
            throw WebAuthnError(.backupEligibilityMismatch, "policy requires a device-bound credential")
        case .requireBackupEligible where !flags.contains(.backupEligible):
            throw WebAuthnError(.backupEligibilityMismatch, "policy requires a backup-eligible credential")
        default: break
        }

        // Step 20: "Verify that the "alg" parameter in the credential public key in authData matches the alg
        // attribute of one of the items in pkOptions.pubKeyCredParams."
        guard let rawAlg = attested.publicKey[int: 3]?.intValue, let alg = Int(exactly: rawAlg) else {
            throw WebAuthnError(.invalidPublicKey, "credential public key has no integer alg")
        }
        guard state.algorithms.contains(alg) else {
            throw WebAuthnError(.algorithmNotAllowed, "credential alg \(alg) was not requested")
        }
        let (credentialKey, outcome, assessment) = try verifyStatement(
            fmt: fmt, statement: statement, authenticatorData: authenticatorData, attested: attested,
            clientDataHash: clientDataHash, now: now)

        // Step 25: "Verify that the credentialId is ≤ 1023 bytes."
        guard attested.credentialID.count <= 1023 else {
            throw WebAuthnError(.credentialIDTooLong, "credential id is \(attested.credentialID.count) bytes")
        }
        // Step 26 (credential id not registered yet) is enforced by storage, see the documentation above.

        // Step 28: "Process the client extension outputs in clientExtensionResults and the authenticator extension
        // outputs in the extensions in authData as required by the Relying Party."
        let discoverable = try Self.credProps(clientExtensionResults)
        let prfEnabled = try Self.flag(clientExtensionResults, "prf", "enabled")
        let largeBlobSupported = try Self.flag(clientExtensionResults, "largeBlob", "supported")

        // Step 27: the credential record.
        return VerifiedRegistration(
            credentialID: attested.credentialID, publicKey: attested.publicKeyBytes, algorithm: credentialKey.algorithm,
            signCount: authenticatorData.signCount, aaguid: attested.aaguid, attestationFormat: fmt,
            attestationType: outcome.type, attestationTrust: assessment.trust,
            attestationCertificates: outcome.certificates.map(\.derEncoded),
            attestationVerdict: AttestationVerdict(
                format: fmt, type: outcome.type, trust: assessment.trust, aaguid: AAGUID(bytes: attested.aaguid),
                trustPath: outcome.certificates.map(\.derEncoded), trustAnchorSource: assessment.anchorSource,
                authenticatorDescription: assessment.metadata?.description, authenticatorIcon: assessment.metadata?.icon,
                metadataStatuses: assessment.metadata?.statusReports.map(\.status) ?? []),
            userVerified: flags.contains(.userVerified), backupEligible: flags.contains(.backupEligible),
            backupState: flags.contains(.backupState),
            transports: (response.response.transports ?? []).filter { knownTransports.contains($0) },
            user: state.user, attestationObject: attestationObjectBytes, clientDataJSON: clientDataJSON,
            discoverable: discoverable,
            authenticatorAttachment: response.authenticatorAttachment.flatMap {
                OptionValues.attachments.contains($0) ? $0 : nil
            },
            authenticatorExtensions: authenticatorData.extensions, clientExtensionResults: clientExtensionResults,
            mediation: conditional ? .conditional : nil, prfEnabled: prfEnabled, largeBlobSupported: largeBlobSupported)
    }

    /// The credential key, then steps 21–24: the format's verification procedure and the trust assessment. Shared by
    /// ``finishRegistration(_:state:now:)`` and the fuzzing entry ``verifyAttestationStatement(_:clientDataHash:now:)``.
    func verifyStatement(
        fmt: String, statement: CBORValue, authenticatorData: AuthenticatorData, attested: AttestedCredentialData,
        clientDataHash: [UInt8], now: Date
    ) throws(WebAuthnError) -> (key: PublicKey, outcome: AttestationOutcome, assessment: AttestationAssessment) {
        let credentialKey: PublicKey
        do {
            credentialKey = try PublicKey(cose: attested.publicKey, policy: keyPolicy)
        } catch {
            throw WebAuthnError(.invalidPublicKey, "credential public key: \(error)")
        }
        // Step 21: "Determine the attestation statement format by performing a USASCII case-sensitive match on fmt
        // against the set of supported WebAuthn Attestation Statement Format Identifier values."
        guard let format = AttestationFormats.all[fmt] else {
            throw WebAuthnError(.unsupportedAttestationFormat, "fmt \(fmt.debugDescription)")
        }
        // Step 22: "Verify that attStmt is a correct attestation statement, conveying a valid attestation signature,
        // by using the attestation statement format fmt's verification procedure."
        let outcome = try format.verify(
            AttestationInput(
                statement: statement, authenticatorData: authenticatorData, attestedCredential: attested,
                clientDataHash: clientDataHash, credentialKey: credentialKey, policy: attestation, time: now))
        // Steps 23–24: "obtain a list of acceptable trust anchors ... Assess the attestation trustworthiness."
        let assessment = try AttestationTrustAssessment.assess(
            outcome, format: fmt, aaguid: attested.aaguid, policy: attestation, time: now)
        return (credentialKey, outcome, assessment)
    }

    /// Step 13: `fmt` (text), `attStmt` (map) and `authData` (bytes) from the attestation object.
    static func decodeAttestationObject(
        _ bytes: [UInt8]
    ) throws(WebAuthnError) -> (fmt: String, statement: CBORValue, authenticatorData: AuthenticatorData) {
        let object: CBORValue
        do {
            object = try CBORDecoder.decode(bytes, limits: attestationObjectLimits)
        } catch {
            throw WebAuthnError(.malformedAttestationObject, "attestationObject: \(error)")
        }
        guard object.mapEntries != nil else {
            throw WebAuthnError(.malformedAttestationObject, "attestationObject is not a map")
        }
        guard let fmt = object[text: "fmt"]?.textValue, !fmt.isEmpty else {
            throw WebAuthnError(.malformedAttestationObject, "fmt is missing or not text")
        }
        guard let statement = object[text: "attStmt"], statement.mapEntries != nil else {
            throw WebAuthnError(.malformedAttestationObject, "attStmt is missing or not a map")
        }
        guard let authData = object[text: "authData"]?.bytesValue, !authData.isEmpty else {
            throw WebAuthnError(.malformedAttestationObject, "authData is missing or not a byte string")
        }
        return (fmt, statement, try AuthenticatorData(bytes: authData))
    }

    /// `credProps` client extension output: `{ "rk": Bool }`.
    static func credProps(_ results: [String: JSONValue]) throws(WebAuthnError) -> Bool? {
        try flag(results, "credProps", "rk")
    }

    /// A boolean member of a client extension output (`credProps.rk`, `prf.enabled`, `largeBlob.supported`): nil when
    /// the extension or the member is absent, `extension_output_invalid` when either has the wrong type. Nothing
    /// else of the output is read: PRF results and large blobs are the client's secrets, never kept or logged.
    static func flag(_ results: [String: JSONValue], _ name: String, _ member: String) throws(WebAuthnError) -> Bool? {
        guard let output = results[name] else { return nil }
        guard case .object(let members) = output else {
            throw WebAuthnError(.extensionOutputInvalid, "\(name) is not an object")
        }
        guard let value = members[member] else { return nil }
        guard let flag = value.boolValue else { throw WebAuthnError(.extensionOutputInvalid, "\(name).\(member) is not a boolean") }
        return flag
    }
}

extension RegistrationResponseJSON {
    /// The challenge in clientDataJSON, for finding the pending ceremony. Unverified; nil when unreadable.
    public var unverifiedChallenge: [UInt8]? {
        guard let bytes = Base64URL.decode(response.clientDataJSON) else { return nil }
        return (try? CollectedClientData(json: bytes))?.challengeBytes
    }
}
