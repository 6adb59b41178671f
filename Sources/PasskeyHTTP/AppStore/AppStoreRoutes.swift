import PasskeyApp
import AppleSignedData
import Foundation
import Hummingbird
import PasskeyStore
import WebAuthnModel

/// App Store signed data (present when `PASSKEYD_APPSTORE_BUNDLE_ID` is set):
///
///     POST /v1/appstore/transactions    {"userId", "signedTransaction"} → the transaction and the user's entitlements (API key)
///     POST /v1/appstore/renewals        {"signedRenewalInfo"} → the renewal information (API key)
///     POST /v1/appstore/notifications   {"signedPayload"} → 200 once applied and stored (public: Apple's signature is
///                                       its authentication; Apple retries anything else); names no user
///     GET  /v1/users/:userId/entitlements  what the user's purchases grant now (API key)
func addAppStoreRoutes(to router: Router<PasskeyRequestContext>, api: API, service: AppStoreService) {
    api.route(router, .appStoreTransaction) { _, body, _ in
        let members = try api.object(body)
        guard case .string(let userID)? = members["userId"], case .string(let signed)? = members["signedTransaction"] else {
            throw APIError(status: 400, code: "malformed_json", message: "userId and signedTransaction are required strings.")
        }
        let handle = try API.userHandle(userID)
        try api.limitUser(.handle(handle))
        let result = try await service.postTransaction(signed.utf8, userHandle: handle, audit: RequestScope.audit)
        return try api.json(
            status: result.outcome == .inserted ? .created : .ok,
            AppStoreTransactionAnswer(
                userId: userID, appAccountToken: AppAccountToken.derive(userHandle: handle),
                stored: result.outcome.rawValue, transaction: AppStoreTransactionJSON(result.transaction),
                entitlements: result.entitlements.map(EntitlementJSON.init)))
    }
    api.route(router, .appStoreRenewal) { _, body, _ in
        let members = try api.object(body)
        guard case .string(let signed)? = members["signedRenewalInfo"] else {
            throw APIError(status: 400, code: "malformed_json", message: "signedRenewalInfo is a required string.")
        }
        let (renewal, owner) = try await service.postRenewalInfo(signed.utf8)
        return try api.json(status: .ok, AppStoreRenewalAnswer(userId: owner.map(Base64URL.encode), renewalInfo: RenewalInfoJSON(renewal)))
    }
    api.route(router, .appStoreNotification) { _, body, _ in
        let members = try api.object(body)
        guard case .string(let signed)? = members["signedPayload"] else {
            throw APIError(status: 400, code: "malformed_json", message: "signedPayload is a required string.")
        }
        let (notification, outcome) = try await service.receiveNotification(signed.utf8, audit: RequestScope.audit)
        // Public route: the answer names no user and no purchase (Apple reads only the status).
        return try api.json(status: .ok, AppStoreNotificationAnswer(
            notificationUUID: notification.notificationUUID, notificationType: notification.notificationType,
            subtype: notification.subtype, duplicate: outcome.duplicate))
    }
    api.route(router, .appStoreEntitlements) { _, _, context in
        guard let text = context.parameters.get("userId"), let handle = Base64URL.decodeStrict(text), (1...64).contains(handle.count) else {
            throw APIError.invalidParameter("userId must be a user id (base64url).")
        }
        guard let entitlements = try await service.entitlements(userHandle: handle) else { throw APIError.userUnknown }
        return try api.json(status: .ok, EntitlementsAnswer(
            userId: text, appAccountToken: AppAccountToken.derive(userHandle: handle),
            entitlements: entitlements.filter(\.isActive).map(EntitlementJSON.init),
            inactive: entitlements.filter { !$0.isActive }.map(EntitlementJSON.init)))
    }
}


extension AppStoreSaveOutcome {
    var rawValue: String {
        switch self {
        case .inserted: "inserted"
        case .updated: "updated"
        case .unchanged: "unchanged"
        }
    }
}

struct AppStoreTransactionAnswer: Encodable {
    let userId: String
    let appAccountToken: String
    /// `inserted`, `updated` (a newer copy, e.g. with a revocation) or `unchanged` (the kept copy is newer).
    let stored: String
    let transaction: AppStoreTransactionJSON
    let entitlements: [EntitlementJSON]
}

struct AppStoreRenewalAnswer: Encodable {
    let userId: String?
    let renewalInfo: RenewalInfoJSON

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userId, forKey: .userId)
        try container.encode(renewalInfo, forKey: .renewalInfo)
    }

    enum CodingKeys: String, CodingKey { case userId, renewalInfo }
}

struct AppStoreNotificationAnswer: Encodable {
    let notificationUUID: String
    let notificationType: String
    let subtype: String?
    /// The UUID was applied before: nothing changed.
    let duplicate: Bool

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(notificationUUID, forKey: .notificationUUID)
        try container.encode(notificationType, forKey: .notificationType)
        try container.encode(subtype, forKey: .subtype)
        try container.encode(duplicate, forKey: .duplicate)
    }

    enum CodingKeys: String, CodingKey { case notificationUUID, notificationType, subtype, duplicate }
}

