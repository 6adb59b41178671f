import Foundation
import LibPQ
import NIOPosix
import PasskeyStore
@testable import PasskeyStorePostgres
import PostgresTestSupport
import SealedState
import Testing
import WebAuthnCore
import WebAuthnTestSupport

/// Stateless registrations finished concurrently, so that PostgreSQL with batch lanes writes them in batches
/// (`RegistrationFinishBatcher`): every outcome is the one each would get alone, conflicts included (a name taken by
/// a concurrent sign-up, a credential id registered already, one challenge finished twice, an addition for a user who
/// does not exist), nothing half written (no user without its passkey), every challenge used up, and the audit trail
/// has exactly the events of what was stored.
@Suite("Batched registration finishes")
struct RegistrationBatchTests {
    enum Expected: Equatable {
        case stored
        case refused(StoreError.Code)
    }

    struct Finish: Sendable {
        let registration: VerifiedRegistration
        let intent: RegistrationIntent
        let consumed: ConsumedFingerprint
    }

    static func registration(_ byte: UInt8, name: String, credentialID: [UInt8]? = nil) throws -> VerifiedRegistration {
        let user = try UserEntity(id: Registrations.handle(byte), name: name, displayName: name.capitalized)
        let now = Date()
        let (options, state) = Registrations.rp.beginRegistration(user: user, excludeCredentials: [], now: now)
        var knobs = RegistrationKnobs(origin: Registrations.origin)
        knobs.credentialID = credentialID
        knobs.transports = ["hybrid", "internal"]
        let (response, _) = try SoftAuthenticator.register(options: options, knobs: knobs)
        return try Registrations.rp.finishRegistration(response, state: state, now: now)
    }

    static func fingerprint(_ index: Int) -> ConsumedFingerprint {
        ConsumedFingerprint(bytes: [0xB0] + Array(repeating: UInt8(index), count: 15), expiresAt: Date().addingTimeInterval(300))
    }

