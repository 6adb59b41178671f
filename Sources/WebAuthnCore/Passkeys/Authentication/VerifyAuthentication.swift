import CBORCodec
public import COSECrypto
public import Foundation
public import WebAuthnModel

/// An assertion response whose shape and encodings are checked but which is **not verified**.
///
/// The service needs two things before it can verify: the credential id (to load the credential record) and the
/// challenge (to find and consume the pending ceremony). Both come from here; nothing here is trusted.
public struct UnverifiedAuthenticationResponse: Sendable {
    public let credentialID: [UInt8]
    public let userHandle: [UInt8]?
    let clientDataJSON: [UInt8]
    let authenticatorData: [UInt8]
    let signature: [UInt8]
    let clientData: Result<CollectedClientData, WebAuthnError>
    let authenticatorAttachment: String?
    let clientExtensionResults: [String: JSONValue]

    /// Checks the response's shape (§7.2 step 3) and decodes its binary members.
    /// - Throws: `malformedBase64`, `malformedResponse`, `invalidCredentialType`, `credentialIDMismatch`.
    public init(_ json: AuthenticationResponseJSON) throws(WebAuthnError) {
        let credentialID = try ResponseDecoding.credentialID(id: json.id, rawId: json.rawId, type: json.type)
        let clientDataJSON = try ResponseDecoding.nonEmptyBytes(json.response.clientDataJSON, "clientDataJSON")
        let authenticatorData = try ResponseDecoding.nonEmptyBytes(json.response.authenticatorData, "authenticatorData")
        let signature = try ResponseDecoding.nonEmptyBytes(json.response.signature, "signature")
        var userHandle: [UInt8]?
        if let handle = json.response.userHandle, !handle.isEmpty {
            userHandle = try ResponseDecoding.bytes(handle, "userHandle")
        }
        self.init(
            credentialID: credentialID, clientDataJSON: clientDataJSON, authenticatorData: authenticatorData,
            signature: signature, userHandle: userHandle, authenticatorAttachment: json.authenticatorAttachment,
            clientExtensionResults: json.clientExtensionResults ?? [:])
    }

    init(
        credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
        userHandle: [UInt8]?, authenticatorAttachment: String?, clientExtensionResults: [String: JSONValue]
    ) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
        // Parsed once here so the challenge can be read for lookup; verification reports a parse failure at its
        // own step (§7.2 step 9).
        clientData = Result { () throws(WebAuthnError) in try CollectedClientData(json: clientDataJSON) }
    }

    /// The challenge from clientDataJSON, for finding the pending ceremony. Unverified; nil when unreadable.
    public var challenge: [UInt8]? { (try? clientData.get())?.challengeBytes }
}

