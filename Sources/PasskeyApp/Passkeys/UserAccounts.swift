import COSECrypto
public import PasskeyStore
import WebAuthnCore

/// Accounts outside a ceremony: creating a user with no sign-in method yet (a backend's password user about to be
/// upgraded by id), and the state the Signal API reports for a user.
extension CeremonyService {
    /// Creates a user named `name` with a fresh random 32-byte handle, audited as `user.created`.
    /// - Throws: ``StoreError/Code/userExists`` (a taken name is never a link to that account).
    public func createUser(name: String, displayName: String, audit: AuditContext) async throws -> StoredUser {
        try await store.createUser(handle: SecureRandom.bytes(count: 32), name: name, displayName: displayName, audit: audit)
    }

    /// A user and the ids of the credentials they hold now, for `signalAllAcceptedCredentials` and
    /// `signalCurrentUserDetails`.
    /// - Throws: ``CeremonyError/Code/userUnknown``.
    public func signalState(ofUser handle: [UInt8]) async throws -> (user: StoredUser, credentialIDs: [[UInt8]]) {
        guard let user = try await store.user(handle: handle) else { throw CeremonyError(.userUnknown, "no user has this id") }
        return (user, try await store.credentials(ofUser: handle).map(\.record.id))
    }
}
