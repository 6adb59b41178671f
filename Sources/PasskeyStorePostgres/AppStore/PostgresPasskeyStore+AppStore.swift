public import AppleSignedData
public import Foundation
import LibPQ
public import PasskeyStore

/// Verified App Store data (schema and rules: `Migrations/0009_appstore.sql`). Each operation is one transaction (one
/// durable commit); App Store calls are rare next to sign-ins, so clarity wins over fewer round trips here.
extension PostgresPasskeyStore: AppStoreStore {
    /// The purchase row: inserted with the user named by handle ($2), else by appAccountToken ($3), else none; an
    /// existing row keeps its user, or takes that one if it had none. Returns the owner's id and handle, and the id of
    /// the user named by $2 (to tell "another user's" from "no such user").
    static let appStoreClaimPurchase = PGPreparedStatement(
        name: "passkeyd_appstore_claim_purchase",
        sql: """
            WITH named AS (SELECT id FROM users WHERE user_handle = $2),
            p AS (
                INSERT INTO appstore_purchases (original_transaction_id, user_id, environment)
                VALUES ($1, COALESCE((SELECT id FROM named), (SELECT id FROM users WHERE app_account_token = $3::uuid)), $4)
                ON CONFLICT (original_transaction_id)
                DO UPDATE SET user_id = COALESCE(appstore_purchases.user_id, EXCLUDED.user_id)
                RETURNING user_id
            )
            SELECT p.user_id, u.user_handle, (SELECT id FROM named) FROM p LEFT JOIN users u ON u.id = p.user_id
            """,
        parameterTypes: [.text, .bytea, .text, .text])

    static let appStoreTransactionColumns = """
        transaction_id, original_transaction_id, bundle_id, product_id, type, environment, purchase_date, \
        original_purchase_date, expires_date, revocation_date, revocation_reason, app_account_token, ownership_type, \
        is_upgraded, signed_date, payload
        """

    /// Insert, or replace a kept copy whose signedDate is not newer. Returns whether it was an insert; no row when
    /// the kept copy is newer.
    static let appStoreUpsertTransaction = PGPreparedStatement(
        name: "passkeyd_appstore_upsert_transaction",
        sql: """
            WITH kept AS (SELECT revocation_date FROM appstore_transactions WHERE transaction_id = $1), upserted AS (
            INSERT INTO appstore_transactions (\(appStoreTransactionColumns))
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::uuid, $13, $14, $15, $16::jsonb)
            ON CONFLICT (transaction_id) DO UPDATE SET
                bundle_id = EXCLUDED.bundle_id, product_id = EXCLUDED.product_id, type = EXCLUDED.type,
                environment = EXCLUDED.environment, purchase_date = EXCLUDED.purchase_date,
                original_purchase_date = EXCLUDED.original_purchase_date, expires_date = EXCLUDED.expires_date,
                revocation_date = EXCLUDED.revocation_date, revocation_reason = EXCLUDED.revocation_reason,
                app_account_token = EXCLUDED.app_account_token, ownership_type = EXCLUDED.ownership_type,
                is_upgraded = EXCLUDED.is_upgraded, signed_date = EXCLUDED.signed_date, payload = EXCLUDED.payload,
                updated_at = now()
             WHERE COALESCE(EXCLUDED.signed_date, 0) >= COALESCE(appstore_transactions.signed_date, 0)
               AND appstore_transactions.original_transaction_id = EXCLUDED.original_transaction_id
            RETURNING (xmax = 0) AS inserted
            )
            SELECT inserted, (SELECT revocation_date FROM kept) FROM upserted
            """,
        parameterTypes: [
            .text, .text, .text, .text, .text, .text, .int8, .int8, .int8, .int8, .int8, .text, .text, .bool, .int8, .text,
        ])

    static let appStoreRenewalColumns = """
        original_transaction_id, product_id, auto_renew_product_id, auto_renew_status, expiration_intent, \
        is_in_billing_retry, grace_period_expires_date, renewal_date, environment, signed_date, payload
        """

