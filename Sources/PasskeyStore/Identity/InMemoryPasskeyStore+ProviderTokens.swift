public import Foundation

extension InMemoryPasskeyStore: ProviderTokenStore {
    public func saveProviderToken(_ token: SealedProviderToken) -> Bool {
        guard identityRecords[token.identityID] != nil else {
            queueRevocation(token)
            return false
        }
        if let previous = providerTokens[token.identityID], previous.sealedToken != token.sealedToken {
            queueRevocation(previous)
        }
        providerTokens[token.identityID] = token
        return true
    }

    public func providerToken(identityID: [UInt8]) -> SealedProviderToken? {
        providerTokens[identityID]
    }

    public func claimTokenRevocations(limit: Int, lease: TimeInterval) -> [PendingTokenRevocation] {
        let current = now()
        let due = tokenRevocations.values.filter { $0.dueAt <= current }.sorted { $0.id < $1.id }.prefix(max(0, limit))
        return due.map { entry in
            var updated = entry
            updated.attempts += 1
            updated.dueAt = current.addingTimeInterval(lease)
            tokenRevocations[entry.id] = updated
            return PendingTokenRevocation(id: entry.id, token: entry.token, attempts: updated.attempts)
        }
    }

    public func completeTokenRevocation(id: Int64) {
        tokenRevocations[id] = nil
    }

    public func deferTokenRevocation(id: Int64, retryAfter: TimeInterval, error: String) {
        tokenRevocations[id]?.dueAt = now().addingTimeInterval(retryAfter)
        tokenRevocations[id]?.lastError = error
    }

    public func pendingTokenRevocationCount() -> Int {
        tokenRevocations.count
    }

    /// Queues the kept token of each of these identities (they are being deleted) and forgets it.
    func queueRevocations(ofIdentities ids: [[UInt8]]) {
        for id in ids {
            if let token = providerTokens.removeValue(forKey: id) { queueRevocation(token) }
        }
    }

    private func queueRevocation(_ token: SealedProviderToken) {
        nextRevocationID += 1
        tokenRevocations[nextRevocationID] = QueuedRevocation(id: nextRevocationID, token: token, attempts: 0, dueAt: now(), lastError: nil)
    }
}

/// A queued revocation as the in-memory store keeps it.
struct QueuedRevocation: Sendable {
    let id: Int64
    let token: SealedProviderToken
    var attempts: Int
    var dueAt: Date
    var lastError: String?
}
