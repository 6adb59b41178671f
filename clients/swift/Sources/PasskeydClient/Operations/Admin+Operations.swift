// The admin API, with the admin key (PASSKEYD_ADMIN_KEYS; without any, every /v1/admin path is 404 `route_unknown`).

extension PasskeydClient {
    /// Users, oldest first, a page at a time.
    /// - Parameters:
    ///   - name: only users whose name contains this.
    ///   - limit: the page size (1 to 200; 50 by default).
    ///   - after: the previous page's `next`.
    public func adminListUsers(name: String? = nil, limit: Int? = nil, after: String? = nil) async throws -> UserPage {
        try await call(.adminListUsers, query: [("name", name), ("limit", limit.map(String.init)), ("after", after)])
    }

    public func adminGetUser(userId: String) async throws -> AdminUserWithCredentials {
        try await call(.adminGetUser, path: ["userId": userId])
    }

    /// Deletes the user with their passkeys, identities and sessions.
    public func adminDeleteUser(userId: String) async throws {
        try await callWithoutAnswer(.adminDeleteUser, path: ["userId": userId])
    }

    public func adminListUserCredentials(userId: String) async throws -> AdminCredentialList {
        try await call(.adminListUserCredentials, path: ["userId": userId])
    }

    public func adminGetCredential(credentialId: String) async throws -> AdminCredentialWithUser {
        try await call(.adminGetCredential, path: ["credentialId": credentialId])
    }

    /// Renames a passkey (nil clears the nickname).
    public func adminRenameCredential(credentialId: String, nickname: String?) async throws -> AdminCredentialResponse {
        try await call(.adminRenameCredential, path: ["credentialId": credentialId], body: RenameBody(nickname: nickname))
    }

    public func adminDeleteCredential(credentialId: String) async throws {
        try await callWithoutAnswer(.adminDeleteCredential, path: ["credentialId": credentialId])
    }

    /// The audit trail, oldest first, a page at a time.
    /// - Parameters:
    ///   - userId: only this user's events.
    ///   - since: RFC 3339: events at or after it. `until`: before it.
    public func adminAuditEvents(
        userId: String? = nil, since: String? = nil, until: String? = nil, limit: Int? = nil, after: String? = nil
    ) async throws -> AuditEventPage {
        try await call(
            .adminAuditEvents,
            query: [("user", userId), ("since", since), ("until", until), ("limit", limit.map(String.init)), ("after", after)])
    }

    public func adminListUserIdentities(userId: String) async throws -> AdminIdentityList {
        try await call(.adminListUserIdentities, path: ["userId": userId])
    }

    public func adminUnlinkIdentity(userId: String, identityId: String) async throws {
        try await callWithoutAnswer(.adminUnlinkIdentity, path: ["userId": userId, "identityId": identityId])
    }

    /// The user's sessions, active or not.
    public func adminListUserSessions(userId: String) async throws -> AdminSessionList {
        try await call(.adminListUserSessions, path: ["userId": userId])
    }

    /// Revokes every active session of the user.
    public func adminRevokeUserSessions(userId: String) async throws -> AdminRevokedSessions {
        try await call(.adminRevokeUserSessions, path: ["userId": userId])
    }

    public func adminRevokeUserSession(userId: String, sessionId: String) async throws {
        try await callWithoutAnswer(.adminRevokeUserSession, path: ["userId": userId, "sessionId": sessionId])
    }

    /// The webhook endpoints, removed ones too.
    public func adminListWebhookEndpoints() async throws -> WebhookEndpointList {
        try await call(.adminListWebhookEndpoints)
    }

    /// An endpoint's deliveries, oldest first, a page at a time (`status`: pending, delivered or failed).
    public func adminListWebhookDeliveries(
        endpointId: String, status: String? = nil, limit: Int? = nil, after: String? = nil
    ) async throws -> WebhookDeliveryPage {
        try await call(
            .adminListWebhookDeliveries, path: ["endpointId": endpointId],
            query: [("status", status), ("limit", limit.map(String.init)), ("after", after)])
    }

    /// Makes a delivery pending and due now.
    public func adminRedeliverWebhook(deliveryId: String) async throws {
        try await callWithoutAnswer(.adminRedeliverWebhook, path: ["deliveryId": deliveryId])
    }

    public func adminPauseWebhookEndpoint(endpointId: String) async throws {
        try await callWithoutAnswer(.adminPauseWebhookEndpoint, path: ["endpointId": endpointId])
    }

    public func adminResumeWebhookEndpoint(endpointId: String) async throws {
        try await callWithoutAnswer(.adminResumeWebhookEndpoint, path: ["endpointId": endpointId])
    }
}
