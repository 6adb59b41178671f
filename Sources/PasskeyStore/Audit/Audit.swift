public import Foundation
import Synchronization

/// Who asked for a change, recorded with its audit event.
public struct AuditContext: Sendable, Hashable {
    /// The request's id (the same as in its log lines).
    public var requestID: String?
    /// `api:<fingerprint>`, `admin:<fingerprint>` (first 16 hex digits of SHA-256 of the key), `api:open`, `demo`,
    /// `conformance`, or a tool's name.
    public var actor: String
    /// The client's address as the rate limits see it.
    public var clientAddress: String?

    /// Where the store reports the events a change caused beyond the one asked for (``AuditConsequences``); nil: not
    /// reported. Not part of the context's identity (equality and hash ignore it).
    public var consequences: AuditConsequences?

    public init(requestID: String? = nil, actor: String, clientAddress: String? = nil, consequences: AuditConsequences? = nil) {
        self.requestID = requestID
        self.actor = actor
        self.clientAddress = clientAddress
        self.consequences = consequences
    }

    /// For calls outside a request (tests, tools).
    public static let system = AuditContext(actor: "system")

    public static func == (lhs: AuditContext, rhs: AuditContext) -> Bool {
        lhs.requestID == rhs.requestID && lhs.actor == rhs.actor && lhs.clientAddress == rhs.clientAddress
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(requestID)
        hasher.combine(actor)
        hasher.combine(clientAddress)
    }
}

/// An event a store wrote as a consequence of the change it was asked for, reported to the caller once it committed.
public struct WrittenEvent: Sendable, Hashable {
    public let kind: AuditEventKind
    public let userHandle: [UInt8]?
    public let credentialID: [UInt8]?
    public let identityID: [UInt8]?
    public let details: [String: String]

    public init(
        _ kind: AuditEventKind, user: [UInt8]?, credential: [UInt8]? = nil, identity: [UInt8]? = nil, details: [String: String] = [:]
    ) {
        self.kind = kind
        self.userHandle = user
        self.credentialID = credential
        self.identityID = identity
        self.details = details
    }
}

/// The events a change caused that its caller cannot know it would: the `session.revoked` events of the sessions a
/// deletion, an unlink or a replayed refresh token revoked; every event of a user deletion (`credential.deleted`,
/// `identity.unlinked` and `session.revoked` of what it removed, then `user.deleted`); an App Store transaction's
/// or notification's `appstore.entitlement_changed`. A store adds them after the change committed (never for one
/// rolled back); the HTTP layer logs and counts them after the event the request asked for, which it knows itself.
/// One per request.
public final class AuditConsequences: Sendable {
    private let events = Mutex<[WrittenEvent]>([])

    public init() {}

    public func add(_ written: some Sequence<WrittenEvent>) {
        events.withLock { $0.append(contentsOf: written) }
    }

    /// The events reported so far, in the order written; empties the report.
    public func take() -> [WrittenEvent] {
        events.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }
}

extension AuditContext {
    /// Reports `written` (events that committed) to ``consequences``, if anyone listens.
    public func report(_ written: some Sequence<WrittenEvent>) {
        consequences?.add(written)
    }

    public func report(_ written: WrittenEvent?) {
        if let written { consequences?.add(CollectionOfOne(written)) }
    }
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
