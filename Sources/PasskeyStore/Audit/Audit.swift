public import Foundation

/// Who asked for a change, recorded with its audit event.
public struct AuditContext: Sendable, Hashable {
    /// The request's id (the same as in its log lines).
    public var requestID: String?
    /// `api:<fingerprint>`, `admin:<fingerprint>` (first 16 hex digits of SHA-256 of the key), `api:open`, `demo`,
    /// `conformance`, or a tool's name.
    public var actor: String
    /// The client's address as the rate limits see it.
    public var clientAddress: String?

    public init(requestID: String? = nil, actor: String, clientAddress: String? = nil) {
        self.requestID = requestID
        self.actor = actor
        self.clientAddress = clientAddress
    }

    /// For calls outside a request (tests, tools).
    public static let system = AuditContext(actor: "system")
}

/// What an audit event records.
public enum AuditEventKind: String, Sendable, Hashable, CaseIterable {
    case userCreated = "user.created"
    case userDeleted = "user.deleted"
    case credentialRegistered = "credential.registered"
    case credentialRenamed = "credential.renamed"
    case credentialDeleted = "credential.deleted"
    case identityLinked = "identity.linked"
    case identityUnlinked = "identity.unlinked"
    /// A session ended by passkeyd: `details` has `session_id` (base64url) and `reason`: a ``SessionRevocationReason``'s
    /// raw value (`sign_out`, `admin`, `refresh_token_reused`, `credential_deleted`, `identity_unlinked`) or
    /// `user_deleted` (``SessionRevokedEvent/userDeleted``).
    case sessionRevoked = "session.revoked"
    /// An App Store entitlement changed: `details` has `product_id`, `change` (purchase, renewal, expiry, refund,
    /// revocation: ``EntitlementChange``), `state` (the entitlement's new state), `original_transaction_id` and
    /// `transaction_id`.
    case appStoreEntitlementChanged = "appstore.entitlement_changed"
    /// An App Attest key was attested and stored: `details["key_id"]` (base64url).
    case appAttestKeyRegistered = "appattest.key_registered"
}

/// One row of the append-only audit trail.
public struct AuditEvent: Sendable, Hashable {
    /// Increasing with time; the paging cursor.
    public let id: Int64
    public let occurredAt: Date
    public let kind: AuditEventKind
    public let context: AuditContext
    public let userHandle: [UInt8]?
    public let credentialID: [UInt8]?
    /// The provider identity an `identity.*` event is about.
    public let identityID: [UInt8]?
    /// The event's other facts (ids and states, never a secret), as documented per kind in ``AuditEventKind``.
    public let details: [String: String]

    public init(
        id: Int64, occurredAt: Date, kind: AuditEventKind, context: AuditContext, userHandle: [UInt8]?, credentialID: [UInt8]?,
        identityID: [UInt8]? = nil, details: [String: String] = [:]
    ) {
        self.id = id
        self.occurredAt = occurredAt
        self.kind = kind
        self.context = context
        self.userHandle = userHandle
        self.credentialID = credentialID
        self.identityID = identityID
        self.details = details
    }
}

/// Which audit events to list: all filters optional; ordered by id, after the cursor `after`.
public struct AuditQuery: Sendable, Hashable {
    public var userHandle: [UInt8]?
    public var since: Date?
    public var until: Date?
    public var after: Int64?
    public var limit: Int

    public init(userHandle: [UInt8]? = nil, since: Date? = nil, until: Date? = nil, after: Int64? = nil, limit: Int = 50) {
        self.userHandle = userHandle
        self.since = since
        self.until = until
        self.after = after
        self.limit = limit
    }
}
