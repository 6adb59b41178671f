/// The one read a stateless begin makes (issue 29): the user a begin names, with their credentials. Nothing here
/// writes, so it may be served by a hot standby (`PASSKEYD_DATABASE_READ_URL`): `PostgresReadStore` on its own
/// read-only pool; ``InMemoryPasskeyStore`` and `PostgresPasskeyStore` answer it too (the primary).
///
/// What a standby answers may lag the primary: a user or credential added a moment ago may be missing, one deleted a
/// moment ago may still be there. The caller decides what to do about that (``CeremonyService``'s begins ask the
/// primary again when the answer would refuse or is empty).
public protocol PasskeyReadStore: Sendable {
    /// The user `lookup` names and their credentials, oldest first (an implementation may leave out the audit
    /// columns no begin needs: the attestation object and clientDataJSON); nil when there is no such user.
    func userWithCredentials(_ lookup: UserLookup) async throws(StoreError) -> UserWithCredentials?
}

/// A user and the credentials they hold, as one read found them.
public struct UserWithCredentials: Sendable, Hashable {
    public var user: StoredUser
    public var credentials: [StoredCredential]

    public init(user: StoredUser, credentials: [StoredCredential]) {
        self.user = user
        self.credentials = credentials
    }
}

extension InMemoryPasskeyStore {
    public func userWithCredentials(_ lookup: UserLookup) -> UserWithCredentials? {
        let found = switch lookup {
        case .name(let name): user(named: name)
        case .handle(let handle): user(handle: handle)
        }
        return found.map { UserWithCredentials(user: $0, credentials: credentials(ofUser: $0.handle)) }
    }
}
