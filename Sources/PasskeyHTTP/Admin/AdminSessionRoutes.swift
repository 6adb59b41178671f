import PasskeyApp
import Foundation
import Hummingbird
import PasskeyStore
import WebAuthnModel

/// The admin API for sessions (present with sessions on):
///
///     GET    /v1/admin/users/:userId/sessions                {"sessions": [...]}, newest first (also ended ones not yet purged)
///     DELETE /v1/admin/users/:userId/sessions/:sessionId     (204) revoke it
///     DELETE /v1/admin/users/:userId/sessions                {"revoked": n} revoke all of the user's active sessions
///
/// Revoking stops refreshes at once; access tokens already issued stay valid until their `exp` (10 minutes by
/// default) for verifiers that do not ask `/v1/sessions/introspect`.
func addAdminSessionRoutes(to router: Router<PasskeyRequestContext>, api: API, service: SessionService) {
    let admin = SessionAdministration(users: api.service.store, sessions: service)
    api.route(router, .adminUserSessions) { _, _, context in
        let (sessions, now) = try await admin.sessions(ofUser: try AdminAPI.id(context, "userId"))
        return try AdminAPI.json(status: .ok, ["sessions": sessions.map { SessionInfoJSON($0, now: now) }])
    }
    api.route(router, .adminRevokeSession) { _, _, context in
        let (id, user) = (try AdminAPI.id(context, "sessionId"), try AdminAPI.id(context, "userId"))
        try await admin.revokeSession(id: id, ofUser: user, audit: RequestScope.audit)
        RequestScope.log(.sessionRevoked, user: user, details: ["session_id": Base64URL.encode(id), "reason": SessionRevocationReason.admin.rawValue])
        return Response(status: .noContent)
    }
    api.route(router, .adminRevokeSessions) { _, _, context in
        let user = try AdminAPI.id(context, "userId")
        let revoked = try await admin.revokeSessions(ofUser: user, audit: RequestScope.audit)
        RequestScope.log(.sessionRevoked, user: user, details: ["reason": SessionRevocationReason.admin.rawValue], count: revoked)
        return try AdminAPI.json(status: .ok, ["revoked": revoked])
    }
}

/// A session as the admin API shows it (never a token).
struct SessionInfoJSON: Encodable {
    let id: String
    let origin: String
    let amr: [String]
    let active: Bool
    let authTime: Date
    let createdAt: Date
    let refreshedAt: Date?
    let refreshCount: Int
    let idleExpiresAt: Date
    let absoluteExpiresAt: Date
    let revokedAt: Date?
    let revokedReason: String?
    let credentialId: String?
    let identityId: String?

    init(_ session: StoredSession, now: Date) {
        id = Base64URL.encode(session.id)
        origin = session.origin.rawValue
        amr = session.amr
        active = session.isActive(at: now)
        authTime = session.authTime
        createdAt = session.createdAt
        refreshedAt = session.refreshedAt
        refreshCount = session.generation
        idleExpiresAt = session.idleExpiresAt
        absoluteExpiresAt = session.absoluteExpiresAt
        revokedAt = session.revokedAt
        revokedReason = session.revokedReason?.rawValue
        credentialId = session.credentialID.map(Base64URL.encode)
        identityId = session.identityID.map(Base64URL.encode)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(origin, forKey: .origin)
        try container.encode(amr, forKey: .amr)
        try container.encode(active, forKey: .active)
        try container.encode(authTime, forKey: .authTime)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(refreshedAt, forKey: .refreshedAt)
        try container.encode(refreshCount, forKey: .refreshCount)
        try container.encode(idleExpiresAt, forKey: .idleExpiresAt)
        try container.encode(absoluteExpiresAt, forKey: .absoluteExpiresAt)
        try container.encode(revokedAt, forKey: .revokedAt)
        try container.encode(revokedReason, forKey: .revokedReason)
        try container.encode(credentialId, forKey: .credentialId)
        try container.encode(identityId, forKey: .identityId)
    }

    enum CodingKeys: String, CodingKey {
        case id, origin, amr, active, authTime, createdAt, refreshedAt, refreshCount, idleExpiresAt, absoluteExpiresAt, revokedAt, revokedReason
        case credentialId, identityId
    }
}


extension APIError {
    static let sessionUnknown = APIError(status: 404, code: "session_unknown", message: "This user has no active session with this id.")
}
