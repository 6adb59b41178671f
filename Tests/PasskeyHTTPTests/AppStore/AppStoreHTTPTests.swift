import PasskeyApp
import AppleSignedData
import COSECrypto
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOPosix
import LibPQ
import Logging
import PasskeyHTTP
import PasskeyStore
import PasskeyStorePostgres
import Prometheus
import PostgresTestSupport
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// `../shared/vectors/apple/storekit`.
enum StoreKitVectors {
    static let root = PostgresHTTP.repository.deletingLastPathComponent().appendingPathComponent("shared/vectors/apple/storekit")
    static func text(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: root.appendingPathComponent(path)), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
    static let kit: TestStoreKit = {
        // swiftlint:disable:next force_try
        try! TestStoreKit(certificates: root.appendingPathComponent("certs"))
    }()
}

/// App Store signed data over HTTP on the real PostgreSQL: a passkey user's purchase posted by the backend, Apple's
/// notifications (renewal, refund, replay), entitlements, and every refusal as a 4xx JSON error that changes nothing.
@Suite("App Store over HTTP on PostgreSQL", .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct AppStoreHTTPTests {
    static let apiKey = "appstore-tests-api-key-0123456789"
    static var api: HTTPFields { [.authorization: "Bearer \(apiKey)"] }
    static let day: Int64 = 86_400_000

    /// A migrated schema with passkeyd serving App Store routes (test root, bundle com.example, Sandbox).
    static func withAppStore(
        products: Set<String>? = nil, _ body: @Sendable (HTTPTestSchema, any TestClientProtocol, PrometheusCollectorRegistry) async throws -> Void
    ) async throws {
        let schema = try await HTTPTestSchema.create(baseURL: try #require(PostgresHTTP.databaseURL))
        let threadPool = NIOThreadPool(numberOfThreads: 2)
        threadPool.start()
        let pool = PGPool(url: schema.url, size: 2, threadPool: threadPool)
        let store = PostgresPasskeyStore(pool: pool)
        let registry = PrometheusCollectorRegistry()
        let appStore = AppStoreService(
            policy: AppStorePolicy(
                roots: TrustAnchors([StoreKitVectors.kit.root]), bundleID: "com.example", appAppleID: 1234, environments: [.sandbox],
                productIDs: products),
            store: store, metricsFactory: PrometheusMetricsFactory(registry: registry))
        var logger = Logger(label: "appstore-tests")
        logger.logLevel = .critical
        let app = Application(
            router: buildRouter(
                service: CeremonyService(relyingParty: PostgresHTTP.relyingParty(), store: store), appStore: appStore,
                configuration: HTTPConfiguration(apiKeys: [apiKey])),
            logger: logger)
        do {
            try await app.test(.router) { client in try await body(schema, client, registry) }
        } catch {
            await pool.shutdown()
            try? await threadPool.shutdownGracefully()
            await schema.drop()
            throw error
        }
        await pool.shutdown()
        try? await threadPool.shutdownGracefully()
        await schema.drop()
    }

    /// Signs up `name` with a passkey; the user id.
    static func user(_ client: some TestClientProtocol, _ name: String) async throws -> String {
        let (reply, _) = try await Flow.register(client, name: name, apiKey: apiKey)
        #expect(reply.status == 201)
        return try #require((reply.json["user"] as? [String: Any])?["id"] as? String)
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    static func post(_ client: some TestClientProtocol, _ path: String, _ members: [String: String], headers: HTTPFields = api) async throws -> Reply {
        try await client.post(path, Array(try JSONSerialization.data(withJSONObject: members)), headers: headers)
    }

    static func tables(_ schema: HTTPTestSchema) async throws -> [Int] {
        var counts: [Int] = []
        for table in ["appstore_purchases", "appstore_transactions", "appstore_renewals", "appstore_notifications"] {
            counts.append(try await schema.count(table))
        }
        return counts
    }

    @Test("a purchase posted by the backend, renewed, refunded by notification; a replay changes nothing")
    func purchaseLifecycle() async throws {
        try await Self.withAppStore { schema, client, registry in
            let kit = StoreKitVectors.kit
            let userID = try await Self.user(client, "buyer")
            let handle = try #require(Base64URL.decodeStrict(userID))
            let token = AppAccountToken.derive(userHandle: handle)
            let t0 = Self.now() - 2 * Self.day
            // The app's purchase, with the appAccountToken passkeyd gave it.
            let signed = try kit.sign(kit.transaction(
                id: "1001", purchase: t0, expires: t0 + 30 * Self.day, ["appAccountToken": token]))
            var reply = try await Self.post(client, "/v1/appstore/transactions", ["userId": userID, "signedTransaction": signed])
            #expect(reply.status == 201, "\(reply.errorCode ?? "")")
            #expect(reply.json["stored"] as? String == "inserted")
            #expect(reply.json["appAccountToken"] as? String == token)
            let entitlements = try #require(reply.json["entitlements"] as? [[String: Any]])
            #expect(entitlements.count == 1)
            #expect(entitlements.first?["status"] as? String == "active")
            #expect(entitlements.first?["productId"] as? String == "com.example.monthly")
            // Posting it again is idempotent.
            reply = try await Self.post(client, "/v1/appstore/transactions", ["userId": userID, "signedTransaction": signed])
            #expect(reply.status == 200)
            #expect(reply.json["stored"] as? String == "updated")

            // Apple: auto-renew turned off (renewal info), then a refund (the transaction re-signed with revocationDate).
            let renewal = try kit.sign(kit.renewal(original: "1001", signed: t0 + Self.day, ["autoRenewStatus": 0]))
            let turnedOff = try kit.sign(kit.notification(
                type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", uuid: "n-1", signed: t0 + Self.day,
                transaction: signed, renewal: renewal))
            reply = try await Self.post(client, "/v1/appstore/notifications", ["signedPayload": turnedOff], headers: [:])
            #expect(reply.status == 200, "\(reply.errorCode ?? "")")
            #expect(reply.json["duplicate"] as? Bool == false)
            #expect(reply.json["userId"] == nil && reply.json["originalTransactionId"] == nil, "a public answer names no user")
            reply = try await client.send(.get, "/v1/users/\(userID)/entitlements", headers: Self.api)
            #expect(reply.status == 200)
            let active = try #require(reply.json["entitlements"] as? [[String: Any]])
            #expect(active.first?["autoRenew"] as? Bool == false)

            let refunded = try kit.sign(kit.transaction(
                id: "1001", purchase: t0, expires: t0 + 30 * Self.day,
                ["appAccountToken": token, "revocationDate": Self.now() - 1000, "revocationReason": 1, "signedDate": t0 + 2 * Self.day]))
            let refund = try kit.sign(kit.notification(type: "REFUND", uuid: "n-2", signed: t0 + 2 * Self.day, transaction: refunded))
            reply = try await Self.post(client, "/v1/appstore/notifications", ["signedPayload": refund], headers: [:])
            #expect(reply.status == 200)
            reply = try await client.send(.get, "/v1/users/\(userID)/entitlements", headers: Self.api)
            #expect((reply.json["entitlements"] as? [Any])?.isEmpty == true)
            let inactive = try #require(reply.json["inactive"] as? [[String: Any]])
            #expect(inactive.first?["status"] as? String == "revoked")
            #expect(inactive.first?["revocationReason"] as? Int == 1)

            // Apple retries, or someone replays the first notification: 200 (so Apple stops), nothing applied.
            let before = try await Self.tables(schema)
            reply = try await Self.post(client, "/v1/appstore/notifications", ["signedPayload": turnedOff], headers: [:])
            #expect(reply.status == 200)
            #expect(reply.json["duplicate"] as? Bool == true)
            #expect(try await Self.tables(schema) == before)
            // The old, unrefunded copy posted again by a backend: the refund stays.
            reply = try await Self.post(client, "/v1/appstore/transactions", ["userId": userID, "signedTransaction": signed])
            #expect(reply.json["stored"] as? String == "unchanged")
            reply = try await client.send(.get, "/v1/users/\(userID)/entitlements", headers: Self.api)
            #expect((reply.json["inactive"] as? [[String: Any]])?.first?["status"] as? String == "revoked")

            let metrics = registry.emitToString()
            #expect(metrics.contains(#"passkeyd_appstore_notifications_total{type="REFUND",outcome="applied"} 1"#))
            #expect(metrics.contains(#"passkeyd_appstore_notifications_total{type="DID_CHANGE_RENEWAL_STATUS",outcome="duplicate"} 1"#))
        }
    }

    @Test("two transactions tied on purchaseDate and signedDate: the later expiresDate is the latest, whichever is posted first")
    func latestTransactionTie() async throws {
        try await Self.withAppStore { _, client, _ in
            let kit = StoreKitVectors.kit
            let t0 = Self.now() - 10 * Self.day
            // (original, the later-expiring id, the earlier-expiring id, which is posted first); the second case has the
            // later expiry on the smaller id, so neither the row order nor the id alone decides it.
            for (index, (original, longer, shorter, longerFirst)) in [
                ("3001", "3002", "3001", false), ("4001", "4002", "4001", true),
                ("5001", "5001", "5002", false), ("6001", "6001", "6002", true),
            ].enumerated() {
                let userID = try await Self.user(client, "tied-\(index)")
                let token = AppAccountToken.derive(userHandle: try #require(Base64URL.decodeStrict(userID)))
                func signed(_ id: String, expires: Int64) throws -> String {
                    try kit.sign(kit.transaction(id: id, original: original, purchase: t0, expires: expires, ["appAccountToken": token]))
                }
                let posts = [try signed(longer, expires: t0 + 30 * Self.day), try signed(shorter, expires: t0 + 5 * Self.day)]
                for transaction in longerFirst ? posts : posts.reversed() {
                    let reply = try await Self.post(client, "/v1/appstore/transactions", ["userId": userID, "signedTransaction": transaction])
                    #expect(reply.status == 201, "\(reply.status) \(reply.errorCode ?? "")")
                }
                let reply = try await client.send(.get, "/v1/users/\(userID)/entitlements", headers: Self.api)
                let entitlements = try #require(reply.json["entitlements"] as? [[String: Any]])
                #expect(entitlements.count == 1, "case \(index): \(reply.json)")
                #expect(entitlements.first?["transactionId"] as? String == longer, "case \(index)")
                #expect(entitlements.first?["status"] as? String == "active", "case \(index)")
                #expect((reply.json["inactive"] as? [Any])?.isEmpty == true, "case \(index)")
            }
        }
    }

    @Test("refusals are 4xx JSON errors with their code, and nothing is written")
    func refusals() async throws {
        try await Self.withAppStore(products: ["com.example.monthly", "com.example.lifetime"]) { schema, client, _ in
            let kit = StoreKitVectors.kit
            let alice = try await Self.user(client, "alice")
            let bob = try await Self.user(client, "bob")
            let t0 = Self.now() - Self.day
            let mine = try kit.sign(kit.transaction(
                id: "2001", purchase: t0, expires: t0 + 30 * Self.day,
                ["appAccountToken": AppAccountToken.derive(userHandle: try #require(Base64URL.decodeStrict(alice)))]))
            var cases: [(String, [String: String], HTTPFields, Int, String)] = [
                ("/v1/appstore/transactions", ["userId": bob, "signedTransaction": mine], Self.api, 422, "appstore_app_account_token_mismatch"),
                ("/v1/appstore/transactions", ["userId": Base64URL.encode(Array(repeating: 7, count: 32)), "signedTransaction": try kit.sign(
                    kit.transaction(id: "2002", purchase: t0, expires: nil, ["productId": "com.example.lifetime"]))], Self.api, 404, "user_unknown"),
                ("/v1/appstore/transactions", ["userId": alice, "signedTransaction": "a.b.c"], Self.api, 400, "appstore_jws_malformed"),
                ("/v1/appstore/transactions", ["userId": alice], Self.api, 400, "malformed_json"),
                ("/v1/appstore/transactions", ["userId": "%%%", "signedTransaction": mine], Self.api, 400, "malformed_json"),
                ("/v1/appstore/transactions", ["userId": alice, "signedTransaction": mine], [:], 401, "unauthorized"),
                ("/v1/appstore/renewals", ["signedRenewalInfo": "x"], Self.api, 400, "appstore_jws_malformed"),
                ("/v1/appstore/notifications", ["signedPayload": mine], [:], 400, "appstore_payload_malformed"),
            ]
            for (file, code) in [
                ("generated/wrong-bundle.jws", "appstore_bundle_id_mismatch"), ("generated/unknown-product.jws", "appstore_product_unknown"),
                ("generated/production-environment.jws", "appstore_environment_mismatch"),
                ("generated/tampered-payload.jws", "appstore_signature_invalid"), ("generated/invalid-leaf-oid.jws", "appstore_leaf_oid_missing"),
                ("generated/invalid-intermediate-oid.jws", "appstore_intermediate_oid_missing"),
                ("generated/chain-length-2.jws", "appstore_chain_length_invalid"), ("generated/alg-none.jws", "appstore_algorithm_not_allowed"),
                ("generated/alg-es384-header.jws", "appstore_algorithm_not_allowed"),
                ("generated/signed-after-chain-expiry.jws", "appstore_chain_expired"),
            ] {
                cases.append(("/v1/appstore/transactions", ["userId": alice, "signedTransaction": try StoreKitVectors.text(file)], Self.api, 422, code))
            }
            for (path, body, headers, status, code) in cases {
                let reply = try await Self.post(client, path, body, headers: headers)
                #expect(reply.status == status, "\(path) \(code)")
                #expect(reply.errorCode == code, "\(path) \(body.keys.sorted()) → \(reply.errorCode ?? "-")")
            }
            #expect(try await Self.tables(schema) == [0, 0, 0, 0])

            // Alice's purchase is hers: Bob cannot take it even without an appAccountToken.
            let plain = try kit.sign(kit.transaction(id: "2003", purchase: t0, expires: t0 + 30 * Self.day))
            #expect(try await Self.post(client, "/v1/appstore/transactions", ["userId": alice, "signedTransaction": plain]).status == 201)
            let taken = try await Self.post(client, "/v1/appstore/transactions", ["userId": bob, "signedTransaction": plain])
            #expect(taken.status == 409)
            #expect(taken.errorCode == "appstore_transaction_owned_elsewhere")
            #expect(try await Self.tables(schema) == [1, 1, 0, 0])

            // A notification about a product outside the allow-list: 200 (Apple stops retrying), recorded, nothing kept.
            let coins = try kit.sign(kit.transaction(id: "2009", product: "com.example.coins", purchase: t0, expires: nil))
            let charge = try kit.sign(kit.notification(type: "ONE_TIME_CHARGE", signed: t0, transaction: coins))
            let ignored = try await Self.post(client, "/v1/appstore/notifications", ["signedPayload": charge], headers: [:])
            #expect(ignored.status == 200 && ignored.json["duplicate"] as? Bool == false)
            #expect(try await Self.tables(schema) == [1, 1, 0, 1])

            let notFound = try await client.send(.get, "/v1/users/\(Base64URL.encode(Array(repeating: 9, count: 32)))/entitlements", headers: Self.api)
            #expect(notFound.status == 404)
            #expect(notFound.errorCode == "user_unknown")
        }
    }

    @Test("without PASSKEYD_APPSTORE_BUNDLE_ID the routes do not exist")
    func offByDefault() async throws {
        let harness = try await Harness()
        try await harness.app.test(.router) { client in
            for path in ["/v1/appstore/transactions", "/v1/appstore/renewals", "/v1/appstore/notifications"] {
                let reply = try await client.post(path, Array("{}".utf8))
                #expect(reply.status == 404, "\(path)")
            }
            let entitlements = try await client.send(.get, "/v1/users/AAAA/entitlements")
            #expect(entitlements.status == 404 && entitlements.errorCode == "route_unknown", "no route: route_unknown, not user_unknown")
        }
    }
}
