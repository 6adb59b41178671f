import PasskeyApp
import Foundation
import Hummingbird
import NIOCore
import PasskeyStore
import WebAuthnCore
import WebAuthnModel

/// The admin API under `/v1/admin`, registered only when an admin key is configured (otherwise every admin path
/// is the router's 404). Every route needs `Authorization: Bearer <admin key>`. Ids in paths are base64url: the
/// user handle for users, the credential id for credentials.
///
///     GET    /v1/admin/users?name=&limit=&after=     users ordered by name, filtered by a name substring, paged
///     GET    /v1/admin/users/:userId                  a user with their credentials
///     GET    /v1/admin/users/:userId/credentials      a user's credentials
///     DELETE /v1/admin/users/:userId                  a user and all their credentials (204)
///     GET    /v1/admin/credentials/:credentialId      one credential with its owner
///     PATCH  /v1/admin/credentials/:credentialId      {"nickname": string|null}
///     DELETE /v1/admin/credentials/:credentialId      (204)
///     GET    /v1/admin/audit-events?user=&since=&until=&limit=&after=   the audit trail, oldest first, paged
///     /v1/admin/webhooks/...                          the webhooks' outbox (Events/WebhookAdminRoutes.swift)
func addAdminRoutes(to router: Router<PasskeyRequestContext>, api: API) {
    let admin = AdminAPI(users: UserAdministration(store: api.service.store, identities: api.identity?.identities), service: api.service)
    api.route(router, .adminListUsers) { request, _, _ in try await admin.listUsers(request.uri.queryParameters) }
    api.route(router, .adminGetUser) { _, _, context in
        try await admin.user(try AdminAPI.id(context, "userId"), withCredentials: true)
    }
    api.route(router, .adminUserCredentials) { _, _, context in
        try await admin.user(try AdminAPI.id(context, "userId"), withCredentials: false)
    }
    api.route(router, .adminDeleteUser) { _, _, context in
        try await admin.deleteUser(try AdminAPI.id(context, "userId"))
    }
    api.route(router, .adminGetCredential) { _, _, context in
        try await admin.credential(try AdminAPI.id(context, "credentialId"))
    }
    api.route(router, .adminRenameCredential) { _, body, context in
        try await admin.rename(try AdminAPI.id(context, "credentialId"), body: body)
    }
    api.route(router, .adminAuditEvents) { request, _, _ in try await admin.auditEvents(request.uri.queryParameters) }
    api.route(router, .adminDeleteCredential) { _, _, context in
        try await admin.deleteCredential(try AdminAPI.id(context, "credentialId"))
    }
    if api.identity != nil { addAdminIdentityRoutes(to: router, api: api, admin: admin.users) }
    if let sessions = api.sessions { addAdminSessionRoutes(to: router, api: api, service: sessions) }
}


extension APIError {
    static func invalidParameter(_ message: String) -> APIError {
        APIError(status: 400, code: "invalid_parameter", message: message)
    }
}

/// The admin operations: decode, call one use case of ``UserAdministration``, encode.
struct AdminAPI: Sendable {
    let users: UserAdministration
    /// For the current FIDO metadata (authenticator icons are looked up live, not stored).
    let service: CeremonyService

    /// A credential in the admin API's form, with its authenticator's icon from the current metadata.
    func adminJSON(_ credential: StoredCredential, metadata: MetadataIndex?) -> CredentialJSON {
        var icon: String?
        if let metadata, credential.aaguid.contains(where: { $0 != 0 }), let aaguid = AAGUID(bytes: credential.aaguid) {
            icon = metadata.entry(aaguid: aaguid)?.icon
        }
        return CredentialJSON(admin: credential, authenticatorIcon: icon, provider: service.provider(for: credential))
    }

    var metadata: MetadataIndex? { service.relyingParty.attestation.metadata }

