import COSECrypto
import Foundation
import Logging
import PasskeyApp
import PasskeyHTTP
import PasskeyServerSupport
import LibPQ
import PasskeyStore
import SealedState
import Synchronization
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// A read replica as the tests drive it: it answers what was last copied from the primary (``catchUp(_:from:)``), so
/// the lag is whatever the test has not copied yet; it can be made to fail; it counts its reads.
final class ScriptedReplica: PasskeyReadStore {
    private let state = Mutex((answers: [UserLookup: UserWithCredentials](), failing: false, reads: 0))
    var reads: Int { state.withLock { $0.reads } }

    /// Copies the primary's answer for `lookup`, by name and by handle (replication caught up for that user).
    func catchUp(_ lookup: UserLookup, from primary: InMemoryPasskeyStore) async {
        let found = await primary.userWithCredentials(lookup)
        state.withLock { state in
            state.answers[lookup] = found
            if let found {
                state.answers[.name(found.user.name)] = found
                state.answers[.handle(found.user.handle)] = found
            }
        }
    }

    func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }

    func userWithCredentials(_ lookup: UserLookup) async throws(StoreError) -> UserWithCredentials? {
        let (failing, found) = state.withLock { state in
            state.reads += 1
            return (state.failing, state.answers[lookup])
        }
        if failing { throw StoreError(.unavailable, "the standby is down (test)") }
        return found
    }
}

/// Stateless begins with a read replica (issue 29): what the replica answers, when the primary is asked instead, and
/// what a lagging replica means for the ceremonies.
@Suite("Begins on a read replica")
struct ReplicaReadsTests {
    let clock = TestClock()
    let primary: InMemoryPasskeyStore
    let replica = ScriptedReplica()
    let ceremonies: CeremonyService
    let logs = LogCapture()

    init() {
        let clock = self.clock
        primary = InMemoryPasskeyStore(now: { clock.now })
        let rp = RelyingParty(id: "http.passkeyd.test", name: "passkeyd", allowedOrigins: [Harness.origin])
        var service = CeremonyService(relyingParty: rp, store: primary, now: { clock.now })
        service.keyRing = { TestPasskeyd.ceremonyKeyRing }
        service.replicaReads = ReplicaReads(replica: replica, retryAfter: 5, logger: logs.logger(), now: { clock.now })
        ceremonies = service
    }

    /// Registers a passkey for `subject` through the service (begin, authenticator, finish).
    func register(_ subject: RegistrationSubject) async throws -> (user: StoredUser, credential: SoftCredential) {
        let options = try await ceremonies.beginRegistration(for: subject, request: RegistrationRequest())
        let (response, credential) = try SoftAuthenticator.register(options: options, knobs: RegistrationKnobs(origin: Harness.origin))
        let finished = try await ceremonies.finishRegistration(response, nickname: nil, audit: .system)
        return (finished.user, credential)
    }

    func allowed(_ options: RequestOptionsJSON) -> [[UInt8]] {
        options.allowCredentials.compactMap { Base64URL.decode($0.id) }
    }

    /// The code of what `body` throws; nil when it returns.
    func code(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as CeremonyError {
            return error.code.rawValue
        } catch let error as StoreError {
            return error.code.rawValue
        } catch {
            return "\(error)"
        }
    }

    @Test("a named sign-in begin is answered by the replica: allowCredentials as the replica has them, the primary not asked")
    func servedByTheReplica() async throws {
        let (user, first) = try await register(.newUser(name: "ada", displayName: "Ada"))
        await replica.catchUp(.name("ada"), from: primary)
        // A second passkey the replica has not replayed yet.
        let (_, second) = try await register(.existingUser(handle: user.handle))

        let options = try await ceremonies.beginAuthentication(user: .name("ada"), userVerification: nil)
        #expect(allowed(options) == [first.id], "the replica's credentials: the one added a moment ago is missing")
        #expect(replica.reads == 3, "the sign-up's begin, the addition's and this one")

        // The finish does not depend on allowCredentials: the new passkey signs in on these options all the same.
        var signer = second
        let response = try SoftAuthenticator.authenticate(options: options, credential: &signer, knobs: AssertionKnobs(origin: Harness.origin))
        let signedIn = try await ceremonies.finishAuthentication(try UnverifiedAuthenticationResponse(response))
        #expect(signedIn.user?.handle == user.handle && signedIn.credential.id == second.id)

        // Once the replica has caught up, the new passkey is listed too.
        await replica.catchUp(.name("ada"), from: primary)
        let later = try await ceremonies.beginAuthentication(user: .name("ada"), userVerification: nil)
        #expect(Set(allowed(later)) == [first.id, second.id])
    }

