import AppleSignedData
import Foundation
import PasskeyStore
import Testing
import WebAuthnCore

/// Verified App Store data behaves the same in both stores: a purchase belongs to one user for good, every record is
/// idempotent and only a copy that is not older replaces the kept one, a notification applies once, a notification
/// finds its user by the appAccountToken derived from the user handle (in PostgreSQL: the generated column of
/// migration 0009, which must agree with AppAccountToken.derive), and deleting a user deletes their purchases.
@Suite("App Store store conformance")
struct AppStoreStoreConformanceTests {
    typealias Store = any PasskeyStore & AppStoreStore

    static func store(_ subject: StoreUnderTest) async throws -> Store {
        try #require(try await subject.make() as? Store)
    }

    static func user(_ store: Store, _ byte: UInt8) async throws -> [UInt8] {
        let registration = try Registrations.make(handle: Registrations.handle(byte), name: "buyer\(byte)")
        return try await store.register(registration, nickname: nil, intent: .newUser, audit: .system).0.handle
    }

    static func transaction(
        _ id: String, original: String, signed: Int64, expires: Int64? = 2_000, revocation: Int64? = nil, token: String? = nil
    ) -> AppStoreTransaction {
        AppStoreTransaction(
            transactionID: id, originalTransactionID: original, bundleID: "com.example", productID: "com.example.monthly",
            type: AppStoreTransaction.autoRenewable, environment: .sandbox, purchaseDate: signed, originalPurchaseDate: signed,
            expiresDate: expires, revocationDate: revocation, revocationReason: revocation == nil ? nil : 1, appAccountToken: token,
            ownershipType: "PURCHASED", isUpgraded: false, signedDate: signed, payload: Array(#"{"transactionId":"\#(id)"}"#.utf8))
    }

    static func renewal(_ original: String, signed: Int64, autoRenew: Int64) -> AppStoreRenewalInfo {
        AppStoreRenewalInfo(
            originalTransactionID: original, productID: "com.example.monthly", autoRenewProductID: "com.example.monthly",
            autoRenewStatus: autoRenew, expirationIntent: nil, isInBillingRetryPeriod: false, gracePeriodExpiresDate: nil,
            renewalDate: nil, environment: .sandbox, signedDate: signed, payload: Array(#"{"autoRenewStatus":\#(autoRenew)}"#.utf8))
    }

    static func notification(_ uuid: String, transaction: AppStoreTransaction?, renewal: AppStoreRenewalInfo? = nil) -> AppStoreNotification {
        AppStoreNotification(
            notificationUUID: uuid, notificationType: "DID_RENEW", subtype: nil, signedDate: transaction?.signedDate,
            environment: .sandbox, transaction: transaction, renewalInfo: renewal, payload: Array("{}".utf8))
    }

    @Test(arguments: StoreUnderTest.all)
    func transactionsAreIdempotentAndNeverRolledBack(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let alice = try await Self.user(store, 1)
        await #expect(throws: StoreError(.userUnknown)) {
            _ = try await store.saveTransaction(Self.transaction("1", original: "1", signed: 100), forUser: Registrations.handle(9))
        }
        #expect(try await store.appStoreRecords(ofUser: Registrations.handle(9)) == nil)
        #expect(try await store.appStoreRecords(ofUser: alice) == AppStoreRecords(transactions: [], renewals: [:]))

        #expect(try await store.saveTransaction(Self.transaction("1", original: "1", signed: 100), forUser: alice) == .inserted)
        #expect(try await store.saveTransaction(Self.transaction("1", original: "1", signed: 100), forUser: alice) == .updated)
        let refunded = Self.transaction("1", original: "1", signed: 200, revocation: 150)
        #expect(try await store.saveTransaction(refunded, forUser: alice) == .updated)
        // The old copy again (a replay): the refund stays.
        #expect(try await store.saveTransaction(Self.transaction("1", original: "1", signed: 100), forUser: alice) == .unchanged)
        #expect(try await store.saveTransaction(Self.transaction("2", original: "1", signed: 300), forUser: alice) == .inserted)
        let records = try #require(try await store.appStoreRecords(ofUser: alice))
        #expect(records.transactions.map(\.transactionID) == ["1", "2"])
        #expect(records.transactions.first?.revocationDate == 150)
        #expect(records.transactions.first?.payload.isEmpty == false)
    }

    @Test(arguments: StoreUnderTest.all)
    func aPurchaseBelongsToOneUser(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let alice = try await Self.user(store, 1)
        let bob = try await Self.user(store, 2)
        _ = try await store.saveTransaction(Self.transaction("1", original: "1", signed: 100), forUser: alice)
        await #expect(throws: StoreError(.appStoreTransactionOwnedElsewhere)) {
            _ = try await store.saveTransaction(Self.transaction("1", original: "1", signed: 100), forUser: bob)
        }
        // A renewal of Alice's purchase posted for Bob: refused too, and nothing of it is kept.
        await #expect(throws: StoreError(.appStoreTransactionOwnedElsewhere)) {
            _ = try await store.saveTransaction(Self.transaction("2", original: "1", signed: 200), forUser: bob)
        }
        #expect(try await store.appStoreRecords(ofUser: bob)?.transactions.isEmpty == true)
        #expect(try await store.appStoreRecords(ofUser: alice)?.transactions.map(\.transactionID) == ["1"])
    }

    @Test(arguments: StoreUnderTest.all)
    func concurrentClaimsOfOnePurchaseHaveOneWinner(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let alice = try await Self.user(store, 1)
        let bob = try await Self.user(store, 2)
        for round in 0..<6 {
            let original = "race-\(round)"
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for (index, user) in [alice, bob].enumerated() {
                    group.addTask {
                        // Each posts its own copy (another transaction id) of the same purchase.
                        (try? await store.saveTransaction(Self.transaction("\(original)-\(index)", original: original, signed: 100), forUser: user)) != nil
                    }
                }
                var won: [Bool] = []
                for await outcome in group { won.append(outcome) }
                return won
            }
            #expect(outcomes.filter { $0 }.count == 1, "round \(round): \(outcomes)")
            let aliceHas = try await store.appStoreRecords(ofUser: alice)?.transactions.contains { $0.originalTransactionID == original } ?? false
            let bobHas = try await store.appStoreRecords(ofUser: bob)?.transactions.contains { $0.originalTransactionID == original } ?? false
            #expect(aliceHas != bobHas, "round \(round): exactly one owner keeps it")
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func notificationsApplyOnceAndFindTheirUserByAppAccountToken(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let alice = try await Self.user(store, 1)
        let token = AppAccountToken.derive(userHandle: alice)
        // Nobody posted purchase 7 yet: the transaction's appAccountToken names Alice.
        let first = Self.notification("n-1", transaction: Self.transaction("7", original: "7", signed: 100, token: token))
        #expect(try await store.applyNotification(first) == AppStoreNotificationOutcome(duplicate: false, userHandle: alice))
        // The same UUID again with other data (a replay): nothing applied.
        let replay = Self.notification("n-1", transaction: Self.transaction("7", original: "7", signed: 500, revocation: 400, token: token))
        #expect(try await store.applyNotification(replay) == AppStoreNotificationOutcome(duplicate: true, userHandle: nil))
        var records = try #require(try await store.appStoreRecords(ofUser: alice))
        #expect(records.transactions.map(\.revocationDate) == [nil])
        // A new notification (refund) applies, with its renewal information.
        let refund = Self.notification(
            "n-2", transaction: Self.transaction("7", original: "7", signed: 500, revocation: 400),
            renewal: Self.renewal("7", signed: 500, autoRenew: 0))
        #expect(try await store.applyNotification(refund) == AppStoreNotificationOutcome(duplicate: false, userHandle: alice))
        records = try #require(try await store.appStoreRecords(ofUser: alice))
        #expect(records.transactions.map(\.revocationDate) == [400])
        #expect(records.renewals["7"]?.autoRenewStatus == 0)

        // No token and nobody posted it: kept without a user until someone posts it.
        let orphan = Self.notification("n-3", transaction: Self.transaction("8", original: "8", signed: 100))
        #expect(try await store.applyNotification(orphan) == AppStoreNotificationOutcome(duplicate: false, userHandle: nil))
        #expect(try await store.saveTransaction(Self.transaction("8", original: "8", signed: 100), forUser: alice) == .updated)
        #expect(try await store.appStoreRecords(ofUser: alice)?.transactions.map(\.transactionID) == ["7", "8"])
        // A notification without a transaction (TEST, summary) is recorded once.
        #expect(try await store.applyNotification(Self.notification("n-4", transaction: nil)).duplicate == false)
        #expect(try await store.applyNotification(Self.notification("n-4", transaction: nil)).duplicate == true)
    }

    @Test(arguments: StoreUnderTest.all)
    func notificationUUIDsArePurgedByAge(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        #expect(try await store.applyNotification(Self.notification("old", transaction: nil)).duplicate == false)
        #expect(try await store.purgeAppStoreNotifications(before: Date().addingTimeInterval(-3600)) == 0, "received just now")
        #expect(try await store.applyNotification(Self.notification("old", transaction: nil)).duplicate == true)
        #expect(try await store.purgeAppStoreNotifications(before: Date().addingTimeInterval(3600)) == 1)
        // Forgotten: the same UUID is applied again (its data cannot undo newer data: the signedDate rule).
        #expect(try await store.applyNotification(Self.notification("old", transaction: nil)).duplicate == false)
    }

    @Test(arguments: StoreUnderTest.all)
    func renewalInformationKeepsTheNewest(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let alice = try await Self.user(store, 1)
        #expect(try await store.saveRenewalInfo(Self.renewal("5", signed: 100, autoRenew: 1)) == nil)
        _ = try await store.saveTransaction(Self.transaction("5", original: "5", signed: 100), forUser: alice)
        #expect(try await store.saveRenewalInfo(Self.renewal("5", signed: 300, autoRenew: 0)) == alice)
        #expect(try await store.saveRenewalInfo(Self.renewal("5", signed: 200, autoRenew: 1)) == alice)
        #expect(try await store.appStoreRecords(ofUser: alice)?.renewals["5"]?.autoRenewStatus == 0)
    }

    @Test(arguments: StoreUnderTest.all)
    func deletingAUserDeletesTheirPurchases(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let alice = try await Self.user(store, 1)
        let bob = try await Self.user(store, 2)
        _ = try await store.saveTransaction(Self.transaction("1", original: "1", signed: 100), forUser: alice)
        _ = try await store.saveRenewalInfo(Self.renewal("1", signed: 100, autoRenew: 1))
        #expect(try await store.deleteUser(handle: alice, audit: .system))
        // The purchase is free again: a new owner can post it.
        #expect(try await store.saveTransaction(Self.transaction("1", original: "1", signed: 100), forUser: bob) == .inserted)
        #expect(try await store.appStoreRecords(ofUser: bob)?.renewals.isEmpty == true)
    }
}
