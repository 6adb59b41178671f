public import PasskeyErrors

/// The one error type of the ceremony engine.
///
/// `code` is stable (its `rawValue` is the snake_case string the HTTP layer returns); `reason` is detail for the
/// logs only, never for clients. Equality compares only the code, so tests can write
/// `#expect(throws: WebAuthnError(.challengeMismatch))`.
public struct WebAuthnError: CodedError, CustomDebugStringConvertible {
    /// A stable error code. Each W3C verification step that can fail has its own code.
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        // MARK: input shape (§7.1 step 3 / §7.2 step 3)
        /// The response is not the expected JSON shape, or a member has the wrong type.
        public static let malformedResponse = Code(rawValue: "malformed_response")
        /// A binary member is not valid base64url/base64.
        public static let malformedBase64 = Code(rawValue: "malformed_base64")
        /// `type` is not `"public-key"`.
        public static let invalidCredentialType = Code(rawValue: "invalid_credential_type")
        /// `id` does not encode `rawId`, or `rawId` differs from the credential id the authenticator attested.
        public static let credentialIDMismatch = Code(rawValue: "credential_id_mismatch")
        /// The ceremony's challenge has expired (the state is older than its timeout).
        public static let challengeExpired = Code(rawValue: "challenge_expired")

        // MARK: client data (§7.1 steps 5–11, §7.2 steps 8–14)
        /// clientDataJSON is not UTF-8 JSON with the required members.
        public static let malformedClientData = Code(rawValue: "malformed_client_data")
        /// `C.type` is not `webauthn.create` / `webauthn.get`.
        public static let clientDataTypeMismatch = Code(rawValue: "client_data_type_mismatch")
        /// `C.challenge` is not the challenge of this ceremony.
        public static let challengeMismatch = Code(rawValue: "challenge_mismatch")
        /// `C.origin` is not an allowed origin.
        public static let originNotAllowed = Code(rawValue: "origin_not_allowed")
        /// `C.crossOrigin` is true but the relying party does not allow cross-origin ceremonies.
        public static let crossOriginNotAllowed = Code(rawValue: "cross_origin_not_allowed")
        /// `C.topOrigin` is present but not an allowed top-level origin.
        public static let topOriginNotAllowed = Code(rawValue: "top_origin_not_allowed")
        /// `C.tokenBinding` is malformed or claims a token binding the server cannot check.
        public static let tokenBindingInvalid = Code(rawValue: "token_binding_invalid")

        // MARK: attestation object and authenticator data
        /// attestationObject is not a CBOR map with `fmt` (text), `attStmt` (map) and `authData` (bytes).
        public static let malformedAttestationObject = Code(rawValue: "malformed_attestation_object")
        /// authenticatorData is truncated, has leftover bytes, or its flags contradict its content.
        public static let malformedAuthenticatorData = Code(rawValue: "malformed_authenticator_data")
        /// A registration without attested credential data (AT clear).
        public static let attestedCredentialDataMissing = Code(rawValue: "attested_credential_data_missing")
        /// An assertion carrying attested credential data (AT set).
        public static let unexpectedAttestedCredentialData = Code(rawValue: "unexpected_attested_credential_data")
        /// `rpIdHash` is not SHA-256 of the relying party id (nor of the `appid` where that applies).
        public static let rpIDHashMismatch = Code(rawValue: "rp_id_hash_mismatch")
        /// UP flag clear.
        public static let userNotPresent = Code(rawValue: "user_not_present")
        /// UV flag clear although user verification is required.
        public static let userNotVerified = Code(rawValue: "user_not_verified")
        /// BS set while BE is clear.
        public static let backupStateInvalid = Code(rawValue: "backup_state_invalid")
        /// BE differs from the stored credential's BE, or the policy refuses this BE value.
        public static let backupEligibilityMismatch = Code(rawValue: "backup_eligibility_mismatch")
        /// The credential public key's algorithm is not among the requested `pubKeyCredParams`.
        public static let algorithmNotAllowed = Code(rawValue: "algorithm_not_allowed")
        /// The credential public key is not a valid COSE key (wrong curve, off-curve point, small RSA modulus, ...).
        public static let invalidPublicKey = Code(rawValue: "invalid_public_key")
        /// `fmt` names no attestation format this server supports.
        public static let unsupportedAttestationFormat = Code(rawValue: "unsupported_attestation_format")
        /// The attestation statement is structurally wrong for its format (missing/extra members, wrong types).
        public static let malformedAttestationStatement = Code(rawValue: "malformed_attestation_statement")
        /// The attestation signature does not verify.
        public static let attestationSignatureInvalid = Code(rawValue: "attestation_signature_invalid")
        /// `attStmt.alg` does not match the credential key (self attestation) or the attestation certificate key.
        public static let attestationAlgorithmMismatch = Code(rawValue: "attestation_algorithm_mismatch")
        /// The attestation certificate does not meet its format's requirements.
        public static let attestationCertificateInvalid = Code(rawValue: "attestation_certificate_invalid")
        /// The attestation certificate's id-fido-gen-ce-aaguid extension differs from the authenticator data AAGUID.
        public static let attestationAAGUIDMismatch = Code(rawValue: "attestation_aaguid_mismatch")
        /// The attestation kind (none/self/untrusted chain) is not acceptable under the attestation policy.
        public static let attestationNotAllowed = Code(rawValue: "attestation_not_allowed")
        /// The attestation chain does not lead to a configured trust anchor.
        public static let attestationUntrusted = Code(rawValue: "attestation_untrusted")
        /// A certificate in the attestation chain has expired (or is not yet valid) at verification time.
        public static let attestationCertificateExpired = Code(rawValue: "attestation_certificate_expired")
        /// The credential id is longer than 1023 bytes.
        public static let credentialIDTooLong = Code(rawValue: "credential_id_too_long")
        /// Client or authenticator extension outputs are malformed.
        public static let extensionOutputInvalid = Code(rawValue: "extension_output_invalid")

