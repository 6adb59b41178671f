public import COSECrypto
public import Foundation
import WebAuthnModel

/// Builds compact JWS values the way SafetyNet and the FIDO Metadata Service do: `x5c` in the protected header,
/// ES256 (raw r ‖ s) or RS256 signatures.
public enum TestJWS {
    public enum Failure: Error { case unsupported(String) }

    /// Signs `payload` (JSON bytes) with `key`.
    /// - Parameters:
    ///   - payload: the payload bytes.
    ///   - key: the signing key (ES256 P-256, or RSA for RS256).
    ///   - certificates: `x5c`, leaf first.
    ///   - algorithm: `"ES256"` or `"RS256"`.
    ///   - corruptSignature: flip one bit of the signature.
    /// - Returns: the compact serialization.
    public static func sign(
        payload: [UInt8], key: PrivateKey, certificates: [Certificate], algorithm: String = "ES256",
        corruptSignature: Bool = false
    ) throws -> [UInt8] {
        let x5c = certificates.map { "\"\(Data($0.derEncoded).base64EncodedString())\"" }.joined(separator: ",")
        let header = "{\"alg\":\"\(algorithm)\",\"typ\":\"JWT\",\"x5c\":[\(x5c)]}"
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(payload)
        var signature: [UInt8]
        switch algorithm {
        case "ES256":
            signature = try ECDSASignatureEncoding.rawFromDER(
                key.sign(Array(signingInput.utf8), algorithm: .es256), componentLength: 32)
        case "RS256":
            signature = try key.sign(Array(signingInput.utf8), algorithm: .rs256)
        default:
            throw Failure.unsupported(algorithm)
        }
        if corruptSignature { signature[signature.count / 2] ^= 0x01 }
        return Array((signingInput + "." + Base64URL.encode(signature)).utf8)
    }

    /// JSON bytes of a dictionary (sorted keys, so test output is stable).
    public static func json(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }
}

/// How the software authenticator builds an android-safetynet attestation.
public struct SoftSafetyNet: Sendable {
    /// Issues the `attest.android.com` signing certificate.
    public var ca: TestAttestationCA
    /// The signing certificate's CN and DNS name.
    public var hostname = "attest.android.com"
    public var ctsProfileMatch: Bool? = true
    public var basicIntegrity = true
    /// `timestampMs`; nil omits it.
    public var timestamp: Date? = Date(timeIntervalSince1970: 1_800_000_000)
    /// Sends this `timestampMs` instead of `timestamp` (any JSON number, e.g. far outside the range of dates).
    public var timestampMillisecondsOverride: Double?
    /// Replaces the nonce (base64 of SHA-256(authData ‖ clientDataHash)).
    public var nonceOverride: String?
    /// Signs the JWS with a key other than the certificate's.
    public var signWithOtherKey = false
    /// Flips a bit of the JWS signature.
    public var corruptSignature = false
    /// Validity of the signing certificate.
    public var notBefore = Date(timeIntervalSince1970: 1_700_000_000)
    public var notAfter = Date(timeIntervalSince1970: 1_700_000_000 + 20 * 365 * 86400)

    public init(ca: TestAttestationCA) { self.ca = ca }

    /// The attestation statement for `signed` = authenticatorData ‖ clientDataHash.
    func statement(signed: [UInt8]) throws -> [UInt8] {
        let key = try PrivateKey.generate(for: .es256)
        var builder = CertificateBuilder(
            subject: DistinguishedName([("C", "US"), ("O", "passkeyd tests"), ("CN", hostname)]),
            serialNumber: UInt64.random(in: 2...UInt64(Int64.max)), notBefore: notBefore, notAfter: notAfter)
        builder.isCA = false
        builder.subjectAlternativeDNSNames = [hostname]
        let leaf = try builder.issue(publicKey: key.publicKey, signedBy: ca.rootKey, issuer: ca.root)
        var payload: [String: Any] = [
            "nonce": nonceOverride ?? Data(Digest.sha256(signed)).base64EncodedString(),
            "apkPackageName": "com.google.android.gms", "basicIntegrity": basicIntegrity,
        ]
        if let ctsProfileMatch { payload["ctsProfileMatch"] = ctsProfileMatch }
        if let timestamp { payload["timestampMs"] = Int64(timestamp.timeIntervalSince1970 * 1000) }
        if let timestampMillisecondsOverride { payload["timestampMs"] = timestampMillisecondsOverride }
        let signingKey = signWithOtherKey ? try PrivateKey.generate(for: .es256) : key
        return try TestJWS.sign(
            payload: TestJWS.json(payload), key: signingKey, certificates: [leaf], corruptSignature: corruptSignature)
    }
}
