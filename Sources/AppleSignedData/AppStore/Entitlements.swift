public import COSECrypto
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What one purchase (an original transaction and its renewals) grants at a given time.
public struct AppStoreEntitlement: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Purchased and not expired, revoked or upgraded.
        case active
        /// Expired, but Apple is retrying the payment inside the billing grace period: access continues.
        case gracePeriod = "grace_period"
        /// The subscription's period ended.
        case expired
        /// Refunded or revoked by Apple (`revocationDate`).
        case revoked
        /// The customer upgraded to another subscription of the group.
        case upgraded
    }

    /// The latest transaction of the purchase.
    public var transaction: AppStoreTransaction
    /// Its renewal information, if known.
    public var renewalInfo: AppStoreRenewalInfo?
    public var status: Status

    /// Whether the purchase grants access now.
    public var isActive: Bool { status == .active || status == .gracePeriod }
}

/// Entitlements from kept transactions: pure, with the clock passed in.
public enum AppStoreEntitlements {
    /// For each original transaction, its latest transaction (``isLater(_:than:)``) and status at `now`. Consumables
    /// grant nothing lasting and are left out. The result does not depend on the order of `transactions`.
    /// - Parameters:
    ///   - transactions: a user's verified transactions, any order.
    ///   - renewals: renewal information by original transaction id.
    ///   - now: the clock, Unix milliseconds.
    /// - Returns: one entitlement per original transaction, ordered by product id then original transaction id.
    public static func compute(
        transactions: [AppStoreTransaction], renewals: [String: AppStoreRenewalInfo], now: Int64
    ) -> [AppStoreEntitlement] {
        var latest: [String: AppStoreTransaction] = [:]
        for transaction in transactions where transaction.type != AppStoreTransaction.consumable {
            let key = transaction.originalTransactionID
            if let kept = latest[key], !isLater(transaction, than: kept) { continue }
            latest[key] = transaction
        }
        return latest.values.map { transaction in
            let renewal = renewals[transaction.originalTransactionID]
            return AppStoreEntitlement(
                transaction: transaction, renewalInfo: renewal, status: status(transaction, renewal, now: now))
        }
        .sorted { ($0.transaction.productID, $0.transaction.originalTransactionID) < ($1.transaction.productID, $1.transaction.originalTransactionID) }
    }

    /// The total order that picks a purchase's latest transaction: the later `purchaseDate`; on a tie the later
    /// `expiresDate` (absent is earliest); then the later `signedDate` (absent is earliest); then the greater
    /// `transactionId`, compared as a number (Apple's ids are decimal digits: the longer one is greater, equal
    /// lengths compare character by character). Two different transactions are never tied.
    public static func isLater(_ a: AppStoreTransaction, than b: AppStoreTransaction) -> Bool {
        if a.purchaseDate != b.purchaseDate { return a.purchaseDate > b.purchaseDate }
        if a.expiresDate != b.expiresDate { return (a.expiresDate ?? .min) > (b.expiresDate ?? .min) }
        if a.signedDate != b.signedDate { return (a.signedDate ?? .min) > (b.signedDate ?? .min) }
        let (x, y) = (a.transactionID.utf8, b.transactionID.utf8)
        if x.count != y.count { return x.count > y.count }
        return y.lexicographicallyPrecedes(x)
    }

    static func status(_ transaction: AppStoreTransaction, _ renewal: AppStoreRenewalInfo?, now: Int64) -> AppStoreEntitlement.Status {
        if let revoked = transaction.revocationDate, revoked <= now { return .revoked }
        if transaction.isUpgraded { return .upgraded }
        guard let expires = transaction.expiresDate else { return .active }  // non-consumable
        if now < expires { return .active }
        if let grace = renewal?.gracePeriodExpiresDate, now < grace { return .gracePeriod }
        return .expired
    }
}

/// The `appAccountToken` an app sets on its purchases (`Product.PurchaseOption.appAccountToken(_:)`) so that a
/// transaction names the passkeyd user it belongs to: a UUID derived from the user handle,
/// SHA-256("passkeyd-app-account-token:" ‖ handle)[0..<16] with the RFC 9562 version 8 and variant bits set.
/// Migration 0009 computes the same value in SQL (`users.app_account_token`), so a notification finds its user.
public enum AppAccountToken {
    static let prefix = Array("passkeyd-app-account-token:".utf8)

    /// The token of a user, as a lowercase UUID string.
    public static func derive(userHandle: [UInt8]) -> String {
        var bytes = Array(Digest.sha256(prefix + userHandle).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString.lowercased()
    }
}