extension RelyingParty {
    /// Verifies an assertion, every step of WebAuthn L3 §7.2 in order.
    ///
    /// - Parameters:
    ///   - response: the decoded, unverified response.
    ///   - state: the state `beginAuthentication` returned, consumed exactly once by the caller.
    ///   - credential: the stored record whose id equals `response.credentialID`.
    ///   - publicKey: the record's parsed public key, when the caller caches parsed keys (must be the key of
    ///     `credential.publicKey`); nil to parse it here.
    ///   - now: the verification time.
    /// - Returns: the verified assertion and the update storage must apply.
    /// - Throws: `WebAuthnError` with the code of the first step that failed.
    public func finishAuthentication(
        _ response: UnverifiedAuthenticationResponse, state: AuthenticationState, credential: CredentialRecord,
        publicKey: PublicKey? = nil, now: Date
    ) throws(WebAuthnError) -> VerifiedAuthentication {
        try ResponseDecoding.checkNotExpired(state.expiresAt, now: now)
        // Step 5: "If options.allowCredentials is not empty, verify that credential.id identifies one of the public
        // key credentials listed in options.allowCredentials."
        if !state.allowCredentialIDs.isEmpty {
            guard state.allowCredentialIDs.contains(response.credentialID) else {
                throw WebAuthnError(.credentialNotAllowed, "credential not in allowCredentials")
            }
        }
        guard credential.id == response.credentialID else {
            throw WebAuthnError(.credentialIDMismatch, "the credential record is not the asserted credential")
        }
        // Step 6: "Identify the user being authenticated and let credentialRecord be the credential record for the credential:"
        if let expectedUser = state.userHandle {
            // "If the user was identified before the authentication ceremony was initiated, ... verify that the
            // identified user account contains a credential record whose id equals credential.rawId ... If
            // response.userHandle is present, verify that it equals the user handle of the user account."
            guard constantTimeEquals(credential.userHandle, expectedUser) else {
                throw WebAuthnError(.credentialNotOwnedByUser, "credential belongs to another user")
            }
            if let handle = response.userHandle, !constantTimeEquals(handle, expectedUser) {
                throw WebAuthnError(.userHandleMismatch, "userHandle is not the identified user's")
            }
        } else {
            // "If the user was not identified before the authentication ceremony was initiated, verify that
            // response.userHandle is present. Verify that the user account identified by response.userHandle
            // contains a credential record whose id equals credential.rawId."
            guard let handle = response.userHandle else {
                throw WebAuthnError(.userHandleMissing, "discoverable assertion without userHandle")
            }
            guard constantTimeEquals(handle, credential.userHandle) else {
                throw WebAuthnError(.userHandleMismatch, "userHandle is not the credential owner's")
            }
        }

        // Steps 7–9: cData, authData, sig; UTF-8 decode and parse cData as C.
        let clientData = try response.clientData.get()
        // Steps 10–14 (type, challenge, origin, crossOrigin, topOrigin) and Level 2's tokenBinding.
        try ClientDataChecks.verify(clientData, type: "webauthn.get", challenge: state.challenge, rp: self)

        let authenticatorData = try AuthenticatorData(bytes: response.authenticatorData)
        guard authenticatorData.attestedCredentialData == nil else {
            throw WebAuthnError(.unexpectedAttestedCredentialData, "AT flag set in an assertion")
        }
        // Step 15: "Verify that the rpIdHash in authData is the SHA-256 hash of the RP ID expected by the Relying
        // Party." (With the appid extension output true, the hash of the AppID is expected instead.)
        let usedAppID = response.clientExtensionResults["appid"]?.boolValue == true
        if let appID = state.appID, usedAppID {
            guard authenticatorData.rpIDHash.elementsEqual(Digest.sha256(Array(appID.utf8))) else {
                throw WebAuthnError(.rpIDHashMismatch, "rpIdHash is not SHA-256 of the AppID")
            }
        } else {
            guard authenticatorData.rpIDHash.elementsEqual(rpIDHash) else {
                throw WebAuthnError(.rpIDHashMismatch, "rpIdHash is not SHA-256(\(id))")
            }
        }
        let flags = authenticatorData.flags
        // Steps 16–18: UP set, UV set when required, BS only with BE.
        try FlagChecks.verify(
            flags, userVerificationRequired: state.userVerification == .required || userVerification == .required,
            allowMissingUserPresence: allowMissingUserPresenceUnsafe)
        // Step 19: "If credentialRecord.backupEligible is set, verify that currentBe is set. If
        // credentialRecord.backupEligible is not set, verify that currentBe is not set."
        guard flags.contains(.backupEligible) == credential.backupEligible else {
            throw WebAuthnError(.backupEligibilityMismatch, "BE changed since registration")
        }

        // Step 20: "Let hash be the result of computing a hash over the cData using SHA-256."
        // Step 21: "Using credentialRecord.publicKey, verify that sig is a valid signature over the binary
        // concatenation of authData and hash."
        let key: PublicKey
        if let publicKey {
            key = publicKey
        } else {
            do {
                key = try PublicKey(coseBytes: credential.publicKey, policy: keyPolicy)
            } catch {
                throw WebAuthnError(.storedPublicKeyInvalid, "stored key: \(error)")
            }
        }
        var signed = response.authenticatorData
        signed.reserveCapacity(signed.count + 32)
        signed += Digest.sha256(response.clientDataJSON)
        let valid: Bool
        do {
            valid = try key.verify(signature: response.signature, message: signed)
        } catch {
            throw WebAuthnError(.signatureInvalid, "verify: \(error)")
        }
        guard valid else { throw WebAuthnError(.signatureInvalid, "assertion signature does not verify") }

        // Step 22: "If authData.signCount is nonzero or credentialRecord.signCount is nonzero: greater than
        // credentialRecord.signCount: the signature counter is valid. Less than or equal: this is a signal that
        // the authenticator may be cloned."
        let newCount = authenticatorData.signCount
        let status: SignCountStatus
        if newCount == 0 && credential.signCount == 0 {
            status = .notSupported
        } else if newCount > credential.signCount {
            status = .increased
        } else {
            if signCount == .reject {
                throw WebAuthnError(
                    .signCountRegressed, "counter \(newCount) not above stored \(credential.signCount)")
            }
            status = .regressed
        }

        // Step 23: extension outputs (appid handled above; unsolicited outputs are ignored).
        // Step 24: "Update credentialRecord with new state values": counter (never lowered), BS, uvInitialized.
        let backupState = flags.contains(.backupState)
        let update = CredentialUpdate(
            credentialID: credential.id, signCount: max(newCount, credential.signCount), backupState: backupState,
            uvInitialized: credential.uvInitialized || flags.contains(.userVerified),
            advancesCounter: status != .regressed)
        return VerifiedAuthentication(
            credentialID: credential.id, userHandle: credential.userHandle, userVerified: flags.contains(.userVerified),
            backupEligible: flags.contains(.backupEligible), backupState: backupState,
            backupStateChanged: backupState != credential.backupState, signCount: newCount, signCountStatus: status,
            authenticatorAttachment: response.authenticatorAttachment.flatMap {
                OptionValues.attachments.contains($0) ? $0 : nil
            },
            authenticatorExtensions: authenticatorData.extensions,
            clientExtensionResults: response.clientExtensionResults, update: update)
    }
}

