public import COSECrypto
public import Foundation

/// An endpoint's signing secret in the Standard Webhooks form: `whsec_` followed by the standard base64 of 24 to 64
/// random bytes. Its description never shows the key.
public struct WebhookSecret: Sendable, Hashable, CustomStringConvertible {
    public static let prefix = "whsec_"
    public static let lengths = 24...64

    /// The HMAC key: the decoded bytes.
    public let key: [UInt8]

    /// Reads `whsec_<base64>`.
    /// - Throws: ``WebhookError/Code/secretMalformed``, ``WebhookError/Code/secretLength``.
    public init(_ text: String) throws(WebhookError) {
        guard text.hasPrefix(Self.prefix), let data = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))) else {
            throw WebhookError(.secretMalformed, "a webhook secret is whsec_ followed by standard base64")
        }
        try self.init(key: Array(data))
    }

    /// - Throws: ``WebhookError/Code/secretLength``.
    public init(key: [UInt8]) throws(WebhookError) {
        guard Self.lengths.contains(key.count) else {
            throw WebhookError(.secretLength, "a webhook secret has \(Self.lengths.lowerBound) to \(Self.lengths.upperBound) bytes, this one \(key.count)")
        }
        self.key = key
    }

    /// A new secret of 32 bytes from `random` (which returns that many random bytes).
    public static func generate(random: (Int) -> [UInt8]) throws(WebhookError) -> WebhookSecret {
        try WebhookSecret(key: random(32))
    }

    /// `whsec_<base64>`: what the operator hands to the receiver.
    public var encoded: String { Self.prefix + Data(key).base64EncodedString() }

    public var description: String { "whsec_… (\(key.count) bytes)" }
}

/// The Standard Webhooks signature (https://www.standardwebhooks.com, "Signature scheme"): HMAC-SHA256 under the
/// secret's bytes over `{webhook-id}.{webhook-timestamp}.{body}`, sent as `webhook-signature: v1,<base64>`; with
/// several secrets (a rotation), one `v1,` signature per secret, separated by spaces.
public enum WebhookSignature {
    /// The bytes that are signed.
    public static func signedContent(id: String, timestamp: Int64, body: [UInt8]) -> [UInt8] {
        Array("\(id).\(timestamp).".utf8) + body
    }

    /// The `webhook-signature` value: `v1,<base64>` per secret, space-separated, in the secrets' order.
    public static func sign(id: String, timestamp: Int64, body: [UInt8], secrets: [WebhookSecret]) throws(CryptoError) -> String {
        let content = signedContent(id: id, timestamp: timestamp, body: body)
        var signatures: [String] = []
        for secret in secrets {
            signatures.append("v1," + Data(try HMAC.mac(.sha256, key: secret.key, message: content)).base64EncodedString())
        }
        return signatures.joined(separator: " ")
    }

    /// What a receiver does: `timestamp` within `tolerance` of `now`, and one of the header's `v1,` signatures equal
    /// (in constant time) to the one computed under `secret`. Other versions in the header are ignored.
    /// - Throws: ``WebhookError/Code/headerMalformed``, ``WebhookError/Code/timestampOutOfTolerance``,
    ///   ``WebhookError/Code/signatureMismatch``.
    public static func verify(
        id: String, timestamp: String, signature header: String, body: [UInt8], secret: WebhookSecret, now: Date,
        tolerance: TimeInterval = 300
    ) throws(WebhookError) {
        guard !id.isEmpty, let seconds = Int64(timestamp), !header.isEmpty else {
            throw WebhookError(.headerMalformed, "webhook-id, webhook-timestamp (integer seconds) and webhook-signature are required")
        }
        guard abs(Double(seconds) - now.timeIntervalSince1970) <= tolerance else {
            throw WebhookError(.timestampOutOfTolerance, "webhook-timestamp \(seconds) is more than \(Int(tolerance)) s from now")
        }
        let expected: [UInt8]
        do {
            expected = try HMAC.mac(.sha256, key: secret.key, message: signedContent(id: id, timestamp: seconds, body: body))
        } catch {
            throw WebhookError(.signatureMismatch, "HMAC failed: \(error)")
        }
        for part in header.split(separator: " ") {
            let pieces = part.split(separator: ",", maxSplits: 1)
            guard pieces.count == 2, pieces[0] == "v1", let mac = Data(base64Encoded: String(pieces[1])) else { continue }
            if constantTimeEquals(Array(mac), expected) { return }
        }
        throw WebhookError(.signatureMismatch, "no v1 signature matches")
    }
}
