public import Foundation
public import IdentityCore

extension InMemoryPasskeyStore: IdentityStore {
    public func signIn(
        _ identity: VerifiedIdentity, link: IdentityLink, identityID: [UInt8], audit: AuditContext
    ) throws(StoreError) -> IdentitySignInResult {
        let current = now()
        if let existing = identityRecords.values.first(where: { $0.issuer == identity.issuer && $0.subject == identity.subject }) {
            if case .attach(let handle) = link, handle != existing.userHandle {
                throw StoreError(.identityLinkedElsewhere, "identity belongs to another user")
            }
            guard let user = user(handle: existing.userHandle) else { throw StoreError(.userUnknown, "identity without user") }
            // What the token leaves out keeps its stored value (as the SQL's COALESCE does).
            let updated = StoredIdentity(
                id: existing.id, userHandle: existing.userHandle, provider: existing.provider, issuer: existing.issuer,
                subject: existing.subject, audience: identity.audience, email: identity.email ?? existing.email,
                emailVerified: identity.emailVerified ?? existing.emailVerified,
                isPrivateEmail: identity.isPrivateEmail ?? existing.isPrivateEmail,
                realUserStatus: identity.realUserStatus ?? existing.realUserStatus, createdAt: existing.createdAt, lastUsedAt: current)
            identityRecords[existing.id] = updated
            return IdentitySignInResult(user: user, identity: updated, createdUser: false, linkedIdentity: false)
        }
        let user: StoredUser
        var created = false
        switch link {
        case .attach(let handle):
            guard let found = self.user(handle: handle) else { throw StoreError(.userUnknown, "no user with that handle") }
            user = found
        case .signInOrCreate(let handle, var name, let displayName, let nameIsDefault):
            guard self.user(handle: handle) == nil else { throw StoreError(.userExists, "handle taken") }
            if self.user(named: name) != nil {
                guard nameIsDefault else { throw StoreError(.userExists, "name taken") }
                name += "~" + handle.prefix(3).map { String($0, radix: 16) }.joined()
                guard self.user(named: name) == nil else { throw StoreError(.userExists, "name taken") }
            }
            user = StoredUser(handle: handle, name: name, displayName: displayName, createdAt: current)
            insertUser(user)
            record(.userCreated, audit, user: handle, credential: nil)
            created = true
        }
        let stored = Self.stored(identity, id: identityID, user: user.handle, createdAt: current, lastUsedAt: current)
        identityRecords[identityID] = stored
        record(.identityLinked, audit, user: user.handle, credential: nil, identity: identityID)
        return IdentitySignInResult(user: user, identity: stored, createdUser: created, linkedIdentity: true)
    }

    public func identities(ofUser handle: [UInt8]) -> [StoredIdentity] {
        identityRecords.values.filter { $0.userHandle == handle }.sorted {
            $0.createdAt != $1.createdAt ? $0.createdAt < $1.createdAt : $0.id.lexicographicallyPrecedes($1.id)
        }
    }

    public func unlinkIdentity(
        id: [UInt8], ofUser handle: [UInt8], keepingLastSignInMethod: Bool, audit: AuditContext
    ) -> SignInMethodRemoval {
        guard let identity = identityRecords[id], identity.userHandle == handle else { return .unknown }
        if keepingLastSignInMethod, signInMethodCount(ofUser: handle) <= 1 { return .lastSignInMethod }
        identityRecords[id] = nil
        queueRevocations(ofIdentities: [id])
        record(.identityUnlinked, audit, user: handle, credential: nil, identity: id)
        revokeSessions(startedBy: .identity(id), audit: audit)
        return .removed
    }

    /// Passkeys plus provider identities of a user.
    func signInMethodCount(ofUser handle: [UInt8]) -> Int {
        credentials(ofUser: handle).count + identityRecords.values.filter { $0.userHandle == handle }.count
    }

    static func stored(_ identity: VerifiedIdentity, id: [UInt8], user: [UInt8], createdAt: Date, lastUsedAt: Date?) -> StoredIdentity {
        StoredIdentity(
            id: id, userHandle: user, provider: identity.provider, issuer: identity.issuer, subject: identity.subject,
            audience: identity.audience, email: identity.email, emailVerified: identity.emailVerified,
            isPrivateEmail: identity.isPrivateEmail, realUserStatus: identity.realUserStatus, createdAt: createdAt,
            lastUsedAt: lastUsedAt)
    }
}