struct EntitlementsAnswer: Encodable {
    let userId: String
    let appAccountToken: String
    /// What grants access now.
    let entitlements: [EntitlementJSON]
    /// Expired, revoked or upgraded purchases (latest transaction of each).
    let inactive: [EntitlementJSON]
}

/// A transaction as the API shows it: Apple's member names, dates in Unix milliseconds as Apple sends them, absent
/// members as null.
struct AppStoreTransactionJSON: Encodable {
    let transaction: AppStoreTransaction

    init(_ transaction: AppStoreTransaction) { self.transaction = transaction }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(transaction.transactionID, forKey: .transactionId)
        try container.encode(transaction.originalTransactionID, forKey: .originalTransactionId)
        try container.encode(transaction.productID, forKey: .productId)
        try container.encode(transaction.type, forKey: .type)
        try container.encode(transaction.environment.rawValue, forKey: .environment)
        try container.encode(transaction.purchaseDate, forKey: .purchaseDate)
        try container.encode(transaction.originalPurchaseDate, forKey: .originalPurchaseDate)
        try container.encode(transaction.expiresDate, forKey: .expiresDate)
        try container.encode(transaction.revocationDate, forKey: .revocationDate)
        try container.encode(transaction.revocationReason, forKey: .revocationReason)
        try container.encode(transaction.appAccountToken, forKey: .appAccountToken)
        try container.encode(transaction.ownershipType, forKey: .inAppOwnershipType)
        try container.encode(transaction.isUpgraded, forKey: .isUpgraded)
        try container.encode(transaction.signedDate, forKey: .signedDate)
    }

    enum CodingKeys: String, CodingKey {
        case transactionId, originalTransactionId, productId, type, environment, purchaseDate, originalPurchaseDate,
            expiresDate, revocationDate, revocationReason, appAccountToken, inAppOwnershipType, isUpgraded, signedDate
    }
}

/// Renewal information as the API shows it.
struct RenewalInfoJSON: Encodable {
    let renewal: AppStoreRenewalInfo

    init(_ renewal: AppStoreRenewalInfo) { self.renewal = renewal }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(renewal.originalTransactionID, forKey: .originalTransactionId)
        try container.encode(renewal.productID, forKey: .productId)
        try container.encode(renewal.autoRenewProductID, forKey: .autoRenewProductId)
        try container.encode(renewal.autoRenewStatus.map { $0 == 1 }, forKey: .autoRenew)
        try container.encode(renewal.expirationIntent, forKey: .expirationIntent)
        try container.encode(renewal.isInBillingRetryPeriod, forKey: .isInBillingRetryPeriod)
        try container.encode(renewal.gracePeriodExpiresDate, forKey: .gracePeriodExpiresDate)
        try container.encode(renewal.renewalDate, forKey: .renewalDate)
        try container.encode(renewal.environment.rawValue, forKey: .environment)
        try container.encode(renewal.signedDate, forKey: .signedDate)
    }

    enum CodingKeys: String, CodingKey {
        case originalTransactionId, productId, autoRenewProductId, autoRenew, expirationIntent, isInBillingRetryPeriod,
            gracePeriodExpiresDate, renewalDate, environment, signedDate
    }
}

/// One purchase's entitlement: `{"productId", "originalTransactionId", "transactionId", "type", "environment",
/// "status", "active", "purchaseDate", "expiresDate", "revocationDate", "revocationReason", "ownershipType",
/// "autoRenew", "autoRenewProductId", "gracePeriodExpiresDate"}`.
struct EntitlementJSON: Encodable {
    let entitlement: AppStoreEntitlement

    init(_ entitlement: AppStoreEntitlement) { self.entitlement = entitlement }

    func encode(to encoder: any Encoder) throws {
        let transaction = entitlement.transaction
        let renewal = entitlement.renewalInfo
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(transaction.productID, forKey: .productId)
        try container.encode(transaction.originalTransactionID, forKey: .originalTransactionId)
        try container.encode(transaction.transactionID, forKey: .transactionId)
        try container.encode(transaction.type, forKey: .type)
        try container.encode(transaction.environment.rawValue, forKey: .environment)
        try container.encode(entitlement.status.rawValue, forKey: .status)
        try container.encode(entitlement.isActive, forKey: .active)
        try container.encode(transaction.purchaseDate, forKey: .purchaseDate)
        try container.encode(transaction.expiresDate, forKey: .expiresDate)
        try container.encode(transaction.revocationDate, forKey: .revocationDate)
        try container.encode(transaction.revocationReason, forKey: .revocationReason)
        try container.encode(transaction.ownershipType, forKey: .ownershipType)
        try container.encode(renewal?.autoRenewStatus.map { $0 == 1 }, forKey: .autoRenew)
        try container.encode(renewal?.autoRenewProductID, forKey: .autoRenewProductId)
        try container.encode(renewal?.gracePeriodExpiresDate, forKey: .gracePeriodExpiresDate)
    }

    enum CodingKeys: String, CodingKey {
        case productId, originalTransactionId, transactionId, type, environment, status, active, purchaseDate, expiresDate,
            revocationDate, revocationReason, ownershipType, autoRenew, autoRenewProductId, gracePeriodExpiresDate
    }
}
