public import PasskeyErrors

/// Why an App Attest attestation or assertion was refused: one stable code per check, in the order Apple's
/// validation steps run them. Equality compares only ``code``; ``reason`` is for logs (never a key or a challenge).
public struct AppAttestError: CodedError {
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        // Attestation ("Validating apps that connect to your server", verify the attestation, steps 1-9).
        /// Not CBOR, not a map with `fmt` / `attStmt` / `authData` of the right types, `x5c` not two or more
        /// certificates, `receipt` missing, authenticator data unreadable; also an assertion that is not a map with
        /// `signature` and `authenticatorData` byte strings.
        public static let malformed = Code(rawValue: "appattest_malformed")
        /// `fmt` is not `apple-appattest`.
        public static let formatInvalid = Code(rawValue: "appattest_format_invalid")
        /// Step 1: the `x5c` chain does not lead to the configured App Attestation root at the verification time
        /// (untrusted, expired, not yet valid, bad signature).
        public static let chainInvalid = Code(rawValue: "appattest_chain_invalid")
        /// Steps 2-4: credCert has no (or a malformed) nonce extension 1.2.840.113635.100.8.2.
        public static let nonceExtensionInvalid = Code(rawValue: "appattest_nonce_extension_invalid")
        /// Steps 2-4: the extension's nonce is not SHA-256(authData ‖ clientDataHash).
        public static let nonceMismatch = Code(rawValue: "appattest_nonce_mismatch")
        /// Step 5: SHA-256 of credCert's public key (uncompressed P-256 point) is not the key identifier.
        public static let keyIDMismatch = Code(rawValue: "appattest_key_id_mismatch")
        /// Step 6 (attestation) / assertion step 4: rpIdHash is not SHA-256 of a configured App ID
        /// (`teamId.bundleId`), or of the key's App ID for an assertion.
        public static let rpIDMismatch = Code(rawValue: "appattest_rp_id_mismatch")
        /// Step 7: the attestation's counter is not 0.
        public static let counterNotZero = Code(rawValue: "appattest_counter_not_zero")
        /// Step 8: the AAGUID is neither `appattest` + 7 × 0x00 (production) nor `appattestdevelop` (development), or
        /// names an environment that is not allowed (development unless configured).
        public static let aaguidMismatch = Code(rawValue: "appattest_aaguid_mismatch")
        /// Step 9: the credential id in authData is not the key identifier.
        public static let credentialIDMismatch = Code(rawValue: "appattest_credential_id_mismatch")

        // Assertion ("verify the assertion", steps 1-6).
        /// Step 3: the signature (DER ECDSA P-256 with SHA-256 over the nonce) does not verify with the stored key.
        public static let signatureInvalid = Code(rawValue: "appattest_signature_invalid")
        /// Step 5: the counter is not greater than the stored one (a replay, or a concurrent assertion won).
        public static let counterNotIncreasing = Code(rawValue: "appattest_counter_not_increasing")
        /// Step 6: `clientData` is not a JSON object whose `challenge` member is a base64url challenge.
        public static let clientDataInvalid = Code(rawValue: "appattest_client_data_invalid")
        /// Step 6: the challenge was never issued, has expired, or was already used (each is used once, whatever
        /// the outcome of the request that named it).
        public static let challengeInvalid = Code(rawValue: "appattest_challenge_invalid")

        // Stored keys.
        /// An assertion names a key id that was never attested (or was deleted).
        public static let keyUnknown = Code(rawValue: "appattest_key_unknown")
        /// An attestation names a key id that is already stored (a key is attested once).
        public static let keyExists = Code(rawValue: "appattest_key_exists")

        /// Every code above, in declaration order (an open set has no `allCases`; a test checks this list against
        /// the declarations).
        public static let all: [Code] = [
            .malformed, .formatInvalid, .chainInvalid, .nonceExtensionInvalid, .nonceMismatch, .keyIDMismatch,
            .rpIDMismatch, .counterNotZero, .aaguidMismatch, .credentialIDMismatch, .signatureInvalid,
            .counterNotIncreasing, .clientDataInvalid, .challengeInvalid, .keyUnknown, .keyExists,
        ]
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
