public import AppleSignedData
public import Foundation

/// When a kept App Store transaction changes a user's entitlement, and the `details` of its
/// `appstore.entitlement_changed` event. Pure: both stores call it with what they kept, in the step that keeps it.
public enum EntitlementChange: String, Sendable, Hashable, CaseIterable {
    /// The first transaction of a purchase (`transactionId` = `originalTransactionId`) was kept.
    case purchase
    /// A later transaction of a purchase (a subscription's renewal) was kept.
    case renewal
    /// An `EXPIRED` or `GRACE_PERIOD_EXPIRED` notification's transaction was kept.
    case expiry
    /// A kept transaction gained a `revocationDate` (Apple refunded it).
    case refund
    /// A kept transaction gained a `revocationDate` through a `REVOKE` notification (Family Sharing access withdrawn).
    case revocation

    /// The change a kept transaction makes, or nil when it makes none (a copy that changed nothing new, a consumable).
    /// - Parameters:
    ///   - written: the transaction just written.
    ///   - outcome: how it was kept (``AppStoreSaveOutcome/unchanged``: nothing was written, no change).
    ///   - keptRevocationDate: the revocation date of the copy it replaced (nil when none or not revoked).
    ///   - notificationType: the notification that carried it, nil for a transaction posted by the app.
    public static func of(
        _ written: AppStoreTransaction, outcome: AppStoreSaveOutcome, keptRevocationDate: Int64?, notificationType: String?
    ) -> EntitlementChange? {
        guard outcome != .unchanged, written.type != AppStoreTransaction.consumable else { return nil }
        if written.revocationDate != nil, keptRevocationDate == nil { return notificationType == "REVOKE" ? .revocation : .refund }
        if outcome == .inserted { return written.transactionID == written.originalTransactionID ? .purchase : .renewal }
        if notificationType == "EXPIRED" || notificationType == "GRACE_PERIOD_EXPIRED" { return .expiry }
        return nil
    }

    /// The event's details: `product_id`, `change`, `state` (the written transaction's entitlement status at `now`:
    /// active, grace_period, expired, revoked, upgraded), `original_transaction_id` and `transaction_id`.
    public func details(_ written: AppStoreTransaction, now: Date) -> [String: String] {
        let milliseconds = Int64((now.timeIntervalSince1970 * 1_000).rounded(.down))
        let state = AppStoreEntitlements.compute(transactions: [written], renewals: [:], now: milliseconds).first?.status.rawValue
        return [
            "product_id": written.productID, "change": rawValue, "state": state ?? AppStoreEntitlement.Status.active.rawValue,
            "original_transaction_id": written.originalTransactionID, "transaction_id": written.transactionID,
        ]
    }
}