    @Test("a user the replica does not know yet is read on the primary: signed up a moment ago, signs in by name at once")
    func unknownOnTheReplicaFallsBackToThePrimary() async throws {
        let (user, credential) = try await register(.newUser(name: "bo", displayName: "Bo"))
        let options = try await ceremonies.beginAuthentication(user: .name("bo"), userVerification: nil)
        #expect(allowed(options) == [credential.id], "the primary's answer, not an unknown user's made-up one")
        #expect(replica.reads == 2, "the sign-up's begin (a free name) and this one")

        // By id too.
        let byHandle = try await ceremonies.beginAuthentication(user: .handle(user.handle), userVerification: nil)
        #expect(allowed(byHandle) == [credential.id])

        // A user the replica knows without a passkey (created for an upgrade; the passkey added a moment ago): the
        // primary is read as well.
        let cy = try await ceremonies.createUser(name: "cy", displayName: "Cy", audit: .system)
        await replica.catchUp(.name("cy"), from: primary)
        let (_, cyCredential) = try await register(.existingUser(handle: cy.handle))
        let cyOptions = try await ceremonies.beginAuthentication(user: .name("cy"), userVerification: nil)
        #expect(allowed(cyOptions) == [cyCredential.id])

        // A name nobody has, on either: the made-up options of an unknown user (one id that belongs to no one).
        let unknown = try await ceremonies.beginAuthentication(user: .name("nobody"), userVerification: nil)
        #expect(allowed(unknown).count == 1 && allowed(unknown) != [credential.id])
    }

    @Test("a replica that fails: the begin reads the primary, the failure is logged once, the replica is skipped for retryAfter")
    func failingReplicaFallsBackAndIsSkipped() async throws {
        let (_, credential) = try await register(.newUser(name: "dee", displayName: "Dee"))
        await replica.catchUp(.name("dee"), from: primary)
        replica.fail(true)
        let readsBefore = replica.reads

        let options = try await ceremonies.beginAuthentication(user: .name("dee"), userVerification: nil)
        #expect(allowed(options) == [credential.id])
        #expect(replica.reads == readsBefore + 1)
        // Within the skip period begins do not try it.
        clock.advance(4)
        _ = try await ceremonies.beginAuthentication(user: .name("dee"), userVerification: nil)
        #expect(replica.reads == readsBefore + 1, "skipped")
        let warnings = logs.all.filter { $0.level == .warning }
        #expect(warnings.count == 1 && warnings[0].message.contains("read replica failed"))
        #expect(warnings[0].metadata["reason"]?.contains("standby is down") == true)

        // After it, the replica is tried again; once it answers, begins use it (and the recovery is logged).
        replica.fail(false)
        clock.advance(2)
        let again = try await ceremonies.beginAuthentication(user: .name("dee"), userVerification: nil)
        #expect(allowed(again) == [credential.id])
        #expect(replica.reads == readsBefore + 2)
        #expect(logs.all.contains { $0.level == .notice && $0.message.contains("answers again") })
    }

