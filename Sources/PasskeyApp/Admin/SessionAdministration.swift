public import Foundation
public import PasskeyStore

/// The admin API's session use cases: list a user's sessions, revoke one, revoke all. Revoking stops refreshes at
/// once; access tokens already issued stay valid until their `exp` for verifiers that do not introspect.
public struct SessionAdministration: Sendable {
    let users: any PasskeyStore
    let sessions: SessionService

    public init(users: any PasskeyStore, sessions: SessionService) {
        self.users = users
        self.sessions = sessions
    }

    /// A user's sessions, newest first (ended ones too, until purged), and the time they were read at.
    /// - Throws: ``AdminError/Code/userUnknown``, ``StoreError``.
    public func sessions(ofUser handle: [UInt8]) async throws -> (sessions: [StoredSession], now: Date) {
        try await requireUser(handle)
        let now = sessions.now()
        return (try await sessions.store.sessions(ofUser: handle), now)
    }

    /// Revokes one of the user's active sessions.
    /// - Throws: ``AdminError/Code/sessionUnknown`` (no such active session of this user), ``StoreError``.
    public func revokeSession(id: [UInt8], ofUser handle: [UInt8], audit: AuditContext) async throws {
        guard try await sessions.store.revokeSession(id: id, ofUser: handle, reason: .admin, now: sessions.now(), audit: audit) else {
            throw AdminError(.sessionUnknown, "no active session with this id for this user")
        }
        sessions.count("revoked")
    }

    /// Revokes all of the user's active sessions; how many were.
    /// - Throws: ``AdminError/Code/userUnknown``, ``StoreError``.
    public func revokeSessions(ofUser handle: [UInt8], audit: AuditContext) async throws -> Int {
        try await requireUser(handle)
        let revoked = try await sessions.store.revokeSessions(ofUser: handle, reason: .admin, now: sessions.now(), audit: audit)
        sessions.count("revoked", by: revoked)
        return revoked
    }

    private func requireUser(_ handle: [UInt8]) async throws {
        guard try await users.user(handle: handle) != nil else { throw AdminError(.userUnknown, "no user has this id") }
    }
}
