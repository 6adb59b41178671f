import Foundation
// @testable: only IdentityCore makes a VerifiedIdentity (its initialiser is internal); the store takes them as given.
@testable import IdentityCore
import LibPQ
import NIOPosix
import PasskeyStore
import PasskeyStorePostgres
import PostgresTestSupport
import Testing

/// Migration 0012 on a database written before it: Google identities stored under `accounts.google.com` move to the
/// canonical `https://accounts.google.com`, so a sign-in (which now looks up the canonical spelling) finds them; a
/// row whose canonical twin already exists is left as it is; other providers' rows are untouched.
@Suite("Migration 0012: canonical issuers", .enabled(if: PostgresSchema.databaseURL != nil))
struct CanonicalIssuerMigrationTests {
    static func identity(provider: String, issuer: String, subject: String) -> VerifiedIdentity {
        VerifiedIdentity(
            provider: provider, issuer: issuer, subject: subject, audience: "client", email: nil, emailVerified: nil,
            isPrivateEmail: nil, realUserStatus: nil, name: nil, issuedAt: Date(), expiresAt: Date())
    }

    @Test("rewrites the short spelling, leaves a row whose canonical twin exists, touches no other provider")
    func rewrite() async throws {
        let url = try TestDatabase.emptySchema(base: try #require(PostgresSchema.databaseURL))
        // The migrations up to 0011, as a database that ran the previous release has them.
        let before = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: before, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: before) }
        for file in try FileManager.default.contentsOfDirectory(atPath: PostgresSchema.migrations.path)
        where file.hasSuffix(".sql") && file < "0012" {
            try FileManager.default.copyItem(
                at: PostgresSchema.migrations.appendingPathComponent(file), to: before.appendingPathComponent(file))
        }
        let pool = PGPool(url: url, size: 2, threadPool: .singleton)
        _ = try await Migrator(directory: before).migrate(using: pool)
        let store = PostgresPasskeyStore(pool: pool)
        var handle: UInt8 = 0
        func signIn(_ provider: String, _ issuer: String, _ subject: String) async throws {
            handle += 1
            _ = try await store.signIn(
                Self.identity(provider: provider, issuer: issuer, subject: subject),
                link: .signInOrCreate(handle: Array(repeating: handle, count: 32), name: "u\(handle)", displayName: "U", nameIsDefault: false),
                identityID: Array(repeating: handle, count: 16), audit: .system)
        }
        try await signIn("google", "accounts.google.com", "only-short")       // → rewritten
        try await signIn("google", "https://accounts.google.com", "both")     // the canonical twin
        try await signIn("google", "accounts.google.com", "both")             // → left (two users already)
        try await signIn("corp", "accounts.google.com", "custom")             // another provider's issuer → left

        let applied = try await Migrator(directory: PostgresSchema.migrations).migrate(using: pool)
        #expect(applied.first?.version == 12, "0012, then the later migrations")
        let rows = try await pool.withConnection { connection in
            try connection.execute("SELECT provider, issuer, subject FROM identities ORDER BY subject, issuer").rows.map {
                "\(try $0.decode(String.self, column: 0)) \(try $0.decode(String.self, column: 1)) \(try $0.decode(String.self, column: 2))"
            }
        }
        #expect(rows == [
            "google accounts.google.com both", "google https://accounts.google.com both",
            "corp accounts.google.com custom", "google https://accounts.google.com only-short",
        ])
        // The rewritten identity signs its own user in under the canonical spelling (no new user).
        let again = try await store.signIn(
            Self.identity(provider: "google", issuer: "https://accounts.google.com", subject: "only-short"),
            link: .signInOrCreate(handle: Array(repeating: 99, count: 32), name: "new", displayName: "N", nameIsDefault: false),
            identityID: Array(repeating: 99, count: 16), audit: .system)
        #expect(!again.createdUser && again.user.handle == Array(repeating: 1, count: 32))
        await pool.shutdown()
    }
}
