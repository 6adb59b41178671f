public import SealedState
public import WebAuthnCore

// The stateless finishes (sealed challenges): single use by a record of the challenge's fingerprint.
extension InMemoryPasskeyStore {
    public func finishSealedAuthentication<Outcome: Sendable>(
        consumed: ConsumedFingerprint, credentialID: [UInt8],
        verify: @escaping @Sendable (AuthenticationLookup) -> (outcome: Outcome, update: CredentialUpdate?)
    ) throws(StoreError) -> (lookup: AuthenticationLookup, outcome: Outcome, applied: CredentialUpdateResult?) {
        try refuseIfConsumed(consumed)
        let credential = self.credential(id: credentialID)
        let lookup = AuthenticationLookup(
            ceremony: nil, credential: credential, user: credential.flatMap { user(handle: $0.record.userHandle) },
            userCredentialIDs: credential.map { credentials(ofUser: $0.record.userHandle).map(\.id) } ?? [])
        let (outcome, update) = verify(lookup)
        consumedChallenges[consumed.bytes] = consumed.expiresAt
        guard let update else { return (lookup, outcome, nil) }
        return (lookup, outcome, apply(update))
    }

    public func finishSealedRegistration<Outcome: Sendable>(
        consumed: ConsumedFingerprint, nickname: String?, intent: RegistrationIntent, audit: AuditContext,
        verify: @escaping @Sendable () -> (outcome: Outcome, registration: VerifiedRegistration?)
    ) throws(StoreError) -> (outcome: Outcome, stored: (user: StoredUser, credential: StoredCredential)?) {
        let (outcome, registration) = verify()
        let fresh = consumedChallenges[consumed.bytes] == nil
        consumedChallenges[consumed.bytes] = consumed.expiresAt
        guard let registration else { return (outcome, nil) }
        guard fresh else { throw StoreError(.ceremonyTaken, "the challenge was used") }
        return (outcome, try register(registration, nickname: nickname, intent: intent, audit: audit))
    }

    public func consumeChallenge(_ consumed: ConsumedFingerprint) throws(StoreError) -> Bool {
        guard consumedChallenges[consumed.bytes] == nil else { return false }
        consumedChallenges[consumed.bytes] = consumed.expiresAt
        return true
    }

    private func refuseIfConsumed(_ consumed: ConsumedFingerprint) throws(StoreError) {
        if consumedChallenges[consumed.bytes] != nil {
            throw StoreError(.ceremonyTaken, "the challenge was used")
        }
    }
}
