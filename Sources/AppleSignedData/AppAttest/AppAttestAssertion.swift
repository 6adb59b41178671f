import CBORCodec
import COSECrypto
import WebAuthnCore
import WebAuthnModel

/// What an assertion is checked against: the stored key of its key id.
public struct AppAttestKeyState: Sendable, Hashable {
    /// The key as DER SubjectPublicKeyInfo (P-256), from the attestation.
    public let publicKeySPKI: [UInt8]
    /// The App ID it was attested for.
    public let appID: String
    /// The highest counter accepted so far (0 right after attestation).
    public let counter: UInt32

    public init(publicKeySPKI: [UInt8], appID: String, counter: UInt32) {
        self.publicKeySPKI = publicKeySPKI
        self.appID = appID
        self.counter = counter
    }
}

extension AppAttest {
    /// App Attest assertions' authenticator data: rpIdHash ‖ flags ‖ counter. Apple sets AT (0x40) although no
    /// attested credential data follows; a trailing extensions map is accepted without ED, as in attestations.
    static let assertionLayout = AuthenticatorDataLayout(attestedCredentialDataByFlag: false, extensionsWithoutFlag: true)

    /// CBOR limits for an assertion: a DER signature and 37 bytes of authenticator data (plus extensions).
    static let assertionLimits = CBORLimits(
        maxInputBytes: 4096, maxDepth: 4, maxItems: 32, maxStringBytes: 2048,
        allowIndefiniteLength: false, requireMinimalIntegers: false)

    /// The longest `clientData` accepted (bytes).
    public static let maxClientDataLength = 16 * 1024

    /// Verifies an assertion, checks in Apple's order (steps 1-5; step 6, the challenge, is
    /// ``clientDataChallenge(_:)`` and the caller's store).
    /// - Parameters:
    ///   - assertion: the CBOR assertion from `generateAssertion` (`{signature, authenticatorData}`).
    ///   - clientData: the exact bytes whose SHA-256 the app passed to `generateAssertion`.
    ///   - key: the stored key of the assertion's key id.
    /// - Returns: the assertion's counter, greater than the stored one; store it with a conditional update.
    /// - Throws: ``AppAttestError``: `malformed`, `signatureInvalid`, `rpIDMismatch`, `counterNotIncreasing`.
    public static func verifyAssertion(
        _ assertion: [UInt8], clientData: [UInt8], key: AppAttestKeyState
    ) throws(AppAttestError) -> UInt32 {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(assertion, limits: assertionLimits)
        } catch {
            throw AppAttestError(.malformed, "assertion: \(error)")
        }
        guard value.mapEntries != nil, let signature = value[text: "signature"]?.bytesValue,
              let authDataBytes = value[text: "authenticatorData"]?.bytesValue
        else { throw AppAttestError(.malformed, "assertion is not {signature, authenticatorData}") }
        let authenticatorData: AuthenticatorData
        do {
            authenticatorData = try AuthenticatorData(bytes: authDataBytes, layout: assertionLayout)
        } catch {
            throw AppAttestError(.malformed, "authenticatorData: \(error)")
        }
        let publicKey: PublicKey
        do {
            publicKey = try PublicKey(spkiDER: key.publicKeySPKI, algorithm: .es256)
        } catch {
            throw AppAttestError(.malformed, "stored key: \(error)")
        }
        // 1. "Compute clientDataHash as the SHA256 hash of clientData."
        let clientDataHash = Digest.sha256(clientData)
        // 2. "Concatenate authenticatorData and clientDataHash, and apply a SHA256 hash over the result to form
        //    nonce."
        let nonce = Digest.sha256(authDataBytes + clientDataHash)
        // 3. "Use the public key that you store from the attestation object to verify that the assertion's signature
        //    is valid for nonce." (ECDSA with SHA-256 over the nonce: the nonce is the signed message.)
        let valid: Bool
        do {
            valid = try publicKey.verify(signature: signature, message: nonce, algorithm: .es256)
        } catch {
            throw AppAttestError(.signatureInvalid, "verify: \(error)")
        }
        guard valid else { throw AppAttestError(.signatureInvalid, "the signature does not verify with the stored key") }
        // 4. "Compute the SHA256 hash of the client's App ID, and verify that it matches the RP ID in the
        //    authenticator data."
        guard constantTimeEquals(Digest.sha256(Array(key.appID.utf8)), authenticatorData.rpIDHash) else {
            throw AppAttestError(.rpIDMismatch, "rpIdHash is not SHA-256 of the key's App ID")
        }
        // 5. "Verify that the authenticator data's counter value is greater than the value from the previous
        //    assertion, or greater than 0 on the first assertion."
        guard authenticatorData.signCount > key.counter else {
            throw AppAttestError(
                .counterNotIncreasing, "counter \(authenticatorData.signCount) is not above the stored \(key.counter)")
        }
        return authenticatorData.signCount
    }

    /// passkeyd's `clientData` convention: a JSON object (any other members are the app's) whose `challenge` member
    /// is a challenge from `POST /v1/appattest/challenge`, unpadded base64url.
    /// - Returns: the challenge bytes (step 6 compares them with an issued, unused challenge).
    /// - Throws: ``AppAttestError/Code/clientDataInvalid``.
    public static func clientDataChallenge(_ clientData: [UInt8]) throws(AppAttestError) -> [UInt8] {
        guard clientData.count <= maxClientDataLength else {
            throw AppAttestError(.clientDataInvalid, "clientData is \(clientData.count) bytes")
        }
        let json: JSONValue
        do {
            json = try JSONReader.parse(clientData)
        } catch {
            throw AppAttestError(.clientDataInvalid, "clientData: \(error)")
        }
        guard case .object = json else { throw AppAttestError(.clientDataInvalid, "clientData is not a JSON object") }
        guard let text = json["challenge"]?.stringValue, let challenge = Base64URL.decodeStrict(text), !challenge.isEmpty else {
            throw AppAttestError(.clientDataInvalid, "clientData has no base64url challenge member")
        }
        return challenge
    }
}
