public import AppleSignedData
public import Foundation
public import Metrics
public import PasskeyStore
import Synchronization

/// App Store signed data as the API runs it: the pure verification of AppleSignedData, then the store. No HTTP.
public struct AppStoreService: Sendable {
    public let policy: AppStorePolicy
    public let store: any AppStoreStore
    /// The clock the use case reads (injected; tests set it).
    public let now: @Sendable () -> Date
    let metrics: AppStoreMetrics

    /// - Parameters:
    ///   - policy: roots, bundle id, environments, app Apple id, product allow-list.
    ///   - store: where verified data is kept.
    ///   - metricsFactory: where `passkeyd_appstore_notifications_total` goes (the global factory by default).
    ///   - now: the clock.
    public init(
        policy: AppStorePolicy, store: any AppStoreStore, metricsFactory: (any MetricsFactory)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.policy = policy
        self.store = store
        self.now = now
        self.metrics = AppStoreMetrics(factory: metricsFactory ?? MetricsSystem.factory)
    }

    /// What a posted transaction did, and the user's entitlements after it.
    public struct TransactionResult: Sendable {
        public let transaction: AppStoreTransaction
        public let outcome: AppStoreSaveOutcome
        public let entitlements: [AppStoreEntitlement]
    }

    /// Verifies a StoreKit `jwsRepresentation` and keeps it for the user.
    /// - Throws: ``AppStoreError`` (verification; `appstore_app_account_token_mismatch` when the purchase names another
    ///   user), ``StoreError`` (`user_unknown`, `appstore_transaction_owned_elsewhere`, storage).
    public func postTransaction(
        _ signed: some Collection<UInt8>, userHandle: [UInt8], audit: AuditContext = .system
    ) async throws -> TransactionResult {
        let clock = now()
        let transaction = try AppStoreTransaction(AppStoreJWS.verify(signed, policy: policy, now: clock), policy: policy)
        if let token = transaction.appAccountToken, token != AppAccountToken.derive(userHandle: userHandle) {
            throw AppStoreError(.appAccountTokenMismatch, "the transaction's appAccountToken names another user")
        }
        let outcome = try await store.saveTransaction(transaction, forUser: userHandle, audit: audit)
        let records = try await store.appStoreRecords(ofUser: userHandle) ?? AppStoreRecords(transactions: [], renewals: [:])
        return TransactionResult(
            transaction: transaction, outcome: outcome,
            entitlements: AppStoreEntitlements.compute(
                transactions: records.transactions, renewals: records.renewals, now: Self.milliseconds(clock)))
    }

    /// Verifies StoreKit renewal information and keeps it; returns it with the purchase's user, when known.
    public func postRenewalInfo(_ signed: some Collection<UInt8>) async throws -> (AppStoreRenewalInfo, [UInt8]?) {
        let renewal = try AppStoreRenewalInfo(AppStoreJWS.verify(signed, policy: policy, now: now()), policy: policy)
        return (renewal, try await store.saveRenewalInfo(renewal))
    }

    /// Verifies an App Store Server Notification V2 and applies it (idempotent by its UUID).
    public func receiveNotification(
        _ signedPayload: some Collection<UInt8>, audit: AuditContext = .system
    ) async throws -> (AppStoreNotification, AppStoreNotificationOutcome) {
        let notification: AppStoreNotification
        do {
            notification = try AppStoreNotification.verify(signedPayload: signedPayload, policy: policy, now: now())
        } catch {
            metrics.recordNotification(type: nil, outcome: error.code.rawValue)
            throw error
        }
        let outcome = try await store.applyNotification(notification, audit: audit)
        metrics.recordNotification(
            type: notification.notificationType,
            outcome: outcome.duplicate ? "duplicate" : notification.ignoredProductID == nil ? "applied" : "ignored_product")
        return (notification, outcome)
    }

    /// What the user's purchases grant now; nil when there is no such user.
    public func entitlements(userHandle: [UInt8]) async throws -> [AppStoreEntitlement]? {
        guard let records = try await store.appStoreRecords(ofUser: userHandle) else { return nil }
        return AppStoreEntitlements.compute(
            transactions: records.transactions, renewals: records.renewals, now: Self.milliseconds(now()))
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// `passkeyd_appstore_notifications_total{type, outcome}`: notifications by Apple's type (only verified ones carry
/// theirs; others count as `unverified`) and outcome (`applied`, `duplicate`, `ignored_product` for a product outside
/// the allow-list, or the refusal's code).
final class AppStoreMetrics: Sendable {
    static let notifications = "passkeyd_appstore_notifications_total"
    private let factory: any MetricsFactory
    private let counters = Mutex<[String: Counter]>([:])

    init(factory: any MetricsFactory) { self.factory = factory }

    /// - Parameter type: Apple's `notificationType` of a verified notification; nil for one that did not verify.
    func recordNotification(type: String?, outcome: String) {
        // Apple's types are a short list of upper-case words; anything else is folded so labels stay bounded.
        let type = type.map { $0.utf8.count <= 48 && $0.allSatisfy({ $0.isUppercase || $0 == "_" }) ? $0 : "other" } ?? "unverified"
        let key = type + "\u{0}" + outcome
        let counter = counters.withLock { counters -> Counter in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: Self.notifications, dimensions: [("type", type), ("outcome", outcome)], factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
    }
}
