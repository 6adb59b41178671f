public import AppleSignedData
public import Foundation

extension InMemoryPasskeyStore: AppStoreStore {
    public func saveTransaction(
        _ transaction: AppStoreTransaction, forUser handle: [UInt8], audit: AuditContext
    ) throws(StoreError) -> AppStoreSaveOutcome {
        guard user(handle: handle) != nil else { throw StoreError(.userUnknown, "no user with that handle") }
        let original = transaction.originalTransactionID
        if case .some(.some(let owner)) = appStorePurchaseOwners[original], owner != handle {
            throw StoreError(.appStoreTransactionOwnedElsewhere, "original transaction \(original) belongs to another user")
        }
        appStorePurchaseOwners[original] = .some(handle)
        return keep(transaction, owner: handle, notificationType: nil, audit: audit)
    }

    public func saveRenewalInfo(_ renewal: AppStoreRenewalInfo) -> [UInt8]? {
        let owner = claim(renewal.originalTransactionID, appAccountToken: nil)
        if let kept = appStoreRenewals[renewal.originalTransactionID], (kept.signedDate ?? 0) > (renewal.signedDate ?? 0) {
            return owner
        }
        appStoreRenewals[renewal.originalTransactionID] = renewal
        return owner
    }

    public func applyNotification(_ notification: AppStoreNotification, audit: AuditContext) -> AppStoreNotificationOutcome {
        guard appStoreNotificationIDs[notification.notificationUUID] == nil else {
            return AppStoreNotificationOutcome(duplicate: true, userHandle: nil)
        }
        appStoreNotificationIDs[notification.notificationUUID] = now()
        var owner: [UInt8]?
        if let transaction = notification.transaction {
            owner = claim(transaction.originalTransactionID, appAccountToken: transaction.appAccountToken)
            _ = keep(transaction, owner: owner, notificationType: notification.notificationType, audit: audit)
        }
        if let renewal = notification.renewalInfo {
            owner = saveRenewalInfo(renewal)
        }
        return AppStoreNotificationOutcome(duplicate: false, userHandle: owner)
    }

    public func appStoreRecords(ofUser handle: [UInt8]) -> AppStoreRecords? {
        guard user(handle: handle) != nil else { return nil }
        let originals = Set(appStorePurchaseOwners.compactMap { $0.value == handle ? $0.key : nil })
        return AppStoreRecords(
            transactions: appStoreTransactions.values.filter { originals.contains($0.originalTransactionID) }
                .sorted { $0.transactionID < $1.transactionID },
            renewals: appStoreRenewals.filter { originals.contains($0.key) })
    }

    public func purgeAppStoreNotifications(before: Date) -> Int {
        let old = appStoreNotificationIDs.filter { $0.value < before }.map(\.key)
        for uuid in old { appStoreNotificationIDs[uuid] = nil }
        return old.count
    }

    /// The purchase's owner; an unowned purchase is claimed by the user whose appAccountToken the transaction names.
    private func claim(_ original: String, appAccountToken: String?) -> [UInt8]? {
        if case .some(.some(let owner)) = appStorePurchaseOwners[original] { return owner }
        let owner = appAccountToken.flatMap { token in
            allUserHandles().first { AppAccountToken.derive(userHandle: $0) == token }
        }
        appStorePurchaseOwners[original] = .some(owner)
        return owner
    }

    /// Keeps the transaction unless the kept copy is newer; an entitlement change of a known owner is recorded
    /// (``EntitlementChange``).
    private func keep(
        _ transaction: AppStoreTransaction, owner: [UInt8]?, notificationType: String?, audit: AuditContext
    ) -> AppStoreSaveOutcome {
        let kept = appStoreTransactions[transaction.transactionID]
        let outcome: AppStoreSaveOutcome
        if let kept {
            outcome = (transaction.signedDate ?? 0) >= (kept.signedDate ?? 0) ? .updated : .unchanged
        } else {
            outcome = .inserted
        }
        if outcome != .unchanged { appStoreTransactions[transaction.transactionID] = transaction }
        if let owner, let change = EntitlementChange.of(
            transaction, outcome: outcome, keptRevocationDate: kept?.revocationDate, notificationType: notificationType)
        {
            record(.appStoreEntitlementChanged, audit, user: owner, credential: nil, details: change.details(transaction, now: now()), consequence: true)
        }
        return outcome
    }

    /// A deleted user's purchases go with them (their transactions and renewal information too).
    func deleteAppStorePurchases(ofUser handle: [UInt8]) {
        let originals = Set(appStorePurchaseOwners.compactMap { $0.value == handle ? $0.key : nil })
        for original in originals { appStorePurchaseOwners[original] = nil }
        appStoreTransactions = appStoreTransactions.filter { !originals.contains($0.value.originalTransactionID) }
        appStoreRenewals = appStoreRenewals.filter { !originals.contains($0.key) }
    }
}
