public import COSECrypto
public import Foundation
import JOSE
import WebAuthnModel

/// The `client_secret` Sign in with Apple requires at its token and revoke endpoints: a short-lived JWT signed ES256
/// with the developer's private key (the `.p8` from the Apple Developer account).
///
/// Header `{"alg":"ES256","kid":<key id>}`; claims exactly `iss` (the team id), `iat` (now), `exp` (now plus at most
/// 15 minutes here, although Apple allows up to six months: a short life limits what a leaked secret is worth),
/// `aud` (`https://appleid.apple.com`) and `sub` (the client id the authorization code was issued to: the app's
/// bundle id for native sign-in, the Services ID for the web, i.e. the verified ID token's `aud`).
public struct AppleClientSecret: Sendable {
    /// Apple's audience for client secrets.
    public static let audience = "https://appleid.apple.com"
    /// The longest lifetime this type signs.
    public static let maxLifetime: TimeInterval = 15 * 60

    /// The Apple Developer team id (`iss`).
    public let teamID: String
    /// The key id of the Sign in with Apple key (`kid`).
    public let keyID: String
    /// The P-256 private key.
    public let privateKey: PrivateKey
    /// How long each secret lives (clamped to 1 s … ``maxLifetime``).
    public let lifetime: TimeInterval

    /// - Throws: ``CryptoError/Code/algorithmKeyMismatch`` when the key is not a P-256 key for ES256.
    public init(teamID: String, keyID: String, privateKey: PrivateKey, lifetime: TimeInterval = 5 * 60) throws(CryptoError) {
        guard privateKey.algorithm == .es256 else {
            throw CryptoError(code: .algorithmKeyMismatch, reason: "Apple client secrets are ES256 (a P-256 key)")
        }
        self.teamID = teamID
        self.keyID = keyID
        self.privateKey = privateKey
        self.lifetime = min(max(lifetime, 1), Self.maxLifetime)
    }

    /// A fresh secret for `clientID`, issued at `now`.
    /// - Throws: ``CryptoError/Code/signingFailed`` when signing fails.
    public func secret(clientID: String, now: Date) throws(CryptoError) -> String {
        let issuedAt = now.timeIntervalSince1970.rounded(.down)
        let claims: [String: JSONValue] = [
            "iss": .string(teamID), "iat": .number(issuedAt), "exp": .number(issuedAt + lifetime.rounded(.down)),
            "aud": .string(Self.audience), "sub": .string(clientID),
        ]
        do {
            return try JWSSigner.sign(
                payload: JSONText.bytes(of: .object(claims)), algorithm: .es256, key: .privateKey(privateKey), keyID: keyID,
                type: nil)
        } catch {
            throw CryptoError(code: .signingFailed, reason: "Apple client secret: \(error)")
        }
    }

    /// The PKCS#8 DER inside a PEM `PRIVATE KEY` block (Apple's `.p8` files).
    /// - Returns: `nil` when `text` holds no such block or its body is not base64.
    public static func derFromPEM(_ text: String) -> [UInt8]? {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let begin = lines.firstIndex(of: "-----BEGIN PRIVATE KEY-----"),
              let end = lines[begin...].firstIndex(of: "-----END PRIVATE KEY-----"), end > begin + 1
        else { return nil }
        guard let data = Data(base64Encoded: lines[(begin + 1)..<end].joined()) else { return nil }
        return Array(data)
    }
}
