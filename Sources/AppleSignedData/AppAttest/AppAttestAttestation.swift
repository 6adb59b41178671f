#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import COSECrypto
import CBORCodec
import WebAuthnCore

/// A key whose attestation verified: what is stored for its later assertions.
public struct AttestedAppAttestKey: Sendable, Hashable {
    /// The key identifier: SHA-256 of the public key's uncompressed point (32 bytes; the credential id).
    public let keyID: [UInt8]
    /// The key as DER SubjectPublicKeyInfo (P-256).
    public let publicKeySPKI: [UInt8]
    /// The app it was attested for.
    public let appID: String
    /// Production or development, from the AAGUID.
    public let environment: AppAttestEnvironment
    /// The App Attest receipt (a CMS SignedData from Apple, kept as received; passkeyd does not verify it).
    public let receipt: [UInt8]
    /// Always 0 at attestation.
    public let counter: UInt32

    public init(
        keyID: [UInt8], publicKeySPKI: [UInt8], appID: String, environment: AppAttestEnvironment, receipt: [UInt8],
        counter: UInt32 = 0
    ) {
        self.keyID = keyID
        self.publicKeySPKI = publicKeySPKI
        self.appID = appID
        self.environment = environment
        self.receipt = receipt
        self.counter = counter
    }
}

/// App Attest verification, as Apple's "Validating apps that connect to your server" describes it. Pure: the
/// configuration (apps, environments, root) and the time come in as values.
public enum AppAttest {
    /// The attestation statement format.
    public static let format = "apple-appattest"

    /// App Attest's authenticator data: attested credential data follows AT, and iOS 27 appends an extensions map
    /// without setting ED (Apple's documentation sample does).
    static let attestationLayout = AuthenticatorDataLayout(attestedCredentialDataByFlag: true, extensionsWithoutFlag: true)

    /// CBOR limits for an attestation object: certificates and a receipt of a few kilobytes.
    static let attestationLimits = CBORLimits(
        maxInputBytes: 64 * 1024, maxDepth: 8, maxItems: 256, maxStringBytes: 32 * 1024,
        allowIndefiniteLength: false, requireMinimalIntegers: false)

