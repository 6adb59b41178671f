/// Why an App Attest attestation or assertion was refused: one stable code per check, in the order Apple's
/// validation steps run them. Equality compares only ``code``; ``reason`` is for logs (never a key or a challenge).
public struct AppAttestError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // Attestation ("Validating apps that connect to your server", verify the attestation, steps 1-9).
        /// Not CBOR, not a map with `fmt` / `attStmt` / `authData` of the right types, `x5c` not two or more
        /// certificates, `receipt` missing, authenticator data unreadable; also an assertion that is not a map with
        /// `signature` and `authenticatorData` byte strings.
        case malformed = "appattest_malformed"
        /// `fmt` is not `apple-appattest`.
        case formatInvalid = "appattest_format_invalid"
        /// Step 1: the `x5c` chain does not lead to the configured App Attestation root at the verification time
        /// (untrusted, expired, not yet valid, bad signature).
        case chainInvalid = "appattest_chain_invalid"
        /// Steps 2-4: credCert has no (or a malformed) nonce extension 1.2.840.113635.100.8.2.
        case nonceExtensionInvalid = "appattest_nonce_extension_invalid"
        /// Steps 2-4: the extension's nonce is not SHA-256(authData ‖ clientDataHash).
        case nonceMismatch = "appattest_nonce_mismatch"
        /// Step 5: SHA-256 of credCert's public key (uncompressed P-256 point) is not the key identifier.
        case keyIDMismatch = "appattest_key_id_mismatch"
        /// Step 6 (attestation) / assertion step 4: rpIdHash is not SHA-256 of a configured App ID
        /// (`teamId.bundleId`), or of the key's App ID for an assertion.
        case rpIDMismatch = "appattest_rp_id_mismatch"
        /// Step 7: the attestation's counter is not 0.
        case counterNotZero = "appattest_counter_not_zero"
        /// Step 8: the AAGUID is neither `appattest` + 7 × 0x00 (production) nor `appattestdevelop` (development), or
        /// names an environment that is not allowed (development unless configured).
        case aaguidMismatch = "appattest_aaguid_mismatch"
        /// Step 9: the credential id in authData is not the key identifier.
        case credentialIDMismatch = "appattest_credential_id_mismatch"

        // Assertion ("verify the assertion", steps 1-6).
        /// Step 3: the signature (DER ECDSA P-256 with SHA-256 over the nonce) does not verify with the stored key.
        case signatureInvalid = "appattest_signature_invalid"
        /// Step 5: the counter is not greater than the stored one (a replay, or a concurrent assertion won).
        case counterNotIncreasing = "appattest_counter_not_increasing"
        /// Step 6: `clientData` is not a JSON object whose `challenge` member is a base64url challenge.
        case clientDataInvalid = "appattest_client_data_invalid"
        /// Step 6: the challenge was never issued, has expired, or was already used (each is used once, whatever
        /// the outcome of the request that named it).
        case challengeInvalid = "appattest_challenge_invalid"

        // Stored keys.
        /// An assertion names a key id that was never attested (or was deleted).
        case keyUnknown = "appattest_key_unknown"
        /// An attestation names a key id that is already stored (a key is attested once).
        case keyExists = "appattest_key_exists"
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }

    public static func == (lhs: AppAttestError, rhs: AppAttestError) -> Bool { lhs.code == rhs.code }
}
