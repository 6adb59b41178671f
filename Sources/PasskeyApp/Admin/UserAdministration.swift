public import PasskeyStore
import WebAuthnCore

/// The admin API's use cases for users, credentials, identities and the audit trail. Every change is written with
/// the caller's audit context in the same transaction as the change; what does not exist is an ``AdminError``.
public struct UserAdministration: Sendable {
    let store: any PasskeyStore
    let identities: (any IdentityStore)?

    public init(store: any PasskeyStore, identities: (any IdentityStore)? = nil) {
        self.store = store
        self.identities = identities
    }

    /// A page of users ordered by name (optionally those whose name contains `nameFilter`), after the name `after`,
    /// and whether more follow.
    public func users(nameFilter: String?, limit: Int, after: String?) async throws -> (page: [StoredUser], more: Bool) {
        // One more than the page tells whether there is a next page.
        let users = try await store.listUsers(nameFilter: nameFilter, limit: limit + 1, after: after)
        return (Array(users.prefix(limit)), users.count > limit)
    }

    /// A page of the audit trail, oldest first, and whether more follow.
    public func auditEvents(_ query: AuditQuery) async throws -> (page: [AuditEvent], more: Bool) {
        var query = query
        let limit = query.limit
        query.limit += 1
        let events = try await store.auditEvents(query)
        return (Array(events.prefix(limit)), events.count > limit)
    }

    /// A user and their credentials.
    /// - Throws: ``AdminError/Code/userUnknown``.
    public func user(_ handle: [UInt8]) async throws -> (user: StoredUser, credentials: [StoredCredential]) {
        guard let user = try await store.user(handle: handle) else { throw AdminError(.userUnknown, "no user has this id") }
        return (user, try await store.credentials(ofUser: handle))
    }

    /// Deletes a user with everything they own (credentials, identities, sessions).
    /// - Throws: ``AdminError/Code/userUnknown``.
    public func deleteUser(_ handle: [UInt8], audit: AuditContext) async throws {
        guard try await store.deleteUser(handle: handle, audit: audit) else { throw AdminError(.userUnknown, "no user has this id") }
    }

    /// A credential and its owner (nil only if the owner went away meanwhile).
    /// - Throws: ``AdminError/Code/credentialUnknown``.
    public func credential(_ id: [UInt8]) async throws -> (credential: StoredCredential, owner: StoredUser?) {
        guard let credential = try await store.credential(id: id) else {
            throw AdminError(.credentialUnknown, "no credential has this id")
        }
        return (credential, try await store.user(handle: credential.record.userHandle))
    }

    /// Sets or clears (nil) a credential's nickname.
    /// - Throws: ``AdminError/Code/credentialUnknown``.
    public func renameCredential(_ id: [UInt8], nickname: String?, audit: AuditContext) async throws -> StoredCredential {
        guard let credential = try await store.renameCredential(id: id, nickname: nickname, audit: audit) else {
            throw AdminError(.credentialUnknown, "no credential has this id")
        }
        return credential
    }

    /// Deletes a credential (and, with `PASSKEYD_SESSION_REVOKE_ON_DELETE`, the sessions it started).
    /// - Throws: ``AdminError/Code/credentialUnknown``.
    public func deleteCredential(_ id: [UInt8], audit: AuditContext) async throws {
        guard try await store.deleteCredential(id: id, audit: audit) else {
            throw AdminError(.credentialUnknown, "no credential has this id")
        }
    }

    /// A user's provider identities, oldest first.
    /// - Throws: ``AdminError/Code/userUnknown``.
    public func identities(ofUser handle: [UInt8]) async throws -> [StoredIdentity] {
        guard try await store.user(handle: handle) != nil else { throw AdminError(.userUnknown, "no user has this id") }
        return try await identities?.identities(ofUser: handle) ?? []
    }

    /// Unlinks one of a user's identities.
    /// - Throws: ``AdminError/Code/identityUnknown``.
    public func unlinkIdentity(_ id: [UInt8], ofUser handle: [UInt8], audit: AuditContext) async throws {
        guard let identities, try await identities.unlinkIdentity(id: id, ofUser: handle, audit: audit) else {
            throw AdminError(.identityUnknown, "this user has no identity with this id")
        }
    }
}
