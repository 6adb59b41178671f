import AppleSignedData
import Foundation
import LibPQ
import NIOPosix
import PasskeyStore
import PasskeyStorePostgres
import PostgresTestSupport
import Testing
import WebAuthnCore

/// The events of issue 30 are written by the same step as their change, in both stores: `session.revoked` once per
/// session a revocation ended (per reason; none for one already revoked), `appstore.entitlement_changed` when a kept
/// transaction changes a known user's entitlement, `appattest.key_registered` when a key is stored; with `details`
/// and the request's audit context. On PostgreSQL, a change whose transaction fails leaves no event and no delivery.
@Suite("Event writes")
struct EventWritesTests {
    typealias Store = EventStoreConformanceTests.Store
    typealias Sessions = SessionStoreConformanceTests

    static let context = AuditContext(requestID: "req-1", actor: "admin:0123456789abcdef", clientAddress: "192.0.2.1")

    static func store(_ subject: StoreUnderTest) async throws -> Store { try await EventStoreConformanceTests.store(subject) }

    static func events(_ store: Store, _ kind: AuditEventKind) async throws -> [AuditEvent] {
        try await store.auditEvents(AuditQuery(limit: 1000)).filter { $0.kind == kind }
    }

    static func b64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test(arguments: StoreUnderTest.all)
    func sessionRevokedOncePerSessionWithItsReason(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let session = { (byte: UInt8, user: [UInt8], credential: [UInt8]?) in
            Sessions.newSession(byte, user: user, refresh: byte, idle: 86_400 * 3_650, absolute: 86_400 * 3_650, credential: credential)
        }
        let registration = try Registrations.make(handle: Registrations.handle(1), name: "alice")
        let (alice, passkey) = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        for byte in UInt8(1)...6 { #expect(try await store.createSession(session(byte, alice.handle, byte == 6 ? passkey.id : nil))) }
        // sign_out by id, then again (already revoked: no event)
        #expect(try await store.revokeSession(id: Sessions.id(1), ofUser: alice.handle, reason: .signOut, now: Sessions.at(1), audit: Self.context))
        #expect(try await !store.revokeSession(id: Sessions.id(1), ofUser: nil, reason: .admin, now: Sessions.at(2), audit: Self.context))
        // sign_out by refresh token, twice
        #expect(try await store.revokeSession(refreshHash: Sessions.hash(2), reason: .signOut, now: Sessions.at(3), audit: Self.context) != nil)
        #expect(try await store.revokeSession(refreshHash: Sessions.hash(2), reason: .signOut, now: Sessions.at(4), audit: Self.context) != nil)
        // refresh_token_reused: rotate once, present the retired token twice
        _ = try await store.rotateRefreshToken(presented: Sessions.hash(3), replacement: Sessions.hash(33), now: Sessions.at(5), idleLifetime: 600, audit: Self.context)
        guard case .reused = try await store.rotateRefreshToken(
            presented: Sessions.hash(3), replacement: Sessions.hash(34), now: Sessions.at(6), idleLifetime: 600, audit: Self.context)
        else { Issue.record("not reused"); return }
        _ = try await store.rotateRefreshToken(presented: Sessions.hash(3), replacement: Sessions.hash(35), now: Sessions.at(7), idleLifetime: 600, audit: Self.context)
        // admin: every active session of the user (4 and 5; 6 too)... first the credential's: credential_deleted
        #expect(try await store.deleteCredential(id: passkey.id, audit: Self.context))
        #expect(try await store.revokeSessions(ofUser: alice.handle, reason: .admin, now: Sessions.at(8), audit: Self.context) == 2)
        let events = try await Self.events(store, .sessionRevoked)
        #expect(events.map { $0.details["reason"] } == ["sign_out", "sign_out", "refresh_token_reused", "credential_deleted", "admin", "admin"])
        #expect(events.map { $0.details["session_id"] } == [1, 2, 3, 6, 4, 5].map { Self.b64(Sessions.id($0)) })
        #expect(events.allSatisfy { $0.userHandle == alice.handle && $0.context == Self.context && $0.details.count == 2 })
        // user_deleted: the sessions still active when the user goes
        let bob = try await store.createUser(handle: Registrations.handle(2), name: "bob", displayName: "Bob", audit: .system)
        #expect(try await store.createSession(session(7, bob.handle, nil)))
        #expect(try await store.createSession(session(8, bob.handle, nil)))
        #expect(try await store.revokeSession(id: Sessions.id(8), ofUser: nil, reason: .admin, now: Sessions.at(9), audit: Self.context))
        #expect(try await store.deleteUser(handle: bob.handle, audit: Self.context))
        let last = try #require(try await Self.events(store, .sessionRevoked).last)
        #expect(last.details == ["session_id": Self.b64(Sessions.id(7)), "reason": "user_deleted"] && last.userHandle == bob.handle)
        let trail = try await store.auditEvents(AuditQuery(userHandle: bob.handle, limit: 100)).map(\.kind)
        #expect(trail == [.userCreated, .sessionRevoked, .sessionRevoked, .userDeleted])
    }

    /// What a change caused beyond the event it was asked for is reported through ``AuditConsequences`` (the HTTP
    /// layer logs and counts it: `passkeyd_events_written_total`): exactly the rows written, in order; nothing for a
    /// change that wrote nothing.
    @Test(arguments: StoreUnderTest.all)
    func theConsequencesOfAChangeAreReported(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let report = AuditConsequences()
        var context = Self.context
        context.consequences = report
        let session = { (byte: UInt8, user: [UInt8], credential: [UInt8]?) in
            Sessions.newSession(byte, user: user, refresh: byte, idle: 86_400 * 3_650, absolute: 86_400 * 3_650, credential: credential)
        }
        let (alice, passkey) = try await store.register(
            try Registrations.make(handle: Registrations.handle(1), name: "alice"), nickname: nil, intent: .newUser, audit: context)
        for byte in UInt8(1)...3 { #expect(try await store.createSession(session(byte, alice.handle, byte == 1 ? passkey.id : nil))) }
        #expect(report.take().isEmpty, "a registration's events are the ones asked for")
        // A replayed refresh token: its revocation once, nothing when presented again.
        _ = try await store.rotateRefreshToken(presented: Sessions.hash(2), replacement: Sessions.hash(22), now: Sessions.at(1), idleLifetime: 600, audit: context)
        for _ in 0..<2 {
            _ = try await store.rotateRefreshToken(presented: Sessions.hash(2), replacement: Sessions.hash(23), now: Sessions.at(2), idleLifetime: 600, audit: context)
        }
        let reused = report.take()
        #expect(reused.map(\.kind) == [.sessionRevoked] && reused.first?.details["reason"] == "refresh_token_reused")
        // Asked for: an admin revocation is not a consequence.
        #expect(try await store.revokeSession(id: Sessions.id(3), ofUser: nil, reason: .admin, now: Sessions.at(3), audit: context))
        #expect(report.take().isEmpty)
        // A deletion: the sessions its passkey started.
        #expect(try await store.deleteCredential(id: passkey.id, audit: context))
        #expect(!(try await store.deleteCredential(id: passkey.id, audit: context)))
        let deleted = report.take()
        #expect(deleted.map(\.kind) == [.sessionRevoked] && deleted.first?.details["reason"] == "credential_deleted")
        // An entitlement change; the same transaction again changes nothing.
        typealias AppStore = AppStoreStoreConformanceTests
        let far = Int64(Date().timeIntervalSince1970 * 1_000) + 86_400_000
        _ = try await store.saveTransaction(AppStore.transaction("1", original: "1", signed: 100, expires: far), forUser: alice.handle, audit: context)
        _ = try await store.saveTransaction(AppStore.transaction("1", original: "1", signed: 100, expires: far), forUser: alice.handle, audit: context)
        let refund = AppStore.notification("n-1", transaction: AppStore.transaction("2", original: "1", signed: 300, expires: far, revocation: 250))
        _ = try await store.applyNotification(refund, audit: context)
        _ = try await store.applyNotification(refund, audit: context)
        let changes = report.take()
        #expect(changes.map { $0.details["change"] } == ["purchase", "refund"] && changes.allSatisfy { $0.kind == .appStoreEntitlementChanged })
        // A user deletion: every event it wrote, user.deleted last.
        let (bob, bobKey) = try await store.register(
            try Registrations.make(handle: Registrations.handle(2), name: "bob"), nickname: nil, intent: .newUser, audit: context)
        #expect(try await store.createSession(session(7, bob.handle, nil)))
        #expect(try await store.deleteUser(handle: bob.handle, audit: context))
        #expect(!(try await store.deleteUser(handle: bob.handle, audit: context)))
        let gone = report.take()
        #expect(gone.map(\.kind) == [.credentialDeleted, .sessionRevoked, .userDeleted])
        #expect(gone.first?.credentialID == bobKey.id && gone.allSatisfy { $0.userHandle == bob.handle })

        // Each report is the row the store wrote.
        let written = try await store.auditEvents(AuditQuery(limit: 1000)).map {
            WrittenEvent($0.kind, user: $0.userHandle, credential: $0.credentialID, identity: $0.identityID, details: $0.details)
        }
        for reported in reused + deleted + changes + gone { #expect(written.contains(reported), "\(reported)") }
    }

    @Test(arguments: StoreUnderTest.all)
    func entitlementChangesOfAKnownUser(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let registration = try Registrations.make(handle: Registrations.handle(1), name: "buyer")
        let alice = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system).user.handle
        let far = Int64(Date().timeIntervalSince1970 * 1_000) + 86_400_000
        typealias AppStore = AppStoreStoreConformanceTests
        #expect(try await store.saveTransaction(AppStore.transaction("1", original: "1", signed: 100, expires: far), forUser: alice, audit: Self.context) == .inserted)
        #expect(try await store.saveTransaction(AppStore.transaction("1", original: "1", signed: 100, expires: far), forUser: alice, audit: Self.context) == .updated)
        #expect(try await store.saveTransaction(AppStore.transaction("2", original: "1", signed: 200, expires: far), forUser: alice, audit: Self.context) == .inserted)
        let refund = AppStore.notification("n-1", transaction: AppStore.transaction("2", original: "1", signed: 300, expires: far, revocation: 250))
        _ = try await store.applyNotification(refund, audit: Self.context)
        // Expired, by notification.
        var expired = AppStore.notification("n-2", transaction: AppStore.transaction("3", original: "3", signed: 100, expires: 150, token: AppAccountToken.derive(userHandle: alice)))
        _ = try await store.applyNotification(expired, audit: Self.context)  // inserted: a purchase, already expired
        expired = AppStoreNotification(
            notificationUUID: "n-3", notificationType: "EXPIRED", subtype: nil, signedDate: 400, environment: .sandbox,
            transaction: AppStore.transaction("3", original: "3", signed: 400, expires: 150), renewalInfo: nil, payload: Array("{}".utf8))
        _ = try await store.applyNotification(expired, audit: Self.context)
        // A purchase nobody owns: no event.
        _ = try await store.applyNotification(AppStore.notification("n-4", transaction: AppStore.transaction("9", original: "9", signed: 100)), audit: Self.context)
        let events = try await Self.events(store, .appStoreEntitlementChanged)
        #expect(events.map { $0.details["change"] } == ["purchase", "renewal", "refund", "purchase", "expiry"])
        #expect(events.map { $0.details["state"] } == ["active", "active", "revoked", "expired", "expired"])
        #expect(events.map { $0.details["original_transaction_id"] } == ["1", "1", "1", "3", "3"])
        #expect(events.allSatisfy { $0.userHandle == alice && $0.details["product_id"] == "com.example.monthly" && $0.context == Self.context })
    }

    @Test(arguments: StoreUnderTest.all)
    func appAttestKeyRegisteredWhenStored(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let registration = try Registrations.make(handle: Registrations.handle(1), name: "device")
        let user = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system).user.handle
        let key = AppAttestStoreConformanceTests.key(1)
        guard case .saved = try await store.saveAppAttestKey(key, userHandle: user, audit: Self.context) else { Issue.record("not saved"); return }
        #expect(try await store.saveAppAttestKey(key, userHandle: user, audit: Self.context) == .exists)
        #expect(try await store.saveAppAttestKey(AppAttestStoreConformanceTests.key(2), userHandle: Registrations.handle(9), audit: Self.context) == .userUnknown)
        guard case .saved = try await store.saveAppAttestKey(AppAttestStoreConformanceTests.key(3), userHandle: nil, audit: Self.context) else {
            Issue.record("not saved"); return
        }
        let events = try await Self.events(store, .appAttestKeyRegistered)
        #expect(events.map { $0.details } == [["key_id": Self.b64(key.keyID)], ["key_id": Self.b64(AppAttestStoreConformanceTests.key(3).keyID)]])
        #expect(events.map(\.userHandle) == [user, nil])
        #expect(events.allSatisfy { $0.context == Self.context })
    }

    /// The fan-out trigger costs every statement that writes events, so it is enabled exactly while an endpoint is
    /// configured: off after the migrations (no endpoint), on with the first endpoint synced, off again when the
    /// endpoints go; events written meanwhile get deliveries only while it is on.
    @Test(.enabled(if: TestDatabase.url != nil))
    func theFanOutTriggerRunsOnlyWhileAnEndpointIsConfigured() async throws {
        let schema = try await TestSchema.create(baseURL: try #require(TestDatabase.url))
        let pool = PGPool(url: schema.url, size: 2, threadPool: .singleton)
        defer { Task { await pool.shutdown(); await schema.drop() } }
        let store = PostgresPasskeyStore(pool: pool)
        #expect(try await !store.webhookFanOutEnabled(), "migrated with no endpoint")
        _ = try await store.register(try Registrations.make(handle: Registrations.handle(1), name: "a"), nickname: nil, intent: .newUser, audit: .system)
        try await store.syncWebhookEndpoints([])
        #expect(try await !store.webhookFanOutEnabled())
        try await store.syncWebhookEndpoints([EventStoreConformanceTests.endpoint("all")])
        #expect(try await store.webhookFanOutEnabled())
        _ = try await store.register(try Registrations.make(handle: Registrations.handle(2), name: "b"), nickname: nil, intent: .newUser, audit: .system)
        try await store.syncWebhookEndpoints([EventStoreConformanceTests.endpoint("all"), EventStoreConformanceTests.endpoint("more")])
        #expect(try await store.webhookFanOutEnabled())
        try await store.syncWebhookEndpoints([])
        #expect(try await !store.webhookFanOutEnabled())
        _ = try await store.register(try Registrations.make(handle: Registrations.handle(3), name: "c"), nickname: nil, intent: .newUser, audit: .system)
        #expect(try await schema.count("audit_events") == 6)
        #expect(try await schema.count("webhook_deliveries") == 2, "only b's two events, written while the endpoint was configured")
    }

    /// A registration whose transaction fails after the credential's insert (a trigger installed in this test's
    /// schema raises) leaves no user, no audit event and no delivery.
    @Test(.enabled(if: TestDatabase.url != nil))
    func aFailedChangeWritesNoEventAndNoDelivery() async throws {
        let schema = try await TestSchema.create(baseURL: try #require(TestDatabase.url))
        let pool = PGPool(url: schema.url, size: 2, threadPool: .singleton)
        defer { Task { await pool.shutdown(); await schema.drop() } }
        let store = PostgresPasskeyStore(pool: pool)
        try await store.syncWebhookEndpoints([EventStoreConformanceTests.endpoint("all")])
        _ = try await schema.query("""
            CREATE FUNCTION fail_after_credential() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'forced failure'; END $$
            """)
        _ = try await schema.query("""
            CREATE TRIGGER fail_after_credential AFTER INSERT ON credentials FOR EACH ROW EXECUTE FUNCTION fail_after_credential()
            """)
        let registration = try Registrations.make(handle: Registrations.handle(1), name: "doomed")
        await #expect(throws: StoreError.self) {
            _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        }
        #expect(try await schema.count("users") == 0)
        #expect(try await schema.count("audit_events") == 0)
        #expect(try await schema.count("webhook_deliveries") == 0)
        _ = try await schema.query("DROP TRIGGER fail_after_credential ON credentials")
        _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        #expect(try await schema.count("audit_events") == 2, "the same change commits once the trigger is gone")
        #expect(try await schema.count("webhook_deliveries") == 2)
    }
}
