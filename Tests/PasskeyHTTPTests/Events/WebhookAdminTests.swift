import Foundation
import Hummingbird
import HummingbirdTesting
import PasskeyStore
import Prometheus
import Testing
import WebAuthnModel
import WebAuthnTestSupport

/// The webhooks' admin routes on the in-memory store: endpoints listed with their flags, an endpoint's deliveries
/// paged and filtered with their events (the audit rows, details included), redeliver, pause and resume; unknown ids
/// are 404 with a stable code, bad values 400, and the admin key is required.
@Suite("Webhook admin API")
struct WebhookAdminTests {
    static let key = "admin-s3cret"
    static let auth: HTTPFields = [.authorization: "Bearer \(key)"]

    static func harness() async throws -> Harness {
        let harness = try await Harness(adminKeys: [Self.key])
        try await harness.store.syncWebhookEndpoints([
            WebhookEndpointConfig(id: "backend", url: "https://backend.example/hooks", events: nil),
            WebhookEndpointConfig(id: "signups", url: "https://crm.example/hooks", events: [.userCreated]),
        ])
        return harness
    }

    @Test("endpoints and their deliveries, paged and filtered, with the event")
    func listing() async throws {
        let harness = try await Self.harness()
        try await harness.app.test(.router) { client in
            #expect(try await Flow.register(client, name: "alice").reply.status == 201)
            #expect(try await Flow.register(client, name: "bob").reply.status == 201)
            let endpoints = try await client.send(.get, "/v1/admin/webhooks/endpoints", headers: Self.auth)
            #expect(endpoints.status == 200)
            let list = endpoints.json["endpoints"] as? [[String: Any]] ?? []
            #expect(list.compactMap { $0["id"] as? String } == ["backend", "signups"])
            #expect(list.first?["events"] is NSNull && (list.last?["events"] as? [String]) == ["user.created"])
            #expect(list.allSatisfy { $0["paused"] as? Bool == false && $0["removed"] as? Bool == false && $0["url"] is String })

            var seen: [String] = []
            var cursor: String?
            repeat {
                let path = "/v1/admin/webhooks/endpoints/backend/deliveries?limit=3" + (cursor.map { "&after=\($0)" } ?? "")
                let page = try await client.send(.get, path, headers: Self.auth)
                #expect(page.status == 200)
                let deliveries = page.json["deliveries"] as? [[String: Any]] ?? []
                for delivery in deliveries {
                    #expect(delivery["status"] as? String == "pending" && delivery["attempts"] as? Int == 0 && delivery["endpointId"] as? String == "backend")
                    #expect(delivery["lastStatusCode"] is NSNull && delivery["lastError"] is NSNull && delivery["nextAttemptAt"] is String)
                    let event = delivery["event"] as? [String: Any] ?? [:]
                    #expect(event["details"] as? [String: String] == [:] && event["userId"] is String)
                    seen.append(event["event"] as? String ?? "?")
                }
                cursor = page.json["next"] as? String
            } while cursor != nil
            #expect(seen == ["user.created", "credential.registered", "user.created", "credential.registered"])
            let signups = try await client.send(.get, "/v1/admin/webhooks/endpoints/signups/deliveries", headers: Self.auth)
            #expect((signups.json["deliveries"] as? [[String: Any]])?.count == 2 && signups.json["next"] is NSNull)
            let failed = try await client.send(.get, "/v1/admin/webhooks/endpoints/backend/deliveries?status=failed", headers: Self.auth)
            #expect(failed.status == 200 && (failed.json["deliveries"] as? [[String: Any]])?.isEmpty == true)

            for query in ["status=sent", "limit=0", "limit=201", "after=x"] {
                let reply = try await client.send(.get, "/v1/admin/webhooks/endpoints/backend/deliveries?\(query)", headers: Self.auth)
                #expect(reply.status == 400 && reply.errorCode == "invalid_parameter", "\(query)")
            }
            let unknown = try await client.send(.get, "/v1/admin/webhooks/endpoints/nope/deliveries", headers: Self.auth)
            #expect(unknown.status == 404 && unknown.errorCode == "webhook_endpoint_unknown")
            let malformed = try await client.send(.get, "/v1/admin/webhooks/endpoints/a%20b/deliveries", headers: Self.auth)
            #expect(malformed.status == 400 && malformed.errorCode == "invalid_parameter")
            #expect(try await client.send(.get, "/v1/admin/webhooks/endpoints", headers: [:]).status == 401)
        }
    }