    static func json(status: HTTPResponse.Status, _ value: some Encodable) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try API.encoder.encode(value))))
    }

    static let defaultPageSize = 50
    static let maxPageSize = 200

    /// A base64url id from the path (user handles are 1...64 bytes, credential ids 16...1023).
    static func id(_ context: PasskeyRequestContext, _ name: String) throws -> [UInt8] {
        guard let text = context.parameters.get(name), let bytes = Base64URL.decode(text), !bytes.isEmpty, bytes.count <= 1023
        else { throw APIError.invalidParameter("\(name) must be base64url.") }
        return bytes
    }

    func listUsers(_ query: Parameters) async throws -> Response {
        var limit = Self.defaultPageSize
        if let text = query.get("limit") {
            guard let value = Int(text), (1...Self.maxPageSize).contains(value) else {
                throw APIError.invalidParameter("limit must be an integer from 1 to \(Self.maxPageSize).")
            }
            limit = value
        }
        let filter = query.get("name").flatMap { $0.isEmpty ? nil : $0 }
        if let filter, !API.isText(filter) {
            throw APIError.invalidParameter("name is at most 256 characters, without U+0000.")
        }
        var after: String?
        if let cursor = query.get("after"), !cursor.isEmpty {
            // Opaque to clients: any base64url value is a position (the names after it); bytes that are not UTF-8
            // text (or are U+0000, which PostgreSQL's text cannot hold) become U+FFFD.
            guard let bytes = Base64URL.decode(cursor) else {
                throw APIError.invalidParameter("after must be a cursor from a previous page.")
            }
            after = String(decoding: bytes.map { $0 == 0 ? 0xFF : $0 }, as: UTF8.self)
        }
        let (page, more) = try await users.users(nameFilter: filter, limit: limit, after: after)
        let next = more ? page.last.map { Base64URL.encode(Array($0.name.utf8)) } : nil
        return try Self.json(status: .ok, UserPage(users: page.map(UserJSON.init), next: next))
    }

    /// `user` (a user id), `since` / `until` (RFC 3339 times: since ≤ occurredAt < until), `limit` (1-200, default
    /// 50), `after` (the previous page's `next`).
    func auditEvents(_ query: Parameters) async throws -> Response {
        var audit = AuditQuery(limit: Self.defaultPageSize)
        if let text = query.get("limit") {
            guard let value = Int(text), (1...Self.maxPageSize).contains(value) else {
                throw APIError.invalidParameter("limit must be an integer from 1 to \(Self.maxPageSize).")
            }
            audit.limit = value
        }
        if let text = query.get("user") {
            guard let handle = Base64URL.decode(text), (1...64).contains(handle.count) else {
                throw APIError.invalidParameter("user must be a user id (base64url).")
            }
            audit.userHandle = handle
        }
        for (name, keyPath) in [("since", \AuditQuery.since), ("until", \AuditQuery.until)] {
            guard let text = query.get(name) else { continue }
            guard let date = Self.time(text) else {
                throw APIError.invalidParameter("\(name) must be an RFC 3339 time, e.g. 2026-11-24T12:00:00Z.")
            }
            audit[keyPath: keyPath] = date
        }
        if let text = query.get("after"), !text.isEmpty {
            guard let id = Int64(text), id >= 0 else { throw APIError.invalidParameter("after must be a cursor from a previous page.") }
            audit.after = id
        }
        let (page, more) = try await users.auditEvents(audit)
        let next = more ? page.last.map { String($0.id) } : nil
        return try Self.json(status: .ok, AuditPage(events: page.map(AuditEventJSON.init), next: next))
    }

    /// RFC 3339 with or without fractional seconds.
    static func time(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    func user(_ handle: [UInt8], withCredentials: Bool) async throws -> Response {
        let (user, stored) = try await users.user(handle)
        let metadata = self.metadata
        let credentials = stored.map { adminJSON($0, metadata: metadata) }
        if withCredentials {
            return try Self.json(status: .ok, UserWithCredentials(user: UserJSON(user), credentials: credentials))
        }
        return try Self.json(status: .ok, ["credentials": credentials])
    }

    func deleteUser(_ handle: [UInt8]) async throws -> Response {
        // Every event of a deletion, `user.deleted` last, comes from the store (``AuditConsequences``).
        try await users.deleteUser(handle, audit: RequestScope.audit)
        return Response(status: .noContent)
    }

    func credential(_ id: [UInt8]) async throws -> Response {
        let (credential, owner) = try await users.credential(id)
        return try Self.json(status: .ok, CredentialWithUser(credential: adminJSON(credential, metadata: metadata), user: owner.map(UserJSON.init)))
    }

    /// A rename's body: `{"nickname": string|null}` and nothing else; an empty string clears it as null does.
    static func nickname(_ body: [UInt8]) throws -> String? {
        guard case .object(let members)? = try? JSONReader.parse(body), members.keys.allSatisfy({ $0 == "nickname" }),
            let value = members["nickname"]
        else { throw APIError(status: 400, code: "malformed_json", message: "The body must be an object with one member, nickname: a string or null.") }
        switch value {
        case .null: return nil
        case .string(let text) where API.isText(text): return text.isEmpty ? nil : text
        default: throw APIError(status: 400, code: "malformed_json", message: "nickname must be a string of at most 256 characters, or null.")
        }
    }

    func rename(_ id: [UInt8], body: [UInt8]) async throws -> Response {
        let nickname = try Self.nickname(body)
        let credential = try await users.renameCredential(id, nickname: nickname, audit: RequestScope.audit)
        RequestScope.log(.credentialRenamed, user: credential.record.userHandle, credential: id)
        return try Self.json(status: .ok, ["credential": adminJSON(credential, metadata: metadata)])
    }

    func deleteCredential(_ id: [UInt8]) async throws -> Response {
        try await users.deleteCredential(id, audit: RequestScope.audit)
        RequestScope.log(.credentialDeleted, user: nil, credential: id)
        return Response(status: .noContent)
    }
}

