// The App Store (PASSKEYD_APPSTORE_*): verified StoreKit transactions and renewals, Apple's notifications, and the
// entitlements they grant. Dates are Unix milliseconds.

public struct AppStoreTransactionResponse: Sendable, Codable, Equatable {
    public var userId: String
    /// The user's appAccountToken (a UUID): pass it to `Product.PurchaseOption.appAccountToken(_:)`.
    public var appAccountToken: String
    /// `inserted`, `updated` or `unchanged` (the kept copy is newer).
    public var stored: String
    public var transaction: AppStoreTransaction
    /// Active now.
    public var entitlements: [AppStoreEntitlement]
}

public struct AppStoreRenewalResponse: Sendable, Codable, Equatable {
    /// The purchase's user, when known.
    public var userId: String?
    public var renewalInfo: AppStoreRenewalInfo
}

public struct AppStoreNotificationResponse: Sendable, Codable, Equatable {
    public var notificationUUID: String
    public var notificationType: String
    public var subtype: String?
    /// Seen before: nothing was applied again.
    public var duplicate: Bool
}

public struct EntitlementsResponse: Sendable, Codable, Equatable {
    public var userId: String
    public var appAccountToken: String
    /// What grants access now.
    public var entitlements: [AppStoreEntitlement]
    /// Expired, revoked or upgraded purchases.
    public var inactive: [AppStoreEntitlement]
}

/// A verified transaction, with Apple's member names.
public struct AppStoreTransaction: Sendable, Codable, Equatable {
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String
    public var type: String
    /// `Production`, `Sandbox`, `Xcode` or `LocalTesting`.
    public var environment: String
    public var purchaseDate: Int
    public var originalPurchaseDate: Int?
    public var expiresDate: Int?
    public var revocationDate: Int?
    public var revocationReason: Int?
    public var appAccountToken: String?
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    public var isUpgraded: Bool
    public var signedDate: Int?
}

/// Verified renewal information.
public struct AppStoreRenewalInfo: Sendable, Codable, Equatable {
    public var originalTransactionId: String
    public var productId: String?
    public var autoRenewProductId: String?
    public var autoRenew: Bool?
    public var expirationIntent: Int?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Int?
    public var renewalDate: Int?
    public var environment: String
    public var signedDate: Int?
}

/// What one purchase grants.
public struct AppStoreEntitlement: Sendable, Codable, Equatable {
    public var productId: String
    public var originalTransactionId: String
    /// The purchase's latest transaction.
    public var transactionId: String
    public var type: String
    public var environment: String
    /// `active`, `grace_period`, `expired`, `revoked` or `upgraded`.
    public var status: String
    /// Whether it grants access now (`active` or `grace_period`).
    public var active: Bool
    public var purchaseDate: Int
    public var expiresDate: Int?
    public var revocationDate: Int?
    public var revocationReason: Int?
    public var ownershipType: String?
    public var autoRenew: Bool?
    public var autoRenewProductId: String?
    public var gracePeriodExpiresDate: Int?
}