        // MARK: authentication only (§7.2)
        /// The credential is not in the `allowCredentials` list of this ceremony.
        public static let credentialNotAllowed = Code(rawValue: "credential_not_allowed")
        /// The credential does not belong to the user the ceremony was started for.
        public static let credentialNotOwnedByUser = Code(rawValue: "credential_not_owned_by_user")
        /// A discoverable (usernameless) assertion came without `userHandle`.
        public static let userHandleMissing = Code(rawValue: "user_handle_missing")
        /// `userHandle` is not the user handle of the credential's owner.
        public static let userHandleMismatch = Code(rawValue: "user_handle_mismatch")
        /// The stored credential public key cannot be used.
        public static let storedPublicKeyInvalid = Code(rawValue: "stored_public_key_invalid")
        /// The assertion signature does not verify with the stored public key.
        public static let signatureInvalid = Code(rawValue: "signature_invalid")
        /// The signature counter did not increase: a possibly cloned authenticator.
        public static let signCountRegressed = Code(rawValue: "sign_count_regressed")

        // safetynet / metadata / policy (issue 4)
        /// A JWS (compact serialization) is malformed: not three base64url parts, header or payload not JSON,
        /// missing or unparseable `x5c`.
        public static let jwsMalformed = Code(rawValue: "jws_malformed")
        /// The JWS `alg` is not one this server verifies (ES256/384/512, RS256/384/512, PS256/384/512, EdDSA), or
        /// does not fit the signing certificate's key.
        public static let jwsAlgorithmUnsupported = Code(rawValue: "jws_algorithm_unsupported")
        /// The JWS signature does not verify with the leaf certificate of its `x5c`.
        public static let jwsSignatureInvalid = Code(rawValue: "jws_signature_invalid")
        /// android-safetynet: the leaf certificate of the response is not issued to `attest.android.com`.
        public static let safetyNetHostnameMismatch = Code(rawValue: "safetynet_hostname_mismatch")
        /// android-safetynet: `nonce` is not base64(SHA-256(authenticatorData ‖ clientDataHash)).
        public static let safetyNetNonceMismatch = Code(rawValue: "safetynet_nonce_mismatch")
        /// android-safetynet: `ctsProfileMatch` is not true (and the policy requires it).
        public static let safetyNetCTSProfileMismatch = Code(rawValue: "safetynet_cts_profile_mismatch")
        /// android-safetynet: `timestampMs` is missing, older than the policy's maximum age, or in the future.
        public static let safetyNetTimestampInvalid = Code(rawValue: "safetynet_timestamp_invalid")
        /// The authenticator's AAGUID is on the relying party's deny-list.
        public static let aaguidDenied = Code(rawValue: "aaguid_denied")
        /// The relying party has an AAGUID allow-list and the authenticator's AAGUID is not on it.
        public static let aaguidNotAllowed = Code(rawValue: "aaguid_not_allowed")
        /// FIDO metadata reports a status the policy refuses for this authenticator (REVOKED, a key compromise, ...).
        public static let authenticatorStatusRefused = Code(rawValue: "authenticator_status_refused")
        /// The metadata BLOB is not a well-formed MDS3 JWT (structure, JSON, dates).
        public static let metadataMalformed = Code(rawValue: "metadata_malformed")
        /// The metadata BLOB's signature does not verify with its x5c leaf.
        public static let metadataSignatureInvalid = Code(rawValue: "metadata_signature_invalid")
        /// The metadata BLOB's x5c chain does not reach the configured FIDO root at the given time.
        public static let metadataUntrusted = Code(rawValue: "metadata_untrusted")
        /// The metadata BLOB's `nextUpdate` has passed: it is stale and must be refreshed.
        public static let metadataExpired = Code(rawValue: "metadata_expired")

