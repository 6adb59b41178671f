#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import WebAuthnModel

/// A verified StoreKit transaction (`JWSTransactionDecodedPayload`): the members passkeyd keeps and computes
/// entitlements from. Dates are Unix milliseconds, as Apple sends them.
public struct AppStoreTransaction: Sendable, Equatable {
    public var transactionID: String
    public var originalTransactionID: String
    public var bundleID: String
    public var productID: String
    /// "Auto-Renewable Subscription", "Non-Consumable", "Consumable" or "Non-Renewing Subscription".
    public var type: String
    public var environment: AppStoreEnvironment
    public var purchaseDate: Int64
    public var originalPurchaseDate: Int64?
    public var expiresDate: Int64?
    public var revocationDate: Int64?
    public var revocationReason: Int64?
    /// The UUID the app set on the purchase (lowercased), if any.
    public var appAccountToken: String?
    /// "PURCHASED" or "FAMILY_SHARED".
    public var ownershipType: String?
    /// Set when the customer upgraded to another subscription of the group (this one no longer grants access).
    public var isUpgraded: Bool
    public var signedDate: Int64?
    /// The payload exactly as signed (kept with the record).
    public var payload: [UInt8]

    /// A transaction as kept (the store reads it back with this).
    public init(
        transactionID: String, originalTransactionID: String, bundleID: String, productID: String, type: String,
        environment: AppStoreEnvironment, purchaseDate: Int64, originalPurchaseDate: Int64?, expiresDate: Int64?,
        revocationDate: Int64?, revocationReason: Int64?, appAccountToken: String?, ownershipType: String?, isUpgraded: Bool,
        signedDate: Int64?, payload: [UInt8]
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.bundleID = bundleID
        self.productID = productID
        self.type = type
        self.environment = environment
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.appAccountToken = appAccountToken
        self.ownershipType = ownershipType
        self.isUpgraded = isUpgraded
        self.signedDate = signedDate
        self.payload = payload
    }

    public static let autoRenewable = "Auto-Renewable Subscription"
    public static let consumable = "Consumable"

    /// Decodes and checks a verified transaction: bundle id, environment, product allow-list.
    /// - Throws: ``AppStoreError/Code/payloadMalformed``, ``AppStoreError/Code/bundleIDMismatch``,
    ///   ``AppStoreError/Code/environmentMismatch``, ``AppStoreError/Code/productUnknown``.
    public init(_ verified: VerifiedAppStoreJWS, policy: AppStorePolicy) throws(AppStoreError) {
        let fields = AppStoreFields(verified.payload, "transaction")
        bundleID = try fields.string("bundleId")
        guard bundleID == policy.bundleID else {
            throw AppStoreError(.bundleIDMismatch, "transaction bundleId \(bundleID.prefix(64).debugDescription)")
        }
        environment = try AppStoreTransaction.environment(fields, policy: policy, signed: verified.appleSigned)
        transactionID = try fields.string("transactionId")
        originalTransactionID = try fields.string("originalTransactionId")
        productID = try fields.string("productId")
        type = try fields.string("type")
        purchaseDate = try fields.milliseconds("purchaseDate")
        originalPurchaseDate = try fields.optionalMilliseconds("originalPurchaseDate")
        expiresDate = try fields.optionalMilliseconds("expiresDate")
        revocationDate = try fields.optionalMilliseconds("revocationDate")
        revocationReason = try fields.optionalInteger("revocationReason")
        if let token = try fields.optionalString("appAccountToken") {
            guard let uuid = UUID(uuidString: token) else {
                throw AppStoreError(.payloadMalformed, "transaction.appAccountToken is not a UUID")
            }
            appAccountToken = uuid.uuidString.lowercased()
        } else {
            appAccountToken = nil
        }
        ownershipType = try fields.optionalString("inAppOwnershipType")
        isUpgraded = try fields.optionalBool("isUpgraded") ?? false
        signedDate = try fields.optionalMilliseconds("signedDate")
        payload = verified.payloadBytes
        guard [transactionID, originalTransactionID, productID].allSatisfy({ !$0.isEmpty && $0.utf8.count <= 128 }) else {
            throw AppStoreError(.payloadMalformed, "transaction ids must be 1 to 128 bytes")
        }
        if let allowed = policy.productIDs, !allowed.contains(productID) {
            throw AppStoreError(.productUnknown, "productId \(productID.prefix(64).debugDescription) is not configured")
        }
    }