    /// Verifies an attestation object, checks in Apple's order.
    /// - Parameters:
    ///   - attestationObject: the CBOR attestation object from `attestKey`.
    ///   - keyID: the key identifier the app reports (32 bytes; base64 in Apple's API).
    ///   - clientDataHash: the hash the app passed to `attestKey` (passkeyd: SHA-256 of the challenge bytes).
    ///   - configuration: apps, allowed environments and the root.
    ///   - now: the verification time for the certificate chain.
    /// - Returns: the verified key, counter 0.
    /// - Throws: ``AppAttestError`` with the code of the first check that failed.
    public static func verifyAttestation(
        _ attestationObject: [UInt8], keyID: [UInt8], clientDataHash: [UInt8], configuration: AppAttestConfiguration,
        now: Date
    ) throws(AppAttestError) -> AttestedAppAttestKey {
        let object = try AttestationObjectParts(attestationObject)
        guard object.format == format else {
            throw AppAttestError(.formatInvalid, "fmt is \(object.format.prefix(32).debugDescription)")
        }
        let credCert = object.certificates[0]

        // 1. "Verify that the x5c array contains the intermediate and leaf certificates for App Attest, starting from
        //    the credential certificate in the first data buffer in the array (credcert). Verify the validity of the
        //    certificates using Apple's App Attest root certificate."
        do {
            _ = try ChainVerifier.verify(
                leaf: credCert, intermediates: Array(object.certificates.dropFirst()), anchors: configuration.roots,
                options: ChainVerificationOptions(time: now))
        } catch {
            throw AppAttestError(.chainInvalid, "x5c: \(error)")
        }
        // 2-3. "Create clientDataHash ... Append that hash to the end of the authenticator data (authData from the
        //      decoded object). Generate a new SHA256 hash of the composite item to create nonce."
        let nonce = Digest.sha256(object.authenticatorData.bytes + clientDataHash)
        // 4. "Obtain the value of the credCert extension with OID 1.2.840.113635.100.8.2, which is a DER-encoded ASN.1
        //    sequence. Decode the sequence and extract the single octet string that it contains. Verify that the
        //    string equals nonce."
        let certificateNonce: [UInt8]?
        do {
            certificateNonce = try credCert.appleAttestationNonce()
        } catch {
            throw AppAttestError(.nonceExtensionInvalid, "nonce extension: \(error.reason)")
        }
        guard let certificateNonce else { throw AppAttestError(.nonceExtensionInvalid, "credCert has no nonce extension") }
        guard constantTimeEquals(certificateNonce, nonce) else {
            throw AppAttestError(.nonceMismatch, "nonce is not SHA-256(authData ‖ clientDataHash)")
        }
        // 5. "Create the SHA256 hash of the public key in credCert, and verify that it matches the key identifier
        //    from your app."
        let point: [UInt8]
        let spki: [UInt8]
        do {
            let key = try credCert.publicKey()
            guard key.algorithm == .es256, let uncompressed = key.ecUncompressedPoint else {
                throw AppAttestError(.malformed, "credCert key is \(key.keyTypeName), not P-256")
            }
            point = uncompressed
            spki = key.spkiDER()
        } catch let error as AppAttestError {
            throw error
        } catch {
            throw AppAttestError(.malformed, "credCert key: \(error)")
        }
        guard constantTimeEquals(Digest.sha256(point), keyID) else {
            throw AppAttestError(.keyIDMismatch, "key id is not SHA-256 of credCert's public key")
        }
        // 6. "Compute the SHA256 hash of your app's App ID, and verify that it's the same as the authenticator data's
        //    RP ID hash."
        guard let app = configuration.app(rpIDHash: object.authenticatorData.rpIDHash) else {
            throw AppAttestError(.rpIDMismatch, "rpIdHash is not SHA-256 of a configured App ID")
        }
        // 7. "Verify that the authenticator data's counter field equals 0."
        guard object.authenticatorData.signCount == 0 else {
            throw AppAttestError(.counterNotZero, "counter is \(object.authenticatorData.signCount)")
        }
        // 8. "Verify that the authenticator data's aaguid field is either appattestdevelop if operating in the
        //    development environment, or appattest followed by seven 0x00 bytes if operating in the production
        //    environment."
        guard let credential = object.authenticatorData.attestedCredentialData else {
            throw AppAttestError(.malformed, "authData has no attested credential data")
        }
        guard let environment = AppAttestEnvironment(aaguid: credential.aaguid) else {
            throw AppAttestError(.aaguidMismatch, "AAGUID names no App Attest environment")
        }
        guard configuration.environments.contains(environment) else {
            throw AppAttestError(.aaguidMismatch, "AAGUID is \(environment.rawValue), which is not allowed")
        }
        // 9. "Verify that the authenticator data's credentialId field is the same as the key identifier."
        guard constantTimeEquals(credential.credentialID, keyID) else {
            throw AppAttestError(.credentialIDMismatch, "credentialId is not the key id")
        }
        return AttestedAppAttestKey(
            keyID: keyID, publicKeySPKI: spki, appID: app.appID, environment: environment, receipt: object.receipt)
    }
}

/// The decoded attestation object: `{fmt, attStmt: {x5c, receipt}, authData}`.
struct AttestationObjectParts {
    let format: String
    let certificates: [Certificate]
    let receipt: [UInt8]
    let authenticatorData: AuthenticatorData

    init(_ bytes: [UInt8]) throws(AppAttestError) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(bytes, limits: AppAttest.attestationLimits)
        } catch {
            throw AppAttestError(.malformed, "attestation object: \(error)")
        }
        guard value.mapEntries != nil, let format = value[text: "fmt"]?.textValue,
              let statement = value[text: "attStmt"], statement.mapEntries != nil,
              let authData = value[text: "authData"]?.bytesValue
        else { throw AppAttestError(.malformed, "attestation object is not {fmt, attStmt, authData}") }
        self.format = format
        guard let x5c = statement[text: "x5c"]?.arrayValue, x5c.count >= 2, x5c.count <= 4 else {
            throw AppAttestError(.malformed, "x5c is not an array of 2-4 certificates")
        }
        var certificates: [Certificate] = []
        for item in x5c {
            guard let der = item.bytesValue else { throw AppAttestError(.malformed, "x5c entry is not a byte string") }
            do {
                certificates.append(try Certificate(derEncoded: der))
            } catch {
                throw AppAttestError(.malformed, "x5c certificate: \(error)")
            }
        }
        self.certificates = certificates
        guard let receipt = statement[text: "receipt"]?.bytesValue else {
            throw AppAttestError(.malformed, "attStmt has no receipt")
        }
        self.receipt = receipt
        do {
            authenticatorData = try AuthenticatorData(bytes: authData, layout: AppAttest.attestationLayout)
        } catch {
            throw AppAttestError(.malformed, "authData: \(error)")
        }
    }
}
