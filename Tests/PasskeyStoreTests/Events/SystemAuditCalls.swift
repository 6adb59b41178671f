import Foundation
import AppleSignedData
import PasskeyStore

// The store calls of the older conformance suites, which predate the audit context of revocations and App Attest
// keys: they act as `AuditContext.system` (the events suite passes contexts explicitly).
extension SessionStore {
    func rotateRefreshToken(presented: [UInt8], replacement: [UInt8], now: Date, idleLifetime: TimeInterval) async throws(StoreError) -> RefreshRotation {
        try await rotateRefreshToken(presented: presented, replacement: replacement, now: now, idleLifetime: idleLifetime, audit: .system)
    }

    func revokeSession(id: [UInt8], ofUser handle: [UInt8]?, reason: SessionRevocationReason, now: Date) async throws(StoreError) -> Bool {
        try await revokeSession(id: id, ofUser: handle, reason: reason, now: now, audit: .system)
    }

    func revokeSession(refreshHash: [UInt8], reason: SessionRevocationReason, now: Date) async throws(StoreError) -> StoredSession? {
        try await revokeSession(refreshHash: refreshHash, reason: reason, now: now, audit: .system)
    }

    func revokeSessions(ofUser handle: [UInt8], reason: SessionRevocationReason, now: Date) async throws(StoreError) -> Int {
        try await revokeSessions(ofUser: handle, reason: reason, now: now, audit: .system)
    }
}

extension AppStoreStore {
    func saveTransaction(_ transaction: AppStoreTransaction, forUser handle: [UInt8]) async throws(StoreError) -> AppStoreSaveOutcome {
        try await saveTransaction(transaction, forUser: handle, audit: .system)
    }

    func applyNotification(_ notification: AppStoreNotification) async throws(StoreError) -> AppStoreNotificationOutcome {
        try await applyNotification(notification, audit: .system)
    }
}

extension AppAttestStore {
    func saveAppAttestKey(_ key: AttestedAppAttestKey, userHandle: [UInt8]?) async throws(StoreError) -> AppAttestKeySave {
        try await saveAppAttestKey(key, userHandle: userHandle, audit: .system)
    }
}