    /// The `environment` member, checked against the policy.
    static func environment(_ fields: AppStoreFields, policy: AppStorePolicy, signed: Bool) throws(AppStoreError) -> AppStoreEnvironment {
        let name = try fields.string("environment")
        guard let environment = AppStoreEnvironment(rawValue: name), policy.environments.contains(environment),
            environment.isAppleSigned == signed
        else {
            throw AppStoreError(.environmentMismatch, "environment \(name.prefix(32).debugDescription) is not accepted")
        }
        return environment
    }
}

/// Verified subscription renewal information (`JWSRenewalInfoDecodedPayload`). It carries no bundle id.
public struct AppStoreRenewalInfo: Sendable, Equatable {
    public var originalTransactionID: String
    public var productID: String?
    public var autoRenewProductID: String?
    /// 1: the subscription renews; 0: the customer turned renewal off.
    public var autoRenewStatus: Int64?
    public var expirationIntent: Int64?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Int64?
    public var renewalDate: Int64?
    public var environment: AppStoreEnvironment
    public var signedDate: Int64?
    public var payload: [UInt8]

    /// Renewal information as kept (the store reads it back with this).
    public init(
        originalTransactionID: String, productID: String?, autoRenewProductID: String?, autoRenewStatus: Int64?,
        expirationIntent: Int64?, isInBillingRetryPeriod: Bool?, gracePeriodExpiresDate: Int64?, renewalDate: Int64?,
        environment: AppStoreEnvironment, signedDate: Int64?, payload: [UInt8]
    ) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.renewalDate = renewalDate
        self.environment = environment
        self.signedDate = signedDate
        self.payload = payload
    }

    /// Decodes and checks verified renewal information (environment only: it names no bundle).
    public init(_ verified: VerifiedAppStoreJWS, policy: AppStorePolicy) throws(AppStoreError) {
        let fields = AppStoreFields(verified.payload, "renewal info")
        environment = try AppStoreTransaction.environment(fields, policy: policy, signed: verified.appleSigned)
        originalTransactionID = try fields.string("originalTransactionId")
        guard !originalTransactionID.isEmpty, originalTransactionID.utf8.count <= 128 else {
            throw AppStoreError(.payloadMalformed, "renewal info originalTransactionId must be 1 to 128 bytes")
        }
        productID = try fields.optionalString("productId")
        autoRenewProductID = try fields.optionalString("autoRenewProductId")
        autoRenewStatus = try fields.optionalInteger("autoRenewStatus")
        expirationIntent = try fields.optionalInteger("expirationIntent")
        isInBillingRetryPeriod = try fields.optionalBool("isInBillingRetryPeriod")
        gracePeriodExpiresDate = try fields.optionalMilliseconds("gracePeriodExpiresDate")
        renewalDate = try fields.optionalMilliseconds("renewalDate")
        signedDate = try fields.optionalMilliseconds("signedDate")
        payload = verified.payloadBytes
    }
}

/// A verified App Store Server Notification V2 (`ResponseBodyV2DecodedPayload`) with its inner transaction and renewal
/// information verified the same way.
public struct AppStoreNotification: Sendable, Equatable {
    public var notificationUUID: String
    public var notificationType: String
    public var subtype: String?
    public var signedDate: Int64?
    public var environment: AppStoreEnvironment
    public var transaction: AppStoreTransaction?
    public var renewalInfo: AppStoreRenewalInfo?
    /// The product of a transaction outside `PASSKEYD_APPSTORE_PRODUCT_IDS`: then ``transaction`` and ``renewalInfo``
    /// are nil, and only the notification is recorded.
    public var ignoredProductID: String?
    public var payload: [UInt8]

    /// A notification as verified (stores and tests build them with this).
    public init(
        notificationUUID: String, notificationType: String, subtype: String?, signedDate: Int64?, environment: AppStoreEnvironment,
        transaction: AppStoreTransaction?, renewalInfo: AppStoreRenewalInfo?, ignoredProductID: String? = nil, payload: [UInt8]
    ) {
        self.ignoredProductID = ignoredProductID
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.signedDate = signedDate
        self.environment = environment
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.payload = payload
    }

