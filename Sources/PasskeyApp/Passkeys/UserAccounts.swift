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

    /// A user and their credentials; nil when there is no such user.
    public func account(ofUser handle: [UInt8]) async throws -> (user: StoredUser, credentials: [StoredCredential])? {
        guard let user = try await store.user(handle: handle) else { return nil }
        return (user, try await store.credentials(ofUser: handle))
    }

    /// The owner of a credential and how many credentials they hold; nil when the credential is unknown.
    public func owner(ofCredential id: [UInt8]) async throws -> (handle: [UInt8], credentialCount: Int)? {
        guard let credential = try await store.credential(id: id) else { return nil }
        let handle = credential.record.userHandle
        return (handle, try await store.credentials(ofUser: handle).count)
    }

    /// Deletes one of `user`'s credentials (another user's is unknown), in one statement; the last one too.
    /// - Throws: ``CeremonyError/Code/credentialUnknown`` (without a Signal API hint: nothing was being verified).
    public func removeCredential(_ id: [UInt8], ofUser user: [UInt8], audit: AuditContext) async throws {
        let outcome = try await store.removeCredential(id: id, ofUser: user, keepingLastSignInMethod: false, audit: audit)
        guard case .removed = outcome else { throw CeremonyError(.credentialUnknown, "the user has no credential with this id") }
    }
}
