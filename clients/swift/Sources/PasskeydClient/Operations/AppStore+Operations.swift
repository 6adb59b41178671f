// The App Store (PASSKEYD_APPSTORE_*): StoreKit 2 transactions and renewals as the app or Apple sends them (compact
// JWS), Apple's server notifications, and the entitlements they grant.

extension PasskeydClient {
    /// Verifies and stores a transaction the app got from StoreKit for this user (its appAccountToken must be the
    /// user's: else 422 `appstore_app_account_token_mismatch`).
    public func appStorePostTransaction(userId: String, signedTransaction: String) async throws -> AppStoreTransactionResponse {
        try await call(.appStorePostTransaction, body: AppStoreTransactionBody(userId: userId, signedTransaction: signedTransaction))
    }

    /// Verifies and stores a subscription's renewal information.
    public func appStorePostRenewalInfo(signedRenewalInfo: String) async throws -> AppStoreRenewalResponse {
        try await call(.appStorePostRenewalInfo, body: AppStoreRenewalBody(signedRenewalInfo: signedRenewalInfo))
    }

    /// Applies an App Store Server Notification V2 (as Apple posts it; the route is public). A replay is answered
    /// with `duplicate` true.
    public func appStoreNotification(signedPayload: String) async throws -> AppStoreNotificationResponse {
        try await call(.appStoreNotification, body: AppStoreNotificationBody(signedPayload: signedPayload))
    }

    /// What the user's purchases grant now, and the user's appAccountToken for the app's purchases.
    public func appStoreEntitlements(userId: String) async throws -> EntitlementsResponse {
        try await call(.appStoreEntitlements, path: ["userId": userId])
    }
}