        // tpm / android-key / apple (issue 4)
        // MARK: tpm (§8.3)
        /// `ver` is not "2.0".
        public static let tpmVersionUnsupported = Code(rawValue: "tpm_version_unsupported")
        /// `pubArea` is not a well-formed TPMT_PUBLIC (RSA or ECC signing key).
        public static let tpmPubAreaInvalid = Code(rawValue: "tpm_pub_area_invalid")
        /// `pubArea` parameters/unique do not describe the credential public key.
        public static let tpmPubAreaKeyMismatch = Code(rawValue: "tpm_pub_area_key_mismatch")
        /// `certInfo` is not a well-formed TPMS_ATTEST with a TPMS_CERTIFY_INFO.
        public static let tpmCertInfoInvalid = Code(rawValue: "tpm_cert_info_invalid")
        /// `certInfo.magic` is not TPM_GENERATED_VALUE (0xff544347).
        public static let tpmMagicInvalid = Code(rawValue: "tpm_magic_invalid")
        /// `certInfo.type` is not TPM_ST_ATTEST_CERTIFY (0x8017).
        public static let tpmAttestTypeInvalid = Code(rawValue: "tpm_attest_type_invalid")
        /// `certInfo.extraData` is not the hash of authenticatorData ‖ clientDataHash with alg's hash.
        public static let tpmExtraDataMismatch = Code(rawValue: "tpm_extra_data_mismatch")
        /// `certInfo.attested.name` is not the Name of `pubArea` (computed with pubArea.nameAlg).
        public static let tpmAttestedNameMismatch = Code(rawValue: "tpm_attested_name_mismatch")
        /// The AIK certificate is not version 3.
        public static let tpmAIKVersionInvalid = Code(rawValue: "tpm_aik_version_invalid")
        /// The AIK certificate subject is not empty.
        public static let tpmAIKSubjectNotEmpty = Code(rawValue: "tpm_aik_subject_not_empty")
        /// The AIK certificate subjectAltName lacks the TPM manufacturer, model or version.
        public static let tpmAIKSubjectAltNameInvalid = Code(rawValue: "tpm_aik_subject_alt_name_invalid")
        /// The TPM manufacturer in the AIK certificate is not in the TCG TPM vendor ID registry.
        public static let tpmManufacturerUnknown = Code(rawValue: "tpm_manufacturer_unknown")
        /// The AIK certificate extendedKeyUsage lacks tcg-kp-AIKCertificate (2.23.133.8.3).
        public static let tpmAIKExtendedKeyUsageMissing = Code(rawValue: "tpm_aik_extended_key_usage_missing")
        /// The AIK certificate is a CA certificate (basicConstraints cA true).
        public static let tpmAIKIsCA = Code(rawValue: "tpm_aik_is_ca")

        // MARK: android-key (§8.4)
        /// The credential certificate's public key is not the credential public key.
        public static let androidKeyPublicKeyMismatch = Code(rawValue: "android_key_public_key_mismatch")
        /// The Android KeyDescription extension (1.3.6.1.4.1.11129.2.1.17) is missing or malformed.
        public static let androidKeyDescriptionInvalid = Code(rawValue: "android_key_description_invalid")
        /// `attestationChallenge` is not clientDataHash.
        public static let androidKeyChallengeMismatch = Code(rawValue: "android_key_challenge_mismatch")
        /// An authorization list carries allApplications (the key is not scoped to the RP).
        public static let androidKeyAllApplications = Code(rawValue: "android_key_all_applications")
        /// The key's origin is not KM_ORIGIN_GENERATED (in the authorization lists the policy accepts).
        public static let androidKeyOriginInvalid = Code(rawValue: "android_key_origin_invalid")
        /// The key's purposes do not include KM_PURPOSE_SIGN (in the authorization lists the policy accepts).
        public static let androidKeyPurposeInvalid = Code(rawValue: "android_key_purpose_invalid")

        // MARK: apple (§8.8)
        /// The nonce extension (1.2.840.113635.100.8.2) is missing or malformed.
        public static let appleNonceExtensionInvalid = Code(rawValue: "apple_nonce_extension_invalid")
        /// The nonce is not SHA-256(authenticatorData ‖ clientDataHash).
        public static let appleNonceMismatch = Code(rawValue: "apple_nonce_mismatch")
        /// The credential certificate's public key is not the credential public key.
        public static let applePublicKeyMismatch = Code(rawValue: "apple_public_key_mismatch")
    }

    public let code: Code
    /// Detail for logs. Never shown to clients.
    public let reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the stable code.
    ///   - reason: detail for the logs.
    public init(_ code: Code, _ reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// Only the code: safe to show.
    public var description: String { code.rawValue }
    /// Code and reason: for logs.
    public var debugDescription: String { reason.isEmpty ? code.rawValue : "\(code.rawValue): \(reason)" }
}
