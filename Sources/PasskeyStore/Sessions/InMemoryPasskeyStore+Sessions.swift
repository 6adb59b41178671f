public import Foundation

/// A session as the in-memory store keeps it: the stored value and the hash of its current refresh token.
struct SessionRecord: Sendable {
    var session: StoredSession
    var refreshHash: [UInt8]
}

extension StoredSession {
    /// This session with the fields that rotation and revocation change.
    func with(
        refreshedAt: Date? = nil, generation: Int? = nil, idleExpiresAt: Date? = nil, revokedAt: Date? = nil,
        revokedReason: SessionRevocationReason? = nil
    ) -> StoredSession {
        StoredSession(
            id: id, userHandle: userHandle, origin: origin, amr: amr, authTime: authTime, createdAt: createdAt,
            refreshedAt: refreshedAt ?? self.refreshedAt, generation: generation ?? self.generation,
            idleExpiresAt: idleExpiresAt ?? self.idleExpiresAt, absoluteExpiresAt: absoluteExpiresAt,
            revokedAt: revokedAt ?? self.revokedAt, revokedReason: revokedReason ?? self.revokedReason, credentialID: credentialID,
            identityID: identityID)
    }

    /// Revoked now, unless it already was (then unchanged).
    func revoked(at now: Date, reason: SessionRevocationReason) -> StoredSession {
        revokedAt == nil ? with(revokedAt: now, revokedReason: reason) : self
    }
}

extension InMemoryPasskeyStore: SessionStore {
    public func createSession(_ new: NewSession) throws(StoreError) -> Bool {
        guard user(handle: new.userHandle) != nil else { return false }
        // What started it must still exist (deleted mid-sign-in: no session), as the PostgreSQL store checks.
        if let credentialID = new.credentialID, credential(id: credentialID) == nil { return false }
        if let identityID = new.identityID, identityRecords[identityID] == nil { return false }
        // The PostgreSQL store's unique constraints refuse these as a failure, not as `false`.
        guard sessionRecords[new.id] == nil, sessionID(refreshHash: new.refreshHash) == nil else {
            throw StoreError(.unavailable, "session id or refresh token hash taken")
        }
        let session = StoredSession(
            id: new.id, userHandle: new.userHandle, origin: new.origin, amr: new.amr, authTime: new.authTime, createdAt: new.createdAt,
            refreshedAt: nil, generation: 0, idleExpiresAt: new.idleExpiresAt, absoluteExpiresAt: new.absoluteExpiresAt, revokedAt: nil,
            revokedReason: nil, credentialID: new.credentialID, identityID: new.identityID)
        sessionRecords[new.id] = SessionRecord(session: session, refreshHash: new.refreshHash)
        return true
    }

    public func rotateRefreshToken(
        presented: [UInt8], replacement: [UInt8], now: Date, idleLifetime: TimeInterval, audit: AuditContext
    ) -> RefreshRotation {
        if let id = sessionID(refreshHash: presented), var record = sessionRecords[id] {
            guard record.session.isActive(at: now) else { return .inactive(record.session) }
            retiredRefreshTokens[presented] = id
            record.refreshHash = replacement
            record.session = record.session.with(
                refreshedAt: now, generation: record.session.generation + 1,
                idleExpiresAt: min(now.addingTimeInterval(idleLifetime), record.session.absoluteExpiresAt))
            sessionRecords[id] = record
            return .rotated(record.session)
        }
        guard let id = retiredRefreshTokens[presented], let record = sessionRecords[id] else { return .unknown }
        return .reused(revoke(record.session, at: now, reason: .refreshTokenReused, audit: audit, consequence: true))
    }

    public func session(id: [UInt8]) -> StoredSession? { sessionRecords[id]?.session }

    public func sessions(ofUser handle: [UInt8]) -> [StoredSession] {
        sessionRecords.values.map(\.session).filter { $0.userHandle == handle }.sorted {
            $0.createdAt != $1.createdAt ? $0.createdAt > $1.createdAt : $1.id.lexicographicallyPrecedes($0.id)
        }
    }

    public func revokeSession(
        id: [UInt8], ofUser handle: [UInt8]?, reason: SessionRevocationReason, now: Date, audit: AuditContext
    ) -> Bool {
        guard let session = sessionRecords[id]?.session, session.revokedAt == nil, handle.map({ $0 == session.userHandle }) ?? true else {
            return false
        }
        revoke(session, at: now, reason: reason, audit: audit)
        return true
    }

    public func revokeSession(refreshHash: [UInt8], reason: SessionRevocationReason, now: Date, audit: AuditContext) -> StoredSession? {
        guard let id = sessionID(refreshHash: refreshHash), let session = sessionRecords[id]?.session else { return nil }
        return revoke(session, at: now, reason: reason, audit: audit)
    }

    public func revokeSessions(ofUser handle: [UInt8], reason: SessionRevocationReason, now: Date, audit: AuditContext) -> Int {
        let active = sessionRecords.values.filter { $0.session.userHandle == handle && $0.session.isActive(at: now) }
            .sorted { $0.session.id.lexicographicallyPrecedes($1.session.id) }
        for record in active { revoke(record.session, at: now, reason: reason, audit: audit) }
        return active.count
    }

