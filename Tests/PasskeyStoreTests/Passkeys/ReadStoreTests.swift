import Foundation
import LibPQ
import NIOPosix
import PasskeyStore
@testable import PasskeyStorePostgres
import PostgresTestSupport
import Testing
import WebAuthnCore

/// The begins' one read (``PasskeyReadStore``), on every store, and the read-only store a standby serves: the same
/// answer, and no write possible on its pool.
@Suite("Begin reads")
struct ReadStoreTests {
    @Test(arguments: StoreUnderTest.withBatching)
    func aUserWithTheirCredentialsByNameOrHandle(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let reads: any PasskeyReadStore = store
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

    /// Known users by name and by handle (with two, one and no credentials), unknown ones, and the same user twice,
    /// concurrently: each read gets its own answer, also when the batched store answers them in one statement.
    @Test(arguments: StoreUnderTest.withBatching)
    func concurrentReadsGetTheirOwnAnswers(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let (expected, lookups) = try await Self.mixedUsers(in: store)
        let answers = try await withThrowingTaskGroup(of: (Int, UserWithCredentials?).self) { group in
            for (position, lookup) in lookups.enumerated() {
                group.addTask { (position, try await store.userWithCredentials(lookup)) }
            }
            var answers = [UserWithCredentials?](repeating: nil, count: lookups.count)
            for try await (position, found) in group { answers[position] = found }
            return answers
        }
        for (position, lookup) in lookups.enumerated() {
            #expect(answers[position] == expected[position], "\(lookup)")
        }
    }

    /// The batch statement itself, given one batch of every kind of lookup: one answer per lookup, in order, each
    /// the single read's.
    @Test("UserReadBatcher: one statement answers a mixed batch, each lookup as alone")
    func oneStatementAnswersAMixedBatch() async throws {
        guard let url = PostgresSchema.databaseURL else { return }
        let schema = try await TestSchema.create(baseURL: url)
        defer { Task { await schema.drop() } }
        let pool = PGPool(url: schema.url, size: 1, threadPool: .singleton)
        let store = PostgresPasskeyStore(pool: pool)
        let (expected, lookups) = try await Self.mixedUsers(in: store)
        let answers = try await pool.withConnection { connection in try UserReadBatcher.run(lookups, on: connection) }
        #expect(answers.count == lookups.count)
        for (position, answer) in answers.enumerated() {
            #expect(try answer.get() == expected[position], "\(lookups[position])")
            let alone = try await pool.withConnection { connection in try PostgresPasskeyStore.readUser(lookups[position], on: connection) }
            #expect(try answer.get() == alone)
        }
        #expect(try await pool.withConnection { connection in try UserReadBatcher.run([], on: connection) }.isEmpty)
    }

    /// Users with two passkeys, one, none; returns the lookups of a begin batch (by name, by handle, unknown, repeated)
    /// and the answer each must get.
    static func mixedUsers(in store: any PasskeyStore) async throws -> (expected: [UserWithCredentials?], lookups: [UserLookup]) {
        var expected: [UserWithCredentials?] = []
        var lookups: [UserLookup] = []
        for index in UInt8(0)..<6 {
            let handle = Registrations.handle(90 + index)
            let name = "reader-\(index) ✓"
            var credentials: [StoredCredential] = []
            let user: StoredUser
            if index == 5 {
                user = try await store.createUser(handle: handle, name: name, displayName: "No passkey", audit: .system)
            } else {
                let first = try await store.register(
                    try Registrations.make(handle: handle, name: name), nickname: nil, intent: .newUser, audit: .system)
                user = first.user
                credentials.append(first.credential)
                if index.isMultiple(of: 2) {
                    credentials.append(try await store.register(
                        try Registrations.make(handle: handle, name: name), nickname: nil, intent: .existingUser, audit: .system).credential)
                }
            }
            let found = try #require(try await store.userWithCredentials(.handle(handle)))
            #expect(found.user == user && found.credentials.map(\.id) == credentials.map(\.id))
            lookups += [.name(name), .handle(handle)]
            expected += [found, found]
        }
        lookups += [.name("nobody"), .handle(Registrations.handle(99)), .name("reader-1 ✓"), .name("READER-1 ✓"), .handle([])]
        expected += [nil, nil, expected[2], nil, nil]
        return (expected, lookups)
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
