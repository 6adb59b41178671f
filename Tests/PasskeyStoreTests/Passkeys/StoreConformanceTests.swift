import Foundation
import LibPQ
import NIOPosix
import PasskeyStore
import PasskeyStorePostgres
import PostgresTestSupport
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// A store under test, with a clock the test can move (stores that use database time ignore it and are given
/// ceremonies whose expiry is already in the past instead).
struct StoreUnderTest: CustomTestStringConvertible, Sendable {
    let name: String
    /// A fresh store; the argument is the stores' `revokeSessionsOnDelete`.
    let makeConfigured: @Sendable (_ revokeSessionsOnDelete: Bool) async throws -> any PasskeyStore
    var testDescription: String { name }

    /// A fresh store as configured by default.
    func make() async throws -> any PasskeyStore { try await makeConfigured(true) }

    /// The stores the suite runs against: in memory always, PostgreSQL when `PASSKEYD_TEST_DATABASE_URL` is set
    /// (the README's test command always sets it).
    static let all: [StoreUnderTest] = {
        var stores = [StoreUnderTest(name: "in-memory") { InMemoryPasskeyStore(revokeSessionsOnDelete: $0) }]
        if let url = PostgresSchema.databaseURL {
            stores.append(StoreUnderTest(name: "postgres") { try await PostgresSchema.freshStore(url: url, revokeSessionsOnDelete: $0) })
        }
        return stores
    }()

    /// ``all`` and PostgreSQL with batched finishes and begins, as the executable runs it: for the tests of the
    /// ceremony steps (the other tests would only repeat the plain PostgreSQL store's statements).
    static let withBatching: [StoreUnderTest] = {
        var stores = all
        if let url = PostgresSchema.databaseURL {
            stores.append(StoreUnderTest(name: "postgres, batched") {
                try await PostgresSchema.freshStore(url: url, revokeSessionsOnDelete: $0, batchLanes: 2)
            })
        }
        return stores
    }()
}

/// A throwaway schema per test, migrated with `Migrations/`, so tests never share tables (PostgresTestSupport).
enum PostgresSchema {
    static let migrations = TestDatabase.migrations
    static let databaseURL = TestDatabase.url

    static func freshStore(url: String, revokeSessionsOnDelete: Bool = true, batchLanes: Int = 0) async throws -> any PasskeyStore {
        let schema = try await TestSchema.create(baseURL: url)
        let pool = PGPool(url: schema.url, size: 4, threadPool: .singleton)
        return PostgresPasskeyStore(pool: pool, revokeSessionsOnDelete: revokeSessionsOnDelete, batchLanes: batchLanes)
    }


}

/// Verified registrations from the software authenticator, for feeding stores.
enum Registrations {
    static let origin = "https://store.passkeyd.test"
    static let rp = RelyingParty(id: "store.passkeyd.test", name: "store tests", allowedOrigins: [origin])

    static func make(handle: [UInt8], name: String, signCount: UInt32 = 0) throws -> VerifiedRegistration {
        try makeWithAuthenticator(handle: handle, name: name, signCount: signCount).registration
    }

    static func makeWithAuthenticator(
        handle: [UInt8], name: String, signCount: UInt32 = 0
    ) throws -> (registration: VerifiedRegistration, credential: SoftCredential) {
        let user = try UserEntity(id: handle, name: name, displayName: name.capitalized)
        let now = Date()
        let (options, state) = rp.beginRegistration(user: user, excludeCredentials: [], now: now)
        var knobs = RegistrationKnobs(origin: origin)
        knobs.signCount = signCount
        knobs.backupEligible = true
        let (response, credential) = try SoftAuthenticator.register(options: options, knobs: knobs)
        return (try rp.finishRegistration(response, state: state, now: now), credential)
    }

