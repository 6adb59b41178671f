import COSECrypto
import Foundation
import WebAuthnModel

/// A stateless ID-token sign-in session (issue 29): with ceremony keys, begin seals the session into its id (a
/// ``SealedState`` box of kind ``SealedStateKind/idTokenSession``) and writes nothing; finish opens it and records its
/// fingerprint (single use).
///
/// Payload: `0x01 ‖ provider name (UTF-8)`; the expiry is the box's own. The nonce is not inside: it is derived from
/// the box, `base64url(SHA-256(box))` (43 characters, the same form as a table session's nonce, 256 bits), so the
/// provider (which sees the nonce, or its SHA-256 under ``NonceRule/sha256Hex``) never sees the box, and a token
/// minted for one session never fits another.
public enum SealedIDTokenSession {
    /// Sealed boxes are bound to this in place of a relying party (ID-token sign-in is not per relying party; the
    /// kind keeps the box from opening as anything else).
    public static let scope = "passkeyd.idtoken"

    public static func payload(provider: String) -> [UInt8] { [1] + Array(provider.utf8) }

    /// The provider sealed in `payload`; nil when the payload is not one ``payload(provider:)`` wrote.
    public static func provider(_ payload: [UInt8]) -> String? {
        guard payload.count > 1, payload[0] == 1, let name = String(validating: payload[1...], as: UTF8.self) else { return nil }
        return name
    }

    /// The session's nonce: base64url of the SHA-256 of the whole box (43 characters).
    public static func nonce(box: [UInt8]) -> String { Base64URL.encode(Digest.sha256(box)) }
}
