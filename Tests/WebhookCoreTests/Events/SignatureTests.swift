import COSECrypto
import Foundation
import Testing
import WebhookCore

/// Standard Webhooks signatures: passkeyd's signing gives, byte for byte, what the reference implementation
/// (`standardwebhooks` from PyPI, StandardWebhooksVectors.swift) gives, and its verifier accepts the reference's
/// signatures; one failing test per verification check.
@Suite("Webhook signatures")
struct SignatureTests {
    @Test("signs every reference vector exactly as standardwebhooks does")
    func signsLikeTheReference() throws {
        for vector in standardWebhooksVectors {
            let secret = try WebhookSecret(vector.secret)
            let header = try WebhookSignature.sign(id: vector.id, timestamp: vector.timestamp, body: Array(vector.body.utf8), secrets: [secret])
            #expect(header == vector.signature, "\(vector.id)")
        }
    }

    @Test("verifies the reference's signatures, and a rotation's two signatures under either secret")
    func verifiesTheReference() throws {
        for vector in standardWebhooksVectors {
            try WebhookSignature.verify(
                id: vector.id, timestamp: String(vector.timestamp), signature: vector.signature, body: Array(vector.body.utf8),
                secret: try WebhookSecret(vector.secret), now: Date(timeIntervalSince1970: TimeInterval(vector.timestamp) + 299))
        }
        let rotation = standardWebhooksRotation
        let secrets = try rotation.secrets.map { text throws(WebhookError) in try WebhookSecret(text) }
        #expect(try WebhookSignature.sign(id: rotation.id, timestamp: rotation.timestamp, body: Array(rotation.body.utf8), secrets: secrets) == rotation.signature)
        for secret in secrets {
            try WebhookSignature.verify(
                id: rotation.id, timestamp: String(rotation.timestamp), signature: rotation.signature, body: Array(rotation.body.utf8),
                secret: secret, now: Date(timeIntervalSince1970: TimeInterval(rotation.timestamp)))
        }
    }

    @Test("refuses a changed body, id or timestamp, another secret, an old or future timestamp, missing headers")
    func refusals() throws {
        let vector = standardWebhooksVectors[0]
        let secret = try WebhookSecret(vector.secret)
        let now = Date(timeIntervalSince1970: TimeInterval(vector.timestamp))
        func verify(id: String = vector.id, timestamp: String = String(vector.timestamp), signature: String = vector.signature,
                    body: String = vector.body, secret: WebhookSecret = secret, now: Date = now) throws(WebhookError) {
            try WebhookSignature.verify(id: id, timestamp: timestamp, signature: signature, body: Array(body.utf8), secret: secret, now: now)
        }
        #expect(throws: WebhookError(.signatureMismatch, "")) { try verify(body: vector.body + " ") }
        #expect(throws: WebhookError(.signatureMismatch, "")) { try verify(id: "evt_2") }
        #expect(throws: WebhookError(.signatureMismatch, "")) { try verify(timestamp: String(vector.timestamp + 1), now: now) }
        #expect(throws: WebhookError(.signatureMismatch, "")) { try verify(secret: try WebhookSecret(key: Array(repeating: 1, count: 32))) }
        #expect(throws: WebhookError(.signatureMismatch, "")) { try verify(signature: "v2," + vector.signature.dropFirst(3)) }
        #expect(throws: WebhookError(.timestampOutOfTolerance, "")) { try verify(now: now + 301) }
        #expect(throws: WebhookError(.timestampOutOfTolerance, "")) { try verify(now: now - 301) }
        #expect(throws: WebhookError(.headerMalformed, "")) { try verify(id: "") }
        #expect(throws: WebhookError(.headerMalformed, "")) { try verify(timestamp: "soon") }
        #expect(throws: WebhookError(.headerMalformed, "")) { try verify(signature: "") }
    }

    @Test("secrets: whsec_ and base64 of 24 to 64 bytes; generated ones round-trip; the description hides the key")
    func secrets() throws {
        #expect(throws: WebhookError(.secretMalformed, "")) { try WebhookSecret("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=") }
        #expect(throws: WebhookError(.secretMalformed, "")) { try WebhookSecret("whsec_not base64!") }
        #expect(throws: WebhookError(.secretLength, "")) { try WebhookSecret(key: Array(repeating: 7, count: 23)) }
        #expect(throws: WebhookError(.secretLength, "")) { try WebhookSecret(key: Array(repeating: 7, count: 65)) }
        _ = try WebhookSecret(key: Array(repeating: 7, count: 24))
        let generated = try WebhookSecret.generate { count in (0..<count).map { UInt8($0) } }
        #expect(generated.key.count == 32)
        #expect(try WebhookSecret(generated.encoded) == generated)
        #expect(!"\(generated)".contains(generated.encoded.dropFirst(6)))
    }
}