    static let appStoreUpsertRenewal = PGPreparedStatement(
        name: "passkeyd_appstore_upsert_renewal",
        sql: """
            INSERT INTO appstore_renewals (\(appStoreRenewalColumns))
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb)
            ON CONFLICT (original_transaction_id) DO UPDATE SET
                product_id = EXCLUDED.product_id, auto_renew_product_id = EXCLUDED.auto_renew_product_id,
                auto_renew_status = EXCLUDED.auto_renew_status, expiration_intent = EXCLUDED.expiration_intent,
                is_in_billing_retry = EXCLUDED.is_in_billing_retry,
                grace_period_expires_date = EXCLUDED.grace_period_expires_date, renewal_date = EXCLUDED.renewal_date,
                environment = EXCLUDED.environment, signed_date = EXCLUDED.signed_date, payload = EXCLUDED.payload,
                updated_at = now()
             WHERE COALESCE(EXCLUDED.signed_date, 0) >= COALESCE(appstore_renewals.signed_date, 0)
            """,
        parameterTypes: [.text, .text, .text, .int8, .int8, .bool, .int8, .int8, .text, .int8, .text])

    static let appStoreInsertNotification = PGPreparedStatement(
        name: "passkeyd_appstore_insert_notification",
        sql: """
            INSERT INTO appstore_notifications
                (notification_uuid, notification_type, subtype, environment, original_transaction_id, signed_date)
            VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (notification_uuid) DO NOTHING
            RETURNING 1
            """,
        parameterTypes: [.text, .text, .text, .text, .text, .int8])

    static let appStorePurgeNotificationsBatch = PGPreparedStatement(
        name: "passkeyd_appstore_purge_notifications_batch",
        sql: """
            DELETE FROM appstore_notifications WHERE notification_uuid IN (
                SELECT notification_uuid FROM appstore_notifications WHERE received_at < $1 LIMIT $2)
            """,
        parameterTypes: [.timestamptz, .int8])

    public func purgeAppStoreNotifications(before: Date) async throws(StoreError) -> Int {
        try await deleteInBatches(Self.appStorePurgeNotificationsBatch, [before])
    }

    public func saveTransaction(
        _ transaction: AppStoreTransaction, forUser handle: [UInt8], audit: AuditContext
    ) async throws(StoreError) -> AppStoreSaveOutcome {
        let (outcome, changed) = try await run(transaction: true) { connection in
            let owner = try Self.claimPurchase(
                transaction.originalTransactionID, user: handle, appAccountToken: nil, environment: transaction.environment,
                on: connection)
            guard owner.namedUserExists else { throw StoreError(.userUnknown, "no user with that handle") }
            guard owner.handle == handle else {
                throw StoreError(.appStoreTransactionOwnedElsewhere, "original transaction belongs to another user")
            }
            return try Self.keep(transaction, owner: handle, notificationType: nil, audit: audit, on: connection)
        }
        audit.report(changed)
        return outcome
    }

    public func saveRenewalInfo(_ renewal: AppStoreRenewalInfo) async throws(StoreError) -> [UInt8]? {
        try await run(transaction: true) { connection in
            let owner = try Self.claimPurchase(
                renewal.originalTransactionID, user: nil, appAccountToken: nil, environment: renewal.environment, on: connection)
            try Self.upsert(renewal, on: connection)
            return owner.handle
        }
    }

    public func applyNotification(
        _ notification: AppStoreNotification, audit: AuditContext
    ) async throws(StoreError) -> AppStoreNotificationOutcome {
        let (outcome, changed) = try await run(transaction: true) { connection -> (AppStoreNotificationOutcome, WrittenEvent?) in
            var bindings = PGBindings()
            bindings.append(notification.notificationUUID)
            bindings.append(notification.notificationType)
            bindings.append(notification.subtype)
            bindings.append(notification.environment.rawValue)
            let original = notification.transaction?.originalTransactionID ?? notification.renewalInfo?.originalTransactionID
            bindings.append(original)
            bindings.append(notification.signedDate)
            let fresh = try connection.executePrepared(Self.appStoreInsertNotification, bindings).rowCount == 1
            // A retry or replay applies nothing, not even a claim of its purchase.
            guard fresh else { return (AppStoreNotificationOutcome(duplicate: true, userHandle: nil), nil) }
            guard let original else { return (AppStoreNotificationOutcome(duplicate: false, userHandle: nil), nil) }
            let owner = try Self.claimPurchase(
                original, user: nil, appAccountToken: notification.transaction?.appAccountToken,
                environment: notification.environment, on: connection)
            var changed: WrittenEvent?
            if let transaction = notification.transaction {
                changed = try Self.keep(
                    transaction, owner: owner.handle, notificationType: notification.notificationType, audit: audit, on: connection).1
            }
            if let renewal = notification.renewalInfo { try Self.upsert(renewal, on: connection) }
            return (AppStoreNotificationOutcome(duplicate: false, userHandle: owner.handle), changed)
        }
        audit.report(changed)
        return outcome
    }

