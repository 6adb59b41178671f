public import Foundation
public import PasskeyStore
import WebAuthnModel

/// What is POSTed for one event, in the shape Standard Webhooks recommends:
///
/// ```json
/// {"data":{"actor":"api:3f2a…","credential_id":"…","identity_id":null,"request_id":"…","user_id":"dXNlci0x"},
///  "timestamp":"2026-11-29T12:00:00.123Z","type":"credential.registered"}
/// ```
///
/// `type` is the event kind, `timestamp` when the change committed (RFC 3339, UTC, milliseconds). `data` has the ids
/// (base64url; null when the event has none), the request id and the actor, then the event's details (strings, as
/// documented per kind; a detail never replaces one of those keys). No secret is ever part of an audit event, and the
/// client address is left out (a personal datum the app backend does not need to act on an event). Keys are sorted,
/// so the same event always gives the same bytes.
public struct WebhookPayload: Sendable, Hashable {
    /// `evt_` and the audit event's id: the `webhook-id` header, the same for every attempt, redelivery and instance,
    /// so a receiver deduplicates on it.
    public let webhookID: String
    /// The JSON body.
    public let body: [UInt8]

    public init(_ event: AuditEvent) {
        webhookID = Self.webhookID(of: event)
        var data: [String: String?] = [:]
        for (key, value) in event.details { data[key] = value }
        data["user_id"] = .some(event.userHandle.map(Base64URL.encode))
        data["credential_id"] = .some(event.credentialID.map(Base64URL.encode))
        data["identity_id"] = .some(event.identityID.map(Base64URL.encode))
        data["request_id"] = .some(event.context.requestID)
        data["actor"] = .some(event.context.actor)
        let envelope = Envelope(type: event.kind.rawValue, timestamp: Self.timestamp(event.occurredAt), data: data)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings only: encoding cannot fail.
        body = Array((try? encoder.encode(envelope)) ?? Data("{}".utf8))
    }

    public static func webhookID(of event: AuditEvent) -> String { "evt_\(event.id)" }

    /// RFC 3339 in UTC with milliseconds.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    private struct Envelope: Encodable {
        let type: String
        let timestamp: String
        let data: [String: String?]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(type, forKey: Key("type"))
            try container.encode(timestamp, forKey: Key("timestamp"))
            var nested = container.nestedContainer(keyedBy: Key.self, forKey: Key("data"))
            for (key, value) in data {
                try nested.encode(value, forKey: Key(key))  // nil is written as null
            }
        }
    }

    private struct Key: CodingKey {
        let stringValue: String
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}