    @Test("pause, resume and redeliver; unknown ids are 404")
    func changes() async throws {
        let harness = try await Self.harness()
        try await harness.app.test(.router) { client in
            #expect(try await Flow.register(client, name: "alice").reply.status == 201)
            #expect(try await client.send(.post, "/v1/admin/webhooks/endpoints/signups/pause", headers: Self.auth).status == 204)
            #expect(try await harness.store.webhookEndpoints().first { $0.id == "signups" }?.paused == true)
            let leased = try await harness.store.leaseWebhookDeliveries(owner: "test", limit: 10, leaseSeconds: 60)
            #expect(leased.allSatisfy { $0.endpointID == "backend" } && leased.count == 1, "the paused endpoint's wait; one per user")
            #expect(try await client.send(.post, "/v1/admin/webhooks/endpoints/signups/resume", headers: Self.auth).status == 204)
            #expect(try await harness.store.webhookEndpoints().allSatisfy { !$0.paused })
            let pauseUnknown = try await client.send(.post, "/v1/admin/webhooks/endpoints/nope/pause", headers: Self.auth)
            #expect(pauseUnknown.status == 404 && pauseUnknown.errorCode == "webhook_endpoint_unknown")

            let delivery = try #require(leased.first)
            #expect(try await harness.store.recordAttempt(delivery: delivery.id, owner: "test", outcome: .failed(statusCode: 410, error: "gone")))
            let failed = try await client.send(.get, "/v1/admin/webhooks/endpoints/backend/deliveries?status=failed", headers: Self.auth)
            let shown = try #require((failed.json["deliveries"] as? [[String: Any]])?.first)
            #expect(shown["lastStatusCode"] as? Int == 410 && shown["lastError"] as? String == "gone" && shown["attempts"] as? Int == 1)
            #expect(shown["nextAttemptAt"] is NSNull)
            let id = try #require(shown["id"] as? String)
            #expect(try await client.send(.post, "/v1/admin/webhooks/deliveries/\(id)/redeliver", headers: Self.auth).status == 204)
            let pending = try await client.send(.get, "/v1/admin/webhooks/endpoints/backend/deliveries?status=pending", headers: Self.auth)
            #expect((pending.json["deliveries"] as? [[String: Any]])?.first?["id"] as? String == id)
            let unknown = try await client.send(.post, "/v1/admin/webhooks/deliveries/999999/redeliver", headers: Self.auth)
            #expect(unknown.status == 404 && unknown.errorCode == "webhook_delivery_unknown")
            // Digits the schema allows that name no possible delivery are unknown too, not malformed.
            for id in ["0", "9999999999999999999"] {
                let none = try await client.send(.post, "/v1/admin/webhooks/deliveries/\(id)/redeliver", headers: Self.auth)
                #expect(none.status == 404 && none.errorCode == "webhook_delivery_unknown", "\(id)")
            }
            for id in ["abc", "-1", "12345678901234567890"] {
                let bad = try await client.send(.post, "/v1/admin/webhooks/deliveries/\(id)/redeliver", headers: Self.auth)
                #expect(bad.status == 400 && bad.errorCode == "invalid_parameter", "\(id)")
            }
        }
    }

    @Test("the audit listing shows each event's details; passkeyd_events_written_total counts each, consequences included")
    func auditDetails() async throws {
        let registry = PrometheusCollectorRegistry()
        let harness = try await Harness(adminKeys: [Self.key], metricsFactory: PrometheusMetricsFactory(registry: registry))
        try await harness.app.test(.router) { client in
            let (_, credential) = try await Flow.register(client, name: "alice")
            let created = try await harness.store.createSession(NewSession(
                id: Array(repeating: 7, count: 16), userHandle: credential.userHandle, refreshHash: Array(repeating: 1, count: 32),
                origin: .passkey, amr: ["hwk"], authTime: Date(), createdAt: Date(), idleExpiresAt: Date(timeIntervalSinceNow: 600),
                absoluteExpiresAt: Date(timeIntervalSinceNow: 3_600)))
            #expect(created)
            let user = Base64URL.encode(credential.userHandle)
            #expect(try await client.send(.delete, "/v1/admin/users/\(user)", headers: Self.auth).status == 204)
            let reply = try await client.send(.get, "/v1/admin/audit-events", headers: Self.auth)
            let events = reply.json["events"] as? [[String: Any]] ?? []
            #expect(events.compactMap { $0["event"] as? String }
                == ["user.created", "credential.registered", "credential.deleted", "session.revoked", "user.deleted"])
            let revoked = try #require(events.first { $0["event"] as? String == "session.revoked" })
            #expect(revoked["details"] as? [String: String] == ["session_id": Base64URL.encode(Array(repeating: 7, count: 16)), "reason": "user_deleted"])
            #expect(events.filter { $0["event"] as? String != "session.revoked" }.allSatisfy { $0["details"] as? [String: String] == [:] })
        }
        // Every row of the trail counted once, the deletion's credential and session included (the store reported them).
        let metrics = registry.emitToString()
        for event in ["user.created", "credential.registered", "credential.deleted", "session.revoked", "user.deleted"] {
            #expect(metrics.contains(#"passkeyd_events_written_total{type="\#(event)"} 1"#), "\(event)")
        }
    }
}
