public import Foundation

/// A provider's refresh token kept for an identity (Sign in with Apple), sealed by the caller: AES-256-GCM under the
/// key-encryption key, the identity's id as associated data. The store never sees the plaintext.
public struct SealedProviderToken: Sendable, Hashable {
    public let identityID: [UInt8]
    public let provider: String
    /// The client id the token was issued to (revocation must name the same one).
    public let clientID: String
    /// `nonce ‖ ciphertext ‖ tag`.
    public let sealedToken: [UInt8]

    public init(identityID: [UInt8], provider: String, clientID: String, sealedToken: [UInt8]) {
        self.identityID = identityID
        self.provider = provider
        self.clientID = clientID
        self.sealedToken = sealedToken
    }
}

/// A token waiting to be revoked at its provider: queued in the same step that deleted its user, unlinked its
/// identity, or replaced it with a newer token, so it is revoked even if passkeyd stops right after.
public struct PendingTokenRevocation: Sendable, Hashable {
    public let id: Int64
    /// The sealed token (still sealed with this identity id as associated data; the identity itself may be gone).
    public let token: SealedProviderToken
    /// Attempts so far, including the one this claim starts.
    public let attempts: Int

    public init(id: Int64, token: SealedProviderToken, attempts: Int) {
        self.id = id
        self.token = token
        self.attempts = attempts
    }
}

/// Provider refresh tokens and their revocation queue, beside ``IdentityStore``. ``PasskeyStore/deleteUser(handle:audit:)``
/// and ``IdentityStore/unlinkIdentity(id:ofUser:audit:)`` queue the tokens of what they delete in the same atomic step,
/// also a token saved by a sign-in that committed while the deletion waited.
public protocol ProviderTokenStore: Sendable {
    /// Keeps `token` for its identity. A different token already kept for it is queued for revocation in the same
    /// step (a newer sign-in's token replaces it). `false` when the identity no longer exists (deleted since the
    /// sign-in): the token is then queued for revocation instead of kept, so it is never left live at the provider.
    func saveProviderToken(_ token: SealedProviderToken) async throws(StoreError) -> Bool
    /// The token kept for an identity.
    func providerToken(identityID: [UInt8]) async throws(StoreError) -> SealedProviderToken?
    /// Claims up to `limit` revocations that are due, oldest first: each one's attempt count grows by one and it is not
    /// due again for `lease` seconds, so a drainer on another instance does not revoke it at the same time.
    func claimTokenRevocations(limit: Int, lease: TimeInterval) async throws(StoreError) -> [PendingTokenRevocation]
    /// Removes a revocation that succeeded (or that is given up).
    func completeTokenRevocation(id: Int64) async throws(StoreError)
    /// A failed attempt: due again after `retryAfter` seconds, with `error` kept for operators.
    func deferTokenRevocation(id: Int64, retryAfter: TimeInterval, error: String) async throws(StoreError)
    /// Revocations still queued (operators, tests).
    func pendingTokenRevocationCount() async throws(StoreError) -> Int
}