    @Test("registration begins: a free name and a known user come from the replica; a refusal is the primary's")
    func registrationBegins() async throws {
        // A sign-up whose name the replica does not know: served (the replica says free).
        let (user, first) = try await register(.newUser(name: "eve", displayName: "Eve"))
        #expect(replica.reads == 1)

        // The replica lags: a second sign-up of "eve" passes the begin, and the finish (on the primary) refuses it.
        let options = try await ceremonies.beginRegistration(for: .newUser(name: "eve", displayName: "Eve 2"), request: RegistrationRequest())
        let (response, _) = try SoftAuthenticator.register(options: options, knobs: RegistrationKnobs(origin: Harness.origin))
        #expect(await code { _ = try await ceremonies.finishRegistration(response, nickname: nil, audit: .system) } == "user_exists")

        // Once the replica knows the name, the primary confirms the refusal at begin.
        await replica.catchUp(.name("eve"), from: primary)
        #expect(await code {
            _ = try await ceremonies.beginRegistration(for: .newUser(name: "eve", displayName: "Eve 3"), request: RegistrationRequest())
        } == "user_exists")

        // A name the replica still has but the primary freed (the user was deleted a moment ago): the primary says free.
        #expect(try await primary.deleteUser(handle: user.handle, audit: .system))
        let reused = try await ceremonies.beginRegistration(for: .newUser(name: "eve", displayName: "Eve 4"), request: RegistrationRequest())
        #expect(reused.user.name == "eve")
        _ = first

        // An addition for a user the replica does not know yet (created a moment ago) is read on the primary.
        let fresh = try await ceremonies.createUser(name: "fay", displayName: "Fay", audit: .system)
        let addition = try await ceremonies.beginRegistration(for: .existingUser(handle: fresh.handle), request: RegistrationRequest())
        #expect(Base64URL.decode(addition.user.id) == fresh.handle && addition.excludeCredentials.isEmpty)
        #expect(await code {
            _ = try await ceremonies.beginRegistration(for: .existingUser(handle: Array(repeating: 9, count: 32)), request: RegistrationRequest())
        } == "user_unknown")
    }

    @Test("an addition for a user the replica knows excludes the credentials the replica has")
    func additionExcludesTheReplicasCredentials() async throws {
        let (user, first) = try await register(.newUser(name: "gil", displayName: "Gil"))
        await replica.catchUp(.handle(user.handle), from: primary)
        let (_, second) = try await register(.existingUser(handle: user.handle))
        let options = try await ceremonies.beginRegistration(for: .existingUser(handle: user.handle), request: RegistrationRequest())
        #expect(options.excludeCredentials.compactMap { Base64URL.decode($0.id) } == [first.id], "not yet \(second.id)")
    }

    @Test("discoverable begins read nothing; with the ceremony table (no ceremony keys) the replica is never read")
    func tableModeAndDiscoverableNeverReadTheReplica() async throws {
        _ = try await ceremonies.beginAuthentication(user: nil, userVerification: nil)
        #expect(replica.reads == 0)
        var table = ceremonies
        table.keyRing = nil
        let (user, credential) = try await {
            let options = try await table.beginRegistration(for: .newUser(name: "hal", displayName: "Hal"), request: RegistrationRequest())
            let (response, credential) = try SoftAuthenticator.register(options: options, knobs: RegistrationKnobs(origin: Harness.origin))
            return (try await table.finishRegistration(response, nickname: nil, audit: .system).user, credential)
        }()
        let options = try await table.beginAuthentication(user: .handle(user.handle), userVerification: nil)
        #expect(allowed(options) == [credential.id])
        #expect(replica.reads == 0)
    }

    @Test("wiring: buildApplication gives the replica to stateless begins only; with the table it logs that it is unused")
    func wiring() async throws {
        var settings = try TestPasskeyd.settings(["PASSKEYD_DATABASE_READ_URL": "postgresql://standby.invalid/passkeyd"])
        #expect(settings.databaseReadURL == "postgresql://standby.invalid/passkeyd" && settings.readPoolSize == 4)
        #expect(settings.readPoolConfiguration.readOnly && !settings.poolConfiguration.readOnly)
        #expect(settings.warnings.contains { $0.hasPrefix("PASSKEYD_DATABASE_READ_URL: not used without ceremony keys") })
        settings.databaseReadURL = nil
        let stateless = try await buildApplication(
            settings: settings, store: TestPasskeyd.store(for: settings),
            dependencies: ApplicationDependencies(
                logger: TestPasskeyd.quietLogger, ceremonyKeyRing: TestPasskeyd.ceremonyKeyRing, readReplica: replica))
        #expect(stateless.ceremonies.replicaReads != nil)
        let logs = LogCapture()
        let table = try await buildApplication(
            settings: settings, store: TestPasskeyd.store(for: settings),
            dependencies: ApplicationDependencies(logger: logs.logger(), ceremonyKeysFromSettings: false, readReplica: replica))
        #expect(table.ceremonies.replicaReads == nil)
        #expect(logs.all.contains { $0.level == .warning && $0.message.hasPrefix("the read replica is not used") })
        #expect(throws: (any Error).self) { try TestPasskeyd.settings(["PASSKEYD_DATABASE_READ_URL": "standby"]) }
    }
}
