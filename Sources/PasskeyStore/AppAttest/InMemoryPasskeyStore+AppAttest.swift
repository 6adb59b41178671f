public import AppleSignedData

extension InMemoryPasskeyStore: AppAttestStore {
    public func saveAppAttestKey(_ key: AttestedAppAttestKey, userHandle: [UInt8]?, audit: AuditContext) -> AppAttestKeySave {
        if let userHandle, user(handle: userHandle) == nil { return .userUnknown }
        guard appAttestKeys[key.keyID] == nil else { return .exists }
        let stored = StoredAppAttestKey(
            keyID: key.keyID, userHandle: userHandle, appID: key.appID, environment: key.environment,
            publicKey: key.publicKeySPKI, counter: key.counter, receipt: key.receipt, createdAt: now(), lastUsedAt: nil)
        appAttestKeys[key.keyID] = stored
        record(.appAttestKeyRegistered, audit, user: userHandle, credential: nil, details: ["key_id": base64url(key.keyID)])
        return .saved(stored)
    }

    public func appAttestKey(id: [UInt8]) -> StoredAppAttestKey? { appAttestKeys[id] }

    public func advanceAppAttestCounter(keyID: [UInt8], to counter: UInt32) -> Bool {
        guard let key = appAttestKeys[keyID], key.counter < counter else { return false }
        appAttestKeys[keyID] = StoredAppAttestKey(
            keyID: key.keyID, userHandle: key.userHandle, appID: key.appID, environment: key.environment,
            publicKey: key.publicKey, counter: counter, receipt: key.receipt, createdAt: key.createdAt, lastUsedAt: now())
        return true
    }

    /// Deleting a user deletes their keys (the PostgreSQL store's ON DELETE CASCADE).
    func removeAppAttestKeys(ofUser handle: [UInt8]) {
        appAttestKeys = appAttestKeys.filter { $0.value.userHandle != handle }
    }
}
