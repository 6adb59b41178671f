public import Foundation
import LibPQ
public import PasskeyStore

/// The ceremony keys every instance shares (schema and rules: `Migrations/0014_ceremony_keys.sql`). Every time is the
/// caller's. The key id (a `UInt32`) is stored as `bigint`.
extension PostgresPasskeyStore: CeremonyKeyStore {
    static let ceremonyKeyColumns = "key_id, sealed_secret, activates_at, retires_at, created_at"

    static let ceremonyKeysStatement = PGPreparedStatement(
        name: "passkeyd_ceremony_keys",
        sql: "SELECT \(ceremonyKeyColumns) FROM ceremony_keys WHERE retires_at > $1 ORDER BY activates_at, key_id",
        parameterTypes: [.timestamptz], isIdempotent: true)

    /// Inserts into a free slot with a free id; nothing (no row) when either is taken.
    static let addCeremonyKeyStatement = PGPreparedStatement(
        name: "passkeyd_ceremony_key_add",
        sql: """
            INSERT INTO ceremony_keys (\(ceremonyKeyColumns)) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT DO NOTHING RETURNING key_id
            """,
        parameterTypes: [.int8, .bytea, .timestamptz, .timestamptz, .timestamptz])

    /// The key holding a slot. A statement of its own after a conflicting insert: under READ COMMITTED its fresh
    /// snapshot sees the concurrent winner the insert waited for (the insert's own snapshot may not).
    static let ceremonyKeyInSlotStatement = PGPreparedStatement(
        name: "passkeyd_ceremony_key_slot",
        sql: "SELECT \(ceremonyKeyColumns) FROM ceremony_keys WHERE activates_at = $1", parameterTypes: [.timestamptz], isIdempotent: true)

    static let deleteRetiredCeremonyKeysStatement = PGPreparedStatement(
        name: "passkeyd_ceremony_keys_delete", sql: "DELETE FROM ceremony_keys WHERE retires_at < $1", parameterTypes: [.timestamptz])

    static func ceremonyKey(from result: PGResult, row: Int) throws -> StoredCeremonyKey {
        let id = try result.decode(Int64.self, row: row, column: 0)
        guard let keyID = UInt32(exactly: id) else { throw StoreError(.unavailable, "ceremony key id \(id) out of range") }
        return StoredCeremonyKey(
            id: keyID, sealedSecret: try result.decode([UInt8].self, row: row, column: 1),
            activatesAt: try result.decode(Date.self, row: row, column: 2), retiresAt: try result.decode(Date.self, row: row, column: 3),
            createdAt: try result.decode(Date.self, row: row, column: 4))
    }

    public func ceremonyKeys(unretiredAt now: Date) async throws(StoreError) -> [StoredCeremonyKey] {
        try await run { connection in
            let result = try connection.executePrepared(Self.ceremonyKeysStatement, [now])
            return try (0..<result.rowCount).map { row in try Self.ceremonyKey(from: result, row: row) }
        }
    }

    public func addCeremonyKey(_ key: StoredCeremonyKey) async throws(StoreError) -> CeremonyKeyAddition {
        let bindings: PGBindings = [Int64(key.id), key.sealedSecret, key.activatesAt, key.retiresAt, key.createdAt]
        return try await run { connection in
            if try connection.executePrepared(Self.addCeremonyKeyStatement, bindings).rowCount == 1 { return .added }
            let holder = try connection.executePrepared(Self.ceremonyKeyInSlotStatement, [key.activatesAt])
            return holder.rowCount == 0 ? .keyIDTaken : .slotTaken(by: try Self.ceremonyKey(from: holder, row: 0))
        }
    }

    public func deleteRetiredCeremonyKeys(before: Date) async throws(StoreError) -> Int {
        try await run { connection in try connection.executePrepared(Self.deleteRetiredCeremonyKeysStatement, [before]).affectedRows ?? 0 }
    }
}
