import Foundation
import IdentityCore
import LibPQ
import NIOPosix
// @testable: StoredSession.with(...) (the in-memory store's helper) spells the expected revoked sessions.
@testable import PasskeyStore
import PasskeyStorePostgres
import PostgresTestSupport
import Testing
import WebAuthnCore

/// Sessions, handoff codes and signing keys behave the same in both stores: rotation retires the presented token and
/// a retired one revokes the family, expiry is exact at the boundary (the caller's clock), revocation by id, refresh
/// token and user, deletions revoke or remove what they started, handoff codes are taken once, and signing keys
/// rotate unless another instance rotated first.
@Suite("Session store conformance")
struct SessionStoreConformanceTests {
    typealias Store = any PasskeyStore & IdentityStore & SessionStore

    static func store(_ subject: StoreUnderTest, revokeSessionsOnDelete: Bool = true) async throws -> Store {
        try #require(try await subject.makeConfigured(revokeSessionsOnDelete) as? Store)
    }

    /// A whole second, so dates survive PostgreSQL's microseconds unchanged.
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }
    static func hash(_ byte: UInt8) -> [UInt8] { Array(repeating: byte, count: 32) }
    static func id(_ byte: UInt8) -> [UInt8] { Array(repeating: byte, count: 16) }

    /// A user with one passkey: its handle and the credential's id.
    static func user(_ store: Store, _ byte: UInt8) async throws -> (handle: [UInt8], credential: [UInt8]) {
        let registration = try Registrations.make(handle: Registrations.handle(byte), name: "user\(byte)")
        let (user, credential) = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        return (user.handle, credential.id)
    }

    /// A session created at `created` seconds, idle and absolute expiry at those offsets.
    static func newSession(
        _ byte: UInt8, user: [UInt8], refresh: UInt8, created: TimeInterval = 0, idle: TimeInterval = 600, absolute: TimeInterval = 3600,
        credential: [UInt8]? = nil, identity: [UInt8]? = nil
    ) -> NewSession {
        NewSession(
            id: id(byte), userHandle: user, refreshHash: hash(refresh), origin: .passkey, amr: ["hwk", "user"], authTime: at(created - 5),
            createdAt: at(created), idleExpiresAt: at(idle), absoluteExpiresAt: at(absolute), credentialID: credential, identityID: identity)
    }

    static func rotated(_ rotation: RefreshRotation) throws -> StoredSession {
        guard case .rotated(let session) = rotation else { throw RotationMismatch(rotation: rotation) }
        return session
    }

    struct RotationMismatch: Error { let rotation: RefreshRotation }

    @Test(arguments: StoreUnderTest.all)
    func createAndRead(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let (handle, credential) = try await Self.user(store, 1)
        #expect(try await !store.createSession(Self.newSession(1, user: Registrations.handle(9), refresh: 1)), "no such user")
        #expect(try await store.session(id: Self.id(1)) == nil)
        #expect(try await store.createSession(Self.newSession(1, user: handle, refresh: 1, credential: credential)))
        #expect(try await store.createSession(Self.newSession(2, user: handle, refresh: 2, created: 20)))
        // What started a session must still exist: an identity or credential deleted during the sign-in starts none.
        let orphan = NewSession(
            id: Self.id(3), userHandle: handle, refreshHash: Self.hash(3), origin: .idToken, amr: ["fed"], authTime: Self.t0,
            createdAt: Self.at(10), idleExpiresAt: Self.at(600), absoluteExpiresAt: Self.at(3600), identityID: Self.id(7))
        #expect(try await !store.createSession(orphan))
        #expect(try await !store.createSession(Self.newSession(3, user: handle, refresh: 3, credential: Self.id(8))))
        let handoff = NewSession(
            id: Self.id(3), userHandle: handle, refreshHash: Self.hash(3), origin: .handoff, amr: [], authTime: Self.t0,
            createdAt: Self.at(10), idleExpiresAt: Self.at(600), absoluteExpiresAt: Self.at(3600))
        #expect(try await store.createSession(handoff))
        let first = try #require(try await store.session(id: Self.id(1)))
        #expect(first == StoredSession(
            id: Self.id(1), userHandle: handle, origin: .passkey, amr: ["hwk", "user"], authTime: Self.at(-5), createdAt: Self.t0,
            refreshedAt: nil, generation: 0, idleExpiresAt: Self.at(600), absoluteExpiresAt: Self.at(3600), revokedAt: nil,
            revokedReason: nil, credentialID: credential, identityID: nil))
        let third = try #require(try await store.session(id: Self.id(3)))
        #expect(third.origin == .handoff && third.amr.isEmpty && third.identityID == nil && third.credentialID == nil)
        #expect(try await store.sessions(ofUser: handle).map(\.id) == [Self.id(2), Self.id(3), Self.id(1)], "newest first")
        #expect(try await store.sessions(ofUser: Registrations.handle(9)).isEmpty)
    }

    @Test(arguments: StoreUnderTest.all)
    func rotationRetiresAndReuseRevokes(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let (handle, _) = try await Self.user(store, 1)
        _ = try await store.createSession(Self.newSession(1, user: handle, refresh: 1, idle: 600, absolute: 1000))
        let once = try Self.rotated(try await store.rotateRefreshToken(presented: Self.hash(1), replacement: Self.hash(2), now: Self.at(100), idleLifetime: 600))
        #expect(once.generation == 1 && once.refreshedAt == Self.at(100) && once.idleExpiresAt == Self.at(700) && once.revokedAt == nil)
        #expect(try await store.session(id: Self.id(1)) == once)
        // Near the absolute expiry the idle expiry stops there.
        let twice = try Self.rotated(try await store.rotateRefreshToken(presented: Self.hash(2), replacement: Self.hash(3), now: Self.at(650), idleLifetime: 600))
        #expect(twice.generation == 2 && twice.idleExpiresAt == Self.at(1000) && twice.absoluteExpiresAt == Self.at(1000))

        // The first token again: the family is revoked now, and stays revoked as it was when presented once more.
        let reused = try await store.rotateRefreshToken(presented: Self.hash(1), replacement: Self.hash(4), now: Self.at(700), idleLifetime: 600)
        let revoked = twice.with(revokedAt: Self.at(700), revokedReason: .refreshTokenReused)
        #expect(reused == .reused(revoked))
        #expect(try await store.rotateRefreshToken(presented: Self.hash(2), replacement: Self.hash(5), now: Self.at(800), idleLifetime: 600) == .reused(revoked))
        // The current token of the revoked family: inactive, nothing changes.
        #expect(try await store.rotateRefreshToken(presented: Self.hash(3), replacement: Self.hash(6), now: Self.at(701), idleLifetime: 600) == .inactive(revoked))
        #expect(try await store.session(id: Self.id(1)) == revoked)
        #expect(try await store.rotateRefreshToken(presented: Self.hash(9), replacement: Self.hash(10), now: Self.at(1), idleLifetime: 600) == .unknown)
    }

    @Test(arguments: StoreUnderTest.all)
    func expiryIsExactAtTheBoundary(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let (handle, _) = try await Self.user(store, 1)
        // Idle expiry at 100 s.
        _ = try await store.createSession(Self.newSession(1, user: handle, refresh: 1, idle: 100, absolute: 1000))
        let idle = try #require(try await store.session(id: Self.id(1)))
        #expect(try await store.rotateRefreshToken(presented: Self.hash(1), replacement: Self.hash(2), now: Self.at(100), idleLifetime: 100) == .inactive(idle))
        let moved = try Self.rotated(try await store.rotateRefreshToken(presented: Self.hash(1), replacement: Self.hash(2), now: Self.at(99), idleLifetime: 100))
        #expect(moved.idleExpiresAt == Self.at(199))
        // Absolute expiry at 500 s, before the idle one.
        _ = try await store.createSession(Self.newSession(2, user: handle, refresh: 11, idle: 900, absolute: 500))
        let capped = try Self.rotated(try await store.rotateRefreshToken(presented: Self.hash(11), replacement: Self.hash(12), now: Self.at(499), idleLifetime: 100))
        #expect(capped.idleExpiresAt == Self.at(500))
        #expect(try await store.rotateRefreshToken(presented: Self.hash(12), replacement: Self.hash(13), now: Self.at(500), idleLifetime: 100) == .inactive(capped))
        #expect(!capped.isActive(at: Self.at(500)) && capped.isActive(at: Self.at(499)))
    }

    @Test(arguments: StoreUnderTest.all)
    func revocation(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let (alice, _) = try await Self.user(store, 1)
        let (bob, _) = try await Self.user(store, 2)
        for byte in UInt8(1)...4 { _ = try await store.createSession(Self.newSession(byte, user: alice, refresh: byte, created: Double(byte))) }
        _ = try await store.createSession(Self.newSession(5, user: alice, refresh: 5, created: 5, idle: 50, absolute: 60))  // expired at 100
        _ = try await store.createSession(Self.newSession(6, user: bob, refresh: 6))

        // By id: only the owner's, only once.
        #expect(try await !store.revokeSession(id: Self.id(1), ofUser: bob, reason: .signOut, now: Self.at(100)))
        #expect(try await store.revokeSession(id: Self.id(1), ofUser: alice, reason: .signOut, now: Self.at(100)))
        #expect(try await !store.revokeSession(id: Self.id(1), ofUser: alice, reason: .admin, now: Self.at(101)))
        #expect(try await !store.revokeSession(id: Self.id(99), ofUser: nil, reason: .admin, now: Self.at(101)))
        #expect(try await store.revokeSession(id: Self.id(2), ofUser: nil, reason: .admin, now: Self.at(101)))
        let first = try #require(try await store.session(id: Self.id(1)))
        #expect(first.revokedAt == Self.at(100) && first.revokedReason == .signOut)
        #expect(try await store.session(id: Self.id(2))?.revokedReason == .admin)

        // By the current refresh token; a revoked session keeps its first revocation.
        let signedOut = try #require(try await store.revokeSession(refreshHash: Self.hash(3), reason: .signOut, now: Self.at(102)))
        #expect(signedOut.id == Self.id(3) && signedOut.revokedAt == Self.at(102) && signedOut.revokedReason == .signOut)
        #expect(try await store.revokeSession(refreshHash: Self.hash(3), reason: .admin, now: Self.at(103)) == signedOut)
        #expect(try await store.revokeSession(refreshHash: Self.hash(99), reason: .signOut, now: Self.at(103)) == nil)

        // All of alice's active sessions: only session 4 (1-3 revoked, 5 expired); bob's stays.
        #expect(try await store.revokeSessions(ofUser: alice, reason: .admin, now: Self.at(104)) == 1)
        #expect(try await store.session(id: Self.id(4))?.revokedAt == Self.at(104))
        #expect(try await store.session(id: Self.id(5))?.revokedAt == nil)
        #expect(try await store.session(id: Self.id(6))?.revokedAt == nil)
        #expect(try await store.revokeSessions(ofUser: alice, reason: .admin, now: Self.at(105)) == 0)
    }

    /// A user with a passkey and an identity, and three sessions: started by each, and by neither.
    static func sessionsOfEachStart(_ store: Store) async throws -> (handle: [UInt8], credential: [UInt8], identity: [UInt8]) {
        let (handle, credential) = try await Self.user(store, 1)
        let identity = try await store.signIn(
            IdentityStoreConformanceTests.identity("s1"), link: .attach(toUser: handle), identityID: Self.id(40), audit: .system
        ).identity.id
        _ = try await store.createSession(Self.newSession(1, user: handle, refresh: 1, credential: credential))
        _ = try await store.createSession(Self.newSession(2, user: handle, refresh: 2, identity: identity))
        _ = try await store.createSession(Self.newSession(3, user: handle, refresh: 3))
        #expect(try await store.deleteCredential(id: credential, audit: .system))
        #expect(try await store.unlinkIdentity(id: identity, ofUser: handle, audit: .system))
        return (handle, credential, identity)
    }

    @Test(arguments: StoreUnderTest.all)
    func deletingWhatStartedASessionRevokesIt(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        _ = try await Self.sessionsOfEachStart(store)
        let byCredential = try #require(try await store.session(id: Self.id(1)))
        let byIdentity = try #require(try await store.session(id: Self.id(2)))
        #expect(byCredential.revokedReason == .credentialDeleted && byCredential.revokedAt != nil)
        #expect(byIdentity.revokedReason == .identityUnlinked && byIdentity.revokedAt != nil)
        #expect(try await store.session(id: Self.id(3))?.revokedAt == nil)
        #expect(try await store.rotateRefreshToken(presented: Self.hash(1), replacement: Self.hash(9), now: Self.at(1), idleLifetime: 600) == .inactive(byCredential))
    }

    @Test(arguments: StoreUnderTest.all)
    func deletingKeepsSessionsWhenConfiguredTo(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject, revokeSessionsOnDelete: false)
        let (handle, _, _) = try await Self.sessionsOfEachStart(store)
        #expect(try await store.sessions(ofUser: handle).allSatisfy { $0.revokedAt == nil })
    }

    @Test(arguments: StoreUnderTest.all)
    func deletingAUserRemovesSessionsAndHandoffs(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let (handle, _) = try await Self.user(store, 1)
        let (other, _) = try await Self.user(store, 2)
        _ = try await store.createSession(Self.newSession(1, user: handle, refresh: 1))
        _ = try Self.rotated(try await store.rotateRefreshToken(presented: Self.hash(1), replacement: Self.hash(2), now: Self.at(1), idleLifetime: 600))
        _ = try await store.createSession(Self.newSession(2, user: other, refresh: 3))
        #expect(try await store.saveHandoff(Self.handoff(1, user: handle)))
        #expect(try await store.deleteUser(handle: handle, audit: .system))
        #expect(try await store.sessions(ofUser: handle).isEmpty)
        #expect(try await store.session(id: Self.id(1)) == nil)
        #expect(try await store.rotateRefreshToken(presented: Self.hash(1), replacement: Self.hash(4), now: Self.at(2), idleLifetime: 600) == .unknown)
        #expect(try await store.rotateRefreshToken(presented: Self.hash(2), replacement: Self.hash(4), now: Self.at(2), idleLifetime: 600) == .unknown)
        #expect(try await store.takeHandoff(codeHash: Self.hash(1)) == nil)
        #expect(try await store.session(id: Self.id(2)) != nil)
    }

    static func handoff(_ byte: UInt8, user: [UInt8], expires: TimeInterval = 60, fromSession: Bool = true) -> StoredHandoff {
        StoredHandoff(
            codeHash: hash(byte), userHandle: user, sessionID: fromSession ? id(byte) : nil,
            codeChallenge: fromSession ? String(repeating: "A", count: 43) : nil, amr: ["hwk", "user"], authTime: at(-30), createdAt: t0,
            expiresAt: at(expires))
    }

    @Test(arguments: StoreUnderTest.all)
    func handoffsAreTakenOnce(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let (handle, _) = try await Self.user(store, 1)
        #expect(try await !store.saveHandoff(Self.handoff(1, user: Registrations.handle(9))), "no such user")
        #expect(try await store.saveHandoff(Self.handoff(1, user: handle)))
        #expect(try await store.saveHandoff(Self.handoff(2, user: handle, expires: -1, fromSession: false)))
        #expect(try await store.takeHandoff(codeHash: Self.hash(1)) == Self.handoff(1, user: handle))
        #expect(try await store.takeHandoff(codeHash: Self.hash(1)) == nil)
        // Expired or not, it is returned (the caller checks) and used up.
        #expect(try await store.takeHandoff(codeHash: Self.hash(2)) == Self.handoff(2, user: handle, expires: -1, fromSession: false))
        #expect(try await store.takeHandoff(codeHash: Self.hash(2)) == nil)
        #expect(try await store.takeHandoff(codeHash: Self.hash(3)) == nil)
    }

    @Test(arguments: StoreUnderTest.all)
    func purge(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let (handle, _) = try await Self.user(store, 1)
        _ = try await store.createSession(Self.newSession(1, user: handle, refresh: 1, idle: 10, absolute: 19))  // past its absolute expiry
        _ = try Self.rotated(try await store.rotateRefreshToken(presented: Self.hash(1), replacement: Self.hash(2), now: Self.at(1), idleLifetime: 5))
        _ = try await store.createSession(Self.newSession(2, user: handle, refresh: 3))  // revoked before
        _ = try await store.revokeSession(id: Self.id(2), ofUser: nil, reason: .signOut, now: Self.at(19))
        _ = try await store.createSession(Self.newSession(3, user: handle, refresh: 4, absolute: 20))  // expires at the boundary: kept
        _ = try await store.createSession(Self.newSession(4, user: handle, refresh: 5))  // revoked at the boundary: kept
        _ = try await store.revokeSession(id: Self.id(4), ofUser: nil, reason: .signOut, now: Self.at(20))
        _ = try await store.createSession(Self.newSession(5, user: handle, refresh: 6))  // active
        _ = try await store.saveHandoff(Self.handoff(1, user: handle, expires: 20))
        _ = try await store.saveHandoff(Self.handoff(2, user: handle, expires: 21))

        #expect(try await store.purgeSessions(before: Self.at(20)) == 2)
        #expect(try await store.sessions(ofUser: handle).map(\.id) == [Self.id(3), Self.id(4), Self.id(5)].sorted { $1.lexicographicallyPrecedes($0) })
        #expect(try await store.rotateRefreshToken(presented: Self.hash(1), replacement: Self.hash(7), now: Self.at(2), idleLifetime: 5) == .unknown)
        #expect(try await store.takeHandoff(codeHash: Self.hash(1)) == nil, "expired at `before`")
        #expect(try await store.takeHandoff(codeHash: Self.hash(2)) != nil)
        #expect(try await store.purgeSessions(before: Self.at(20)) == 0)
    }

    static func key(_ name: String, created: TimeInterval, activates: TimeInterval) -> StoredSigningKey {
        StoredSigningKey(
            keyID: name, algorithm: "ES256", sealedPrivateKey: Array(repeating: 0xAB, count: 60), createdAt: at(created),
            activatesAt: at(activates), retiresAt: nil, expiresAt: nil)
    }

    @Test(arguments: StoreUnderTest.all)
    func signingKeysRotate(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        #expect(try await store.signingKeys().isEmpty)
        let first = Self.key("k1", created: 0, activates: 0)
        #expect(try await store.addSigningKey(first, unlessCreatedAfter: Self.at(-1), retiredKeyLifetime: 900))
        #expect(try await store.signingKeys() == [first])

        // The next key activates later; the first signs until then and stays published 900 s more.
        let second = Self.key("k2", created: 100, activates: 200)
        #expect(try await store.addSigningKey(second, unlessCreatedAfter: Self.at(0), retiredKeyLifetime: 900))
        let retired = StoredSigningKey(
            keyID: "k1", algorithm: "ES256", sealedPrivateKey: first.sealedPrivateKey, createdAt: Self.t0, activatesAt: Self.t0,
            retiresAt: Self.at(200), expiresAt: Self.at(1100))
        #expect(try await store.signingKeys() == [retired, second])

        // Another instance decided to rotate as of 50 s: k2 came after that, so nothing happens.
        let third = Self.key("k3", created: 300, activates: 400)
        #expect(try await !store.addSigningKey(third, unlessCreatedAfter: Self.at(50), retiredKeyLifetime: 900))
        #expect(try await store.signingKeys() == [retired, second])
        #expect(try await store.addSigningKey(third, unlessCreatedAfter: Self.at(100), retiredKeyLifetime: 60))
        let keys = try await store.signingKeys()
        #expect(keys.map(\.keyID) == ["k1", "k2", "k3"] && keys[0] == retired)
        #expect(keys[1].retiresAt == Self.at(400) && keys[1].expiresAt == Self.at(460) && keys[2] == third)

        #expect(try await store.purgeSigningKeys(before: Self.at(460)) == 0)
        #expect(try await store.purgeSigningKeys(before: Self.at(461)) == 1)
        #expect(try await store.signingKeys().map(\.keyID) == ["k1", "k3"])
        #expect(try await store.purgeSigningKeys(before: Self.at(1101)) == 1)
    }

    @Test(arguments: StoreUnderTest.all)
    func concurrentPresentationsRotateOnce(_ subject: StoreUnderTest) async throws {
        let store = try await Self.store(subject)
        let (handle, _) = try await Self.user(store, 1)
        _ = try await store.createSession(Self.newSession(1, user: handle, refresh: 1))
        try await Self.expectOneRotation(try await Self.rotateConcurrently(store, times: 8), store)
        _ = try await store.saveHandoff(Self.handoff(1, user: handle))
        #expect(try await Self.takeConcurrently(store, times: 8) == 1)
    }

    /// Presents refresh token 1 `times` at once, each with its own replacement.
    static func rotateConcurrently(_ store: Store, times: Int) async throws -> [RefreshRotation] {
        try await withThrowingTaskGroup(of: RefreshRotation.self) { group in
            for index in 0..<times {
                group.addTask {
                    try await store.rotateRefreshToken(presented: hash(1), replacement: hash(UInt8(100 + index)), now: at(1), idleLifetime: 600)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// Exactly one rotated; the others found the token retired, and the family is revoked.
    static func expectOneRotation(_ outcomes: [RefreshRotation], _ store: Store) async throws {
        let winners = outcomes.compactMap { try? rotated($0) }
        let reused = outcomes.filter { if case .reused = $0 { true } else { false } }
        #expect(winners.count == 1 && reused.count == outcomes.count - 1, "\(outcomes)")
        let session = try #require(try await store.session(id: id(1)))
        #expect(session.generation == 1 && session.revokedReason == .refreshTokenReused)
    }

    /// Takes handoff code 1 `times` at once; how many got it.
    static func takeConcurrently(_ store: Store, times: Int) async throws -> Int {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<times { group.addTask { try await store.takeHandoff(codeHash: hash(1)) != nil } }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
    }
}

/// The two races on PostgreSQL with every contender queued on the row at once: a transaction holds the row locked
/// until all eight statements wait for it, so every one of them read the row before the winner changed it.
@Suite("Session store races on PostgreSQL", .enabled(if: PostgresSchema.databaseURL != nil, "PASSKEYD_TEST_DATABASE_URL is not set"))
struct SessionStoreRaceTests {
    static let contenders = 8

    /// A store on a fresh schema whose connections (one per contender) carry `application_name`, a holder connection
    /// on the same schema, and a way to wait until every contender waits for a lock (asked on a third connection:
    /// pg_stat_activity stays as first read for the rest of a transaction).
    static func withRace(
        _ body: (SessionStoreConformanceTests.Store, PGConnection, _ waitForContenders: () async throws -> Void) async throws -> Void
    ) async throws {
        let url = try TestDatabase.emptySchema(base: try #require(PostgresSchema.databaseURL))
        let application = "sessions_race_\(UInt32.random(in: 0...UInt32.max))"
        let threads = NIOThreadPool(numberOfThreads: contenders)
        threads.start()
        let pool = PGPool(url: url + "&application_name=\(application)", size: contenders, threadPool: threads)
        let holder = try PGConnection.connect(url: url)
        let watcher = try PGConnection.connect(url: url)
        let outcome: Result<Void, any Error>
        do {
            _ = try await Migrator(directory: PostgresSchema.migrations).migrate(using: pool)
            try await body(PostgresPasskeyStore(pool: pool), holder) {
                var waiting = 0
                for _ in 0..<200 where waiting < contenders {
                    try await Task.sleep(for: .milliseconds(25))
                    waiting = Int(try watcher.execute(PGQuery(
                        unsafeSQL: "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
                        bindings: [application])).decode(Int64.self, row: 0, column: 0))
                }
                #expect(waiting == contenders, "every contender waits for the row")
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try? holder.close()
        try? watcher.close()
        await pool.shutdown()
        try? await threads.shutdownGracefully()
        try outcome.get()
    }

    @Test("of eight presentations of one refresh token queued on its row, one rotates; seven find it retired and revoke the family")
    func rotation() async throws {
        try await Self.withRace { store, holder, waitForContenders in
            let (handle, _) = try await SessionStoreConformanceTests.user(store, 1)
            _ = try await store.createSession(SessionStoreConformanceTests.newSession(1, user: handle, refresh: 1))
            try holder.simpleQuery("BEGIN")
            _ = try holder.execute(PGQuery(unsafeSQL: "SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE", bindings: [SessionStoreConformanceTests.id(1)]))
            let outcomes = Task { try await SessionStoreConformanceTests.rotateConcurrently(store, times: Self.contenders) }
            try await waitForContenders()
            try holder.simpleQuery("COMMIT")
            try await SessionStoreConformanceTests.expectOneRotation(try await outcomes.value, store)
        }
    }

    @Test("a session whose sign-in commits while the passkey's deletion waits on it is revoked by that deletion, not missed")
    func sessionRacingCredentialDeletion() async throws {
        let url = try TestDatabase.emptySchema(base: try #require(PostgresSchema.databaseURL))
        let threads = NIOThreadPool(numberOfThreads: 2)
        threads.start()
        let pool = PGPool(url: url, size: 2, threadPool: threads)
        let signIn = try PGConnection.connect(url: url)
        let outcome: Result<Void, any Error>
        do {
            _ = try await Migrator(directory: PostgresSchema.migrations).migrate(using: pool)
            let store = PostgresPasskeyStore(pool: pool)
            let (handle, credential) = try await SessionStoreConformanceTests.user(store, 1)
            // The session statement of createSession, held open in a transaction: it locked the credential.
            try signIn.simpleQuery("BEGIN")
            var bindings: PGBindings = [SessionStoreConformanceTests.id(1), handle, SessionStoreConformanceTests.hash(1)]
            bindings.append(credential)
            let inserted = try signIn.execute(PGQuery(unsafeSQL: """
                INSERT INTO sessions (id, user_id, refresh_hash, origin, amr, auth_time, created_at, idle_expires_at, absolute_expires_at, credential_id)
                SELECT $1, id, $3, 'passkey', '{hwk}', now(), now(), now() + interval '1 hour', now() + interval '1 hour', $4
                  FROM users WHERE user_handle = $2 AND EXISTS (SELECT 1 FROM credentials WHERE id = $4 FOR KEY SHARE)
                """, bindings: bindings))
            #expect(inserted.affectedRows == 1)
            let deletion = Task { try await store.deleteCredential(id: credential, audit: .system) }
            var waiting = false
            for _ in 0..<200 where !waiting {
                try await Task.sleep(for: .milliseconds(25))
                waiting = try await store.sessions(ofUser: handle).isEmpty  // not committed yet: invisible
                    && (try PGConnection.connect(url: url).execute(PGQuery(unsafeSQL:
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%DELETE FROM credentials%'"))
                        .decode(Int64.self, row: 0, column: 0)) > 0
            }
            #expect(waiting, "the deletion waits for the sign-in")
            try signIn.simpleQuery("COMMIT")
            #expect(try await deletion.value)
            let session = try #require(try await store.session(id: SessionStoreConformanceTests.id(1)))
            #expect(session.revokedReason == .credentialDeleted)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try? signIn.close()
        await pool.shutdown()
        try? await threads.shutdownGracefully()
        try outcome.get()
    }

    @Test("of eight takes of one handoff code queued on its row, exactly one gets it")
    func handoff() async throws {
        try await Self.withRace { store, holder, waitForContenders in
            let (handle, _) = try await SessionStoreConformanceTests.user(store, 1)
            _ = try await store.saveHandoff(SessionStoreConformanceTests.handoff(1, user: handle))
            try holder.simpleQuery("BEGIN")
            _ = try holder.execute(PGQuery(
                unsafeSQL: "SELECT 1 FROM handoff_codes WHERE code_hash = $1 FOR UPDATE", bindings: [SessionStoreConformanceTests.hash(1)]))
            let taken = Task { try await SessionStoreConformanceTests.takeConcurrently(store, times: Self.contenders) }
            try await waitForContenders()
            try holder.simpleQuery("COMMIT")
            #expect(try await taken.value == 1)
        }
    }
}
