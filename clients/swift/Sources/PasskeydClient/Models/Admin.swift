// The admin API (PASSKEYD_ADMIN_KEYS): users, credentials, the audit trail, identities, sessions.

/// A page of users, oldest first.
public struct UserPage: Sendable, Codable, Equatable {
    public var users: [User]
    /// The next page's cursor (pass as `after`); nil on the last page.
    public var next: String?
}

public struct AdminUserWithCredentials: Sendable, Codable, Equatable {
    public var user: User
    public var credentials: [AdminCredential]
}

public struct AdminCredentialList: Sendable, Codable, Equatable {
    public var credentials: [AdminCredential]
}

public struct AdminCredentialWithUser: Sendable, Codable, Equatable {
    public var credential: AdminCredential
    /// The owner (nil only if the owner no longer exists).
    public var user: User?
}

public struct AdminCredentialResponse: Sendable, Codable, Equatable {
    public var credential: AdminCredential
}

/// One entry of the audit trail.
public struct AuditEvent: Sendable, Codable, Equatable {
    /// Increasing with time; the paging cursor.
    public var id: String
    public var occurredAt: String
    /// `user.created`, `user.deleted`, `credential.registered`, `credential.renamed`, `credential.deleted`,
    /// `identity.linked`, `identity.unlinked`, `session.revoked`, `appstore.entitlement_changed` or
    /// `appattest.key_registered`.
    public var event: String
    public var requestId: String?
    /// `api:<fingerprint>`, `admin:<fingerprint>`, `api:open`, `demo` or `conformance`.
    public var actor: String
    public var userId: String?
    public var credentialId: String?
    public var identityId: String?
    public var clientAddress: String?
    /// The event's other facts (ids and states); nil from a server before 0.4.
    public var details: [String: String]?
}

/// A webhook endpoint as the outbox knows it.
public struct WebhookEndpoint: Sendable, Codable, Equatable {
    public var id: String
    public var url: String
    /// The event types it receives; nil: every type.
    public var events: [String]?
    public var paused: Bool
    /// No longer in the settings.
    public var removed: Bool
}

public struct WebhookEndpointList: Sendable, Codable, Equatable {
    public var endpoints: [WebhookEndpoint]
}

/// One event for one endpoint.
public struct WebhookDelivery: Sendable, Codable, Equatable {
    public var id: String
    public var endpointId: String
    /// `pending`, `delivered` or `failed`.
    public var status: String
    public var attempts: Int
    public var nextAttemptAt: String?
    public var lastAttemptAt: String?
    public var lastStatusCode: Int?
    public var lastError: String?
    public var deliveredAt: String?
    public var event: AuditEvent
}

public struct WebhookDeliveryPage: Sendable, Codable, Equatable {
    public var deliveries: [WebhookDelivery]
    /// The next page's cursor (pass as `after`); nil on the last page.
    public var next: String?
}

public struct AuditEventPage: Sendable, Codable, Equatable {
    public var events: [AuditEvent]
    /// The next page's cursor (pass as `after`); nil on the last page.
    public var next: String?
}

public struct AdminIdentityList: Sendable, Codable, Equatable {
    public var identities: [Identity]
}

/// A session as the admin API shows it (never a token).
public struct SessionInfo: Sendable, Codable, Equatable {
    public var id: String
    /// `passkey`, `registration`, `idtoken` or `handoff`.
    public var origin: String
    public var amr: [String]
    /// Not revoked and not expired: its refresh token works.
    public var active: Bool
    public var authTime: String
    public var createdAt: String
    public var refreshedAt: String?
    public var refreshCount: Int
    public var idleExpiresAt: String
    public var absoluteExpiresAt: String
    public var revokedAt: String?
    /// `sign_out`, `refresh_token_reused`, `admin`, `credential_deleted` or `identity_unlinked`; nil when active.
    public var revokedReason: String?
    public var credentialId: String?
    public var identityId: String?
}

public struct AdminSessionList: Sendable, Codable, Equatable {
    public var sessions: [SessionInfo]
}

public struct AdminRevokedSessions: Sendable, Codable, Equatable {
    /// How many active sessions were revoked.
    public var revoked: Int
}
