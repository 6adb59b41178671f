public import Foundation
public import IdentityCore
import LibPQ
public import PasskeyStore

/// The identities of ID-token sign-in (schema: `Migrations/0006_identities.sql`). Pending sessions are ceremonies
/// of kind `idtoken` and use the ceremony statements.
extension PostgresPasskeyStore: IdentityStore {
    /// Identity columns as the statements below return them after the user's four (``userColumns``).
    static let identityColumns = """
        i.id, i.provider, i.issuer, i.subject, i.audience, i.email, i.email_verified, i.is_private_email, \
        i.real_user_status, i.created_at, i.last_used_at
        """

    /// The columns both first-sign-in statements insert: the identity id, the user id, the eight values of
    /// ``appendIdentity(_:to:)``, then `now()`.
    static let identityInsertColumns =
        "id, user_id, provider, issuer, subject, audience, email, email_verified, is_private_email, real_user_status, last_used_at"

    /// A returning identity: refresh what the provider says and `last_used_at`, and return the user. With $8 (attach
    /// to this user) only if the identity already belongs to that user; no row otherwise.
    static let identitySignIn = PGPreparedStatement(
        name: "passkeyd_identity_sign_in",
        sql: """
            WITH found AS (
                UPDATE identities AS i
                   SET last_used_at = now(), audience = $3, email = COALESCE($4, i.email),
                       email_verified = COALESCE($5, i.email_verified), is_private_email = COALESCE($6, i.is_private_email),
                       real_user_status = COALESCE($7, i.real_user_status)
                 WHERE i.issuer = $1 AND i.subject = $2
                   AND ($8::bytea IS NULL OR i.user_id = (SELECT id FROM users WHERE user_handle = $8))
                RETURNING i.*
            )
            SELECT u.user_handle, u.name, u.display_name, u.created_at, \(identityColumns)
              FROM found i JOIN users u ON u.id = i.user_id
            """,
        parameterTypes: [.text, .text, .text, .text, .bool, .bool, .int2, .bytea])

    /// A first sign-in without a named user: the user, the identity and both audit events in one statement.
    static let identityCreateUser = PGPreparedStatement(
        name: "passkeyd_identity_create_user",
        sql: """
            WITH new_user AS (
                INSERT INTO users (user_handle, name, display_name) VALUES ($1, $2, $3)
                RETURNING id, user_handle, name, display_name, created_at
            ), i AS (
                INSERT INTO identities (\(identityInsertColumns))
                SELECT $4, id, $5, $6, $7, $8, $9, $10, $11, $12, now() FROM new_user
                RETURNING *
            ), audit AS (
                INSERT INTO audit_events (event, request_id, actor, user_handle, identity_id, client_address)
                SELECT e.event, $13, $14, n.user_handle, e.identity_id, $15
                  FROM new_user n, (SELECT 1 AS position, 'user.created' AS event, NULL::bytea AS identity_id
                                    UNION ALL SELECT 2, 'identity.linked', $4::bytea) AS e
                 ORDER BY e.position
            )
            SELECT u.user_handle, u.name, u.display_name, u.created_at, \(identityColumns) FROM new_user u, i
            """,
        parameterTypes: [.bytea, .text, .text, .bytea, .text, .text, .text, .text, .text, .bool, .bool, .int2, .text, .text, .text])

    /// A first sign-in attached to the user the backend named ($1); no row when there is no such user.
    static let identityAttach = PGPreparedStatement(
        name: "passkeyd_identity_attach",
        sql: """
            WITH u AS (
                SELECT id, user_handle, name, display_name, created_at FROM users WHERE user_handle = $1
            ), i AS (
                INSERT INTO identities (\(identityInsertColumns))
                SELECT $2, id, $3, $4, $5, $6, $7, $8, $9, $10, now() FROM u
                RETURNING *
            ), audit AS (
                INSERT INTO audit_events (event, request_id, actor, user_handle, identity_id, client_address)
                SELECT 'identity.linked', $11, $12, u.user_handle, i.id, $13 FROM u, i
            )
            SELECT u.user_handle, u.name, u.display_name, u.created_at, \(identityColumns) FROM u, i
            """,
        parameterTypes: [.bytea, .bytea, .text, .text, .text, .text, .text, .bool, .bool, .int2, .text, .text, .text])

