public import AppleSignedData
public import Foundation

/// How a verified transaction posted for a user was kept.
public enum AppStoreSaveOutcome: Sendable, Equatable {
    /// First seen: kept.
    case inserted
    /// Known, and this copy is at least as recent (its `signedDate`): replaced (e.g. now carrying a revocation).
    case updated
    /// Known, and the kept copy is more recent: nothing changed (an old copy never rolls a purchase back).
    case unchanged
}

/// What applying a verified App Store Server Notification did.
public struct AppStoreNotificationOutcome: Sendable, Equatable {
    /// The notification's UUID was seen before: nothing was applied again (Apple retries with the same UUID).
    public var duplicate: Bool
    /// The user the purchase belongs to, when known (by an earlier post, or by the transaction's appAccountToken);
    /// nil for a duplicate, which looks nothing up.
    public var userHandle: [UInt8]?

    public init(duplicate: Bool, userHandle: [UInt8]?) {
        self.duplicate = duplicate
        self.userHandle = userHandle
    }
}

/// A user's kept App Store data, from which ``AppStoreEntitlements`` computes what is active.
public struct AppStoreRecords: Sendable, Equatable {
    public var transactions: [AppStoreTransaction]
    /// Renewal information by original transaction id.
    public var renewals: [String: AppStoreRenewalInfo]

    public init(transactions: [AppStoreTransaction], renewals: [String: AppStoreRenewalInfo]) {
        self.transactions = transactions
        self.renewals = renewals
    }
}

/// Verified App Store data per user (schema: `Migrations/0009_appstore.sql`).
///
/// A purchase (an original transaction) belongs to at most one user, for good: the first post names the owner, a
/// notification finds it through an earlier post or the transaction's appAccountToken (``AppAccountToken``), and a
/// purchase nobody claimed yet is kept without a user until one posts it. Every record is idempotent: transactions by
/// `transactionId`, renewal information by original transaction, notifications by `notificationUUID`; a copy replaces
/// the kept one only when its `signedDate` is not older. Deleting a user deletes their purchases.
public protocol AppStoreStore: Sendable {
    /// Keeps a verified transaction for the user; when that changes the user's entitlement (``EntitlementChange``),
    /// its `appstore.entitlement_changed` event is written in the same atomic step.
    /// - Throws: ``StoreError/Code/userUnknown``; ``StoreError/Code/appStoreTransactionOwnedElsewhere`` when the
    ///   purchase belongs to another user (nothing is written).
    func saveTransaction(
        _ transaction: AppStoreTransaction, forUser handle: [UInt8], audit: AuditContext
    ) async throws(StoreError) -> AppStoreSaveOutcome

    /// Keeps verified renewal information.
    /// - Returns: the handle of the purchase's user, when known.
    func saveRenewalInfo(_ renewal: AppStoreRenewalInfo) async throws(StoreError) -> [UInt8]?

    /// Records a verified notification and applies its transaction and renewal information, all or nothing; a
    /// notification whose UUID is already recorded changes nothing. A transaction that changes the entitlement of a
    /// known user writes its `appstore.entitlement_changed` event in the same step.
    func applyNotification(_ notification: AppStoreNotification, audit: AuditContext) async throws(StoreError) -> AppStoreNotificationOutcome

    /// A user's kept transactions and renewal information; nil when there is no such user.
    func appStoreRecords(ofUser handle: [UInt8]) async throws(StoreError) -> AppStoreRecords?

    /// Forgets the UUIDs of notifications received before `before`.
    /// - Returns: how many were forgotten.
    func purgeAppStoreNotifications(before: Date) async throws(StoreError) -> Int
}

extension StoreError.Code {
    /// The purchase (original transaction) already belongs to another user.
    public static let appStoreTransactionOwnedElsewhere = StoreError.Code(rawValue: "appstore_transaction_owned_elsewhere")
}
