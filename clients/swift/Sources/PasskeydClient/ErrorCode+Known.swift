// Written by tools/generate-error-codes.py from openapi.json (do not edit): every `error.code` its error
// responses list. Each comment gives the HTTP statuses the code comes with.

extension ErrorCode {
    /// `aaguid_denied` (422)
    public static let aaguidDenied = ErrorCode("aaguid_denied")
    /// `aaguid_not_allowed` (422)
    public static let aaguidNotAllowed = ErrorCode("aaguid_not_allowed")
    /// `access_token_algorithm_not_allowed` (401)
    public static let accessTokenAlgorithmNotAllowed = ErrorCode("access_token_algorithm_not_allowed")
    /// `access_token_audience_mismatch` (401)
    public static let accessTokenAudienceMismatch = ErrorCode("access_token_audience_mismatch")
    /// `access_token_expired` (401)
    public static let accessTokenExpired = ErrorCode("access_token_expired")
    /// `access_token_issuer_mismatch` (401)
    public static let accessTokenIssuerMismatch = ErrorCode("access_token_issuer_mismatch")
    /// `access_token_key_unknown` (401)
    public static let accessTokenKeyUnknown = ErrorCode("access_token_key_unknown")
    /// `access_token_malformed` (401)
    public static let accessTokenMalformed = ErrorCode("access_token_malformed")
    /// `access_token_signature_invalid` (401)
    public static let accessTokenSignatureInvalid = ErrorCode("access_token_signature_invalid")
    /// `algorithm_not_allowed` (422)
    public static let algorithmNotAllowed = ErrorCode("algorithm_not_allowed")
    /// `android_key_all_applications` (422)
    public static let androidKeyAllApplications = ErrorCode("android_key_all_applications")
    /// `android_key_challenge_mismatch` (422)
    public static let androidKeyChallengeMismatch = ErrorCode("android_key_challenge_mismatch")
    /// `android_key_description_invalid` (422)
    public static let androidKeyDescriptionInvalid = ErrorCode("android_key_description_invalid")
    /// `android_key_origin_invalid` (422)
    public static let androidKeyOriginInvalid = ErrorCode("android_key_origin_invalid")
    /// `android_key_public_key_mismatch` (422)
    public static let androidKeyPublicKeyMismatch = ErrorCode("android_key_public_key_mismatch")
    /// `android_key_purpose_invalid` (422)
    public static let androidKeyPurposeInvalid = ErrorCode("android_key_purpose_invalid")
    /// `appattest_aaguid_mismatch` (422)
    public static let appattestAaguidMismatch = ErrorCode("appattest_aaguid_mismatch")
    /// `appattest_chain_invalid` (422)
    public static let appattestChainInvalid = ErrorCode("appattest_chain_invalid")
    /// `appattest_challenge_invalid` (400)
    public static let appattestChallengeInvalid = ErrorCode("appattest_challenge_invalid")
    /// `appattest_client_data_invalid` (400)
    public static let appattestClientDataInvalid = ErrorCode("appattest_client_data_invalid")
    /// `appattest_counter_not_increasing` (422)
    public static let appattestCounterNotIncreasing = ErrorCode("appattest_counter_not_increasing")
    /// `appattest_counter_not_zero` (422)
    public static let appattestCounterNotZero = ErrorCode("appattest_counter_not_zero")
    /// `appattest_credential_id_mismatch` (422)
    public static let appattestCredentialIdMismatch = ErrorCode("appattest_credential_id_mismatch")
    /// `appattest_format_invalid` (422)
    public static let appattestFormatInvalid = ErrorCode("appattest_format_invalid")
    /// `appattest_key_exists` (409)
    public static let appattestKeyExists = ErrorCode("appattest_key_exists")
    /// `appattest_key_id_mismatch` (422)
    public static let appattestKeyIdMismatch = ErrorCode("appattest_key_id_mismatch")
    /// `appattest_key_unknown` (404)
    public static let appattestKeyUnknown = ErrorCode("appattest_key_unknown")
    /// `appattest_malformed` (400)
    public static let appattestMalformed = ErrorCode("appattest_malformed")
    /// `appattest_nonce_extension_invalid` (422)
    public static let appattestNonceExtensionInvalid = ErrorCode("appattest_nonce_extension_invalid")
    /// `appattest_nonce_mismatch` (422)
    public static let appattestNonceMismatch = ErrorCode("appattest_nonce_mismatch")
    /// `appattest_rp_id_mismatch` (422)
    public static let appattestRpIdMismatch = ErrorCode("appattest_rp_id_mismatch")
    /// `appattest_signature_invalid` (422)
    public static let appattestSignatureInvalid = ErrorCode("appattest_signature_invalid")
    /// `apple_authorization_code_invalid` (422)
    public static let appleAuthorizationCodeInvalid = ErrorCode("apple_authorization_code_invalid")
    /// `apple_nonce_extension_invalid` (422)
    public static let appleNonceExtensionInvalid = ErrorCode("apple_nonce_extension_invalid")
    /// `apple_nonce_mismatch` (422)
    public static let appleNonceMismatch = ErrorCode("apple_nonce_mismatch")
    /// `apple_public_key_mismatch` (422)
    public static let applePublicKeyMismatch = ErrorCode("apple_public_key_mismatch")
    /// `appstore_algorithm_not_allowed` (422)
    public static let appstoreAlgorithmNotAllowed = ErrorCode("appstore_algorithm_not_allowed")
    /// `appstore_app_account_token_mismatch` (422)
    public static let appstoreAppAccountTokenMismatch = ErrorCode("appstore_app_account_token_mismatch")
    /// `appstore_app_apple_id_mismatch` (422)
    public static let appstoreAppAppleIdMismatch = ErrorCode("appstore_app_apple_id_mismatch")
    /// `appstore_bundle_id_mismatch` (422)
    public static let appstoreBundleIdMismatch = ErrorCode("appstore_bundle_id_mismatch")
    /// `appstore_chain_expired` (422)
    public static let appstoreChainExpired = ErrorCode("appstore_chain_expired")
    /// `appstore_chain_length_invalid` (422)
    public static let appstoreChainLengthInvalid = ErrorCode("appstore_chain_length_invalid")
    /// `appstore_chain_untrusted` (422)
    public static let appstoreChainUntrusted = ErrorCode("appstore_chain_untrusted")
    /// `appstore_environment_mismatch` (422)
    public static let appstoreEnvironmentMismatch = ErrorCode("appstore_environment_mismatch")
    /// `appstore_intermediate_oid_missing` (422)
    public static let appstoreIntermediateOidMissing = ErrorCode("appstore_intermediate_oid_missing")
    /// `appstore_jws_malformed` (400)
    public static let appstoreJwsMalformed = ErrorCode("appstore_jws_malformed")
    /// `appstore_leaf_oid_missing` (422)
    public static let appstoreLeafOidMissing = ErrorCode("appstore_leaf_oid_missing")
    /// `appstore_payload_malformed` (400)
    public static let appstorePayloadMalformed = ErrorCode("appstore_payload_malformed")
    /// `appstore_product_unknown` (422)
    public static let appstoreProductUnknown = ErrorCode("appstore_product_unknown")
    /// `appstore_signature_invalid` (422)
    public static let appstoreSignatureInvalid = ErrorCode("appstore_signature_invalid")
    /// `appstore_transaction_owned_elsewhere` (409)
    public static let appstoreTransactionOwnedElsewhere = ErrorCode("appstore_transaction_owned_elsewhere")
    /// `attestation_aaguid_mismatch` (422)
    public static let attestationAaguidMismatch = ErrorCode("attestation_aaguid_mismatch")
    /// `attestation_algorithm_mismatch` (422)
    public static let attestationAlgorithmMismatch = ErrorCode("attestation_algorithm_mismatch")
    /// `attestation_certificate_expired` (422)
    public static let attestationCertificateExpired = ErrorCode("attestation_certificate_expired")
    /// `attestation_certificate_invalid` (422)
    public static let attestationCertificateInvalid = ErrorCode("attestation_certificate_invalid")
    /// `attestation_not_allowed` (422)
    public static let attestationNotAllowed = ErrorCode("attestation_not_allowed")
    /// `attestation_signature_invalid` (422)
    public static let attestationSignatureInvalid = ErrorCode("attestation_signature_invalid")
    /// `attestation_untrusted` (422)
    public static let attestationUntrusted = ErrorCode("attestation_untrusted")
    /// `attested_credential_data_missing` (422)
    public static let attestedCredentialDataMissing = ErrorCode("attested_credential_data_missing")
    /// `authenticator_status_refused` (422)
    public static let authenticatorStatusRefused = ErrorCode("authenticator_status_refused")
    /// `backup_eligibility_mismatch` (422)
    public static let backupEligibilityMismatch = ErrorCode("backup_eligibility_mismatch")
    /// `backup_state_invalid` (422)
    public static let backupStateInvalid = ErrorCode("backup_state_invalid")
    /// `body_too_large` (413)
    public static let bodyTooLarge = ErrorCode("body_too_large")
    /// `ceremony_capacity_reached` (503)
    public static let ceremonyCapacityReached = ErrorCode("ceremony_capacity_reached")
    /// `challenge_expired` (410)
    public static let challengeExpired = ErrorCode("challenge_expired")
    /// `challenge_mismatch` (422)
    public static let challengeMismatch = ErrorCode("challenge_mismatch")
    /// `challenge_unknown_or_expired` (400)
    public static let challengeUnknownOrExpired = ErrorCode("challenge_unknown_or_expired")
    /// `client_data_type_mismatch` (422)
    public static let clientDataTypeMismatch = ErrorCode("client_data_type_mismatch")
    /// `conditional_create_disabled` (400)
    public static let conditionalCreateDisabled = ErrorCode("conditional_create_disabled")
    /// `conditional_create_needs_user_id` (400)
    public static let conditionalCreateNeedsUserId = ErrorCode("conditional_create_needs_user_id")
    /// `credential_already_registered` (409)
    public static let credentialAlreadyRegistered = ErrorCode("credential_already_registered")
    /// `credential_id_mismatch` (422)
    public static let credentialIdMismatch = ErrorCode("credential_id_mismatch")
    /// `credential_id_too_long` (422)
    public static let credentialIdTooLong = ErrorCode("credential_id_too_long")
    /// `credential_not_allowed` (422)
    public static let credentialNotAllowed = ErrorCode("credential_not_allowed")
    /// `credential_not_owned_by_user` (422)
    public static let credentialNotOwnedByUser = ErrorCode("credential_not_owned_by_user")
    /// `credential_unknown` (404)
    public static let credentialUnknown = ErrorCode("credential_unknown")
    /// `cross_origin_not_allowed` (422)
    public static let crossOriginNotAllowed = ErrorCode("cross_origin_not_allowed")
    /// `extension_input_invalid` (400)
    public static let extensionInputInvalid = ErrorCode("extension_input_invalid")
    /// `extension_output_invalid` (422)
    public static let extensionOutputInvalid = ErrorCode("extension_output_invalid")
    /// `extension_unsupported` (400)
    public static let extensionUnsupported = ErrorCode("extension_unsupported")
    /// `handoff_code_expired` (400)
    public static let handoffCodeExpired = ErrorCode("handoff_code_expired")
    /// `handoff_code_malformed` (400)
    public static let handoffCodeMalformed = ErrorCode("handoff_code_malformed")
    /// `handoff_code_unknown` (400)
    public static let handoffCodeUnknown = ErrorCode("handoff_code_unknown")
    /// `handoff_verifier_malformed` (400)
    public static let handoffVerifierMalformed = ErrorCode("handoff_verifier_malformed")
    /// `handoff_verifier_mismatch` (400)
    public static let handoffVerifierMismatch = ErrorCode("handoff_verifier_mismatch")
    /// `handoff_verifier_required` (400)
    public static let handoffVerifierRequired = ErrorCode("handoff_verifier_required")
    /// `handoff_verifier_unexpected` (400)
    public static let handoffVerifierUnexpected = ErrorCode("handoff_verifier_unexpected")
    /// `identity_linked_elsewhere` (409)
    public static let identityLinkedElsewhere = ErrorCode("identity_linked_elsewhere")
    /// `identity_unknown` (404)
    public static let identityUnknown = ErrorCode("identity_unknown")
    /// `idtoken_algorithm_not_allowed` (422)
    public static let idtokenAlgorithmNotAllowed = ErrorCode("idtoken_algorithm_not_allowed")
    /// `idtoken_audience_mismatch` (422)
    public static let idtokenAudienceMismatch = ErrorCode("idtoken_audience_mismatch")
    /// `idtoken_critical_header` (400)
    public static let idtokenCriticalHeader = ErrorCode("idtoken_critical_header")
    /// `idtoken_expired` (422)
    public static let idtokenExpired = ErrorCode("idtoken_expired")
    /// `idtoken_issued_at_invalid` (422)
    public static let idtokenIssuedAtInvalid = ErrorCode("idtoken_issued_at_invalid")
    /// `idtoken_issuer_mismatch` (422)
    public static let idtokenIssuerMismatch = ErrorCode("idtoken_issuer_mismatch")
    /// `idtoken_key_invalid` (422)
    public static let idtokenKeyInvalid = ErrorCode("idtoken_key_invalid")
    /// `idtoken_key_unknown` (422)
    public static let idtokenKeyUnknown = ErrorCode("idtoken_key_unknown")
    /// `idtoken_malformed` (400)
    public static let idtokenMalformed = ErrorCode("idtoken_malformed")
    /// `idtoken_nonce_mismatch` (422)
    public static let idtokenNonceMismatch = ErrorCode("idtoken_nonce_mismatch")
    /// `idtoken_nonce_missing` (422)
    public static let idtokenNonceMissing = ErrorCode("idtoken_nonce_missing")
    /// `idtoken_not_yet_valid` (422)
    public static let idtokenNotYetValid = ErrorCode("idtoken_not_yet_valid")
    /// `idtoken_provider_mismatch` (400)
    public static let idtokenProviderMismatch = ErrorCode("idtoken_provider_mismatch")
    /// `idtoken_provider_unknown` (400)
    public static let idtokenProviderUnknown = ErrorCode("idtoken_provider_unknown")
    /// `idtoken_session_unknown` (400)
    public static let idtokenSessionUnknown = ErrorCode("idtoken_session_unknown")
    /// `idtoken_signature_invalid` (422)
    public static let idtokenSignatureInvalid = ErrorCode("idtoken_signature_invalid")
    /// `idtoken_subject_missing` (422)
    public static let idtokenSubjectMissing = ErrorCode("idtoken_subject_missing")
    /// `idtoken_too_large` (400)
    public static let idtokenTooLarge = ErrorCode("idtoken_too_large")
    /// `internal_error` (500)
    public static let internalError = ErrorCode("internal_error")
    /// `invalid_credential_type` (400)
    public static let invalidCredentialType = ErrorCode("invalid_credential_type")
    /// `invalid_parameter` (400)
    public static let invalidParameter = ErrorCode("invalid_parameter")
    /// `invalid_public_key` (422)
    public static let invalidPublicKey = ErrorCode("invalid_public_key")
    /// `invalid_user_entity` (400)
    public static let invalidUserEntity = ErrorCode("invalid_user_entity")
    /// `jws_algorithm_unsupported` (422)
    public static let jwsAlgorithmUnsupported = ErrorCode("jws_algorithm_unsupported")
    /// `jws_malformed` (422)
    public static let jwsMalformed = ErrorCode("jws_malformed")
    /// `jws_signature_invalid` (422)
    public static let jwsSignatureInvalid = ErrorCode("jws_signature_invalid")
    /// `last_sign_in_method` (409)
    public static let lastSignInMethod = ErrorCode("last_sign_in_method")
    /// `malformed_attestation_object` (400)
    public static let malformedAttestationObject = ErrorCode("malformed_attestation_object")
    /// `malformed_attestation_statement` (422)
    public static let malformedAttestationStatement = ErrorCode("malformed_attestation_statement")
    /// `malformed_authenticator_data` (400)
    public static let malformedAuthenticatorData = ErrorCode("malformed_authenticator_data")
    /// `malformed_base64` (400)
    public static let malformedBase64 = ErrorCode("malformed_base64")
    /// `malformed_client_data` (400)
    public static let malformedClientData = ErrorCode("malformed_client_data")
    /// `malformed_json` (400)
    public static let malformedJson = ErrorCode("malformed_json")
    /// `malformed_request` (400)
    public static let malformedRequest = ErrorCode("malformed_request")
    /// `malformed_response` (400)
    public static let malformedResponse = ErrorCode("malformed_response")
    /// `metadata_expired` (422)
    public static let metadataExpired = ErrorCode("metadata_expired")
    /// `metadata_malformed` (422)
    public static let metadataMalformed = ErrorCode("metadata_malformed")
    /// `metadata_signature_invalid` (422)
    public static let metadataSignatureInvalid = ErrorCode("metadata_signature_invalid")
    /// `metadata_untrusted` (422)
    public static let metadataUntrusted = ErrorCode("metadata_untrusted")
    /// `method_not_allowed` (any path)
    public static let methodNotAllowed = ErrorCode("method_not_allowed")
    /// `origin_not_allowed` (422)
    public static let originNotAllowed = ErrorCode("origin_not_allowed")
    /// `provider_unavailable` (503)
    public static let providerUnavailable = ErrorCode("provider_unavailable")
    /// `rate_limited` (429)
    public static let rateLimited = ErrorCode("rate_limited")
    /// `reauthentication_required` (401)
    public static let reauthenticationRequired = ErrorCode("reauthentication_required")
    /// `refresh_token_malformed` (400)
    public static let refreshTokenMalformed = ErrorCode("refresh_token_malformed")
    /// `refresh_token_reused` (401)
    public static let refreshTokenReused = ErrorCode("refresh_token_reused")
    /// `refresh_token_unknown` (401)
    public static let refreshTokenUnknown = ErrorCode("refresh_token_unknown")
    /// `route_unknown` (any path)
    public static let routeUnknown = ErrorCode("route_unknown")
    /// `rp_id_hash_mismatch` (422)
    public static let rpIdHashMismatch = ErrorCode("rp_id_hash_mismatch")
    /// `safetynet_cts_profile_mismatch` (422)
    public static let safetynetCtsProfileMismatch = ErrorCode("safetynet_cts_profile_mismatch")
    /// `safetynet_hostname_mismatch` (422)
    public static let safetynetHostnameMismatch = ErrorCode("safetynet_hostname_mismatch")
    /// `safetynet_nonce_mismatch` (422)
    public static let safetynetNonceMismatch = ErrorCode("safetynet_nonce_mismatch")
    /// `safetynet_timestamp_invalid` (422)
    public static let safetynetTimestampInvalid = ErrorCode("safetynet_timestamp_invalid")
    /// `session_inactive` (401)
    public static let sessionInactive = ErrorCode("session_inactive")
    /// `session_missing` (400)
    public static let sessionMissing = ErrorCode("session_missing")
    /// `session_revoked` (401)
    public static let sessionRevoked = ErrorCode("session_revoked")
    /// `session_unknown` (404)
    public static let sessionUnknown = ErrorCode("session_unknown")
    /// `sign_count_regressed` (422)
    public static let signCountRegressed = ErrorCode("sign_count_regressed")
    /// `signature_invalid` (422)
    public static let signatureInvalid = ErrorCode("signature_invalid")
    /// `storage_unavailable` (503)
    public static let storageUnavailable = ErrorCode("storage_unavailable")
    /// `stored_public_key_invalid` (422)
    public static let storedPublicKeyInvalid = ErrorCode("stored_public_key_invalid")
    /// `token_binding_invalid` (422)
    public static let tokenBindingInvalid = ErrorCode("token_binding_invalid")
    /// `too_many_pending_ceremonies` (429)
    public static let tooManyPendingCeremonies = ErrorCode("too_many_pending_ceremonies")
    /// `top_origin_not_allowed` (422)
    public static let topOriginNotAllowed = ErrorCode("top_origin_not_allowed")
    /// `tpm_aik_extended_key_usage_missing` (422)
    public static let tpmAikExtendedKeyUsageMissing = ErrorCode("tpm_aik_extended_key_usage_missing")
    /// `tpm_aik_is_ca` (422)
    public static let tpmAikIsCa = ErrorCode("tpm_aik_is_ca")
    /// `tpm_aik_subject_alt_name_invalid` (422)
    public static let tpmAikSubjectAltNameInvalid = ErrorCode("tpm_aik_subject_alt_name_invalid")
    /// `tpm_aik_subject_not_empty` (422)
    public static let tpmAikSubjectNotEmpty = ErrorCode("tpm_aik_subject_not_empty")
    /// `tpm_aik_version_invalid` (422)
    public static let tpmAikVersionInvalid = ErrorCode("tpm_aik_version_invalid")
    /// `tpm_attest_type_invalid` (422)
    public static let tpmAttestTypeInvalid = ErrorCode("tpm_attest_type_invalid")
    /// `tpm_attested_name_mismatch` (422)
    public static let tpmAttestedNameMismatch = ErrorCode("tpm_attested_name_mismatch")
    /// `tpm_cert_info_invalid` (422)
    public static let tpmCertInfoInvalid = ErrorCode("tpm_cert_info_invalid")
    /// `tpm_extra_data_mismatch` (422)
    public static let tpmExtraDataMismatch = ErrorCode("tpm_extra_data_mismatch")
    /// `tpm_magic_invalid` (422)
    public static let tpmMagicInvalid = ErrorCode("tpm_magic_invalid")
    /// `tpm_manufacturer_unknown` (422)
    public static let tpmManufacturerUnknown = ErrorCode("tpm_manufacturer_unknown")
    /// `tpm_pub_area_invalid` (422)
    public static let tpmPubAreaInvalid = ErrorCode("tpm_pub_area_invalid")
    /// `tpm_pub_area_key_mismatch` (422)
    public static let tpmPubAreaKeyMismatch = ErrorCode("tpm_pub_area_key_mismatch")
    /// `tpm_version_unsupported` (422)
    public static let tpmVersionUnsupported = ErrorCode("tpm_version_unsupported")
    /// `unauthorized` (401)
    public static let unauthorized = ErrorCode("unauthorized")
    /// `unexpected_attested_credential_data` (422)
    public static let unexpectedAttestedCredentialData = ErrorCode("unexpected_attested_credential_data")
    /// `unsupported_attestation_format` (422)
    public static let unsupportedAttestationFormat = ErrorCode("unsupported_attestation_format")
    /// `user_exists` (409)
    public static let userExists = ErrorCode("user_exists")
    /// `user_handle_mismatch` (422)
    public static let userHandleMismatch = ErrorCode("user_handle_mismatch")
    /// `user_handle_missing` (422)
    public static let userHandleMissing = ErrorCode("user_handle_missing")
    /// `user_not_present` (422)
    public static let userNotPresent = ErrorCode("user_not_present")
    /// `user_not_verified` (422)
    public static let userNotVerified = ErrorCode("user_not_verified")
    /// `user_unknown` (404)
    public static let userUnknown = ErrorCode("user_unknown")
    /// `webhook_delivery_unknown` (404)
    public static let webhookDeliveryUnknown = ErrorCode("webhook_delivery_unknown")
    /// `webhook_endpoint_unknown` (404)
    public static let webhookEndpointUnknown = ErrorCode("webhook_endpoint_unknown")

