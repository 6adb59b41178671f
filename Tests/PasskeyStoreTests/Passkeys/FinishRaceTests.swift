import Foundation
import PasskeyStore
import Synchronization
import Testing
import WebAuthnCore

/// Two finishes of one challenge at once, on both stores: PostgreSQL reads the ceremony without consuming it,
/// verifies, and consumes it in the same statement as the write (one commit per finish), so both contenders can
/// verify; a barrier inside `verify` makes sure they do, every round. Exactly one writes; the other throws
/// `ceremonyTaken` (or, in memory, where take comes first, sees no ceremony) and writes nothing. With batched
/// finishes both usually land in one batch (whose verifications may run on several threads, or one after the
/// other, so the test does not wait at the barrier): the second's write finds the ceremony consumed by the first's.
@Suite("Concurrent finishes of one challenge")
struct FinishRaceTests {
    /// Holds the first of two callers until the second arrives (or `timeout` passes, so a store that serialises the
    /// callbacks, as a batch does, cannot deadlock the test; short, because it blocks a thread that other suites
    /// running in parallel share).
    final class Barrier: Sendable {
        private let arrived = Mutex(0)
        private let waits: Bool

        init(waits: Bool = true) { self.waits = waits }

        func arriveAndWait(timeout: TimeInterval = 0.3) {
            arrived.withLock { $0 += 1 }
            guard waits else { return }
            let deadline = Date().addingTimeInterval(timeout)
            while arrived.withLock({ $0 }) < 2 && Date() < deadline { usleep(1000) }
        }
    }

    static let rounds = 6
    /// On PostgreSQL, rounds go on past ``rounds`` until one had both finishes verify (at most this many): under a
    /// loaded parallel run a round can turn sequential, and six of them in a row have (the whole suite, locally).
    static let maxRounds = 40

    /// Whether a race test may stop after `round`: ``rounds`` done and, on PostgreSQL, a round had both verify.
    static func done(after round: Int, taken: Int, _ subject: StoreUnderTest) -> Bool {
        round + 1 >= rounds && (taken > 0 || !subject.name.hasPrefix("postgres"))
    }

    @Test(arguments: StoreUnderTest.withBatching)
    func oneOfTwoAuthenticationFinishesWrites(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let (registration, made) = try Registrations.makeWithAuthenticator(handle: Registrations.handle(60), name: "rae", signCount: 1)
        var authenticator = made
        _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        let credentialID = registration.credentialID
        var record = registration.credentialRecord
        var taken = 0
        for round in 0..<Self.maxRounds {
            let update = try Registrations.update(&authenticator, record: record, increment: 1, backedUp: false)
            let challenge = Array(repeating: UInt8(100 + round), count: 32)
            try await store.saveCeremony(PendingCeremony(
                challenge: challenge, kind: .authentication, userHandle: nil, state: [UInt8(round)], expiresAt: Date().addingTimeInterval(300)))
            // Only the plain PostgreSQL store surely verifies both at once on two threads. A batch spreads its
            // verifications over the cores (one thread on a one-core machine), and in memory the take comes first:
            // waiting would only block a thread.
            let barrier = Barrier(waits: subject.name == "postgres")
            let outcomes = await withTaskGroup(of: String.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        do {
                            let result = try await store.finishAuthentication(challenge: challenge, credentialID: credentialID) { lookup in
                                barrier.arriveAndWait()
                                return (outcome: lookup.ceremony != nil, update: lookup.ceremony == nil ? nil : update)
                            }
                            switch result.applied {
                            case .applied?: return "applied"
                            case nil where !result.outcome: return "no ceremony"
                            default: return "other: \(String(describing: result.applied))"
                            }
                        } catch let error as StoreError where error.code == .ceremonyTaken {
                            return "ceremony taken"
                        } catch {
                            return "error: \(error)"
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }.sorted()
            }
            #expect(outcomes.filter { $0 == "applied" }.count == 1, "round \(round): \(outcomes)")
            #expect(outcomes.allSatisfy { ["applied", "ceremony taken", "no ceremony"].contains($0) }, "round \(round): \(outcomes)")
            if outcomes.contains("ceremony taken") { taken += 1 }
            let stored = try #require(try await store.credential(id: credentialID))
            #expect(stored.record.signCount == update.signCount, "advanced once")
            #expect(try await store.takeCeremony(challenge: challenge, kind: .authentication) == nil, "consumed")
            record = stored.record
            if Self.done(after: round, taken: taken, subject) { break }
        }
        if subject.name.hasPrefix("postgres") {
            // PostgreSQL verifies before it consumes: the path where both verified and one found the ceremony gone
            // must have run (the barrier makes both verify at once; a machine too busy to start the second task
            // within its timeout can make a round sequential, so not every round: rounds go on until one did).
            #expect(taken > 0, "no round had both finishes verify")
        }
    }

