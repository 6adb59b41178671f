import Foundation
import PasskeyStore
import SealedState
import Testing
import WebAuthnCore

/// The stateless finishes (sealed challenges), on every store: single use by the challenge's fingerprint, recorded in
/// the same write as the change; a replay is refused and changes nothing; a refused finish uses the challenge up.
@Suite("Sealed-challenge finishes")
struct SealedFinishTests {
    static func fingerprint(_ byte: UInt8, expiresIn seconds: TimeInterval = 300) -> ConsumedFingerprint {
        ConsumedFingerprint(bytes: Array(repeating: byte, count: 16), expiresAt: Date().addingTimeInterval(seconds))
    }

    @Test(arguments: StoreUnderTest.withBatching)
    func authenticationAppliesOnceAndRefusesTheReplayUnverified(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let (registration, made) = try Registrations.makeWithAuthenticator(handle: Registrations.handle(70), name: "sam", signCount: 1)
        var authenticator = made
        _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        let update = try Registrations.update(&authenticator, record: registration.credentialRecord, increment: 1, backedUp: false)
        let consumed = Self.fingerprint(1)
        let first = try await store.finishSealedAuthentication(consumed: consumed, credentialID: registration.credentialID) { lookup in
            (outcome: lookup.credential?.id, update: update)
        }
        #expect(first.outcome == registration.credentialID)
        #expect(first.lookup.ceremony == nil && first.lookup.user?.name == "sam")
        #expect(first.lookup.userCredentialIDs == [registration.credentialID])
        guard case .applied(let written)? = first.applied else { Issue.record("not applied: \(String(describing: first.applied))"); return }
        #expect(written.record.signCount == update.signCount)
        // The same challenge again, even with a newer assertion: refused before verification, nothing written.
        let later = try Registrations.update(&authenticator, record: written.record, increment: 1, backedUp: false)
        await #expect(throws: StoreError(.ceremonyTaken)) {
            _ = try await store.finishSealedAuthentication(consumed: consumed, credentialID: registration.credentialID) { _ in
                Issue.record("a replay was verified")
                return (outcome: (), update: later)
            }
        }
        #expect(try await store.credential(id: registration.credentialID)?.record.signCount == update.signCount)
    }

    @Test(arguments: StoreUnderTest.withBatching)
    func aRefusedOrUnknownCredentialFinishStillUsesTheChallengeUp(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let (registration, made) = try Registrations.makeWithAuthenticator(handle: Registrations.handle(71), name: "tia", signCount: 1)
        var authenticator = made
        _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        let refused = Self.fingerprint(2)
        let result = try await store.finishSealedAuthentication(consumed: refused, credentialID: registration.credentialID) { _ in
            (outcome: false, update: nil)
        }
        #expect(result.applied == nil && !result.outcome)
        let update = try Registrations.update(&authenticator, record: registration.credentialRecord, increment: 1, backedUp: false)
        await #expect(throws: StoreError(.ceremonyTaken)) {
            _ = try await store.finishSealedAuthentication(consumed: refused, credentialID: registration.credentialID) { _ in
                (outcome: (), update: update)
            }
        }
        #expect(try await store.credential(id: registration.credentialID)?.record.signCount == 1, "nothing applied")
        // An unknown credential: the lookup has none, and the challenge is used up all the same.
        let unknown = Self.fingerprint(3)
        let missing = try await store.finishSealedAuthentication(consumed: unknown, credentialID: [9, 9, 9]) { lookup in
            (outcome: lookup.credential == nil, update: nil)
        }
        #expect(missing.outcome && missing.lookup.userCredentialIDs.isEmpty)
        await #expect(throws: StoreError(.ceremonyTaken)) {
            _ = try await store.finishSealedAuthentication(consumed: unknown, credentialID: [9, 9, 9]) { _ in (outcome: (), update: nil) }
        }
    }

    /// Two finishes of one challenge at once, each with a valid update: exactly one applies, the other writes nothing.
    @Test(arguments: StoreUnderTest.withBatching)
    func oneOfTwoConcurrentFinishesApplies(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let (registration, made) = try Registrations.makeWithAuthenticator(handle: Registrations.handle(72), name: "uma", signCount: 1)
        var authenticator = made
        _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        var record = registration.credentialRecord
        for round in 0..<FinishRaceTests.rounds {
            let update = try Registrations.update(&authenticator, record: record, increment: 1, backedUp: false)
            let consumed = Self.fingerprint(UInt8(100 + round))
            let barrier = FinishRaceTests.Barrier(waits: subject.name == "postgres")
            let outcomes = await withTaskGroup(of: String.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        do {
                            let result = try await store.finishSealedAuthentication(
                                consumed: consumed, credentialID: registration.credentialID
                            ) { _ in
                                barrier.arriveAndWait()
                                return (outcome: (), update: update)
                            }
                            if case .applied? = result.applied { return "applied" }
                            return "other: \(String(describing: result.applied))"
                        } catch let error as StoreError where error.code == .ceremonyTaken {
                            return "taken"
                        } catch {
                            return "error: \(error)"
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }.sorted()
            }
            #expect(outcomes == ["applied", "taken"], "round \(round)")
            let stored = try #require(try await store.credential(id: registration.credentialID))
            #expect(stored.record.signCount == update.signCount, "advanced once")
            record = stored.record
        }
    }

    /// Many sealed finishes of different credentials at once (they share batches on the batching store), half refused:
    /// each gets its own outcome, and every challenge is used up.
    @Test(arguments: StoreUnderTest.withBatching)
    func concurrentSealedFinishesKeepTheirOwnOutcomes(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        var finishes: [(consumed: ConsumedFingerprint, credentialID: [UInt8], update: CredentialUpdate, accept: Bool)] = []
        for index in 0..<12 {
            let (registration, made) = try Registrations.makeWithAuthenticator(
                handle: Registrations.handle(UInt8(150 + index)), name: "sealed\(index)", signCount: 1)
            var authenticator = made
            _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
            let update = try Registrations.update(&authenticator, record: registration.credentialRecord, increment: 1, backedUp: false)
            finishes.append((Self.fingerprint(UInt8(150 + index)), registration.credentialID, update, index % 2 == 0))
        }
        let results = await withTaskGroup(of: (Int, String).self) { group in
            for (index, finish) in finishes.enumerated() {
                group.addTask {
                    do {
                        let result = try await store.finishSealedAuthentication(consumed: finish.consumed, credentialID: finish.credentialID) {
                            lookup in (outcome: lookup.credential?.id == finish.credentialID, update: finish.accept ? finish.update : nil)
                        }
                        guard result.outcome else { return (index, "wrong lookup") }
                        if case .applied(let credential)? = result.applied { return (index, credential.id == finish.credentialID ? "applied" : "wrong credential") }
                        return (index, result.applied == nil ? "refused" : "other")
                    } catch {
                        return (index, "error: \(error)")
                    }
                }
            }
            return await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        for (index, finish) in finishes.enumerated() {
            #expect(results[index] == (finish.accept ? "applied" : "refused"), "finish \(index)")
            let stored = try await store.credential(id: finish.credentialID)
            #expect(stored?.record.signCount == (finish.accept ? finish.update.signCount : 1), "finish \(index)")
            await #expect(throws: StoreError(.ceremonyTaken), "finish \(index) used up") {
                _ = try await store.finishSealedAuthentication(consumed: finish.consumed, credentialID: finish.credentialID) { _ in
                    (outcome: (), update: nil)
                }
            }
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func registrationStoresOnceAndRefusesTheReplay(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let registration = try Registrations.make(handle: Registrations.handle(73), name: "vic")
        let consumed = Self.fingerprint(4)
        let first = try await store.finishSealedRegistration(consumed: consumed, nickname: "key", intent: .newUser, audit: .system) {
            (outcome: 1, registration: registration)
        }
        #expect(first.stored?.user.name == "vic" && first.stored?.credential.nickname == "key")
        // A replay: nothing stored (not even as another user's passkey), refused.
        let other = try Registrations.make(handle: Registrations.handle(74), name: "wes")
        await #expect(throws: StoreError(.ceremonyTaken)) {
            _ = try await store.finishSealedRegistration(consumed: consumed, nickname: nil, intent: .newUser, audit: .system) {
                (outcome: 2, registration: other)
            }
        }
        #expect(try await store.user(named: "wes") == nil)
        #expect(try await store.credential(id: other.credentialID) == nil)
    }

    @Test(arguments: StoreUnderTest.all)
    func aRefusedOrFailedRegistrationUsesTheChallengeUp(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let registration = try Registrations.make(handle: Registrations.handle(75), name: "xia")
        // Refused by verification: recorded, nothing stored.
        let refused = Self.fingerprint(5)
        let result = try await store.finishSealedRegistration(consumed: refused, nickname: nil, intent: .newUser, audit: .system) {
            (outcome: 0, registration: nil)
        }
        #expect(result.stored == nil)
        await #expect(throws: StoreError(.ceremonyTaken)) {
            _ = try await store.finishSealedRegistration(consumed: refused, nickname: nil, intent: .newUser, audit: .system) {
                (outcome: 0, registration: registration)
            }
        }
        #expect(try await store.user(named: "xia") == nil)
        // Storing fails (the credential id is registered already): the error, and the challenge is used up.
        _ = try await store.register(registration, nickname: nil, intent: .newUser, audit: .system)
        let failing = Self.fingerprint(6)
        await #expect(throws: StoreError(.duplicateCredential)) {
            _ = try await store.finishSealedRegistration(consumed: failing, nickname: nil, intent: .existingUser, audit: .system) {
                (outcome: 0, registration: registration)
            }
        }
        let fresh = try Registrations.make(handle: Registrations.handle(75), name: "xia")
        await #expect(throws: StoreError(.ceremonyTaken)) {
            _ = try await store.finishSealedRegistration(consumed: failing, nickname: nil, intent: .existingUser, audit: .system) {
                (outcome: 0, registration: fresh)
            }
        }
        #expect(try await store.credential(id: fresh.credentialID) == nil)
    }

    /// Records past their expiry go with the purge of expired ceremonies; unexpired ones stay.
    @Test(arguments: StoreUnderTest.all)
    func purgeDropsExpiredRecordsOnly(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let expired = Self.fingerprint(7, expiresIn: -10)
        let live = Self.fingerprint(8)
        for consumed in [expired, live] {
            _ = try await store.finishSealedRegistration(consumed: consumed, nickname: nil, intent: .newUser, audit: .system) {
                (outcome: 0, registration: nil)
            }
        }
        #expect(try await store.purgeExpiredCeremonies() == 1)
        let registration = try Registrations.make(handle: Registrations.handle(76), name: "yan")
        await #expect(throws: StoreError(.ceremonyTaken), "the live record stays") {
            _ = try await store.finishSealedRegistration(consumed: live, nickname: nil, intent: .newUser, audit: .system) {
                (outcome: 0, registration: registration)
            }
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func consumeChallengeRecordsOnceThenAnswersFalse(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let consumed = Self.fingerprint(9)
        #expect(try await store.consumeChallenge(consumed))
        #expect(try await !store.consumeChallenge(consumed), "a second use is refused")
        #expect(try await store.consumeChallenge(Self.fingerprint(10)), "another fingerprint is its own")
        // One record for both kinds of finish: a fingerprint a passkey finish recorded is used up here too.
        let used = Self.fingerprint(11)
        _ = try await store.finishSealedRegistration(consumed: used, nickname: nil, intent: .newUser, audit: .system) {
            (outcome: 0, registration: nil)
        }
        #expect(try await !store.consumeChallenge(used))
    }

    @Test(arguments: StoreUnderTest.all)
    func concurrentConsumesOfOneFingerprintRecordItOnce(_ subject: StoreUnderTest) async throws {
        let store = try await subject.make()
        let consumed = Self.fingerprint(12)
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { try await store.consumeChallenge(consumed) } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
    }
}