    /// A real engine-made update: one assertion with the counter moved by `increment`, verified against `record`.
    static func update(
        _ credential: inout SoftCredential, record: CredentialRecord, increment: UInt32, backedUp: Bool
    ) throws -> CredentialUpdate {
        let now = Date()
        let (options, state) = rp.beginAuthentication(allowCredentials: [], userHandle: nil, now: now)
        var knobs = AssertionKnobs(origin: origin)
        knobs.signCountOverride = record.signCount + increment
        knobs.backupState = backedUp
        let json = try SoftAuthenticator.authenticate(options: options, credential: &credential, knobs: knobs)
        return try rp.finishAuthentication(UnverifiedAuthenticationResponse(json), state: state, credential: record, now: now).update
    }

    static func handle(_ byte: UInt8) -> [UInt8] { Array(repeating: byte, count: 32) }
}

@Suite("PasskeyStore conformance")
struct StoreConformanceTests {
    @Test(arguments: StoreUnderTest.all)
    func registerCreatesUserAndCredential(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let first = try Registrations.make(handle: Registrations.handle(1), name: "alice")
        let (user, credential) = try await store.register(first, nickname: "laptop", intent: .newUser, audit: .system)
        #expect(user.name == "alice" && user.handle == Registrations.handle(1))
        #expect(credential.nickname == "laptop" && credential.id == first.credentialID && credential.lastUsedAt == nil)
        #expect(try await store.user(named: "alice") == user)
        #expect(try await store.user(handle: user.handle) == user)
        // A second credential for the same user.
        let second = try Registrations.make(handle: Registrations.handle(1), name: "alice")
        _ = try await store.register(second, nickname: nil, intent: .existingUser, audit: .system)
        #expect(try await store.credentials(ofUser: user.handle).map(\.id).sorted { $0.lexicographicallyPrecedes($1) }
            == [first.credentialID, second.credentialID].sorted { $0.lexicographicallyPrecedes($1) })
        let loaded = try await store.credential(id: first.credentialID)
        #expect(loaded?.record == first.credentialRecord)
        // The audit columns are stored and come back on a full read (the sign-in path may leave them out).
        #expect(loaded?.attestationObject == first.attestationObject && loaded?.clientDataJSON == first.clientDataJSON)
        #expect(credential.attestationObject == first.attestationObject)
    }

    @Test(arguments: StoreUnderTest.all)
    func duplicateCredentialChangesNothing(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let registration = try Registrations.make(handle: Registrations.handle(2), name: "bob")
        _ = try await store.register(registration, nickname: "one", intent: .newUser, audit: .system)
        await #expect(throws: StoreError(.duplicateCredential)) { try await store.register(registration, nickname: "two", intent: .existingUser, audit: .system) }
        #expect(try await store.credential(id: registration.credentialID)?.nickname == "one")
        #expect(try await store.credentials(ofUser: Registrations.handle(2)).count == 1)
    }

    @Test(arguments: StoreUnderTest.all)
    func aNewUserNeverTakesATakenNameOrHandle(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        _ = try await store.register(try Registrations.make(handle: Registrations.handle(3), name: "carol"), nickname: nil, intent: .newUser, audit: .system)
        // Another handle with carol's name, and carol's own handle as a "new" user: both refused, nothing written.
        let rival = try Registrations.make(handle: Registrations.handle(4), name: "carol")
        await #expect(throws: StoreError(.userExists)) { try await store.register(rival, nickname: nil, intent: .newUser, audit: .system) }
        #expect(try await store.credential(id: rival.credentialID) == nil)
        #expect(try await store.user(handle: Registrations.handle(4)) == nil)
        let sameHandle = try Registrations.make(handle: Registrations.handle(3), name: "carol2")
        await #expect(throws: StoreError(.userExists)) { try await store.register(sameHandle, nickname: nil, intent: .newUser, audit: .system) }
        #expect(try await store.credential(id: sameHandle.credentialID) == nil)
        #expect(try await store.credentials(ofUser: Registrations.handle(3)).count == 1)
        #expect(try await store.user(named: "carol2") == nil)
    }

    @Test(arguments: StoreUnderTest.all)
    func anExistingUserMustExist(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let orphan = try Registrations.make(handle: Registrations.handle(5), name: "ghost")
        await #expect(throws: StoreError(.userUnknown)) { try await store.register(orphan, nickname: nil, intent: .existingUser, audit: .system) }
        #expect(try await store.user(handle: Registrations.handle(5)) == nil, "an existing-user registration never creates")
        #expect(try await store.credential(id: orphan.credentialID) == nil)
        // Deleted between begin and finish: the same.
        _ = try await store.register(try Registrations.make(handle: Registrations.handle(7), name: "ivy"), nickname: nil, intent: .newUser, audit: .system)
        _ = try await store.deleteUser(handle: Registrations.handle(7), audit: .system)
        let late = try Registrations.make(handle: Registrations.handle(7), name: "ivy")
        await #expect(throws: StoreError(.userUnknown)) { try await store.register(late, nickname: nil, intent: .existingUser, audit: .system) }
        #expect(try await store.user(handle: Registrations.handle(7)) == nil)
    }

    @Test(arguments: StoreUnderTest.all)
    func concurrentSignUpsOfOneNameMakeExactlyOneUser(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        // Eight sign-ups of one new name (eight begins, each with its own random handle), finished at once:
        // exactly one user, with exactly one credential; the other seven are user_exists and wrote nothing.
        let registrations = try (0..<8).map { index in try Registrations.make(handle: Registrations.handle(UInt8(40 + index)), name: "gina") }
        let outcomes = try await withThrowingTaskGroup(of: StoreError?.self) { group in
            for registration in registrations {
                group.addTask {
                    do throws(StoreError) {
                        _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return try await group.reduce(into: [StoreError?]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(outcomes.compactMap { $0 }.allSatisfy { $0 == StoreError(.userExists) })
        let user = try #require(try await store.user(named: "gina"))
        #expect(try await store.credentials(ofUser: user.handle).count == 1)
        let created = registrations.filter { $0.user.id == user.handle }
        #expect(created.count == 1)
        for registration in registrations where registration.user.id != user.handle {
            #expect(try await store.user(handle: registration.user.id) == nil)
            #expect(try await store.credential(id: registration.credentialID) == nil)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func concurrentAdditionsToOneUserAllLand(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        _ = try await store.register(try Registrations.make(handle: Registrations.handle(11), name: "hugo"), nickname: nil, intent: .newUser, audit: .system)
        let registrations = try (0..<8).map { _ in try Registrations.make(handle: Registrations.handle(11), name: "hugo") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for registration in registrations {
                group.addTask { _ = try await store.register(registration, nickname: nil, intent: .existingUser, audit: .system) }
            }
            try await group.waitForAll()
        }
        #expect(try await store.credentials(ofUser: Registrations.handle(11)).count == 9)
    }

    @Test(arguments: StoreUnderTest.all)
    func everyChangeLeavesOneAuditEventAndRefusedOnesNone(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let who = AuditContext(requestID: "req-1", actor: "admin:0123456789abcdef", clientAddress: "192.0.2.1")
        let first = try Registrations.make(handle: Registrations.handle(60), name: "olga")
        _ = try await store.register(first, nickname: nil, intent: .newUser, audit: who)
        let second = try Registrations.make(handle: Registrations.handle(60), name: "olga")
        _ = try await store.register(second, nickname: nil, intent: .existingUser, audit: .system)
        // Refused: a taken name, a duplicate id, an unknown credential or user.
        let rival = try Registrations.make(handle: Registrations.handle(61), name: "olga")
        await #expect(throws: StoreError(.userExists)) { try await store.register(rival, nickname: nil, intent: .newUser, audit: who) }
        await #expect(throws: StoreError(.duplicateCredential)) { try await store.register(first, nickname: nil, intent: .existingUser, audit: who) }
        #expect(try await store.renameCredential(id: [9, 9, 9], nickname: "x", audit: who) == nil)
        #expect(try await store.deleteCredential(id: [9, 9, 9], audit: who) == false)
        #expect(try await store.deleteUser(handle: Registrations.handle(62), audit: who) == false)
        #expect(try await store.auditEvents(AuditQuery()).count == 3, "only the two registrations")

        _ = try await store.renameCredential(id: first.credentialID, nickname: "pad", audit: who)
        _ = try await store.deleteCredential(id: second.credentialID, audit: who)
        _ = try await store.deleteUser(handle: Registrations.handle(60), audit: who)
        let events = try await store.auditEvents(AuditQuery())
        #expect(events.map(\.kind) == [
            .userCreated, .credentialRegistered, .credentialRegistered, .credentialRenamed, .credentialDeleted, .credentialDeleted, .userDeleted,
        ])
        #expect(events.map(\.credentialID) == [
            nil, first.credentialID, second.credentialID, first.credentialID, second.credentialID, first.credentialID, nil,
        ])
        #expect(events.allSatisfy { $0.userHandle == Registrations.handle(60) })
        #expect(events[0].context == who && events[2].context == .system)
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.id < $1.id })
        let paged = try await store.auditEvents(AuditQuery(userHandle: Registrations.handle(60), after: events[4].id, limit: 1))
        #expect(paged.map(\.id) == [events[5].id])
        #expect(try await store.auditEvents(AuditQuery(userHandle: Registrations.handle(61))).isEmpty)
    }

    @Test(arguments: StoreUnderTest.all)
    func pingAnswers(_ subject: StoreUnderTest) async throws {
        try await (try await subject.make()).ping()
    }

    @Test(arguments: StoreUnderTest.all)
    func ceremoniesAreSingleUse(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let challenge = Array(repeating: UInt8(9), count: 32)
        try await store.saveCeremony(PendingCeremony(challenge: challenge, kind: .registration, userHandle: nil, state: [1, 2], expiresAt: Date().addingTimeInterval(300)))
        #expect(try await store.takeCeremony(challenge: challenge, kind: .authentication) == nil, "the other kind does not match")
        let taken = try await store.takeCeremony(challenge: challenge, kind: .registration)
        #expect(taken?.state == [1, 2])
        #expect(try await store.takeCeremony(challenge: challenge, kind: .registration) == nil, "single use")
    }

    @Test(arguments: StoreUnderTest.all)
    func expiredCeremoniesAreNotReturnedAndArePurged(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let stale = Array(repeating: UInt8(7), count: 32)
        try await store.saveCeremony(PendingCeremony(challenge: stale, kind: .authentication, userHandle: nil, state: [], expiresAt: Date().addingTimeInterval(-1)))
        try await store.saveCeremony(PendingCeremony(challenge: stale.map { $0 ^ 1 }, kind: .authentication, userHandle: nil, state: [], expiresAt: Date().addingTimeInterval(-1)))
        #expect(try await store.takeCeremony(challenge: stale, kind: .authentication) == nil)
        #expect(try await store.purgeExpiredCeremonies() == 1)
    }

    @Test(arguments: StoreUnderTest.all)
    func concurrentTakesSucceedOnce(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let challenge = Array(repeating: UInt8(5), count: 32)
        try await store.saveCeremony(PendingCeremony(challenge: challenge, kind: .authentication, userHandle: nil, state: [], expiresAt: Date().addingTimeInterval(300)))
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 { group.addTask { try await store.takeCeremony(challenge: challenge, kind: .authentication) != nil } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(winners == 1)
    }

    @Test(arguments: StoreUnderTest.all)
    func takeAuthenticationConsumesEvenForUnknownCredentials(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let registration = try Registrations.make(handle: Registrations.handle(6), name: "dave")
        _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        let challenge = Array(repeating: UInt8(6), count: 32)
        try await store.saveCeremony(PendingCeremony(challenge: challenge, kind: .authentication, userHandle: nil, state: [3], expiresAt: Date().addingTimeInterval(300)))
        let unknown = try await store.takeAuthentication(challenge: challenge, credentialID: [1, 2, 3])
        #expect(unknown.ceremony?.state == [3] && unknown.credential == nil && unknown.user == nil && unknown.userCredentialIDs.isEmpty)
        let again = try await store.takeAuthentication(challenge: challenge, credentialID: registration.credentialID)
        #expect(again.ceremony == nil && again.credential?.id == registration.credentialID)
        #expect(again.user?.name == "dave" && again.user?.handle == Registrations.handle(6), "the owner comes with the credential")
        #expect(again.userCredentialIDs == [registration.credentialID], "and the ids of all the owner's credentials")
    }

    @Test(arguments: StoreUnderTest.all)
    func updatesNeverMoveTheCounterBackwards(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        var (registration, authenticator) = try Registrations.makeWithAuthenticator(handle: Registrations.handle(8), name: "erin", signCount: 10)
        _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        let record = registration.credentialRecord
        // Three assertions verified against the same stored counter (10), applied out of order.
        let eleven = try Registrations.update(&authenticator, record: record, increment: 1, backedUp: false)
        let twelve = try Registrations.update(&authenticator, record: record, increment: 2, backedUp: true)
        let twelveAgain = try Registrations.update(&authenticator, record: record, increment: 2, backedUp: false)
        #expect(eleven.advancesCounter && twelve.advancesCounter)
        guard case .applied(let raised) = try await store.apply(twelve) else {
            Issue.record("the first update must be written")
            return
        }
        #expect(raised.record.signCount == 12 && raised.record.backupState == true && raised.lastUsedAt != nil)
        let usedAt = raised.lastUsedAt
        for stale in [eleven, twelveAgain] {
            guard case .stale(let current) = try await store.apply(stale) else {
                Issue.record("an update whose counter is not above the stored one must be stale")
                continue
            }
            #expect(current.record.signCount == 12, "a lower or equal counter is never written")
        }
        let after = try #require(try await store.credential(id: registration.credentialID))
        #expect(after.record.signCount == 12 && after.record.backupState == true, "a stale update writes nothing")
        #expect(after.lastUsedAt == usedAt, "a stale update does not even record a use")
        #expect(after.record.uvInitialized == true, "uvInitialized never goes back to false")
        _ = try await store.deleteCredential(id: registration.credentialID, audit: .system)
        #expect(try await store.apply(twelve) == .gone)
    }

    @Test(arguments: StoreUnderTest.withBatching)
    func beginCeremonyLooksUpBuildsAndSavesInOneCall(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let first = try Registrations.make(handle: Registrations.handle(13), name: "hana")
        let second = try Registrations.make(handle: Registrations.handle(13), name: "hana")
        _ = try await store.register(first, nickname: nil, intent: .newUser, audit: .system)
        _ = try await store.register(second, nickname: nil, intent: .existingUser, audit: .system)
        let expiry = Date().addingTimeInterval(300)
        @Sendable func ceremony(_ byte: UInt8) -> PendingCeremony {
            PendingCeremony(challenge: Array(repeating: byte, count: 32), kind: .authentication, userHandle: nil, state: [byte], expiresAt: expiry)
        }

        let known = try await store.beginCeremony(user: .name("hana")) { user, credentials in
            (outcome: (user, credentials.map(\.id)), ceremony: ceremony(20))
        }
        #expect(known.0?.handle == Registrations.handle(13) && known.0?.name == "hana")
        #expect(Set(known.1) == Set([first.credentialID, second.credentialID]) && known.1.count == 2)
        #expect(try await store.takeCeremony(challenge: ceremony(20).challenge, kind: .authentication)?.state == [20], "saved")

        let unknown = try await store.beginCeremony(user: .name("nobody")) { user, credentials in
            (outcome: user == nil && credentials.isEmpty, ceremony: ceremony(21))
        }
        let anonymous = try await store.beginCeremony(user: nil) { user, credentials in
            (outcome: user == nil && credentials.isEmpty, ceremony: ceremony(22))
        }
        #expect(unknown && anonymous)
        let notBuilt = try await store.beginCeremony(user: .name("hana")) { _, _ in (outcome: 1, ceremony: nil) }
        #expect(notBuilt == 1)
        #expect(try await store.takeCeremony(challenge: ceremony(21).challenge, kind: .authentication) != nil)
        #expect(try await store.takeCeremony(challenge: ceremony(22).challenge, kind: .authentication) != nil)

        // A user whose credentials were all deleted is still found, with none.
        _ = try await store.deleteCredential(id: first.credentialID, audit: .system)
        _ = try await store.deleteCredential(id: second.credentialID, audit: .system)
        let bare = try await store.beginCeremony(user: .name("hana")) { user, credentials in
            (outcome: (user?.name, credentials.count), ceremony: nil)
        }
        #expect(bare.0 == "hana" && bare.1 == 0)
        // By handle: the same user; an unknown handle finds nobody.
        let byHandle = try await store.beginCeremony(user: .handle(Registrations.handle(13))) { user, _ in (outcome: user?.name, ceremony: nil) }
        #expect(byHandle == "hana")
        let noHandle = try await store.beginCeremony(user: .handle(Registrations.handle(99))) { user, _ in (outcome: user == nil, ceremony: nil) }
        #expect(noHandle)
    }

    @Test(arguments: StoreUnderTest.withBatching)
    func finishRegistrationTakesVerifiesAndStoresInOneCall(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let registration = try Registrations.make(handle: Registrations.handle(14), name: "ivan")
        let challenge = Array(repeating: UInt8(30), count: 32)
        let expiry = Date().addingTimeInterval(300)
        try await store.saveCeremony(PendingCeremony(
            challenge: challenge, kind: .registration, userHandle: Registrations.handle(14), state: [30], expiresAt: expiry, intent: .newUser))

        let first = try await store.finishRegistration(challenge: challenge, nickname: "key", audit: .system) { ceremony in
            (outcome: ceremony?.state, registration: registration)
        }
        #expect(first.outcome == [30] && first.stored?.user.name == "ivan" && first.stored?.credential.nickname == "key")
        #expect(try await store.credential(id: registration.credentialID)?.record == registration.credentialRecord)

        // Single use: the second call sees no ceremony; a nil registration stores nothing.
        let other = try Registrations.make(handle: Registrations.handle(15), name: "jo")
        let second = try await store.finishRegistration(challenge: challenge, nickname: nil, audit: .system) { ceremony in
            (outcome: ceremony == nil, registration: nil)
        }
        #expect(second.outcome && second.stored == nil)
        let otherStored = try await store.credential(id: other.credentialID)
        let jo = try await store.user(named: "jo")
        #expect(otherStored == nil && jo == nil)

        // Verified but a duplicate id: the store's error, the ceremony consumed, nothing else changed.
        let again = Array(repeating: UInt8(31), count: 32)
        try await store.saveCeremony(PendingCeremony(challenge: again, kind: .registration, userHandle: Registrations.handle(14), state: [31], expiresAt: expiry))
        await #expect(throws: StoreError(.duplicateCredential)) {
            _ = try await store.finishRegistration(challenge: again, nickname: nil, audit: .system) { _ in (outcome: 0, registration: registration) }
        }
        #expect(try await store.takeCeremony(challenge: again, kind: .registration) == nil, "consumed")
        #expect(try await store.credentials(ofUser: Registrations.handle(14)).count == 1)
        // An authentication ceremony is not a registration one.
        let wrongKind = Array(repeating: UInt8(32), count: 32)
        try await store.saveCeremony(PendingCeremony(challenge: wrongKind, kind: .authentication, userHandle: nil, state: [32], expiresAt: expiry))
        let crossed = try await store.finishRegistration(challenge: wrongKind, nickname: nil, audit: .system) { ceremony in
            (outcome: ceremony == nil, registration: nil)
        }
        #expect(crossed.outcome)
    }

    @Test(arguments: StoreUnderTest.withBatching)
    func theIntentSavedAtBeginDecidesTheFinish(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let expiry = Date().addingTimeInterval(300)
        for intent in [RegistrationIntent.newUser, .existingUser] {
            let challenge = Array(repeating: intent == .newUser ? UInt8(50) : 51, count: 32)
            try await store.saveCeremony(PendingCeremony(
                challenge: challenge, kind: .registration, userHandle: Registrations.handle(16), state: [1], expiresAt: expiry, intent: intent))
            #expect(try await store.takeCeremony(challenge: challenge, kind: .registration)?.intent == intent, "kept with the ceremony")
        }
        // An existing-user ceremony for a handle nobody has: refused, no user created; a new-user one creates.
        let kim = try Registrations.make(handle: Registrations.handle(16), name: "kim")
        for (byte, intent) in [(UInt8(52), RegistrationIntent.existingUser), (53, .newUser)] {
            try await store.saveCeremony(PendingCeremony(
                challenge: Array(repeating: byte, count: 32), kind: .registration, userHandle: Registrations.handle(16), state: [byte],
                expiresAt: expiry, intent: intent))
        }
        await #expect(throws: StoreError(.userUnknown)) {
            _ = try await store.finishRegistration(challenge: Array(repeating: 52, count: 32), nickname: nil, audit: .system) { _ in (outcome: 0, registration: kim) }
        }
        #expect(try await store.user(handle: Registrations.handle(16)) == nil)
        let created = try await store.finishRegistration(challenge: Array(repeating: 53, count: 32), nickname: nil, audit: .system) { _ in (outcome: 0, registration: kim) }
        #expect(created.stored?.user.name == "kim")
    }

    @Test(arguments: StoreUnderTest.withBatching)
    func finishAuthenticationTakesVerifiesAndAppliesInOneCall(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        var (registration, authenticator) = try Registrations.makeWithAuthenticator(handle: Registrations.handle(10), name: "gus", signCount: 5)
        _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        let record = registration.credentialRecord
        let raise = try Registrations.update(&authenticator, record: record, increment: 3, backedUp: true)
        let expiry = Date().addingTimeInterval(300)
        let challenge = Array(repeating: UInt8(10), count: 32)
        try await store.saveCeremony(PendingCeremony(challenge: challenge, kind: .authentication, userHandle: nil, state: [7], expiresAt: expiry))

        // A second passkey of gus's (registered later) and another user's: the lookup lists gus's two, oldest first.
        try await Task.sleep(for: .milliseconds(5))
        let second = try Registrations.make(handle: Registrations.handle(10), name: "gus")
        _ = try await store.register(second, nickname: nil, intent: .existingUser, audit: .system)
        _ = try await store.register(try Registrations.make(handle: Registrations.handle(11), name: "hal"), nickname: nil, intent: .newUser, audit: .system)

        // The callback sees what takeAuthentication would return; its update is applied.
        let (lookup, seen, applied) = try await store.finishAuthentication(challenge: challenge, credentialID: registration.credentialID) { lookup in
            (outcome: lookup.ceremony?.state, update: raise)
        }
        #expect(seen == [7] && lookup.credential?.record.signCount == 5 && lookup.user?.name == "gus")
        #expect(lookup.userCredentialIDs == [registration.credentialID, second.credentialID], "\(subject.name)")
        guard case .applied(let updated)? = applied else {
            Issue.record("the callback's update must be applied")
            return
        }
        #expect(updated.record.signCount == 8 && updated.record.backupState == true && updated.lastUsedAt != nil)
        let reread = try #require(try await store.credential(id: registration.credentialID))
        #expect(updated.record == reread.record && updated.lastUsedAt == reread.lastUsedAt, "what finish returns is what is stored")
        #expect(updated.aaguid == reread.aaguid && updated.nickname == reread.nickname && updated.attestation == reread.attestation)

        // Consumed: the same challenge finds no ceremony; a nil update (verification failed) writes nothing.
        let again = try await store.finishAuthentication(challenge: challenge, credentialID: registration.credentialID) { lookup in
            (outcome: lookup.ceremony == nil, update: nil)
        }
        #expect(again.outcome == true && again.applied == nil && again.lookup.credential?.record.signCount == 8)

        let refused = Array(repeating: UInt8(11), count: 32)
        try await store.saveCeremony(PendingCeremony(challenge: refused, kind: .authentication, userHandle: nil, state: [8], expiresAt: expiry))
        let stale = try Registrations.update(&authenticator, record: record, increment: 1, backedUp: false)
        let failed = try await store.finishAuthentication(challenge: refused, credentialID: registration.credentialID) { _ in
            (outcome: "refused", update: nil)
        }
        #expect(failed.applied == nil && failed.lookup.ceremony?.state == [8])
        #expect(try await store.takeAuthentication(challenge: refused, credentialID: []).ceremony == nil, "consumed although refused")
        // A stale update through the same path is reported, not written.
        let late = Array(repeating: UInt8(12), count: 32)
        try await store.saveCeremony(PendingCeremony(challenge: late, kind: .authentication, userHandle: nil, state: [9], expiresAt: expiry))
        let staleResult = try await store.finishAuthentication(challenge: late, credentialID: registration.credentialID) { _ in
            (outcome: 0, update: stale)
        }
        guard case .stale(let current)? = staleResult.applied else {
            Issue.record("a counter below the stored one must come back stale")
            return
        }
        #expect(current.record.signCount == 8)
        #expect(try await store.credential(id: registration.credentialID)?.record.signCount == 8)
    }

    @Test(arguments: StoreUnderTest.all)
    func zeroCountersAlwaysApply(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        var (registration, authenticator) = try Registrations.makeWithAuthenticator(handle: Registrations.handle(9), name: "fay", signCount: 0)
        _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        let record = registration.credentialRecord
        let first = try Registrations.update(&authenticator, record: record, increment: 0, backedUp: true)
        let second = try Registrations.update(&authenticator, record: record, increment: 0, backedUp: false)
        guard case .applied = try await store.apply(first), case .applied(let last) = try await store.apply(second) else {
            Issue.record("an authenticator without a counter (0 and 0) is never stale")
            return
        }
        #expect(last.record.signCount == 0 && last.record.backupState == false)
    }

    @Test(arguments: StoreUnderTest.all)
    func administration(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        for (index, name) in ["zoe", "adam", "mia", "adele"].enumerated() {
            _ = try await store.register(try Registrations.make(handle: Registrations.handle(UInt8(20 + index)), name: name), nickname: nil, intent: .newUser, audit: .system)
        }
        #expect(try await store.listUsers(nameFilter: nil, limit: 10, after: nil).map(\.name) == ["adam", "adele", "mia", "zoe"])
        #expect(try await store.listUsers(nameFilter: nil, limit: 2, after: nil).map(\.name) == ["adam", "adele"])
        #expect(try await store.listUsers(nameFilter: nil, limit: 2, after: "adele").map(\.name) == ["mia", "zoe"])
        #expect(try await store.listUsers(nameFilter: "ad", limit: 10, after: nil).map(\.name) == ["adam", "adele"])

        let zoe = Registrations.handle(20)
        let credentialID = try #require(try await store.credentials(ofUser: zoe).first?.id)
        #expect(try await store.renameCredential(id: credentialID, nickname: "yubikey", audit: .system)?.nickname == "yubikey")
        #expect(try await store.renameCredential(id: [0xEE], nickname: "x", audit: .system) == nil)
        #expect(try await store.deleteCredential(id: credentialID, audit: .system))
        #expect(try await store.deleteCredential(id: credentialID, audit: .system) == false)

        let mia = Registrations.handle(22)
        let miaCredential = try #require(try await store.credentials(ofUser: mia).first?.id)
        #expect(try await store.deleteUser(handle: mia, audit: .system))
        #expect(try await store.user(handle: mia) == nil)
        #expect(try await store.credential(id: miaCredential) == nil, "credentials go with their user")
        #expect(try await store.deleteUser(handle: mia, audit: .system) == false)
    }
}