    @Test(arguments: StoreUnderTest.withBatching)
    func concurrentFinishesGetTheirOwnOutcomes(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        // Before: a user whose passkey id a later sign-up reuses, and a user who adds a second passkey.
        let taken = try Self.registration(200, name: "owner", credentialID: Array(repeating: 0xC1, count: 32))
        let owner = try await store.register(taken, nickname: nil, intent: .newUser, audit: .system).user
        var finishes: [(Finish, Expected)] = []
        var index = 0
        func add(_ registration: VerifiedRegistration, intent: RegistrationIntent = .newUser, fingerprint: Int? = nil, expect expected: Expected) {
            index += 1
            finishes.append((Finish(registration: registration, intent: intent, consumed: Self.fingerprint(fingerprint ?? index)), expected))
        }
        for byte in UInt8(1)...20 { add(try Self.registration(byte, name: "user\(byte)"), expect: .stored) }
        add(try Self.registration(30, name: "clash"), expect: .stored)
        add(try Self.registration(31, name: "clash"), expect: .refused(.userExists))
        add(try Self.registration(32, name: "reuser", credentialID: taken.credentialID), expect: .refused(.duplicateCredential))
        add(try Self.registration(33, name: "twice"), fingerprint: 90, expect: .stored)
        add(try Self.registration(34, name: "again"), fingerprint: 90, expect: .refused(.ceremonyTaken))
        add(try Self.registration(35, name: "ghost"), intent: .existingUser, expect: .refused(.userUnknown))
        add(try Self.registration(200, name: "owner"), intent: .existingUser, expect: .stored)

        let outcomes = await withTaskGroup(of: (Int, Expected).self) { group in
            for (position, (finish, _)) in finishes.enumerated() {
                group.addTask {
                    do {
                        let result = try await store.finishSealedRegistration(
                            consumed: finish.consumed, nickname: nil, intent: finish.intent, audit: AuditContext(actor: "batch-test")
                        ) { (outcome: (), registration: finish.registration) }
                        return (position, result.stored == nil ? .refused(.unavailable) : .stored)
                    } catch let error as StoreError {
                        return (position, .refused(error.code))
                    } catch {
                        return (position, .refused(.unavailable))
                    }
                }
            }
            return await group.reduce(into: [Int: Expected]()) { $0[$1.0] = $1.1 }
        }
        // The two sign-ups named "clash" race: exactly one is stored, whichever it is; so do the two finishes of one
        // challenge.
        let clash = [outcomes[20], outcomes[21]]
        #expect(clash.filter { $0 == .stored }.count == 1 && clash.contains(.refused(.userExists)), "\(clash)")
        let twice = [outcomes[23], outcomes[24]]
        #expect(twice.filter { $0 == .stored }.count == 1 && twice.contains(.refused(.ceremonyTaken)), "\(twice)")
        for (position, (finish, expected)) in finishes.enumerated() where ![20, 21, 23, 24].contains(position) {
            #expect(outcomes[position] == expected, "\(finish.registration.user.name): \(String(describing: outcomes[position]))")
        }

        // Nothing half written: each stored sign-up's user has its passkey; the refused ones left no user.
        for byte in UInt8(1)...20 {
            let user = try #require(try await store.user(named: "user\(byte)"))
            #expect(try await store.credentials(ofUser: user.handle).count == 1)
        }
        #expect(try await store.user(named: "reuser") == nil, "no user without the passkey it was refused")
        #expect(try await store.user(named: "ghost") == nil)
        #expect(try await store.credentials(ofUser: owner.handle).count == 2)
        #expect(try await store.credential(id: taken.credentialID)?.record.userHandle == owner.handle)
        // Every challenge is used up, stored or refused.
        for (finish, _) in finishes { #expect(try await !store.consumeChallenge(finish.consumed)) }
        // The audit trail: user.created + credential.registered per stored sign-up, credential.registered for the
        // addition, nothing for a refusal; in the order written, each user's events together.
        let events = try await store.auditEvents(AuditQuery(limit: 1000)).filter { $0.context.actor == "batch-test" }
        let storedSignUps = outcomes.values.filter { $0 == .stored }.count - 1
        #expect(events.filter { $0.kind == .userCreated }.count == storedSignUps)
        #expect(events.filter { $0.kind == .credentialRegistered }.count == storedSignUps + 1)
        for created in events where created.kind == .userCreated {
            let next = events.first { $0.id > created.id && $0.userHandle == created.userHandle }
            #expect(next?.kind == .credentialRegistered, "a sign-up's credential.registered follows its user.created")
        }
    }

    /// What makes the batch worth it, and its fallback: a batch without a conflict is one transaction (every row it
    /// wrote has one `xmin`); a batch with one is rolled back and each registration runs alone (a transaction each),
    /// with the outcome it would have had alone, every challenge recorded.
    @Test(.enabled(if: TestDatabase.url != nil))
    func aBatchIsOneTransactionUnlessAConflictSendsEachAlone() async throws {
        let schema = try await TestSchema.create(baseURL: try #require(TestDatabase.url))
        let pool = PGPool(url: schema.url, size: 2, threadPool: .singleton)
        defer { Task { await pool.shutdown(); await schema.drop() } }
        func request(_ byte: UInt8, _ name: String, fingerprint: Int) throws -> RegistrationFinishBatcher.Request {
            RegistrationFinishBatcher.Request(
                registration: try Self.registration(byte, name: name), nickname: nil, intent: .newUser, audit: .system,
                consumed: Self.fingerprint(fingerprint))
        }
        func transactions(_ names: String) async throws -> Int64 {
            try await schema.query(PGQuery(unsafeSQL: "SELECT count(DISTINCT xmin::text) FROM users WHERE name LIKE '\(names)'"))
                .decode(Int64.self, row: 0, column: 0)
        }
        let clean = try (UInt8(1)...5).map { try request($0, "clean\($0)", fingerprint: Int($0)) }
        let written = try await pool.withConnection { connection in try RegistrationFinishBatcher.run(clean, connection) }
        #expect(written.allSatisfy { if case .success = $0 { true } else { false } })
        #expect(try await transactions("clean%") == 1, "one statement, one commit")
        #expect(try await schema.count("audit_events") == 10)

        let conflicted = [try request(11, "late1", fingerprint: 11), try request(12, "clean1", fingerprint: 12), try request(13, "late2", fingerprint: 13)]
        let outcomes = try await pool.withConnection { connection in try RegistrationFinishBatcher.run(conflicted, connection) }
        #expect(outcomes.map { if case .success = $0 { "stored" } else { "refused" } } == ["stored", "refused", "stored"])
        guard case .failure(let error) = outcomes[1] else { return }
        #expect(PostgresPasskeyStore.storeError(error).code == .userExists)
        #expect(try await transactions("late%") == 2, "rolled back, then each alone")
        #expect(try await schema.count("consumed_challenges") == 8, "every challenge recorded, the refused one's too")
        #expect(try await schema.count("audit_events") == 14, "nothing of the rolled-back batch")
    }
}
