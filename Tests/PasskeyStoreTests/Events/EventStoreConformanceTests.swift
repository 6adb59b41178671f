import AppleSignedData
import Foundation
import PasskeyStore
import PasskeyStorePostgres
import Testing
import WebAuthnCore

/// The outbox behaves the same in both stores: each committed audit event is fanned out to one delivery per endpoint
/// that is not removed and whose filter names it; leases are exclusive, run out, and keep one user's events in order
/// per endpoint; attempts move a delivery between pending, delivered and failed; an administrator can redeliver,
/// pause and resume; the listing pages; the stats count what is waiting.
@Suite("Event store conformance")
struct EventStoreConformanceTests {
    typealias Store = any PasskeyStore & EventStore & SessionStore & AppAttestStore & AppStoreStore

    static func store(_ subject: StoreUnderTest) async throws -> Store {
        try #require(try await subject.make() as? Store)
    }

    static func endpoint(_ id: String, _ events: Set<AuditEventKind>? = nil, url: String? = nil) -> WebhookEndpointConfig {
        WebhookEndpointConfig(id: id, url: url ?? "https://backend.example/\(id)", events: events)
    }

    /// A new user with one passkey: `user.created` then `credential.registered`.
    @discardableResult
    static func register(_ store: Store, _ byte: UInt8) async throws -> [UInt8] {
        let registration = try Registrations.make(handle: Registrations.handle(byte), name: "user\(byte)")
        return try await store.register(registration, nickname: nil, intent: .newUser, audit: .system).user.handle
    }

    /// A user without a sign-in method: one `user.created`.
    static func createUser(_ store: Store, _ byte: UInt8) async throws {
        _ = try await store.createUser(handle: Registrations.handle(byte), name: "made\(byte)", displayName: "Made", audit: .system)
    }

    static func deliveries(_ store: Store, _ endpoint: String, status: WebhookDeliveryStatus? = nil) async throws -> [WebhookDelivery] {
        try await store.webhookDeliveries(WebhookDeliveryQuery(endpointID: endpoint, status: status, limit: 1000))
    }

    @Test(arguments: StoreUnderTest.all)
    func fanOutFollowsEachEndpointsFilter(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        try await Self.createUser(store, 9)  // before any endpoint: fanned out to none
        try await store.syncWebhookEndpoints([
            Self.endpoint("all"), Self.endpoint("created", [.userCreated]), Self.endpoint("deleted", [.credentialDeleted, .userDeleted]),
        ])
        let handle = try await Self.register(store, 1)
        let all = try await Self.deliveries(store, "all")
        #expect(all.map(\.event.kind) == [.userCreated, .credentialRegistered])
        #expect(all.allSatisfy { $0.status == .pending && $0.attempts == 0 && $0.event.userHandle == handle && $0.nextAttemptAt != nil })
        #expect(try await Self.deliveries(store, "created").map(\.event.kind) == [.userCreated])
        #expect(try await Self.deliveries(store, "deleted").isEmpty)
        #expect(try await store.deleteUser(handle: handle, audit: .system))
        #expect(try await Self.deliveries(store, "deleted").map(\.event.kind) == [.credentialDeleted, .userDeleted])
        #expect(try await Self.deliveries(store, "all").count == 4)
        // The event is the audit row itself.
        let events = try await store.auditEvents(AuditQuery(limit: 100))
        #expect(Set(try await Self.deliveries(store, "all").map(\.event)).isSubset(of: Set(events)))
    }

