import PasskeyApp
import COSECrypto
import Foundation
import Hummingbird
import HummingbirdTesting
import LibPQ
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import PasskeyStorePostgres
import PostgresTestSupport
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// The HTTP API end to end on a real PostgreSQL: router + CeremonyService + PostgresPasskeyStore on a fresh schema
/// per test, driven by the software authenticator, with the tables checked directly.
@Suite("HTTP on PostgreSQL", .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct PostgresHTTPTests {
    // MARK: 1. the full flow

    @Test("register, sign in by name and discoverably, second registration excludes the first; rows in the schema")
    func fullFlow() async throws {
        try await withPostgresHTTP { schema, instance in
            try await instance.app.test(.router) { client in
                var (reply, credential) = try await Flow.register(client, name: "alice")
                #expect(reply.status == 201)
                #expect((reply.json["user"] as? [String: Any])?["name"] as? String == "alice")
                #expect((reply.json["credential"] as? [String: Any])?["id"] as? String == Base64URL.encode(credential.id))
                #expect(try await schema.count("users") == 1)
                #expect(try await schema.count("credentials") == 1)
                let registered = try #require(try await schema.credential(credential.id))
                #expect(registered.signCount == 0 && registered.lastUsedAt == nil && registered.nickname == "phone")
                #expect(registered.userName == "alice" && registered.userHandle == credential.userHandle)

                let signIn = try await Flow.assertion(client, name: "alice", credential: &credential)
                let ok = try await client.post("/v1/authentication/finish", json: signIn)
                #expect(ok.status == 200)
                #expect(ok.json["userVerified"] as? Bool == true)
                #expect((ok.json["user"] as? [String: Any])?["name"] as? String == "alice")
                #expect((ok.json["credential"] as? [String: Any])?["signCount"] as? Int == 1)
                let afterSignIn = try #require(try await schema.credential(credential.id))
                #expect(afterSignIn.signCount == 1, "the counter moved in the database")
                #expect(afterSignIn.lastUsedAt != nil, "the use was recorded")

                let discoverable = try await Flow.assertion(client, name: nil, credential: &credential)
                let discovered = try await client.post("/v1/authentication/finish", json: discoverable)
                #expect(discovered.status == 200)
                #expect((discovered.json["user"] as? [String: Any])?["name"] as? String == "alice")
                #expect(try await schema.signCount(credential.id) == 2)

                let again = try await Flow.beginRegistration(client, userHandle: credential.userHandle)
                #expect(again.excludeCredentials.map(\.id) == [Base64URL.encode(credential.id)])
                #expect(again.user.id == Base64URL.encode(credential.userHandle), "a known user keeps their handle")

                // A second credential for the same user: one user row, two credential rows, both hers.
                let (second, secondCredential) = try await Flow.register(client, userHandle: credential.userHandle)
                #expect(second.status == 201)
                #expect(secondCredential.userHandle == credential.userHandle)
                #expect(try await schema.count("users") == 1)
                #expect(try await schema.count("credentials") == 2)
                #expect(try await schema.credential(secondCredential.id)?.userName == "alice")
                let third = try await Flow.beginRegistration(client, userHandle: credential.userHandle)
                #expect(Set(third.excludeCredentials.map(\.id)) == [Base64URL.encode(credential.id), Base64URL.encode(secondCredential.id)])
                if TestPasskeyd.sealed {
                    // Stateless: no begin wrote anything; each finish recorded its challenge as used.
                    #expect(try await schema.count("ceremonies") == 0)
                    #expect(try await schema.count("consumed_challenges") >= 2)
                } else {
                    // Finished ceremonies are deleted; the two abandoned begins remain until they expire.
                    #expect(try await schema.count("ceremonies") == 2)
                }
            }
        }
    }

    // MARK: 2. duplicate credential id

    @Test("a credential id registered twice is a 409 and changes no row")
    func duplicateCredential() async throws {
        try await withPostgresHTTP { schema, instance in
            try await instance.app.test(.router) { client in
                let id = randomBytes(32)
                let (first, erin) = try await Flow.register(client, name: "erin") { $0.credentialID = id }
                #expect(first.status == 201)
                let before = try await schema.snapshot()

                // Another user, same id: the user row inserted in the same transaction is rolled back too.
                let (second, _) = try await Flow.register(client, name: "frank") { $0.credentialID = id }
                #expect(second.status == 409 && second.errorCode == "credential_already_registered")
                // The same user registering the id again (a client ignoring excludeCredentials).
                let (third, _) = try await Flow.register(client, userHandle: erin.userHandle) { $0.credentialID = id }
                #expect(third.status == 409 && third.errorCode == "credential_already_registered")

                #expect(try await schema.snapshot() == before, "users and credentials are exactly as before")
                #expect(try await schema.count("users", where: "name = 'frank'") == 0)
                #expect(try await schema.count("credentials") == 1)
                let row = try #require(try await schema.credential(id))
                #expect(row.userName == "erin" && row.userHandle == erin.userHandle, "the id still belongs to its first owner")
            }
        }
    }

    // MARK: 2b. registration intent: a name signs up, an id adds

    @Test("a taken name is 409 user_exists and changes nothing; an id adds to that user only; an unknown id is 404")
    func registrationIntent() async throws {
        try await withPostgresHTTP { schema, instance in
            try await instance.app.test(.router) { client in
                let (created, alice) = try await Flow.register(client, name: "alice")
                #expect(created.status == 201)
                let before = try await schema.snapshot()
                let ceremoniesBefore = try await schema.count("ceremonies")

                // A sign-up form forwarding "alice" again gets no handle, no excluded ids, no ceremony.
                let taken = try await client.post("/v1/registration/begin", json: BeginRegistration(user: .init(name: "alice", displayName: "Mallory")))
                #expect(taken.status == 409 && taken.errorCode == "user_exists")
                #expect(!String(decoding: taken.body, as: UTF8.self).contains(Base64URL.encode(alice.userHandle)))
                #expect(try await schema.snapshot() == before)
                #expect(try await schema.count("ceremonies") == ceremoniesBefore)

                // Ambiguous or malformed user objects are 400; an unknown id is 404; none of them saves a ceremony.
                for body in [#"{"user":{"name":"x","id":"AAAA"}}"#, #"{"user":{}}"#, #"{"user":{"id":"***"}}"#, #"{"user":{"id":""}}"#,
                             #"{"user":{"id":"AAAA","displayName":"x"}}"#, #"{"user":"alice"}"#, #"{}"#] {
                    let reply = try await client.post("/v1/registration/begin", Array(body.utf8))
                    #expect(reply.status == 400 && reply.errorCode == "malformed_json", "\(body): \(reply.status)")
                }
                let unknown = try await client.post("/v1/registration/begin", json: BeginRegistration(user: .init(id: Base64URL.encode(randomBytes(32)))))
                #expect(unknown.status == 404 && unknown.errorCode == "user_unknown")
                #expect(try await schema.count("ceremonies") == ceremoniesBefore)

                // By id: alice's handle, her credential excluded; the finish adds to her.
                let (added, second) = try await Flow.register(client, userHandle: alice.userHandle)
                #expect(added.status == 201 && second.userHandle == alice.userHandle)
                #expect(try await schema.count("users") == 1)
                #expect(try await schema.count("credentials") == 2)

                // Begun for alice by id, alice deleted before the finish: 404, no user re-created, nothing stored.
                let options = try await Flow.beginRegistration(client, userHandle: alice.userHandle)
                _ = try await schema.query(PGQuery(unsafeSQL: "DELETE FROM users WHERE name = 'alice'"))
                let (response, _) = try SoftAuthenticator.register(options: options, knobs: RegistrationKnobs(origin: Harness.origin))
                let late = try await client.post("/v1/registration/finish", json: FinishRegistration(credential: response, nickname: nil))
                #expect(late.status == 404 && late.errorCode == "user_unknown")
                #expect(try await schema.count("users") == 0)
                #expect(try await schema.count("credentials") == 0)
            }
        }
    }

    @Test("two sign-ups of one new name, begun and finished concurrently: exactly one user, the other 409 user_exists")
    func signUpRace() async throws {
        try await withPostgresHTTP(poolSize: 8) { schema, instance in
            try await instance.app.test(.router) { client in
                for round in 0..<5 {
                    let name = "race-\(round)"
                    // Both begins succeed: the name is free at begin time.
                    var options: [CreationOptionsJSON] = []
                    for _ in 0..<4 { options.append(try await Flow.beginRegistration(client, name: name)) }
                    #expect(Set(options.map(\.user.id)).count == 4, "each sign-up gets its own handle")
                    let bodies = try options.map { option in
                        FinishRegistration(
                            credential: try SoftAuthenticator.register(options: option, knobs: RegistrationKnobs(origin: Harness.origin)).response,
                            nickname: nil)
                    }
                    let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                        for body in bodies { group.addTask { try await client.post("/v1/registration/finish", json: body) } }
                        return try await group.reduce(into: [Reply]()) { $0.append($1) }
                    }
                    #expect(replies.filter { $0.status == 201 }.count == 1, "\(replies.map(\.status))")
                    #expect(replies.filter { $0.status == 409 && $0.errorCode == "user_exists" }.count == 3)
                    #expect(try await schema.count("users", where: "name = '\(name)'") == 1)
                    #expect(try await schema.count("credentials c JOIN users u ON u.id = c.user_id", where: "u.name = '\(name)'") == 1)
                }
                #expect(try await schema.count("credentials") == 5)
            }
        }
    }

    // MARK: 2c. caps on pending ceremonies

    @Test("caps in one statement: per user (by name or id alike), and the whole table once near the global cap")
    func pendingCeremonyCaps() async throws {
        // Pending-ceremony caps exist only on the ceremony table (stateless begins save nothing).
        try await TestPasskeyd.$ceremonyTable.withValue(true) {
        try await withPostgresHTTP(environment: ["PASSKEYD_PENDING_PER_USER": "3", "PASSKEYD_PENDING_MAX": "20"]) { schema, instance in
            try await instance.app.test(.router) { client in
                let (_, alice) = try await Flow.register(client, name: "alice")
                let byName = Array(#"{"user":{"name":"alice"}}"#.utf8)
                let byID = Array("{\"user\":{\"id\":\"\(Base64URL.encode(alice.userHandle))\"}}".utf8)
                #expect(try await client.post("/v1/authentication/begin", byName).status == 200)
                #expect(try await client.post("/v1/authentication/begin", byID).status == 200)
                #expect(try await client.post("/v1/registration/begin", byID).status == 200, "adding a passkey counts too")
                for body in [byName, byID] {
                    let refused = try await client.post("/v1/authentication/begin", body)
                    #expect(refused.status == 429 && refused.errorCode == "too_many_pending_ceremonies")
                }
                #expect(try await schema.count("ceremonies") == 3, "nothing saved past the cap")
                // Expired ceremonies do not count against the user.
                _ = try await schema.query(PGQuery(unsafeSQL: "UPDATE ceremonies SET expires_at = now() - interval '1 second'"))
                #expect(try await client.post("/v1/authentication/begin", byName).status == 200)

                // Anonymous begins stop at 90 % of the global cap (18 of 20): the table holds 4 rows; once this
                // instance's saves since the last count reach 80 % of 18, every save counts the table.
                var refusedAt: Int?
                for index in 0..<20 {
                    let reply = try await client.post("/v1/authentication/begin", Array("{}".utf8))
                    if reply.status == 503 {
                        #expect(reply.errorCode == "ceremony_capacity_reached")
                        refusedAt = refusedAt ?? index
                    }
                }
                #expect(refusedAt == 14, "4 + 14 = 18 rows, then refused")
                #expect(try await schema.count("ceremonies") == 18, "exactly the anonymous cap, without any refresh")
                // alice exists: her sign-in may use the tenth held back (her per-user cap still applies).
                #expect(try await client.post("/v1/authentication/begin", byName).status == 200)
                #expect(try await client.post("/v1/authentication/begin", byID).status == 200)
                #expect(try await schema.count("ceremonies") == 20)
                #expect(try await client.post("/v1/authentication/begin", byName).status == 429, "her own cap: 3")
                // The purge frees room (all expired now).
                _ = try await schema.query(PGQuery(unsafeSQL: "UPDATE ceremonies SET expires_at = now() - interval '1 second'"))
                #expect(try await instance.store.purgeExpiredCeremonies() == 20)
                #expect(try await instance.store.refreshCeremonyCount() == 0)
                #expect(try await client.post("/v1/authentication/begin", Array("{}".utf8)).status == 200)
            }
        }
        }
    }

    // MARK: 3. replay and expiry

    @Test("a replayed finish is refused; an expired challenge is refused; neither touches the credential")
    func replayAndExpiry() async throws {
        try await withPostgresHTTP { schema, instance in
            try await instance.app.test(.router) { client in
                var (registered, credential) = try await Flow.register(client, name: "bob")
                #expect(registered.status == 201)
                let signIn = try await Flow.assertion(client, name: "bob", credential: &credential)
                #expect(try await client.post("/v1/authentication/finish", json: signIn).status == 200)
                let used = try #require(try await schema.credential(credential.id))
                #expect(used.signCount == 1 && used.lastUsedAt != nil)

                let replay = try await client.post("/v1/authentication/finish", json: signIn)
                #expect(replay.status == 400 && replay.errorCode == "challenge_unknown_or_expired")
                #expect(try await schema.credential(credential.id) == used, "a replay changes nothing")

                // The service clock moves past the challenge's expiry, the database clock does not: the database
                // still hands the ceremony out, and the engine refuses it with its own code (410 challenge_expired).
                // The in-memory store, which expires with the service clock, answers 400 challenge_unknown_or_expired.
                // (Sealed: the service clock is all there is; past the expiry and the 30 s clock skew, the same answer.)
                let late = try await Flow.assertion(client, name: "bob", credential: &credential)
                instance.clock.advance(331)
                let expired = try await client.post("/v1/authentication/finish", json: late)
                #expect(expired.status == 410 && expired.errorCode == "challenge_expired", "\(expired.status) \(expired.errorCode ?? "-")")
                #expect(try await schema.credential(credential.id) == used)
                // Refused or not, the ceremony was consumed. (A sealed challenge refused as expired is not recorded:
                // it writes nothing, and it never opens again unless the clock goes back by more than the skew.)
                if !TestPasskeyd.sealed {
                    instance.clock.advance(-331)
                    let retried = try await client.post("/v1/authentication/finish", json: late)
                    #expect(retried.status == 400 && retried.errorCode == "challenge_unknown_or_expired")
                    #expect(try await schema.credential(credential.id) == used)
                }
            }
        }
    }

    @Test("a challenge that expires in real time (database clock) is refused and the credential is untouched")
    func expiryOnTheDatabaseClock() async throws {
        // Expiry on the database clock is the ceremony table's (a sealed challenge expires on the service clock).
        try await TestPasskeyd.$ceremonyTable.withValue(true) {
        try await withPostgresHTTP { schema, instance in
            // A second instance on the same schema with a two-second challenge timeout.
            // Under PASSKEYD_CHALLENGE_TTL's 30 s minimum.
            var settings = try TestPasskeyd.unboundedSettings()
            settings.relyingParty.challengeTimeout = .seconds(2)
            let shortLived = try await PostgresHTTPInstance(url: schema.url, settings: settings, poolSize: 2)
            do {
                let registered = try await instance.app.test(.router) { client in
                    let (registered, credential) = try await Flow.register(client, name: "ivy")
                    #expect(registered.status == 201)
                    return credential
                }
                try await shortLived.app.test(.router) { client in
                    var credential = registered
                    let late = try await Flow.assertion(client, name: "ivy", credential: &credential)
                    #expect(try await schema.count("ceremonies") == 1)
                    try await Task.sleep(for: .milliseconds(3_000))
                    let expired = try await client.post("/v1/authentication/finish", json: late)
                    #expect(expired.status == 400 && expired.errorCode == "challenge_unknown_or_expired", "\(expired.status) \(expired.errorCode ?? "-")")
                    #expect(try await schema.count("ceremonies") == 0, "the expired ceremony was consumed")
                    let row = try #require(try await schema.credential(credential.id))
                    #expect(row.signCount == 0 && row.lastUsedAt == nil)

                    // Within the timeout the short-lived instance signs in fine.
                    let prompt = try await Flow.assertion(client, name: "ivy", credential: &credential)
                    #expect(try await client.post("/v1/authentication/finish", json: prompt).status == 200)
                    #expect(try await schema.signCount(credential.id) == Int64(credential.signCount))
                }
            } catch {
                await shortLived.shutdown()
                throw error
            }
            await shortLived.shutdown()
        }
        }
    }

    // MARK: 4. concurrency

    @Test("8 concurrent finishes of one signed response: exactly one 200, the counter moves once")
    func concurrentReplays() async throws {
        try await withPostgresHTTP(poolSize: 8) { schema, instance in
            try await instance.app.test(.router) { client in
                var (registered, credential) = try await Flow.register(client, name: "dave")
                #expect(registered.status == 201)
                let signIn = try await Flow.assertion(client, name: "dave", credential: &credential)
                let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                    for _ in 0..<8 { group.addTask { try await client.post("/v1/authentication/finish", json: signIn) } }
                    return try await group.reduce(into: [Reply]()) { $0.append($1) }
                }
                #expect(replies.filter { $0.status == 200 }.count == 1, "\(replies.map(\.status))")
                let refused = replies.filter { $0.status != 200 }
                #expect(refused.count == 7)
                #expect(refused.allSatisfy { $0.status == 400 && $0.errorCode == "challenge_unknown_or_expired" }, "\(refused.map { $0.errorCode ?? "-" })")
                #expect(try await schema.signCount(credential.id) == 1)
            }
        }
    }

    @Test("concurrent finishes of different ceremonies for one credential never lower the counter")
    func concurrentCounterUpdates() async throws {
        try await withPostgresHTTP(poolSize: 8) { schema, instance in
            try await instance.app.test(.router) { client in
                var (registered, credential) = try await Flow.register(client, name: "gail")
                #expect(registered.status == 201)
                // Eight ceremonies, signed in order (counters 1...8), finished concurrently in a shuffled order.
                var signIns: [FinishAuthentication] = []
                for _ in 0..<8 { signIns.append(try await Flow.assertion(client, name: "gail", credential: &credential)) }
                let highest = Int64(credential.signCount)
                #expect(highest == 8)

                let done = PGHTTPBox(false)
                let observed = PGHTTPBox<[Int64]>([])
                let id = credential.id
                let watcher = Task {
                    while !done.value {
                        if let count = try await schema.signCount(id) { observed.update { $0.append(count) } }
                    }
                }
                // (the counter each response carries, its reply)
                let shuffled = Array(zip(1...8, signIns)).shuffled()
                let outcomes = try await withThrowingTaskGroup(of: (Int, Reply).self) { group in
                    for (counter, signIn) in shuffled {
                        group.addTask { (counter, try await client.post("/v1/authentication/finish", json: signIn)) }
                    }
                    return try await group.reduce(into: [(Int, Reply)]()) { $0.append($1) }
                }
                let replies = outcomes.map(\.1)
                done.update { $0 = true }
                try await watcher.value

                // Each one either succeeds or is refused because a higher counter was stored first.
                #expect(replies.allSatisfy { $0.status == 200 || ($0.status == 422 && $0.errorCode == "sign_count_regressed") },
                        "\(replies.map { "\($0.status) \($0.errorCode ?? "")" })")
                #expect(replies.contains { $0.status == 200 })
                let final = try await schema.signCount(id)
                #expect(final == highest, "the highest counter wins whatever the order")
                let samples = observed.value + [final ?? -1]
                #expect(zip(samples, samples.dropFirst()).allSatisfy { $0 <= $1 }, "the stored counter never went down: \(samples)")
                // Each 200 reports the stored counter: at least as high as the one it presented.
                for (counter, reply) in outcomes where reply.status == 200 {
                    #expect(((reply.json["credential"] as? [String: Any])?["signCount"] as? Int ?? 0) >= counter)
                }
                // Each 200 reports exactly the counter it presented: an assertion verified against a stale read
                // whose counter had meanwhile been reached by a concurrent finish is refused (the store's update is
                // conditional), never accepted with someone else's counter.
                let staleAccepted = outcomes.filter { counter, reply in
                    reply.status == 200 && ((reply.json["credential"] as? [String: Any])?["signCount"] as? Int ?? 0) != counter
                }.map(\.0)
                #expect(staleAccepted.isEmpty, "accepted although a higher counter was already stored: \(staleAccepted)")
            }
        }
    }

    // MARK: 5. two instances, one database

    @Test("two instances on one database: begin on one, finish on the other, both ways")
    func twoInstances() async throws {
        try await withPostgresHTTP(poolSize: 2) { schema, a in
            let b = try await PostgresHTTPInstance(url: schema.url, settings: try TestPasskeyd.unboundedSettings(), poolSize: 2)
            do {
                try await a.app.test(.router) { clientA in
                    try await b.app.test(.router) { clientB in
                        // Registration: begin on A, finish on B.
                        let options = try await Flow.beginRegistration(clientA, name: "hana")
                        var (response, credential): (RegistrationResponseJSON, SoftCredential) = try SoftAuthenticator.register(options: options, knobs: RegistrationKnobs(origin: Harness.origin))
                        let created = try await clientB.post("/v1/registration/finish", json: FinishRegistration(credential: response, nickname: "key"))
                        #expect(created.status == 201, "\(created.status) \(created.errorCode ?? "-")")
                        #expect(try await schema.count("credentials") == 1)

                        // Authentication: begin on B, finish on A.
                        let request = try await Flow.beginAuthentication(clientB, name: "hana")
                        #expect(request.allowCredentials.map(\.id) == [Base64URL.encode(credential.id)])
                        let signIn = FinishAuthentication(credential: try SoftAuthenticator.authenticate(
                            options: request, credential: &credential, knobs: AssertionKnobs(origin: Harness.origin)))
                        let ok = try await clientA.post("/v1/authentication/finish", json: signIn)
                        #expect(ok.status == 200, "\(ok.status) \(ok.errorCode ?? "-")")
                        #expect((ok.json["user"] as? [String: Any])?["name"] as? String == "hana")
                        #expect(try await schema.signCount(credential.id) == 1)

                        // The ceremony is gone for both: a replay on B is refused.
                        let replay = try await clientB.post("/v1/authentication/finish", json: signIn)
                        #expect(replay.status == 400 && replay.errorCode == "challenge_unknown_or_expired")

                        // Discoverable: begin on A, finish on B.
                        let discoverable = try await Flow.assertion(clientA, name: nil, credential: &credential)
                        #expect(try await clientB.post("/v1/authentication/finish", json: discoverable).status == 200)
                        #expect(try await schema.signCount(credential.id) == 2)

                        // Registration seen by both: A excludes the credential B stored.
                        let again = try await Flow.beginRegistration(clientA, userHandle: credential.userHandle)
                        #expect(again.excludeCredentials.map(\.id) == [Base64URL.encode(credential.id)])
                        response = try SoftAuthenticator.register(options: again, knobs: RegistrationKnobs(origin: Harness.origin)).response
                        #expect(try await clientB.post("/v1/registration/finish", json: FinishRegistration(credential: response, nickname: nil)).status == 201)
                        #expect(try await schema.count("users") == 1)
                        #expect(try await schema.count("credentials") == 2)
                    }
                }
            } catch {
                await b.shutdown()
                throw error
            }
            await b.shutdown()
        }
    }

    // MARK: 6. database restart

    @Test(
        "the database restarts mid-run: at most one 503 per pooled connection, then recovery on the same pool; nothing lost",
        .enabled(if: PrivateCluster.isAvailable, "needs /usr/lib/postgresql/15/bin (PASSKEYD_TEST_PG_RESTART=0 disables it)")
    )
    func databaseRestart() async throws {
        let cluster = PrivateCluster(label: "httptest")
        try await pgHTTPOffload { try cluster.run("start") }
        do {
            try await restartScenario(cluster)
        } catch {
            _ = try? await pgHTTPOffload { try cluster.run("destroy") }
            throw error
        }
        try await pgHTTPOffload { try cluster.run("destroy") }
    }

    private func restartScenario(_ cluster: PrivateCluster) async throws {
        try await withPostgresHTTP(baseURL: cluster.url + "?connect_timeout=5", poolSize: 2) { schema, instance in
            let pool = instance.pool
            try await instance.app.test(.router) { client in
                var (registered, credential) = try await Flow.register(client, name: "judy")
                #expect(registered.status == 201)
                let first = try await Flow.assertion(client, name: "judy", credential: &credential)
                #expect(try await client.post("/v1/authentication/finish", json: first).status == 200)
                // Open both pooled connections.
                async let x: Void = pool.withConnection { _ in Thread.sleep(forTimeInterval: 0.1) }
                async let y: Void = pool.withConnection { _ in Thread.sleep(forTimeInterval: 0.1) }
                _ = try await (x, y)
                #expect(pool.stats.open == 2)

                // Restart with no traffic in between: both pooled connections are now dead.
                try await pgHTTPOffload { try cluster.run("stop") }
                try await pgHTTPOffload { try cluster.run("start") }
                var failures = 0
                for _ in 0..<6 {
                    let begin = try await client.post("/v1/authentication/begin", json: BeginAuthentication(user: .init(name: "judy")))
                    if begin.status == 503 {
                        failures += 1
                        #expect(begin.errorCode == "storage_unavailable")
                    } else {
                        #expect(begin.status == 200, "\(begin.status) \(begin.errorCode ?? "-")")
                    }
                }
                #expect(failures <= pool.size, "at most one failure per pooled connection, saw \(failures)")
                let recovered = try await Flow.assertion(client, name: "judy", credential: &credential)
                let ok = try await client.post("/v1/authentication/finish", json: recovered)
                #expect(ok.status == 200, "the credential registered before the restart still signs in")
                #expect(try await client.get("/readyz").status == 200)

                // Down: readiness and ceremonies are 503 storage_unavailable; the app keeps answering.
                try await pgHTTPOffload { try cluster.run("stop") }
                let down = try await client.get("/readyz")
                #expect(down.status == 503 && down.errorCode == "storage_unavailable")
                let refused = try await client.post("/v1/authentication/begin", json: BeginAuthentication(user: .init(name: "judy")))
                #expect(refused.status == 503 && refused.errorCode == "storage_unavailable")
                #expect(try await client.get("/healthz").status == 200)
                try await pgHTTPOffload { try cluster.run("start") }

                // Back: readiness returns to 200 after at most one failure per pooled connection.
                var notReady = 0
                while try await client.get("/readyz").status != 200, notReady <= pool.size { notReady += 1 }
                #expect(notReady <= pool.size, "readiness failed \(notReady) times after the restart")
                let afterwards = try await Flow.assertion(client, name: "judy", credential: &credential)
                #expect(try await client.post("/v1/authentication/finish", json: afterwards).status == 200)

                // Nothing lost: the same user and credential rows, the counter where the sign-ins put it.
                #expect(try await schema.count("users") == 1)
                #expect(try await schema.count("credentials") == 1)
                #expect(try await schema.credential(credential.id)?.userHandle == credential.userHandle)
                #expect(try await schema.signCount(credential.id) == Int64(credential.signCount))
                #expect(credential.signCount == 3)
                #expect(pool.stats.inUse == 0 && pool.stats.waiting == 0)
                #expect(pool.stats.totalConnects > 2, "the pool reconnected (it was not recreated)")
            }
        }
    }

    // MARK: 7. malformed bodies

    @Test("malformed bodies get a 4xx JSON error and change no row; the app keeps serving")
    func malformedBodies() async throws {
        try await withPostgresHTTP { schema, instance in
            try await instance.app.test(.router) { client in
                var (registered, credential) = try await Flow.register(client, name: "kim")
                #expect(registered.status == 201)
                let before = try await schema.snapshot()

                var cases: [(String, String, [UInt8])] = [
                    ("bad JSON", "/v1/registration/begin", Array("{".utf8)),
                    ("bad JSON", "/v1/registration/finish", Array(#"{"credential":"#.utf8)),
                    ("bad JSON", "/v1/authentication/finish", [0xFF, 0xFE, 0x00]),
                    ("wrong type", "/v1/registration/begin", Array(#"{"user":{"name":5}}"#.utf8)),
                    ("wrong type", "/v1/registration/begin", Array(#"{"user":{"name":"x"},"hints":"nope"}"#.utf8)),
                    ("wrong type", "/v1/authentication/begin", Array(#"{"user":"kim"}"#.utf8)),
                    ("wrong type", "/v1/authentication/finish", Array("null".utf8)),
                    ("wrong type", "/v1/registration/finish", Array(#"{"credential":{"id":"AA","rawId":"AA","type":"public-key","response":{"clientDataJSON":7,"attestationObject":"AA"}}}"#.utf8)),
                    ("bad base64", "/v1/registration/finish", Array(#"{"credential":{"id":"AA","rawId":"AA","type":"public-key","response":{"clientDataJSON":"!!","attestationObject":"AA"}}}"#.utf8)),
                    ("bad base64", "/v1/authentication/finish", Array(#"{"credential":{"id":"%%","rawId":"%%","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"}}}"#.utf8)),
                ]

                // Garbage CBOR in the attestation object of an otherwise genuine response.
                var garbage = RegistrationKnobs(origin: Harness.origin)
                garbage.rawAttestationObject = [0xA3, 0xFF, 0x00, 0x5F, 0x61, 0x13, 0x37]
                let (garbageResponse, _) = try SoftAuthenticator.register(options: try await Flow.beginRegistration(client, name: "mallory"), knobs: garbage)
                cases.append(("garbage CBOR", "/v1/registration/finish", Array(try JSONEncoder().encode(FinishRegistration(credential: garbageResponse, nickname: nil)))))

                // Truncated clientDataJSON, in both ceremonies.
                var truncated = RegistrationKnobs(origin: Harness.origin)
                let creation = try await Flow.beginRegistration(client, name: "mallory")
                truncated.client.rawClientDataJSON = Array(#"{"type":"webauthn.create","challenge":""#.utf8) + Array(creation.challenge.utf8.prefix(10))
                let (truncatedResponse, _) = try SoftAuthenticator.register(options: creation, knobs: truncated)
                cases.append(("truncated clientDataJSON", "/v1/registration/finish", Array(try JSONEncoder().encode(FinishRegistration(credential: truncatedResponse, nickname: nil)))))
                var truncatedAssertion = AssertionKnobs(origin: Harness.origin)
                truncatedAssertion.client.rawClientDataJSON = Array(#"{"type":"webauthn.get","chall"#.utf8)
                var scratch = credential
                let truncatedSignIn = try SoftAuthenticator.authenticate(
                    options: try await Flow.beginAuthentication(client, name: "kim"), credential: &scratch, knobs: truncatedAssertion)
                cases.append(("truncated clientDataJSON", "/v1/authentication/finish", Array(try JSONEncoder().encode(FinishAuthentication(credential: truncatedSignIn)))))

                for (label, path, body) in cases {
                    let reply = try await client.post(path, body)
                    #expect((400..<500).contains(reply.status), "\(label): \(path) → \(reply.status)")
                    #expect(reply.errorCode != nil, "\(label): \(path) → a JSON error body")
                }

                let huge = try await client.post("/v1/registration/finish", Array(repeating: UInt8(ascii: " "), count: 64 * 1024 + 1))
                #expect(huge.status == 413 && huge.errorCode == "body_too_large")
                let hugeAuth = try await client.post("/v1/authentication/finish", Array(repeating: UInt8(ascii: "a"), count: 200_000))
                #expect(hugeAuth.status == 413 && hugeAuth.errorCode == "body_too_large")

                // A genuine assertion whose credential id is not registered.
                var unknownKnobs = AssertionKnobs(origin: Harness.origin)
                unknownKnobs.rawIDOverride = randomBytes(32)
                var copy = credential
                let unknown = try SoftAuthenticator.authenticate(
                    options: try await Flow.beginAuthentication(client, name: nil), credential: &copy, knobs: unknownKnobs)
                let unknownReply = try await client.post("/v1/authentication/finish", json: FinishAuthentication(credential: unknown))
                #expect(unknownReply.status == 404 && unknownReply.errorCode == "credential_unknown")

                #expect(try await schema.snapshot() == before, "no user or credential row changed")
                #expect(try await schema.count("users", where: "name = 'mallory'") == 0)

                // Still serving: a good sign-in works, and the snapshot notices the change it makes.
                #expect(try await client.get("/readyz").status == 200)
                let signIn = try await Flow.assertion(client, name: "kim", credential: &credential)
                #expect(try await client.post("/v1/authentication/finish", json: signIn).status == 200)
                #expect(try await schema.snapshot() != before)
            }
        }
    }

    // MARK: 8. admin API

    @Test("admin: list, a user's credentials, one credential, rename, delete credential, delete user")
    func adminFlow() async throws {
        try await withPostgresHTTP(environment: ["PASSKEYD_ADMIN_KEYS": PostgresHTTP.adminKey]) { schema, instance in
            try await instance.app.test(.router) { client in
                let auth = PostgresHTTP.adminAuth
                var (registered, laptop) = try await Flow.register(client, name: "alice")
                #expect(registered.status == 201)
                let (_, phone) = try await Flow.register(client, userHandle: laptop.userHandle)
                for name in ["alicia", "bob", "malice"] { #expect(try await Flow.register(client, name: name).reply.status == 201) }
                let signIn = try await Flow.assertion(client, name: "alice", credential: &laptop)
                #expect(try await client.post("/v1/authentication/finish", json: signIn).status == 200)
                let userID = Base64URL.encode(laptop.userHandle)
                let laptopID = Base64URL.encode(laptop.id)

                // The key is required.
                for headers: HTTPFields in [[:], [.authorization: "Bearer wrong"], [.authorization: PostgresHTTP.adminKey]] {
                    let reply = try await client.get("/v1/admin/users", headers: headers)
                    #expect(reply.status == 401 && reply.errorCode == "unauthorized")
                    let delete = try await client.send(.delete, "/v1/admin/credentials/\(laptopID)", headers: headers)
                    #expect(delete.status == 401 && delete.errorCode == "unauthorized")
                }
                #expect(try await schema.count("credentials") == 5, "unauthorized calls changed nothing")

                // Users whose name contains "lic", two per page, chained through the cursor.
                let page1 = try await client.get("/v1/admin/users?name=lic&limit=2", headers: auth)
                #expect(page1.status == 200)
                let users1 = page1.json["users"] as? [[String: Any]] ?? []
                #expect(users1.compactMap { $0["name"] as? String } == ["alice", "alicia"])
                #expect(users1.allSatisfy { $0["id"] is String && $0["displayName"] is String && $0["createdAt"] is String })
                #expect(users1.first?["id"] as? String == userID)
                let cursor = try #require(page1.json["next"] as? String)
                let page2 = try await client.get("/v1/admin/users?name=lic&limit=2&after=\(cursor)", headers: auth)
                #expect(page2.status == 200)
                #expect((page2.json["users"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["malice"])
                #expect(page2.json["next"] is NSNull, "null on the last page")

                // The user's credentials.
                let credentials = try await client.get("/v1/admin/users/\(userID)/credentials", headers: auth)
                #expect(credentials.status == 200)
                let listed = (credentials.json["credentials"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                #expect(Set(listed) == [laptopID, Base64URL.encode(phone.id)])

                // One credential, with its owner.
                let one = try await client.get("/v1/admin/credentials/\(laptopID)", headers: auth)
                #expect(one.status == 200)
                let credential = one.json["credential"] as? [String: Any] ?? [:]
                #expect(credential["id"] as? String == laptopID)
                #expect(credential["userId"] as? String == userID)
                #expect(credential["signCount"] as? Int == 1)
                #expect(credential["lastUsedAt"] is String, "the sign-in was recorded")
                #expect(credential["nickname"] as? String == "phone")
                #expect((one.json["user"] as? [String: Any])?["name"] as? String == "alice")

                // Rename.
                let renamed = try await client.send(.patch, "/v1/admin/credentials/\(laptopID)", Array(#"{"nickname":"laptop"}"#.utf8), headers: auth)
                #expect(renamed.status == 200)
                #expect((renamed.json["credential"] as? [String: Any])?["nickname"] as? String == "laptop")
                #expect(try await schema.credential(laptop.id)?.nickname == "laptop")
                let badRename = try await client.send(.patch, "/v1/admin/credentials/\(laptopID)", Array(#"{"nickname":5}"#.utf8), headers: auth)
                #expect(badRename.status == 400 && badRename.errorCode == "malformed_json")
                #expect(try await schema.credential(laptop.id)?.nickname == "laptop")

                // Delete the credential: it no longer signs in; the user's other credential remains.
                #expect(try await client.send(.delete, "/v1/admin/credentials/\(laptopID)", headers: auth).status == 204)
                #expect(try await schema.credential(laptop.id) == nil)
                #expect(try await schema.credential(phone.id) != nil)
                let again = try await client.send(.delete, "/v1/admin/credentials/\(laptopID)", headers: auth)
                #expect(again.status == 404 && again.errorCode == "credential_unknown")
                let refused = try await Flow.assertion(client, name: nil, credential: &laptop)
                let reply = try await client.post("/v1/authentication/finish", json: refused)
                #expect(reply.status == 404 && reply.errorCode == "credential_unknown")

                // Delete the user: the row and the remaining credential go; other users stay.
                #expect(try await client.send(.delete, "/v1/admin/users/\(userID)", headers: auth).status == 204)
                #expect(try await schema.count("users", where: "name = 'alice'") == 0)
                #expect(try await schema.credential(phone.id) == nil)
                #expect(try await schema.count("users") == 3)
                #expect(try await schema.count("credentials") == 3)
                let gone = try await client.get("/v1/admin/users/\(userID)/credentials", headers: auth)
                #expect(gone.status == 404 && gone.errorCode == "user_unknown")
                #expect(try await client.send(.delete, "/v1/admin/users/\(userID)", headers: auth).status == 404)
            }
        }
    }

    // MARK: 10. the attestation verdict is stored and returned

    @Test("the attestation verdict (type, trust, anchor) is stored with the credential and returned by finish and admin")
    func attestationVerdict() async throws {
        let ca = try TestAttestationCA(name: "verdict test root")
        let environment = [
            "PASSKEYD_ADMIN_KEYS": PostgresHTTP.adminKey, "PASSKEYD_ATTESTATION": "any-verified", "PASSKEYD_ATTESTATION_CONVEYANCE": "direct",
            "PASSKEYD_TRUST_ROOTS_PACKED": try TestFiles.pem(ca.trustAnchors.certificates),
        ]
        try await withPostgresHTTP(environment: environment) { schema, instance in
            try await instance.app.test(.router) { client in
                func verdict(_ json: [String: Any]) -> [String: Any]? { (json["credential"] as? [String: Any])?["attestation"] as? [String: Any] }
                let (trusted, trustedCredential) = try await Flow.register(client, name: "tina") { $0.attestation = .packedFull(ca) }
                #expect(trusted.status == 201)
                let returned = try #require(verdict(trusted.json))
                #expect(returned["type"] as? String == "basic" && returned["trust"] as? String == "trusted")
                #expect(returned["trustAnchor"] as? String == "verdict test root")
                #expect(returned["authenticatorDescription"] is NSNull)

                let (selfAttested, selfCredential) = try await Flow.register(client, userHandle: trustedCredential.userHandle) { $0.attestation = .packedSelf }
                #expect(verdict(selfAttested.json)?["trust"] as? String == "self")
                let (other, otherCredential) = try await Flow.register(client, userHandle: trustedCredential.userHandle) { $0.attestation = .packedFull(try! TestAttestationCA(name: "unknown root")) }
                #expect(verdict(other.json)?["trust"] as? String == "untrusted" && verdict(other.json)?["trustAnchor"] is NSNull)
                let (none, noneCredential) = try await Flow.register(client, userHandle: trustedCredential.userHandle)
                #expect(verdict(none.json)?["type"] as? String == "none" && verdict(none.json)?["trust"] as? String == "none")

                // Read back from the database through the admin API.
                let expected = [
                    (trustedCredential, "basic", "trusted"), (selfCredential, "self", "self"),
                    (otherCredential, "basic", "untrusted"), (noneCredential, "none", "none"),
                ]
                for (credential, type, trust) in expected {
                    let stored = try await client.get("/v1/admin/credentials/\(Base64URL.encode(credential.id))", headers: PostgresHTTP.adminAuth)
                    #expect(stored.status == 200)
                    #expect(verdict(stored.json)?["type"] as? String == type && verdict(stored.json)?["trust"] as? String == trust)
                }
                let anchor = try await schema.query(PGQuery(
                    unsafeSQL: "SELECT trust_anchor FROM credentials WHERE attestation_trust = 'trusted'"))
                #expect(anchor.rowCount == 1)
                let anchorSubject = try anchor.decode(String.self, row: 0, column: 0)
                #expect(anchorSubject == "verdict test root")
            }
        }
    }
}