    public func appStoreRecords(ofUser handle: [UInt8]) async throws(StoreError) -> AppStoreRecords? {
        try await run { connection in
            let result = try connection.execute(PGQuery(
                unsafeSQL: """
                    SELECT u.id, t.transaction_id, t.original_transaction_id, t.bundle_id, t.product_id, t.type,
                           t.environment, t.purchase_date, t.original_purchase_date, t.expires_date, t.revocation_date,
                           t.revocation_reason, t.app_account_token::text, t.ownership_type, t.is_upgraded, t.signed_date,
                           t.payload::text,
                           r.product_id, r.auto_renew_product_id, r.auto_renew_status, r.expiration_intent,
                           r.is_in_billing_retry, r.grace_period_expires_date, r.renewal_date, r.environment,
                           r.signed_date, r.payload::text
                      FROM users u
                      LEFT JOIN appstore_purchases p ON p.user_id = u.id
                      LEFT JOIN appstore_transactions t ON t.original_transaction_id = p.original_transaction_id
                      LEFT JOIN appstore_renewals r ON r.original_transaction_id = p.original_transaction_id
                     WHERE u.user_handle = $1
                     ORDER BY t.transaction_id
                    """,
                bindings: [handle]))
            guard result.rowCount > 0 else { return nil }
            var records = AppStoreRecords(transactions: [], renewals: [:])
            for row in 0..<result.rowCount where try !result.isNull(row: row, column: 1) {
                let transaction = try Self.transaction(from: result, row: row)
                records.transactions.append(transaction)
                if try !result.isNull(row: row, column: 24) {
                    records.renewals[transaction.originalTransactionID] = try Self.renewal(
                        from: result, row: row, original: transaction.originalTransactionID)
                }
            }
            return records
        }
    }

    /// The owner after claiming (see ``appStoreClaimPurchase``).
    struct PurchaseOwner {
        var handle: [UInt8]?
        var namedUserExists: Bool
    }

    static func claimPurchase(
        _ original: String, user: [UInt8]?, appAccountToken: String?, environment: AppStoreEnvironment, on connection: PGConnection
    ) throws -> PurchaseOwner {
        var bindings = PGBindings()
        bindings.append(original)
        bindings.append(user)
        bindings.append(appAccountToken)
        bindings.append(environment.rawValue)
        let result = try connection.executePrepared(appStoreClaimPurchase, bindings)
        return PurchaseOwner(
            handle: try result.decode([UInt8]?.self, row: 0, column: 1), namedUserExists: try !result.isNull(row: 0, column: 2))
    }

    /// Upserts the transaction (inside the caller's transaction, after the purchase's row was claimed and so locked)
    /// and, when that changes the entitlement of a known owner (``EntitlementChange``), writes its
    /// `appstore.entitlement_changed` event in the same transaction: the event too, for the caller to report once the
    /// transaction committed.
    static func keep(
        _ transaction: AppStoreTransaction, owner: [UInt8]?, notificationType: String?, audit: AuditContext, on connection: PGConnection
    ) throws -> (AppStoreSaveOutcome, WrittenEvent?) {
        let (outcome, keptRevocationDate) = try upsert(transaction, on: connection)
        guard let owner, let change = EntitlementChange.of(
            transaction, outcome: outcome, keptRevocationDate: keptRevocationDate, notificationType: notificationType)
        else { return (outcome, nil) }
        let details = change.details(transaction, now: Date())
        var bindings = PGBindings()
        bindings.append(owner)
        bindings.append(contentsOf: audit)
        bindings.append(String(decoding: try JSONSerialization.data(withJSONObject: details, options: [.sortedKeys]), as: UTF8.self))
        _ = try connection.execute(PGQuery(
            unsafeSQL: """
                INSERT INTO audit_events (event, request_id, actor, user_handle, client_address, details)
                VALUES ('appstore.entitlement_changed', $2, $3, $1, $4, $5::jsonb)
                """,
            bindings: bindings))
        return (outcome, WrittenEvent(.appStoreEntitlementChanged, user: owner, details: details))
    }