    /// Every code `openapi.json` lists.
    public static let known: Set<ErrorCode> = [
        .aaguidDenied,
        .aaguidNotAllowed,
        .accessTokenAlgorithmNotAllowed,
        .accessTokenAudienceMismatch,
        .accessTokenExpired,
        .accessTokenIssuerMismatch,
        .accessTokenKeyUnknown,
        .accessTokenMalformed,
        .accessTokenSignatureInvalid,
        .algorithmNotAllowed,
        .androidKeyAllApplications,
        .androidKeyChallengeMismatch,
        .androidKeyDescriptionInvalid,
        .androidKeyOriginInvalid,
        .androidKeyPublicKeyMismatch,
        .androidKeyPurposeInvalid,
        .appattestAaguidMismatch,
        .appattestChainInvalid,
        .appattestChallengeInvalid,
        .appattestClientDataInvalid,
        .appattestCounterNotIncreasing,
        .appattestCounterNotZero,
        .appattestCredentialIdMismatch,
        .appattestFormatInvalid,
        .appattestKeyExists,
        .appattestKeyIdMismatch,
        .appattestKeyUnknown,
        .appattestMalformed,
        .appattestNonceExtensionInvalid,
        .appattestNonceMismatch,
        .appattestRpIdMismatch,
        .appattestSignatureInvalid,
        .appleAuthorizationCodeInvalid,
        .appleNonceExtensionInvalid,
        .appleNonceMismatch,
        .applePublicKeyMismatch,
        .appstoreAlgorithmNotAllowed,
        .appstoreAppAccountTokenMismatch,
        .appstoreAppAppleIdMismatch,
        .appstoreBundleIdMismatch,
        .appstoreChainExpired,
        .appstoreChainLengthInvalid,
        .appstoreChainUntrusted,
        .appstoreEnvironmentMismatch,
        .appstoreIntermediateOidMissing,
        .appstoreJwsMalformed,
        .appstoreLeafOidMissing,
        .appstorePayloadMalformed,
        .appstoreProductUnknown,
        .appstoreSignatureInvalid,
        .appstoreTransactionOwnedElsewhere,
        .attestationAaguidMismatch,
        .attestationAlgorithmMismatch,
        .attestationCertificateExpired,
        .attestationCertificateInvalid,
        .attestationNotAllowed,
        .attestationSignatureInvalid,
        .attestationUntrusted,
        .attestedCredentialDataMissing,
        .authenticatorStatusRefused,
        .backupEligibilityMismatch,
        .backupStateInvalid,
        .bodyTooLarge,
        .ceremonyCapacityReached,
        .challengeExpired,
        .challengeMismatch,
        .challengeUnknownOrExpired,
        .clientDataTypeMismatch,
        .conditionalCreateDisabled,
        .conditionalCreateNeedsUserId,
        .credentialAlreadyRegistered,
        .credentialIdMismatch,
        .credentialIdTooLong,
        .credentialNotAllowed,
        .credentialNotOwnedByUser,
        .credentialUnknown,
        .crossOriginNotAllowed,
        .extensionInputInvalid,
        .extensionOutputInvalid,
        .extensionUnsupported,
        .handoffCodeExpired,
        .handoffCodeMalformed,
        .handoffCodeUnknown,
        .handoffVerifierMalformed,
        .handoffVerifierMismatch,
        .handoffVerifierRequired,
        .handoffVerifierUnexpected,
        .identityLinkedElsewhere,
        .identityUnknown,
        .idtokenAlgorithmNotAllowed,
        .idtokenAudienceMismatch,
        .idtokenCriticalHeader,
        .idtokenExpired,
        .idtokenIssuedAtInvalid,
        .idtokenIssuerMismatch,
        .idtokenKeyInvalid,
        .idtokenKeyUnknown,
        .idtokenMalformed,
        .idtokenNonceMismatch,
        .idtokenNonceMissing,
        .idtokenNotYetValid,
        .idtokenProviderMismatch,
        .idtokenProviderUnknown,
        .idtokenSessionUnknown,
        .idtokenSignatureInvalid,
        .idtokenSubjectMissing,
        .idtokenTooLarge,
        .internalError,
        .invalidCredentialType,
        .invalidParameter,
        .invalidPublicKey,
        .invalidUserEntity,
        .jwsAlgorithmUnsupported,
        .jwsMalformed,
        .jwsSignatureInvalid,
        .lastSignInMethod,
        .malformedAttestationObject,
        .malformedAttestationStatement,
        .malformedAuthenticatorData,
        .malformedBase64,
        .malformedClientData,
        .malformedJson,
        .malformedRequest,
        .malformedResponse,
        .metadataExpired,
        .metadataMalformed,
        .metadataSignatureInvalid,
        .metadataUntrusted,
        .methodNotAllowed,
        .originNotAllowed,
        .providerUnavailable,
        .rateLimited,
        .reauthenticationRequired,
        .refreshTokenMalformed,
        .refreshTokenReused,
        .refreshTokenUnknown,
        .routeUnknown,
        .rpIdHashMismatch,
        .safetynetCtsProfileMismatch,
        .safetynetHostnameMismatch,
        .safetynetNonceMismatch,
        .safetynetTimestampInvalid,
        .sessionInactive,
        .sessionMissing,
        .sessionRevoked,
        .sessionUnknown,
        .signCountRegressed,
        .signatureInvalid,
        .storageUnavailable,
        .storedPublicKeyInvalid,
        .tokenBindingInvalid,
        .tooManyPendingCeremonies,
        .topOriginNotAllowed,
        .tpmAikExtendedKeyUsageMissing,
        .tpmAikIsCa,
        .tpmAikSubjectAltNameInvalid,
        .tpmAikSubjectNotEmpty,
        .tpmAikVersionInvalid,
        .tpmAttestTypeInvalid,
        .tpmAttestedNameMismatch,
        .tpmCertInfoInvalid,
        .tpmExtraDataMismatch,
        .tpmMagicInvalid,
        .tpmManufacturerUnknown,
        .tpmPubAreaInvalid,
        .tpmPubAreaKeyMismatch,
        .tpmVersionUnsupported,
        .unauthorized,
        .unexpectedAttestedCredentialData,
        .unsupportedAttestationFormat,
        .userExists,
        .userHandleMismatch,
        .userHandleMissing,
        .userNotPresent,
        .userNotVerified,
        .userUnknown,
        .webhookDeliveryUnknown,
        .webhookEndpointUnknown,
    ]
}