extension UnverifiedAuthenticationResponse {
    /// Parses an `AuthenticationResponseJSON` body and checks its shape (§7.2 step 3).
    ///
    /// Plain bodies (ASCII, no escapes: what browsers and the platform APIs send) are read without building strings:
    /// base64 members are decoded straight from the body. Anything else takes the strict general path; both give
    /// the same result and the same errors.
    /// - Throws: `malformedResponse` for JSON or shape errors, then as ``init(_:)``.
    public init(jsonBytes: some Collection<UInt8>) throws(WebAuthnError) {
        let fast = jsonBytes.withContiguousStorageIfAvailable { input in
            Result { () throws(WebAuthnError) -> Self? in try Self.plain(input) }
        }
        if let fast, let value = try fast.get() {
            self = value
            return
        }
        let json: AuthenticationResponseJSON
        do {
            json = try AuthenticationResponseJSON(jsonBytes: jsonBytes)
        } catch {
            throw WebAuthnError(.malformedResponse, error.reason)
        }
        try self.init(json)
    }

    /// The plain-form reader; nil sends the body to the general path.
    private static func plain(_ input: UnsafeBufferPointer<UInt8>) throws(WebAuthnError) -> Self? {
        let parsed: JSONRawObject?
        do {
            parsed = try JSONRawObject.parse(input)
        } catch {
            throw WebAuthnError(.malformedResponse, "\(error)")
        }
        guard let object = parsed else { return nil }
        func string(_ value: JSONRawObject.Value?, _ name: String) throws(WebAuthnError) -> Range<Int> {
            guard case .string(let range)? = value else { throw WebAuthnError(.malformedResponse, "\(name) is missing or not a string") }
            return range
        }
        func optionalString(_ value: JSONRawObject.Value?, _ name: String) throws(WebAuthnError) -> Range<Int>? {
            switch value {
            case nil, .null?: return nil
            case .string(let range)?: return range
            default: throw WebAuthnError(.malformedResponse, "\(name) is not a string")
            }
        }
        func bytes(_ range: Range<Int>, _ name: String) throws(WebAuthnError) -> [UInt8] {
            guard let bytes = Base64URL.decode(utf8: UnsafeBufferPointer(rebasing: input[range])) else {
                throw WebAuthnError(.malformedBase64, "\(name) is not base64url")
            }
            return bytes
        }
        func nonEmptyBytes(_ range: Range<Int>, _ name: String) throws(WebAuthnError) -> [UInt8] {
            let value = try bytes(range, name)
            guard !value.isEmpty else { throw WebAuthnError(.malformedResponse, "\(name) is empty") }
            return value
        }
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: input[range]), as: UTF8.self) }

        // Shape first (as the general path does), then the same checks in the same order.
        let id = try string(object.member("id", in: input), "id")
        let rawId = try string(object.member("rawId", in: input), "rawId")
        let type = try string(object.member("type", in: input), "type")
        guard case .object(let response)? = object.member("response", in: input) else {
            throw WebAuthnError(.malformedResponse, "response is missing or not an object")
        }
        let clientDataRange = try string(response.member("clientDataJSON", in: input), "clientDataJSON")
        let authenticatorDataRange = try string(response.member("authenticatorData", in: input), "authenticatorData")
        let signatureRange = try string(response.member("signature", in: input), "signature")
        let userHandleRange = try optionalString(response.member("userHandle", in: input), "userHandle")
        let attachment = try optionalString(object.member("authenticatorAttachment", in: input), "authenticatorAttachment").map(text)
        var extensions: [String: JSONValue] = [:]
        switch object.member("clientExtensionResults", in: input) {
        case nil, .null?: break
        case .object(let nested)?:
            do {
                if case .object(let members) = try JSONReader.parse(UnsafeBufferPointer(rebasing: input[nested.range])) {
                    extensions = members
                }
            } catch {
                throw WebAuthnError(.malformedResponse, "clientExtensionResults: \(error)")
            }
        default: throw WebAuthnError(.malformedResponse, "clientExtensionResults is not an object")
        }

        guard text(type) == "public-key" else {
            throw WebAuthnError(.invalidCredentialType, "credential type \(text(type).debugDescription)")
        }
        let credentialID = try nonEmptyBytes(rawId, "rawId")
        guard try bytes(id, "id") == credentialID else { throw WebAuthnError(.credentialIDMismatch, "id and rawId differ") }
        let clientDataJSON = try nonEmptyBytes(clientDataRange, "clientDataJSON")
        let authenticatorData = try nonEmptyBytes(authenticatorDataRange, "authenticatorData")
        let signature = try nonEmptyBytes(signatureRange, "signature")
        var userHandle: [UInt8]?
        if let userHandleRange, !userHandleRange.isEmpty { userHandle = try bytes(userHandleRange, "userHandle") }
        return Self(
            credentialID: credentialID, clientDataJSON: clientDataJSON, authenticatorData: authenticatorData,
            signature: signature, userHandle: userHandle, authenticatorAttachment: attachment,
            clientExtensionResults: extensions)
    }
}
