import COSECrypto
import WebAuthnModel

/// passkeyd's opaque secrets: refresh tokens and handoff codes. 32 random bytes (256 bits) in base64url behind a
/// fixed prefix (so a leaked one is recognisable by secret scanners and by people), stored only as SHA-256 of the
/// whole text. The randomness is injected.
public enum OpaqueToken {
    /// Refresh tokens: `pkd_rt_` + 43 base64url characters.
    public static let refreshPrefix = "pkd_rt_"
    /// Handoff codes: `pkd_hc_` + 43 base64url characters.
    public static let handoffPrefix = "pkd_hc_"
    static let randomBytes = 32
    static let encodedLength = 43

    /// A fresh token and the hash to store.
    public static func generate(prefix: String, random: (Int) -> [UInt8]) -> (token: String, hash: [UInt8]) {
        let bytes = random(randomBytes)
        precondition(bytes.count == randomBytes, "the random source returned \(bytes.count) bytes")
        let token = prefix + Base64URL.encode(bytes)
        return (token, Digest.sha256(Array(token.utf8)))
    }

    /// The stored hash of a presented token, or `nil` when it does not have the form of one with `prefix` (so a
    /// malformed value costs no database lookup).
    public static func hash(of presented: String, prefix: String) -> [UInt8]? {
        let utf8 = presented.utf8
        guard utf8.count == prefix.utf8.count + encodedLength, presented.hasPrefix(prefix) else { return nil }
        for byte in utf8.dropFirst(prefix.utf8.count) {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"): continue
            default: return nil
            }
        }
        return Digest.sha256(Array(utf8))
    }
}

/// PKCE with S256 (RFC 7636 §4): the web page keeps a random verifier, sends `BASE64URL(SHA-256(verifier))` as the
/// challenge when the native app asks for a handoff code, and the verifier with the exchange.
public enum PKCE {
    /// Whether `challenge` is an S256 challenge: 43 base64url characters (a SHA-256 without padding).
    public static func isChallenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && Base64URL.decodeStrict(challenge)?.count == 32
    }

    /// The PKCE check of a handoff exchange, for every combination (RFC 7636 §4.6, RFC 9700 §2.1.1): a code bound to a
    /// challenge needs the verifier that hashes to it; a code issued without one refuses any verifier, since a verifier
    /// sent for an unbound code is a downgrade attempt (a stolen code presented by a client that expected PKCE).
    /// - Throws: ``SessionError/Code/handoffVerifierRequired``, ``SessionError/Code/handoffVerifierUnexpected``, and
    ///   what ``verify(verifier:challenge:)`` throws.
    public static func checkExchange(challenge: String?, verifier: String?) throws(SessionError) {
        switch (challenge, verifier) {
        case (nil, nil): return
        case (nil, .some): throw SessionError(.handoffVerifierUnexpected, "a code verifier was sent for a code issued without a challenge")
        case (.some, nil): throw SessionError(.handoffVerifierRequired, "the code is bound to a PKCE challenge")
        case (.some(let challenge), .some(let verifier)): try verify(verifier: verifier, challenge: challenge)
        }
    }

    /// Checks `verifier` (43-128 characters of `[A-Za-z0-9-._~]`) against `challenge`, in constant time.
    public static func verify(verifier: String, challenge: String) throws(SessionError) {
        let bytes = Array(verifier.utf8)
        guard (43...128).contains(bytes.count), bytes.allSatisfy(isUnreserved) else {
            throw SessionError(.handoffVerifierMalformed, "the code verifier is not 43-128 unreserved characters")
        }
        guard constantTimeEquals(Array(Base64URL.encode(Digest.sha256(bytes)).utf8), Array(challenge.utf8)) else {
            throw SessionError(.handoffVerifierMismatch, "BASE64URL(SHA-256(code_verifier)) is not the code challenge")
        }
    }

    /// The S256 challenge of a verifier (clients and tests).
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(Digest.sha256(Array(verifier.utf8)))
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
