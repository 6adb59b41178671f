import LibPQ
import PasskeyStore

/// The reads of concurrent stateless begins (the user a begin names, with their credentials: ``PasskeyReadStore``),
/// answered in batches on few connections: one statement per batch (``readBatch``) instead of one per begin. A read
/// changes nothing, so a failed batch is every read's failure, as it would be alone. The batches come from
/// ``BatchLanes``.
enum UserReadBatcher {
    /// $1: the names looked up (NULL for a lookup by handle), $2: the handles (NULL for a lookup by name), one
    /// position per begin. Rows: each found user's columns, their credentials' sign-in columns (NULL for a user
    /// without one), and the lookup's position (1-based), by position then the credentials' age. A lookup that finds
    /// nobody has no row. Every lookup is an index probe (`LATERAL … LIMIT 1`), and so is each user's credential list,
    /// whatever the planner estimates for the arrays.
    static let readBatch = PGPreparedStatement(
        name: "passkeyd_user_with_credentials_batch",
        sql: """
            SELECT u.user_handle, u.name, u.display_name, u.created_at, \(PostgresPasskeyStore.credentialColumnsForSignIn), i.position
              FROM unnest($1::text[], $2::bytea[]) WITH ORDINALITY AS i(name, handle, position)
              CROSS JOIN LATERAL (
                  (SELECT id, user_handle, name, display_name, created_at FROM users WHERE name = i.name LIMIT 1)
                  UNION ALL
                  (SELECT id, user_handle, name, display_name, created_at FROM users WHERE user_handle = i.handle LIMIT 1)
                  LIMIT 1) u
              LEFT JOIN LATERAL (SELECT * FROM credentials WHERE user_id = u.id) c ON true
             ORDER BY i.position, c.created_at, c.id
            """,
        parameterTypes: [.textArray, .byteaArray], isIdempotent: true)

    static func makeLanes(pool: PGPool, lanes: Int) -> BatchLanes<UserLookup, UserWithCredentials?> {
        BatchLanes(pool: pool, lanes: lanes, run: run)
    }

    /// One statement for the batch; each lookup's answer in order.
    static func run(_ lookups: [UserLookup], on connection: PGConnection) throws -> [Result<UserWithCredentials?, any Error>] {
        var names: [String?] = []
        var handles: [[UInt8]?] = []
        names.reserveCapacity(lookups.count)
        handles.reserveCapacity(lookups.count)
        for lookup in lookups {
            switch lookup {
            case .name(let name):
                names.append(name)
                handles.append(nil)
            case .handle(let handle):
                names.append(nil)
                handles.append(handle)
            }
        }
        let result = try connection.executePrepared(readBatch, [names, handles])
        var found = [UserWithCredentials?](repeating: nil, count: lookups.count)
        let positionColumn = 4 + PostgresPasskeyStore.credentialColumnCount
        for row in 0..<result.rowCount {
            let position = Int(try result.decode(Int64.self, row: row, column: positionColumn)) - 1
            guard found.indices.contains(position) else {
                throw PGError(code: .protocolViolation, message: "a user read answered position \(position + 1) of \(lookups.count)")
            }
            let credential = try PostgresPasskeyStore.credential(from: result, row: row, offset: 4)
            if found[position] == nil {
                found[position] = UserWithCredentials(user: try PostgresPasskeyStore.user(from: result, row: row), credentials: [])
            }
            if let credential { found[position]?.credentials.append(credential) }
        }
        return found.map { .success($0) }
    }
}