    @Test(arguments: StoreUnderTest.all)
    func removedEndpointsGetNothingPausedOnesWait(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        try await store.syncWebhookEndpoints([Self.endpoint("a"), Self.endpoint("b")])
        #expect(try await store.setWebhookEndpointPaused(id: "a", paused: true))
        #expect(try await !store.setWebhookEndpointPaused(id: "nope", paused: true))
        try await store.syncWebhookEndpoints([Self.endpoint("a", [.userCreated], url: "https://moved.example/a")])
        let endpoints = try await store.webhookEndpoints()
        #expect(endpoints == [
            WebhookEndpointState(id: "a", url: "https://moved.example/a", events: [.userCreated], paused: true, removed: false),
            WebhookEndpointState(id: "b", url: "https://backend.example/b", events: nil, paused: false, removed: true),
        ], "sync keeps the paused flag and marks the missing endpoint removed")
        #expect(try await !store.setWebhookEndpointPaused(id: "b", paused: true), "removed")
        try await Self.createUser(store, 1)
        #expect(try await Self.deliveries(store, "a").count == 1, "a paused endpoint still receives deliveries")
        #expect(try await Self.deliveries(store, "b").isEmpty, "a removed one does not")
        #expect(try await store.leaseWebhookDeliveries(owner: "w1", limit: 10, leaseSeconds: 30).isEmpty, "paused: nothing sent")
        #expect(try await store.outboxStats().pending == 0)
        #expect(try await store.setWebhookEndpointPaused(id: "a", paused: false))
        #expect(try await store.leaseWebhookDeliveries(owner: "w1", limit: 10, leaseSeconds: 30).count == 1)
        // Back in the settings: no longer removed, receives again.
        try await store.syncWebhookEndpoints([Self.endpoint("a"), Self.endpoint("b")])
        #expect(try await store.webhookEndpoints().allSatisfy { !$0.removed && !$0.paused })
        try await Self.createUser(store, 2)
        #expect(try await Self.deliveries(store, "b").count == 1)
        // Removed with pending deliveries: they are neither leased nor counted.
        try await store.syncWebhookEndpoints([Self.endpoint("a")])
        let leased = try await store.leaseWebhookDeliveries(owner: "w2", limit: 10, leaseSeconds: 30)
        #expect(leased.map(\.endpointID) == ["a"])
    }

    @Test(arguments: StoreUnderTest.all)
    func twoOwnersNeverLeaseTheSameDelivery(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        try await store.syncWebhookEndpoints([Self.endpoint("a"), Self.endpoint("b")])
        for byte in UInt8(1)...30 { try await Self.createUser(store, byte) }
        let owners = (0..<6).map { "owner\($0)" }
        let leased = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for owner in owners {
                group.addTask {
                    var mine: [Int64] = []
                    for _ in 0..<5 { mine += try await store.leaseWebhookDeliveries(owner: owner, limit: 3, leaseSeconds: 60).map(\.id) }
                    return mine
                }
            }
            var all: [[Int64]] = []
            for try await ids in group { all.append(ids) }
            return all
        }
        let flat = leased.flatMap { $0 }
        #expect(flat.count == Set(flat).count, "no delivery leased twice")
        #expect(flat.count == 60, "every delivery leased once (6 owners x 5 rounds x 3 >= 60)")
        #expect(try await store.leaseWebhookDeliveries(owner: "late", limit: 10, leaseSeconds: 60).isEmpty)
    }

    @Test(arguments: StoreUnderTest.all)
    func anExpiredLeaseCanBeTakenAndTheFirstOwnerIsRefused(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        try await store.syncWebhookEndpoints([Self.endpoint("a")])
        try await Self.createUser(store, 1)
        // 5 s, not 1: under a parallel full run the next statement once came more than a second later.
        let first = try await store.leaseWebhookDeliveries(owner: "w1", limit: 10, leaseSeconds: 5)
        #expect(first.count == 1)
        #expect(try await store.leaseWebhookDeliveries(owner: "w2", limit: 10, leaseSeconds: 60).isEmpty, "still leased")
        try await Task.sleep(for: .milliseconds(5_300))
        let second = try await store.leaseWebhookDeliveries(owner: "w2", limit: 10, leaseSeconds: 60)
        #expect(second.map(\.id) == first.map(\.id))
        let id = try #require(first.first?.id)
        #expect(try await !store.recordAttempt(delivery: id, owner: "w1", outcome: .delivered(statusCode: 200)), "no longer w1's")
        #expect(try await Self.deliveries(store, "a").first?.attempts == 0, "nothing changed")
        #expect(try await store.recordAttempt(delivery: id, owner: "w2", outcome: .delivered(statusCode: 204)))
        #expect(try await !store.recordAttempt(delivery: id, owner: "w2", outcome: .delivered(statusCode: 204)), "lease released")
    }

    @Test(arguments: StoreUnderTest.all)
    func oneUsersEventsReachAnEndpointInOrder(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        try await store.syncWebhookEndpoints([Self.endpoint("a"), Self.endpoint("b")])
        try await Self.register(store, 1)  // user.created, credential.registered of one user
        var leased = try await store.leaseWebhookDeliveries(owner: "w", limit: 10, leaseSeconds: 60)
        #expect(leased.map(\.event.kind) == [.userCreated, .userCreated], "only the oldest pending one per endpoint")
        #expect(Set(leased.map(\.endpointID)) == ["a", "b"])
        // A retry due now keeps the later one back.
        let a = try #require(leased.first { $0.endpointID == "a" })
        let b = try #require(leased.first { $0.endpointID == "b" })
        #expect(try await store.recordAttempt(delivery: a.id, owner: "w", outcome: .retry(at: Date(timeIntervalSinceNow: -5), statusCode: 503, error: "unavailable")))
        #expect(try await store.recordAttempt(delivery: b.id, owner: "w", outcome: .delivered(statusCode: 200)))
        leased = try await store.leaseWebhookDeliveries(owner: "w", limit: 10, leaseSeconds: 60)
        #expect(leased.map(\.id).sorted() == [a.id, try #require(try await Self.deliveries(store, "b").last?.id)].sorted())
        #expect(leased.first { $0.endpointID == "a" }?.event.kind == .userCreated)
        #expect(leased.first { $0.endpointID == "b" }?.event.kind == .credentialRegistered)
        // Failed for good: no longer holds the next one back.
        #expect(try await store.recordAttempt(delivery: a.id, owner: "w", outcome: .failed(statusCode: 410, error: "gone")))
        leased = try await store.leaseWebhookDeliveries(owner: "w", limit: 10, leaseSeconds: 60)
        #expect(leased.map(\.event.kind) == [.credentialRegistered] && leased.first?.endpointID == "a")
        // Events without a user are not ordered: all leased at once.
        let keys = [UInt8(7), 8].map { byte in
            AttestedAppAttestKey(keyID: Array(repeating: byte, count: 32), publicKeySPKI: [0x30], appID: "ABCDE12345.com.example.app",
                                 environment: .production, receipt: [1])
        }
        for key in keys { _ = try await store.saveAppAttestKey(key, userHandle: nil, audit: .system) }
        leased = try await store.leaseWebhookDeliveries(owner: "w", limit: 10, leaseSeconds: 60)
        #expect(leased.filter { $0.event.kind == .appAttestKeyRegistered }.count == 4)
    }

    @Test(arguments: StoreUnderTest.all)
    func attemptsMoveADeliveryAndRedeliverBringsItBack(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        try await store.syncWebhookEndpoints([Self.endpoint("a")])
        try await Self.createUser(store, 1)
        var leased = try await store.leaseWebhookDeliveries(owner: "w", limit: 10, leaseSeconds: 60)
        let id = try #require(leased.first?.id)
        #expect(try await !store.recordAttempt(delivery: id, owner: "other", outcome: .delivered(statusCode: 200)), "not the owner")
        let retryAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3_600).rounded())
        let long = String(repeating: "x", count: 800)
        #expect(try await store.recordAttempt(delivery: id, owner: "w", outcome: .retry(at: retryAt, statusCode: nil, error: long)))
        var delivery = try #require(try await Self.deliveries(store, "a").first)
        let created = delivery.pendingSince
        #expect(delivery.status == .pending && delivery.attempts == 1 && delivery.nextAttemptAt == retryAt)
        #expect(delivery.lastStatusCode == nil && delivery.lastError?.count == 500 && delivery.lastAttemptAt != nil)
        #expect(try await store.leaseWebhookDeliveries(owner: "w", limit: 10, leaseSeconds: 60).isEmpty, "not due yet")
        #expect(try await store.redeliver(delivery: id), "a pending one is made due now")
        leased = try await store.leaseWebhookDeliveries(owner: "w", limit: 10, leaseSeconds: 60)
        #expect(leased.map(\.id) == [id])
        #expect(leased.first?.pendingSince == created, "a pending delivery redelivered keeps its retry window")
        #expect(try await store.recordAttempt(delivery: id, owner: "w", outcome: .failed(statusCode: 400, error: "bad request")))
        delivery = try #require(try await Self.deliveries(store, "a").first)
        #expect(delivery.status == .failed && delivery.attempts == 2 && delivery.lastStatusCode == 400 && delivery.nextAttemptAt == nil)
        #expect(try await store.leaseWebhookDeliveries(owner: "w", limit: 10, leaseSeconds: 60).isEmpty)
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await store.redeliver(delivery: id))
        #expect(try await !store.redeliver(delivery: 999_999), "unknown")
        delivery = try #require(try await Self.deliveries(store, "a").first)
        #expect(delivery.status == .pending && delivery.attempts == 2, "attempts are kept")
        #expect(delivery.pendingSince > created, "a failed delivery redelivered gets a retry window of its own")
        leased = try await store.leaseWebhookDeliveries(owner: "w2", limit: 10, leaseSeconds: 60)
        #expect(try await store.recordAttempt(delivery: id, owner: "w2", outcome: .delivered(statusCode: 202)))
        delivery = try #require(try await Self.deliveries(store, "a").first)
        #expect(delivery.status == .delivered && delivery.attempts == 3 && delivery.lastStatusCode == 202 && delivery.lastError == nil)
        #expect(delivery.deliveredAt != nil && delivery.nextAttemptAt == nil)
        #expect(try await !store.recordAttempt(delivery: id, owner: "w2", outcome: .failed(statusCode: nil, error: "late")))
    }

    @Test(arguments: StoreUnderTest.all)
    func deliveriesArePagedAndFilteredAndCounted(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        #expect(try await store.outboxStats() == OutboxStats(pending: 0, oldestPendingSince: nil))
        try await store.syncWebhookEndpoints([Self.endpoint("a"), Self.endpoint("p")])
        for byte in UInt8(1)...5 { try await Self.createUser(store, byte) }
        #expect(try await store.setWebhookEndpointPaused(id: "p", paused: true))
        let all = try await Self.deliveries(store, "a")
        #expect(all.count == 5 && all.map(\.id) == all.map(\.id).sorted())
        let page1 = try await store.webhookDeliveries(WebhookDeliveryQuery(endpointID: "a", limit: 2))
        let page2 = try await store.webhookDeliveries(WebhookDeliveryQuery(endpointID: "a", after: page1.last?.id, limit: 2))
        let page3 = try await store.webhookDeliveries(WebhookDeliveryQuery(endpointID: "a", after: page2.last?.id, limit: 2))
        #expect((page1 + page2 + page3).map(\.id) == all.map(\.id) && page3.count == 1)
        #expect(try await store.webhookDeliveries(WebhookDeliveryQuery(endpointID: "nope")).isEmpty)
        var stats = try await store.outboxStats()
        #expect(stats.pending == 5, "the paused endpoint's are not counted")
        let oldest = try #require(stats.oldestPendingSince)
        #expect(abs(oldest.timeIntervalSinceNow) < 60)
        for delivery in try await store.leaseWebhookDeliveries(owner: "w", limit: 2, leaseSeconds: 60) {
            #expect(try await store.recordAttempt(delivery: delivery.id, owner: "w", outcome: .delivered(statusCode: 200)))
        }
        #expect(try await Self.deliveries(store, "a", status: .delivered).count == 2)
        #expect(try await Self.deliveries(store, "a", status: .pending).count == 3)
        #expect(try await Self.deliveries(store, "a", status: .failed).isEmpty)
        stats = try await store.outboxStats()
        #expect(stats.pending == 3)
    }
}