    /// Many finishes of different credentials at once, half of them refused by their verification: on the batching
    /// store they share batches whose verifications run in parallel, and each finish must still get its own lookup
    /// and outcome: a verified one its own credential with its own counter, a refused one nothing written; every
    /// ceremony consumed.
    @Test(arguments: StoreUnderTest.withBatching)
    func concurrentFinishesKeepTheirOwnOutcomes(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let count = 16
        var finishes: [(challenge: [UInt8], credentialID: [UInt8], update: CredentialUpdate, accept: Bool)] = []
        for index in 0..<count {
            let (registration, made) = try Registrations.makeWithAuthenticator(
                handle: Registrations.handle(UInt8(180 + index)), name: "many-\(index)", signCount: 1)
            var authenticator = made
            _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
            let update = try Registrations.update(
                &authenticator, record: registration.credentialRecord, increment: UInt32(index + 1), backedUp: false)
            let challenge = Array(repeating: UInt8(index), count: 31) + [0xC5]
            try await store.saveCeremony(PendingCeremony(
                challenge: challenge, kind: .authentication, userHandle: nil, state: [UInt8(index)], expiresAt: Date().addingTimeInterval(300)))
            finishes.append((challenge, registration.credentialID, update, index % 2 == 0))
        }
        let outcomes = await withTaskGroup(of: (Int, String).self) { group in
            for (index, finish) in finishes.enumerated() {
                group.addTask {
                    do {
                        let result = try await store.finishAuthentication(challenge: finish.challenge, credentialID: finish.credentialID) { lookup in
                            let own = lookup.ceremony?.state == [UInt8(index)] && lookup.credential?.id == finish.credentialID
                            return (outcome: own, update: own && finish.accept ? finish.update : nil)
                        }
                        guard result.outcome else { return (index, "saw another finish's lookup") }
                        switch result.applied {
                        case .applied(let credential)?:
                            return (index, credential.id == finish.credentialID ? "applied \(credential.record.signCount)" : "applied to another")
                        case nil: return (index, "refused")
                        case let other?: return (index, "\(other)")
                        }
                    } catch {
                        return (index, "error: \(error)")
                    }
                }
            }
            return await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        for (index, finish) in finishes.enumerated() {
            let expected = finish.accept ? "applied \(1 + index + 1)" : "refused"
            #expect(outcomes[index] == expected, "finish \(index)")
            #expect(try await store.takeCeremony(challenge: finish.challenge, kind: .authentication) == nil, "consumed \(index)")
            let stored = try await store.credential(id: finish.credentialID)
            #expect(stored?.record.signCount == (finish.accept ? UInt32(1 + index + 1) : 1), "counter of \(index)")
        }
    }

    /// Many discoverable begins at once (batched into shared inserts on the batching store): every ceremony is
    /// saved with what its begin built, and each is taken exactly once.
    @Test(arguments: StoreUnderTest.withBatching)
    func concurrentBeginsAreAllSaved(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let count = 24
        let expiry = Date().addingTimeInterval(300)
        let challenges = await withTaskGroup(of: [UInt8]?.self) { group in
            for index in 0..<count {
                group.addTask {
                    let challenge = Array(repeating: UInt8(index), count: 31) + [0xB0]
                    let saved = try? await store.beginCeremony(user: nil) { user, credentials in
                        (outcome: user == nil && credentials.isEmpty, ceremony: PendingCeremony(
                            challenge: challenge, kind: .authentication, userHandle: nil, state: [UInt8(index)], expiresAt: expiry))
                    }
                    return saved == true ? challenge : nil
                }
            }
            return await group.reduce(into: [[UInt8]]()) { if let challenge = $1 { $0.append(challenge) } }
        }
        #expect(challenges.count == count)
        for challenge in challenges {
            let taken = try await store.takeCeremony(challenge: challenge, kind: .authentication)
            #expect(taken?.state == [challenge[0]] && taken?.userHandle == nil, "saved as built")
            #expect(try await store.takeCeremony(challenge: challenge, kind: .authentication) == nil, "once")
        }
        // Nothing is saved when the builder returns no ceremony.
        let none = try await store.beginCeremony(user: nil) { _, _ in (outcome: 7, ceremony: nil) }
        #expect(none == 7)
    }

    @Test(arguments: StoreUnderTest.withBatching)
    func oneOfTwoRegistrationFinishesStores(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        var taken = 0
        for round in 0..<Self.maxRounds {
            let contenders = try (0..<2).map { index in
                try Registrations.make(handle: Registrations.handle(UInt8(70 + 2 * round + index)), name: "race-\(round)-\(index)")
            }
            let challenge = Array(repeating: UInt8(140 + round), count: 32)
            try await store.saveCeremony(PendingCeremony(
                challenge: challenge, kind: .registration, userHandle: nil, state: [UInt8(round)], expiresAt: Date().addingTimeInterval(300),
                intent: .newUser))
            let barrier = Barrier(waits: subject.name.hasPrefix("postgres"))
            let outcomes = await withTaskGroup(of: String.self) { group in
                for contender in contenders {
                    group.addTask {
                        do {
                            let result = try await store.finishRegistration(challenge: challenge, nickname: nil, audit: .system) { ceremony in
                                barrier.arriveAndWait()
                                return (outcome: ceremony != nil, registration: ceremony == nil ? nil : contender)
                            }
                            if result.stored != nil { return "stored" }
                            return result.outcome ? "other" : "no ceremony"
                        } catch let error as StoreError where error.code == .ceremonyTaken {
                            return "ceremony taken"
                        } catch {
                            return "error: \(error)"
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }.sorted()
            }
            #expect(outcomes.filter { $0 == "stored" }.count == 1, "round \(round): \(outcomes)")
            #expect(outcomes.allSatisfy { ["stored", "ceremony taken", "no ceremony"].contains($0) }, "round \(round): \(outcomes)")
            if outcomes.contains("ceremony taken") { taken += 1 }
            var users = 0
            for contender in contenders where try await store.user(named: contender.user.name) != nil { users += 1 }
            #expect(users == 1, "one account created (round \(round))")
            #expect(try await store.takeCeremony(challenge: challenge, kind: .registration) == nil, "consumed")
            if Self.done(after: round, taken: taken, subject) { break }
        }
        if subject.name.hasPrefix("postgres") { #expect(taken > 0, "no round had both finishes verify") }
    }
}