    /// Revokes `session` unless it already is, with its `session.revoked` event (reported when a `consequence`); the
    /// session as it is now.
    @discardableResult
    func revoke(
        _ session: StoredSession, at now: Date, reason: SessionRevocationReason, audit: AuditContext, consequence: Bool = false
    ) -> StoredSession {
        guard session.revokedAt == nil else { return session }
        let revoked = session.revoked(at: now, reason: reason)
        sessionRecords[session.id]?.session = revoked
        recordSessionRevoked(session, reason: reason.rawValue, audit: audit, consequence: consequence)
        return revoked
    }

    func recordSessionRevoked(_ session: StoredSession, reason: String, audit: AuditContext, consequence: Bool) {
        record(
            .sessionRevoked, audit, user: session.userHandle, credential: nil,
            details: ["session_id": base64url(session.id), "reason": reason], consequence: consequence)
    }

    public func saveHandoff(_ handoff: StoredHandoff) throws(StoreError) -> Bool {
        guard user(handle: handoff.userHandle) != nil else { return false }
        guard handoffRecords[handoff.codeHash] == nil else { throw StoreError(.unavailable, "handoff code hash taken") }
        handoffRecords[handoff.codeHash] = handoff
        return true
    }

    public func takeHandoff(codeHash: [UInt8]) -> StoredHandoff? {
        handoffRecords.removeValue(forKey: codeHash)
    }

    public func purgeSessions(before: Date) -> Int {
        let purged = sessionRecords.values.map(\.session).filter { session in
            session.absoluteExpiresAt < before || session.revokedAt.map { $0 < before } == true
        }.map(\.id)
        removeSessions(purged)
        handoffRecords = handoffRecords.filter { before < $0.value.expiresAt }
        return purged.count
    }

    public func signingKeys() -> [StoredSigningKey] {
        signingKeyRecords.values.sorted { $0.createdAt != $1.createdAt ? $0.createdAt < $1.createdAt : $0.keyID < $1.keyID }
    }

    public func addSigningKey(_ key: StoredSigningKey, unlessCreatedAfter: Date, retiredKeyLifetime: TimeInterval) throws(StoreError) -> Bool {
        guard !signingKeyRecords.values.contains(where: { $0.createdAt > unlessCreatedAfter }) else { return false }
        guard signingKeyRecords[key.keyID] == nil else { throw StoreError(.unavailable, "signing key id taken") }
        for signing in signingKeyRecords.values where signing.retiresAt == nil {
            signingKeyRecords[signing.keyID] = StoredSigningKey(
                keyID: signing.keyID, algorithm: signing.algorithm, sealedPrivateKey: signing.sealedPrivateKey, createdAt: signing.createdAt,
                activatesAt: signing.activatesAt, retiresAt: key.activatesAt,
                expiresAt: key.activatesAt.addingTimeInterval(retiredKeyLifetime))
        }
        signingKeyRecords[key.keyID] = key
        return true
    }

    public func purgeSigningKeys(before: Date) -> Int {
        let expired = signingKeyRecords.values.filter { $0.expiresAt.map { $0 < before } == true }
        for key in expired { signingKeyRecords[key.keyID] = nil }
        return expired.count
    }

    // MARK: for the deletions in InMemoryPasskeyStore.swift and +Identities.swift

    /// What started a session.
    enum SessionStarter {
        case credential([UInt8])
        case identity([UInt8])
    }

    /// Revokes (when configured to) every session not yet revoked that `starter` started, at the store's clock.
    func revokeSessions(startedBy starter: SessionStarter, audit: AuditContext) {
        guard revokeSessionsOnDelete else { return }
        let current = now()
        let records = sessionRecords.values.filter { $0.session.revokedAt == nil }.sorted { $0.session.id.lexicographicallyPrecedes($1.session.id) }
        for record in records {
            switch starter {
            case .credential(let id) where record.session.credentialID == id:
                revoke(record.session, at: current, reason: .credentialDeleted, audit: audit, consequence: true)
            case .identity(let id) where record.session.identityID == id:
                revoke(record.session, at: current, reason: .identityUnlinked, audit: audit, consequence: true)
            default: break
            }
        }
    }

    /// A deleted user's sessions (with their retired tokens) and handoff codes; one `session.revoked` event
    /// (`user_deleted`) for each session that was active.
    func removeSessionsAndHandoffs(ofUser handle: [UInt8], audit: AuditContext) {
        let current = now()
        let active = sessionRecords.values.map(\.session).filter { $0.userHandle == handle && $0.isActive(at: current) }
            .sorted { $0.id.lexicographicallyPrecedes($1.id) }
        for session in active { recordSessionRevoked(session, reason: SessionRevokedEvent.userDeleted, audit: audit, consequence: true) }
        removeSessions(sessionRecords.values.filter { $0.session.userHandle == handle }.map(\.session.id))
        handoffRecords = handoffRecords.filter { $0.value.userHandle != handle }
    }

    private func removeSessions(_ ids: [[UInt8]]) {
        let gone = Set(ids)
        for id in ids { sessionRecords[id] = nil }
        retiredRefreshTokens = retiredRefreshTokens.filter { !gone.contains($0.value) }
    }

    private func sessionID(refreshHash: [UInt8]) -> [UInt8]? {
        sessionRecords.values.first { $0.refreshHash == refreshHash }?.session.id
    }
}