    /// Verifies a notification's `signedPayload` and the JWS inside it.
    ///
    /// The app is identified as Apple's libraries do: from `data`, else `summary`, else `externalPurchaseToken`
    /// (Production unless its id starts with "SANDBOX"); then bundle id, the environment, and `appAppleId` for a
    /// Production notification (Apple sends none in Sandbox). A transaction of a product outside the allow-list is
    /// not refused (Apple would retry for days): it is left out (``ignoredProductID``).
    /// - Throws: ``AppStoreError`` of the outer JWS, of its payload, or of an inner JWS.
    public static func verify(signedPayload: some Collection<UInt8>, policy: AppStorePolicy, now: Date) throws(AppStoreError) -> AppStoreNotification {
        let outer = try AppStoreJWS.verify(signedPayload, policy: policy, now: now)
        let fields = AppStoreFields(outer.payload, "notification")
        let uuid = try fields.string("notificationUUID")
        guard !uuid.isEmpty, uuid.utf8.count <= 64 else {
            throw AppStoreError(.payloadMalformed, "notificationUUID must be 1 to 64 bytes")
        }
        let type = try fields.string("notificationType")
        let source: AppStoreFields
        var environmentName: String?
        if let data = try fields.optionalObject("data") {
            source = AppStoreFields(data, "notification.data")
        } else if let summary = try fields.optionalObject("summary") {
            source = AppStoreFields(summary, "notification.summary")
        } else if let token = try fields.optionalObject("externalPurchaseToken") {
            source = AppStoreFields(token, "notification.externalPurchaseToken")
            let id = try source.optionalString("externalPurchaseId") ?? ""
            environmentName = id.hasPrefix("SANDBOX") ? AppStoreEnvironment.sandbox.rawValue : AppStoreEnvironment.production.rawValue
        } else {
            throw AppStoreError(.payloadMalformed, "notification has no data, summary or externalPurchaseToken")
        }
        let bundle = try source.optionalString("bundleId")
        guard bundle == policy.bundleID else {
            throw AppStoreError(.bundleIDMismatch, "notification bundleId \(String(describing: bundle).prefix(64).debugDescription)")
        }
        if environmentName == nil { environmentName = try source.string("environment") }
        guard let name = environmentName, let environment = AppStoreEnvironment(rawValue: name),
            policy.environments.contains(environment), environment.isAppleSigned == outer.appleSigned
        else {
            throw AppStoreError(.environmentMismatch, "notification environment \(String(describing: environmentName).prefix(32))")
        }
        // Apple sets appAppleId only in Production (sandbox notifications carry none), so only there is it checked.
        if environment == .production {
            let appAppleID = try source.optionalInteger("appAppleId")
            guard let configured = policy.appAppleID, appAppleID == configured else {
                throw AppStoreError(.appAppleIDMismatch, "notification appAppleId \(appAppleID.map(String.init) ?? "absent")")
            }
        }

        var transaction: AppStoreTransaction?
        var renewal: AppStoreRenewalInfo?
        var ignoredProduct: String?
        if let signed = try source.optionalString("signedTransactionInfo") {
            var unrestricted = policy
            unrestricted.productIDs = nil
            let decoded = try AppStoreTransaction(AppStoreJWS.verify(signed.utf8, policy: policy, now: now), policy: unrestricted)
            // A product this deployment does not sell through passkeyd: the notification is recorded (so Apple stops
            // retrying) but its purchase is not kept.
            if let allowed = policy.productIDs, !allowed.contains(decoded.productID) {
                ignoredProduct = decoded.productID
            } else {
                transaction = decoded
            }
        }
        if let signed = try source.optionalString("signedRenewalInfo"), ignoredProduct == nil {
            renewal = try AppStoreRenewalInfo(AppStoreJWS.verify(signed.utf8, policy: policy, now: now), policy: policy)
        }
        if let transaction, let renewal, transaction.originalTransactionID != renewal.originalTransactionID {
            throw AppStoreError(.payloadMalformed, "the notification's transaction and renewal info name different original transactions")
        }
        return AppStoreNotification(
            notificationUUID: uuid, notificationType: type, subtype: try fields.optionalString("subtype"),
            signedDate: try fields.optionalMilliseconds("signedDate"), environment: environment,
            transaction: transaction, renewalInfo: renewal, ignoredProductID: ignoredProduct, payload: outer.payloadBytes)
    }
}