    /// The upsert's outcome and the revocation date the replaced copy had (nil when none).
    static func upsert(_ transaction: AppStoreTransaction, on connection: PGConnection) throws -> (AppStoreSaveOutcome, Int64?) {
        var bindings = PGBindings()
        bindings.append(transaction.transactionID)
        bindings.append(transaction.originalTransactionID)
        bindings.append(transaction.bundleID)
        bindings.append(transaction.productID)
        bindings.append(transaction.type)
        bindings.append(transaction.environment.rawValue)
        bindings.append(transaction.purchaseDate)
        bindings.append(transaction.originalPurchaseDate)
        bindings.append(transaction.expiresDate)
        bindings.append(transaction.revocationDate)
        bindings.append(transaction.revocationReason)
        bindings.append(transaction.appAccountToken)
        bindings.append(transaction.ownershipType)
        bindings.append(transaction.isUpgraded)
        bindings.append(transaction.signedDate)
        bindings.append(String(decoding: transaction.payload, as: UTF8.self))
        let result = try connection.executePrepared(appStoreUpsertTransaction, bindings)
        guard result.rowCount == 1 else { return (.unchanged, nil) }
        return (try result.decode(Bool.self, row: 0, column: 0) ? .inserted : .updated, try result.decode(Int64?.self, row: 0, column: 1))
    }

    static func upsert(_ renewal: AppStoreRenewalInfo, on connection: PGConnection) throws {
        var bindings = PGBindings()
        bindings.append(renewal.originalTransactionID)
        bindings.append(renewal.productID)
        bindings.append(renewal.autoRenewProductID)
        bindings.append(renewal.autoRenewStatus)
        bindings.append(renewal.expirationIntent)
        bindings.append(renewal.isInBillingRetryPeriod)
        bindings.append(renewal.gracePeriodExpiresDate)
        bindings.append(renewal.renewalDate)
        bindings.append(renewal.environment.rawValue)
        bindings.append(renewal.signedDate)
        bindings.append(String(decoding: renewal.payload, as: UTF8.self))
        _ = try connection.executePrepared(appStoreUpsertRenewal, bindings)
    }

    static func environment(_ text: String) throws -> AppStoreEnvironment {
        guard let environment = AppStoreEnvironment(rawValue: text) else {
            throw StoreError(.unavailable, "unknown App Store environment \(text) in the database")
        }
        return environment
    }

    static func transaction(from result: PGResult, row: Int) throws -> AppStoreTransaction {
        AppStoreTransaction(
            transactionID: try result.decode(String.self, row: row, column: 1),
            originalTransactionID: try result.decode(String.self, row: row, column: 2),
            bundleID: try result.decode(String.self, row: row, column: 3),
            productID: try result.decode(String.self, row: row, column: 4),
            type: try result.decode(String.self, row: row, column: 5),
            environment: try environment(try result.decode(String.self, row: row, column: 6)),
            purchaseDate: try result.decode(Int64.self, row: row, column: 7),
            originalPurchaseDate: try result.decode(Int64?.self, row: row, column: 8),
            expiresDate: try result.decode(Int64?.self, row: row, column: 9),
            revocationDate: try result.decode(Int64?.self, row: row, column: 10),
            revocationReason: try result.decode(Int64?.self, row: row, column: 11),
            appAccountToken: try result.decode(String?.self, row: row, column: 12),
            ownershipType: try result.decode(String?.self, row: row, column: 13),
            isUpgraded: try result.decode(Bool.self, row: row, column: 14),
            signedDate: try result.decode(Int64?.self, row: row, column: 15),
            payload: Array(try result.decode(String.self, row: row, column: 16).utf8))
    }

    static func renewal(from result: PGResult, row: Int, original: String) throws -> AppStoreRenewalInfo {
        AppStoreRenewalInfo(
            originalTransactionID: original,
            productID: try result.decode(String?.self, row: row, column: 17),
            autoRenewProductID: try result.decode(String?.self, row: row, column: 18),
            autoRenewStatus: try result.decode(Int64?.self, row: row, column: 19),
            expirationIntent: try result.decode(Int64?.self, row: row, column: 20),
            isInBillingRetryPeriod: try result.decode(Bool?.self, row: row, column: 21),
            gracePeriodExpiresDate: try result.decode(Int64?.self, row: row, column: 22),
            renewalDate: try result.decode(Int64?.self, row: row, column: 23),
            environment: try environment(try result.decode(String.self, row: row, column: 24)),
            signedDate: try result.decode(Int64?.self, row: row, column: 25),
            payload: Array(try result.decode(String.self, row: row, column: 26).utf8))
    }
}