    /// Returning identity first (one statement, the common case); a new one is inserted with its user or attached to
    /// the named user. A concurrent first sign-in of the same identity makes one insert fail on
    /// `identities_issuer_subject_key`: that one then signs in as a returning identity (exactly one user is created).
    public func signIn(
        _ identity: VerifiedIdentity, link: IdentityLink, identityID: [UInt8], audit: AuditContext
    ) async throws(StoreError) -> IdentitySignInResult {
        try await run { connection in
            var attachTo: [UInt8]?
            if case .attach(let handle) = link { attachTo = handle }
            func returning() throws -> IdentitySignInResult? {
                var bindings = PGBindings()
                bindings.append(identity.issuer)
                bindings.append(identity.subject)
                bindings.append(identity.audience)
                bindings.append(identity.email)
                bindings.append(identity.emailVerified)
                bindings.append(identity.isPrivateEmail)
                bindings.append(identity.realUserStatus.map(Int16.init(clamping:)))
                bindings.append(attachTo)
                let result = try connection.executePrepared(Self.identitySignIn, bindings)
                guard result.rowCount == 1 else { return nil }
                return IdentitySignInResult(
                    user: try Self.user(from: result, row: 0), identity: try Self.identity(from: result, row: 0),
                    createdUser: false, linkedIdentity: false)
            }
            if let signedIn = try returning() { return signedIn }
            do {
                switch link {
                case .attach(let handle):
                    var bindings = PGBindings()
                    bindings.append(handle)
                    bindings.append(identityID)
                    Self.appendIdentity(identity, to: &bindings)
                    bindings.append(contentsOf: audit)
                    let result = try connection.executePrepared(Self.identityAttach, bindings)
                    guard result.rowCount == 1 else { throw StoreError(.userUnknown, "no user with that handle") }
                    return IdentitySignInResult(
                        user: try Self.user(from: result, row: 0), identity: try Self.identity(from: result, row: 0),
                        createdUser: false, linkedIdentity: true)
                case .signInOrCreate(let handle, let name, let displayName, let nameIsDefault):
                    var attempt = name
                    while true {
                        var bindings = PGBindings()
                        bindings.append(handle)
                        bindings.append(attempt)
                        bindings.append(displayName)
                        bindings.append(identityID)
                        Self.appendIdentity(identity, to: &bindings)
                        bindings.append(contentsOf: audit)
                        do {
                            let result = try connection.executePrepared(Self.identityCreateUser, bindings)
                            return IdentitySignInResult(
                                user: try Self.user(from: result, row: 0), identity: try Self.identity(from: result, row: 0),
                                createdUser: true, linkedIdentity: true)
                        } catch let error as PGError where error.sqlState == .uniqueViolation
                            && error.constraintName == "users_name_key" && nameIsDefault && attempt == name {
                            // A name passkeyd made up is taken (e.g. by an account whose identity was unlinked):
                            // a random suffix, once.
                            attempt = name + "~" + handle.prefix(3).map { String($0, radix: 16) }.joined()
                        }
                    }
                }
            } catch let error as PGError where error.sqlState == .uniqueViolation && error.constraintName == "identities_issuer_subject_key" {
                // Attached concurrently: to the named user (then this is a sign-in), or to someone else.
                if let signedIn = try returning() { return signedIn }
                throw StoreError(.identityLinkedElsewhere, "the identity belongs to another user")
            }
        }
    }

    static func appendIdentity(_ identity: VerifiedIdentity, to bindings: inout PGBindings) {
        bindings.append(identity.provider)
        bindings.append(identity.issuer)
        bindings.append(identity.subject)
        bindings.append(identity.audience)
        bindings.append(identity.email)
        bindings.append(identity.emailVerified)
        bindings.append(identity.isPrivateEmail)
        bindings.append(identity.realUserStatus.map(Int16.init(clamping:)))
    }

    /// Columns 4-14 (after the user's) as a ``StoredIdentity`` of the user in columns 0-3.
    static func identity(from result: PGResult, row: Int, offset: Int = 4) throws -> StoredIdentity {
        StoredIdentity(
            id: try result.decode([UInt8].self, row: row, column: offset), userHandle: try result.decode([UInt8].self, row: row, column: 0),
            provider: try result.decode(String.self, row: row, column: offset + 1),
            issuer: try result.decode(String.self, row: row, column: offset + 2),
            subject: try result.decode(String.self, row: row, column: offset + 3),
            audience: try result.decode(String.self, row: row, column: offset + 4),
            email: try result.decode(String?.self, row: row, column: offset + 5),
            emailVerified: try result.decode(Bool?.self, row: row, column: offset + 6),
            isPrivateEmail: try result.decode(Bool?.self, row: row, column: offset + 7),
            realUserStatus: try result.decode(Int16?.self, row: row, column: offset + 8).map(Int.init),
            createdAt: try result.decode(Date.self, row: row, column: offset + 9),
            lastUsedAt: try result.decode(Date?.self, row: row, column: offset + 10))
    }

    public func identities(ofUser handle: [UInt8]) async throws(StoreError) -> [StoredIdentity] {
        try await run { connection in
            let result = try connection.execute(PGQuery(
                unsafeSQL: """
                    SELECT u.user_handle, u.name, u.display_name, u.created_at, \(Self.identityColumns)
                      FROM identities i JOIN users u ON u.id = i.user_id
                     WHERE u.user_handle = $1 ORDER BY i.created_at, i.id
                    """,
                bindings: [handle]))
            return try (0..<result.rowCount).map { row in try Self.identity(from: result, row: row) }
        }
    }

    /// The identity (its kept provider token queued by the table's trigger) and its audit event in one statement, then
    /// (when configured) the revocation of the sessions it started, in the same transaction: as ``removeCredential(id:ofUser:keepingLastSignInMethod:audit:)`` (``removeSignInMethod(_:id:owner:keepingLast:audit:on:)``).
    public func unlinkIdentity(
        id: [UInt8], ofUser handle: [UInt8], keepingLastSignInMethod: Bool, audit: AuditContext
    ) async throws(StoreError) -> SignInMethodRemoval {
        let (removal, revoked) = try await run(transaction: revokeSessionsOnDelete || keepingLastSignInMethod) { connection in
            try self.removeSignInMethod(.identity, id: id, owner: handle, keepingLast: keepingLastSignInMethod, audit: audit, on: connection)
        }
        audit.report(revoked)
        return removal
    }
}
