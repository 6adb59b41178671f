import Foundation
import LibPQ
import NIOPosix
import PasskeyStore
import PasskeyStorePostgres
import PostgresTestSupport
import Testing
import WebAuthnCore

/// The begins' one read (``PasskeyReadStore``), on every store, and the read-only store a standby serves: the same
/// answer, and no write possible on its pool.
@Suite("Begin reads")
struct ReadStoreTests {
    @Test(arguments: StoreUnderTest.all)
    func aUserWithTheirCredentialsByNameOrHandle(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let reads = try #require(store as? any PasskeyReadStore)
        let handle = Registrations.handle(80)
        let first = try Registrations.make(handle: handle, name: "ivy")
        _ = try await store.register(first, nickname: nil, intent: .newUser, audit: .system)
        #expect(try await reads.userWithCredentials(.name("ivy"))?.credentials.map(\.id) == [first.credentialID])
        let second = try Registrations.make(handle: handle, name: "ivy")
        _ = try await store.register(second, nickname: nil, intent: .existingUser, audit: .system)

        for lookup in [UserLookup.name("ivy"), .handle(handle)] {
            let found = try #require(try await reads.userWithCredentials(lookup))
            #expect(found.user.handle == handle && found.user.name == "ivy")
            #expect(found.credentials.map(\.id) == [first.credentialID, second.credentialID], "oldest first")
            #expect(found.credentials.allSatisfy { $0.record.userHandle == handle })
        }
        #expect(try await reads.userWithCredentials(.name("nobody")) == nil)
        #expect(try await reads.userWithCredentials(.handle(Registrations.handle(81))) == nil)
        // A user without credentials.
        _ = try await store.createUser(handle: Registrations.handle(82), name: "jo", displayName: "Jo", audit: .system)
        #expect(try await reads.userWithCredentials(.name("jo"))?.credentials == [])
    }

    @Test("PostgresReadStore on a read-only pool: the primary's answer, and a write on that pool fails (25006)")
    func readOnlyPool() async throws {
        guard let url = PostgresSchema.databaseURL else { return }
        let schema = try await TestSchema.create(baseURL: url)
        defer { Task { await schema.drop() } }
        let primary = PostgresPasskeyStore(pool: PGPool(url: schema.url, size: 2, threadPool: .singleton))
        let registration = try Registrations.make(handle: Registrations.handle(83), name: "kit")
        _ = try await primary.register(registration, nickname: nil, intent: .newUser, audit: .system)

        let pool = PGPool(url: schema.url, size: 1, threadPool: .singleton, configuration: .init(readOnly: true))
        let replica = PostgresReadStore(pool: pool)
        let found = try #require(try await replica.userWithCredentials(.name("kit")))
        #expect(found == (try await primary.userWithCredentials(.name("kit"))))
        #expect(found.credentials.map(\.id) == [registration.credentialID])
        #expect(try await replica.userWithCredentials(.name("nobody")) == nil)

        await #expect {
            try await pool.withConnection { connection in _ = try connection.execute("DELETE FROM users") }
        } throws: { error in
            (error as? PGError)?.sqlState == "25006"
        }
        #expect(try await primary.user(named: "kit") != nil)
    }
}
