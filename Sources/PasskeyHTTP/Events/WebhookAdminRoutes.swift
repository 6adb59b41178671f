import PasskeyApp
import Foundation
import Hummingbird
import PasskeyStore

/// The webhooks' outbox in the admin API (admin key required, like every `/v1/admin` route):
///
///     GET  /v1/admin/webhooks/endpoints                                       every endpoint (removed ones too)
///     GET  /v1/admin/webhooks/endpoints/:endpointId/deliveries?status=&after=&limit=   its deliveries, oldest first, paged
///     POST /v1/admin/webhooks/deliveries/:deliveryId/redeliver                pending again, due now (204)
///     POST /v1/admin/webhooks/endpoints/:endpointId/pause                     deliveries wait (204)
///     POST /v1/admin/webhooks/endpoints/:endpointId/resume                    deliveries go again (204)
///
/// Unknown ids are 404 (`webhook_endpoint_unknown`, `webhook_delivery_unknown`); bad query or path values 400
/// (`invalid_parameter`).
func addWebhookAdminRoutes(to router: Router<PasskeyRequestContext>, api: API, admin: WebhookAdministration) {
    api.route(router, .adminWebhookEndpoints) { _, _, _ in
        try AdminAPI.json(status: .ok, ["endpoints": try await admin.endpoints().map(WebhookEndpointJSON.init)])
    }
    api.route(router, .adminWebhookDeliveries) { request, _, context in
        let query = try WebhookAdminRequest.deliveryQuery(endpointID: try WebhookAdminRequest.endpointID(context), request.uri.queryParameters)
        let (page, more) = try await admin.deliveries(query)
        return try AdminAPI.json(
            status: .ok, WebhookDeliveryPage(deliveries: page.map(WebhookDeliveryJSON.init), next: more ? page.last.map { String($0.id) } : nil))
    }
    api.route(router, .adminWebhookRedeliver) { _, _, context in
        try await admin.redeliver(try WebhookAdminRequest.deliveryID(context))
        return Response(status: .noContent)
    }
    api.route(router, .adminWebhookPause) { _, _, context in
        try await admin.setPaused(try WebhookAdminRequest.endpointID(context), true)
        return Response(status: .noContent)
    }
    api.route(router, .adminWebhookResume) { _, _, context in
        try await admin.setPaused(try WebhookAdminRequest.endpointID(context), false)
        return Response(status: .noContent)
    }
}

/// Decoding of the webhook admin routes' path and query values.
enum WebhookAdminRequest {
    /// Letters, digits, `-` and `_`, 1 to 64 (the settings' rule for endpoint names).
    static func endpointID(_ context: PasskeyRequestContext) throws -> String {
        guard let text = context.parameters.get("endpointId"), (1...64).contains(text.utf8.count),
            text.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
            })
        else { throw APIError.invalidParameter("endpointId must be 1 to 64 letters, digits, - or _.") }
        return text
    }

    /// 1 to 19 digits, as openapi.json says; one that names no possible delivery (0, or beyond Int64) is 0, which no
    /// delivery has, so it answers 404 like any other unknown id.
    static func deliveryID(_ context: PasskeyRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("deliveryId"), (1...19).contains(text.utf8.count),
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else { throw APIError.invalidParameter("deliveryId must be 1 to 19 digits.") }
        return Int64(text) ?? 0
    }

    /// `status` (pending, delivered, failed), `after` (the previous page's `next`), `limit` (1-200, default 50).
    static func deliveryQuery(endpointID: String, _ query: Parameters) throws -> WebhookDeliveryQuery {
        var result = WebhookDeliveryQuery(endpointID: endpointID, limit: AdminAPI.defaultPageSize)
        if let text = query.get("limit") {
            guard let value = Int(text), (1...AdminAPI.maxPageSize).contains(value) else {
                throw APIError.invalidParameter("limit must be an integer from 1 to \(AdminAPI.maxPageSize).")
            }
            result.limit = value
        }
        if let text = query.get("status") {
            guard let status = WebhookDeliveryStatus(rawValue: text) else {
                throw APIError.invalidParameter("status must be pending, delivered or failed.")
            }
            result.status = status
        }
        if let text = query.get("after"), !text.isEmpty {
            guard let id = Int64(text), id >= 0 else { throw APIError.invalidParameter("after must be a cursor from a previous page.") }
            result.after = id
        }
        return result
    }
}

/// An endpoint as the admin API shows it (never its secret, which the store does not have).
struct WebhookEndpointJSON: Encodable {
    let id: String
    let url: String
    /// The event types it receives, sorted; null: every type.
    let events: [String]?
    let paused: Bool
    let removed: Bool

    init(_ endpoint: WebhookEndpointState) {
        id = endpoint.id
        url = endpoint.url
        events = endpoint.events.map { $0.map(\.rawValue).sorted() }
        paused = endpoint.paused
        removed = endpoint.removed
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(url, forKey: .url)
        try container.encode(events, forKey: .events)  // explicit null: every type
        try container.encode(paused, forKey: .paused)
        try container.encode(removed, forKey: .removed)
    }

    enum CodingKeys: String, CodingKey { case id, url, events, paused, removed }
}

/// A delivery as the admin API shows it, with its event in the audit listing's shape; absent values null.
struct WebhookDeliveryJSON: Encodable {
    let id: String
    let endpointId: String
    let status: String
    let attempts: Int
    let nextAttemptAt: Date?
    let lastAttemptAt: Date?
    let lastStatusCode: Int?
    let lastError: String?
    let deliveredAt: Date?
    let event: AuditEventJSON

    init(_ delivery: WebhookDelivery) {
        id = String(delivery.id)
        endpointId = delivery.endpointID
        status = delivery.status.rawValue
        attempts = delivery.attempts
        nextAttemptAt = delivery.nextAttemptAt
        lastAttemptAt = delivery.lastAttemptAt
        lastStatusCode = delivery.lastStatusCode
        lastError = delivery.lastError
        deliveredAt = delivery.deliveredAt
        event = AuditEventJSON(delivery.event)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(endpointId, forKey: .endpointId)
        try container.encode(status, forKey: .status)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(nextAttemptAt, forKey: .nextAttemptAt)
        try container.encode(lastAttemptAt, forKey: .lastAttemptAt)
        try container.encode(lastStatusCode, forKey: .lastStatusCode)
        try container.encode(lastError, forKey: .lastError)
        try container.encode(deliveredAt, forKey: .deliveredAt)
        try container.encode(event, forKey: .event)
    }

    enum CodingKeys: String, CodingKey {
        case id, endpointId, status, attempts, nextAttemptAt, lastAttemptAt, lastStatusCode, lastError, deliveredAt, event
    }
}

struct WebhookDeliveryPage: Encodable {
    let deliveries: [WebhookDeliveryJSON]
    /// Cursor for the next page (`after=`); null on the last page.
    let next: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(deliveries, forKey: .deliveries)
        try container.encode(next, forKey: .next)
    }

    enum CodingKeys: String, CodingKey { case deliveries, next }
}
