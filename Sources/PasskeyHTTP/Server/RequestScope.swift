import COSECrypto
import HTTPTypes
import Hummingbird
import Logging
import PasskeyStore
import WebAuthnModel

/// Who is asking, for the request being handled: set by ``API/handle(_:_:_:failureBody:adjust:_:)`` around the
/// route's body, read where a change is made (the audit context goes to the store explicitly) and logged. What it
/// records is built only when asked for (a change), never on the sign-in path.
///
/// A class: the task-local value, the closures that capture it and every read of ``current`` then share one object
/// (a retain) instead of copying a dozen reference-counted fields each time.
final class RequestScope: Sendable {
    @TaskLocal static var current: RequestScope?

    let api: API
    let operation: Operation
    /// Which configured key authorised the request (nil: open endpoints).
    let key: Int?
    let headers: HTTPFields
    let context: PasskeyRequestContext
    /// The signed-in person making a change to their own account (the self-service API): the audit actor is then
    /// `user:<id>`.
    let userActor: [UInt8]?
    /// The events the store reports a change caused (``AuditConsequences``): logged and counted by
    /// ``logConsequences()`` when the route's body ends, whether it succeeded or not (they committed).
    let consequences: AuditConsequences

    init(
        api: API, operation: Operation, key: Int?, headers: HTTPFields, context: PasskeyRequestContext, userActor: [UInt8]? = nil,
        consequences: AuditConsequences = AuditConsequences()
    ) {
        self.api = api
        self.operation = operation
        self.key = key
        self.headers = headers
        self.context = context
        self.userActor = userActor
        self.consequences = consequences
    }

    /// The same request with the audit actor `user:<id>` (sharing its ``consequences``).
    func acting(as user: [UInt8]) -> RequestScope {
        RequestScope(
            api: api, operation: operation, key: key, headers: headers, context: context, userActor: user, consequences: consequences)
    }

    var logger: Logger { context.logger }

    var audit: AuditContext {
        AuditContext(
            requestID: context.id, actor: userActor.map { "user:" + Base64URL.encode($0) } ?? api.actor(operation, key: key),
            clientAddress: api.limiter.clientAddress(headers: headers, peer: context.remoteAddress), consequences: consequences)
    }

    /// The audit context of the current request; `system` outside one.
    static var audit: AuditContext { current?.audit ?? .system }

    /// The audit line of a change that committed: the same event the store wrote, at `info`, with its `details`
    /// (`count`: the line stands for that many events of the kind, e.g. every session of a user revoked; 0 logs
    /// nothing). Counts ``RequestMetricNames/eventsWritten``. The route logs the event it asked for; the events the
    /// change caused beyond it come from the store (``logConsequences()``).
    static func log(
        _ kind: AuditEventKind, user: [UInt8]?, credential: [UInt8]? = nil, identity: [UInt8]? = nil, details: [String: String] = [:],
        count: Int = 1
    ) {
        current?.log(kind, user: user, credential: credential, identity: identity, details: details, count: count)
    }

    func log(
        _ kind: AuditEventKind, user: [UInt8]?, credential: [UInt8]? = nil, identity: [UInt8]? = nil, details: [String: String] = [:],
        count: Int = 1
    ) {
        guard count > 0 else { return }
        api.metrics.recordEvent(kind, count: count)
        // The line's metadata (base64url ids, the client address) only when `info` is logged at all.
        guard logger.logLevel <= .info else { return }
        let audit = self.audit
        var metadata: Logger.Metadata = ["event": .string(kind.rawValue), "actor": .string(audit.actor)]
        for (key, value) in details { metadata[key] = .string(value) }
        if count > 1 { metadata["count"] = .stringConvertible(count) }
        if let user { metadata["user_id"] = .string(Base64URL.encode(user)) }
        if let credential { metadata["credential_id"] = .string(Base64URL.encode(credential)) }
        if let identity { metadata["identity_id"] = .string(Base64URL.encode(identity)) }
        if let address = audit.clientAddress { metadata["client_address"] = .string(address) }
        logger.info("audit", metadata: metadata)
    }

    /// Logs and counts the events the store reported since the last call (``consequences``), as ``log(_:user:credential:identity:details:count:)``.
    func logConsequences() {
        for event in consequences.take() {
            log(event.kind, user: event.userHandle, credential: event.credentialID, identity: event.identityID, details: event.details)
        }
    }

    /// The audit lines of a registration that committed: `user.created` when it created the user, then
    /// `credential.registered`.
    static func logRegistration(user: [UInt8], credential: [UInt8], createdUser: Bool) {
        if createdUser { log(.userCreated, user: user) }
        log(.credentialRegistered, user: user, credential: credential)
    }

    /// `api:`/`admin:` + the first 16 hex digits of the key's SHA-256 (which the API keeps anyway): names a key in
    /// the audit trail without revealing it.
    static func fingerprint(_ digest: [UInt8]) -> String {
        digest.prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