struct UserPage: Encodable {
    let users: [UserJSON]
    /// Cursor for the next page (`after=`); null on the last page.
    let next: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(users, forKey: .users)
        try container.encode(next, forKey: .next)  // explicit null on the last page
    }

    enum CodingKeys: String, CodingKey { case users, next }
}

/// An audit event as the admin API shows it: ids base64url, absent values null.
struct AuditEventJSON: Encodable {
    let id: String
    let occurredAt: Date
    let event: String
    let requestId: String?
    let actor: String
    let userId: String?
    let credentialId: String?
    let identityId: String?
    let clientAddress: String?
    /// The event's other facts (ids and states), `{}` when none.
    let details: [String: String]

    init(_ event: AuditEvent) {
        id = String(event.id)
        occurredAt = event.occurredAt
        self.event = event.kind.rawValue
        requestId = event.context.requestID
        actor = event.context.actor
        userId = event.userHandle.map(Base64URL.encode)
        credentialId = event.credentialID.map(Base64URL.encode)
        identityId = event.identityID.map(Base64URL.encode)
        clientAddress = event.context.clientAddress
        details = event.details
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(occurredAt, forKey: .occurredAt)
        try container.encode(event, forKey: .event)
        try container.encode(requestId, forKey: .requestId)
        try container.encode(actor, forKey: .actor)
        try container.encode(userId, forKey: .userId)
        try container.encode(credentialId, forKey: .credentialId)
        try container.encode(identityId, forKey: .identityId)
        try container.encode(clientAddress, forKey: .clientAddress)
        try container.encode(details, forKey: .details)
    }

    enum CodingKeys: String, CodingKey {
        case id, occurredAt, event, requestId, actor, userId, credentialId, identityId, clientAddress, details
    }
}

struct AuditPage: Encodable {
    let events: [AuditEventJSON]
    let next: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(events, forKey: .events)
        try container.encode(next, forKey: .next)
    }

    enum CodingKeys: String, CodingKey { case events, next }
}

struct UserWithCredentials: Encodable {
    let user: UserJSON
    let credentials: [CredentialJSON]
}

struct CredentialWithUser: Encodable {
    let credential: CredentialJSON
    let user: UserJSON?
}
