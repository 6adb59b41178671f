import AsyncHTTPClient
import Foundation
import IdentityCore
import IdentityTestSupport
import JOSE
import ProviderKeys
import Testing

@Suite("RemoteKeySource: cache, refetch limits, stale sets, URL rule")
struct RemoteKeySourceTests {
    @Test("a set is fetched once and served from the cache within max-age, then refetched")
    func cacheHonoured() async throws {
        var behaviour = TestProviderServer.Behaviour()
        behaviour.cacheControl = "public, max-age=600, must-revalidate"
        try await withProviderServer(behaviour: behaviour) { server, _ in
            let clock = TestClock()
            let source = try remoteSource(server, clock: clock)
            #expect(server.record.jwksRequests == 0, "nothing is fetched at init")
            let set = try await source.keys(for: "es-1")
            #expect(set.contains(keyID: "es-1") && set.contains(keyID: "rs-1"))
            clock.advance(590)
            _ = try await source.keys(for: "rs-1")
            _ = try await source.keys(for: nil)
            #expect(server.record.jwksRequests == 1)
            clock.advance(11)
            _ = try await source.keys(for: "es-1")
            #expect(server.record.jwksRequests == 2, "expired after max-age")
            let statistics = await source.statistics
            #expect(statistics.fetches == 2 && statistics.failures == 0 && statistics.keyCount == 2)
        }
    }

    @Test("max-age is clamped to [min, max]; no header, no-cache and no-store give the minimum; Age counts",
          arguments: [
              ("max-age=10", 300.0), ("max-age=100000000", 86_400), (nil, 300), ("no-store", 300),
              ("no-cache, max-age=3600", 300), ("MAX-AGE=\"7200\"", 7200), ("max-age=junk", 300),
          ] as [(String?, Double)])
    func cacheLifetime(header: String?, expected: Double) async throws {
        var behaviour = TestProviderServer.Behaviour()
        behaviour.cacheControl = header
        try await withProviderServer(behaviour: behaviour) { server, _ in
            let clock = TestClock()
            let source = try remoteSource(server, clock: clock)
            _ = try await source.keys(for: nil)
            let expiresAt = try #require(await source.statistics.expiresAt)
            #expect(expiresAt.timeIntervalSince(clock.now) == expected)
        }
    }

    @Test("50 concurrent first calls share one fetch")
    func firstFetchShared() async throws {
        try await withProviderServer { server, _ in
            let source = try remoteSource(server, clock: TestClock())
            let found = await concurrently(50) { _ in (try? await source.keys(for: "es-1"))?.contains(keyID: "es-1") ?? false }
            #expect(found.allSatisfy { $0 } && found.count == 50)
            #expect(server.record.jwksRequests == 1)
        }
    }

    @Test("unknown kids cost exactly one refetch per interval, even 50 at once")
    func unknownKidFlood() async throws {
        try await withProviderServer { server, _ in
            let clock = TestClock()
            let source = try remoteSource(server, clock: clock)
            _ = try await source.keys(for: "es-1")
            // Within the interval after the first fetch: no refetch at all.
            _ = await concurrently(50) { index in try? await source.keys(for: "bogus-\(index)") }
            #expect(server.record.jwksRequests == 1)
            clock.advance(61)
            let sets = await concurrently(50) { index in try? await source.keys(for: "bogus-\(index)") }
            #expect(sets.allSatisfy { $0?.contains(keyID: "es-1") == true }, "the set is still served")
            #expect(server.record.jwksRequests == 2)
            _ = await concurrently(50) { index in try? await source.keys(for: "more-\(index)") }
            #expect(server.record.jwksRequests == 2)
            clock.advance(61)
            _ = await concurrently(50) { index in try? await source.keys(for: "again-\(index)") }
            #expect(server.record.jwksRequests == 3)
            #expect(await source.statistics.fetches == 3)
        }
    }

    @Test("a rotated key is picked up once the refetch interval has passed, and its tokens verify")
    func rotation() async throws {
        try await withProviderServer { server, provider in
            let clock = TestClock()
            let source = try remoteSource(server, clock: clock)
            _ = try await source.keys(for: "rs-1")
            try provider.addKey(.es256, keyID: "es-2")
            provider.removeKey(keyID: "es-1")
            clock.advance(30)
            #expect(try await source.keys(for: "es-2").contains(keyID: "es-2") == false, "too soon: the cached set")
            clock.advance(31)
            let set = try await source.keys(for: "es-2")
            #expect(set.contains(keyID: "es-2") && !set.contains(keyID: "es-1"))
            let token = try provider.idToken(nonce: "n", now: clock.now)
            let jws = try CompactJWS(compact: Array(token.utf8), maxLength: 8192)
            #expect(jws.keyID == "es-2")
            try JWSVerifier.verify(jws, algorithm: .es256, key: .publicKey(try set.key(keyID: "es-2", algorithm: .es256)))
        }
    }

    @Test("a failing refresh keeps serving the last good set until the stale limit")
    func staleServed() async throws {
        var behaviour = TestProviderServer.Behaviour()
        behaviour.cacheControl = "max-age=3600"
        try await withProviderServer(behaviour: behaviour) { server, _ in
            let clock = TestClock()
            let source = try remoteSource(server, clock: clock)
            _ = try await source.keys(for: nil)
            server.update { $0.jwksMode = .fail(status: 500) }
            clock.advance(3601)
            #expect(try await source.keys(for: "es-1").contains(keyID: "es-1"))
            var statistics = await source.statistics
            #expect(statistics.fetches == 2 && statistics.failures == 1 && statistics.staleServed == 1)
            #expect(statistics.lastFailure == .httpStatus)
            // Still failing, still within the stale limit: served, one attempt per interval.
            clock.advance(30)
            _ = try await source.keys(for: nil)
            #expect(server.record.jwksRequests == 2)
            // Past expiry + 24 h: nothing usable.
            clock.advance(86_400)
            await #expect(throws: ProviderKeyError.self) { try await source.keys(for: nil) }
            statistics = await source.statistics
            #expect(statistics.fetches == 3 && statistics.failures == 2)
            #expect(await failureOf { try await source.keys(for: nil) } == .unavailable)
            // The provider recovers: the next allowed attempt restores service.
            server.update { $0.jwksMode = .serve }
            clock.advance(61)
            #expect(try await source.keys(for: nil).keys.count == 2)
        }
    }

    @Test("a hanging server costs one request timeout; the stale set is served")
    func hangingServer() async throws {
        try await withProviderServer { server, _ in
            let clock = TestClock()
            var configuration = RemoteKeySource.Configuration()
            // Generous enough for the first (real) fetch on a loaded machine (the full suite runs in parallel on 2
            // cores), far below the hang.
            configuration.requestTimeout = 3
            let source = try remoteSource(server, clock: clock, configuration: configuration)
            _ = try await source.keys(for: nil)
            server.update { $0.jwksMode = .hang(seconds: 20) }
            clock.advance(3601)
            let started = Date()
            #expect(try await source.keys(for: "es-1").contains(keyID: "es-1"))
            #expect(Date().timeIntervalSince(started) < 15)
            #expect(await source.statistics.lastFailure == .fetchFailed)
        }
    }

    @Test("with no set ever fetched the source throws, and retries once per interval")
    func neverFetched() async throws {
        var behaviour = TestProviderServer.Behaviour()
        behaviour.jwksMode = .fail(status: 503)
        try await withProviderServer(behaviour: behaviour) { server, _ in
            let clock = TestClock()
            let source = try remoteSource(server, clock: clock)
            await #expect(throws: ProviderKeyError.self) { try await source.keys(for: "es-1") }
            let failures = await concurrently(20) { _ in await failureOf { try await source.keys(for: "es-1") } }
            #expect(failures.allSatisfy { $0 == .unavailable })
            #expect(server.record.jwksRequests == 1)
            server.update { $0.jwksMode = .serve }
            clock.advance(60)
            #expect(try await source.keys(for: "es-1").contains(keyID: "es-1"))
            #expect(server.record.jwksRequests == 2)
        }
    }

    @Test("documents over the size cap, malformed ones and sets without a usable key are failures")
    func badDocuments() async throws {
        try await withProviderServer { server, provider in
            var configuration = RemoteKeySource.Configuration()
            configuration.minRefetchInterval = 0
            let source = try remoteSource(server, clock: TestClock(), configuration: configuration)
            // Default cap: 256 KiB.
            server.update { $0.jwksBody = Array(#"{"keys":[],"pad":""#.utf8) + Array(repeating: 0x61, count: 256 * 1024) + Array(#""}"#.utf8) }
            await #expect(throws: ProviderKeyError.self) { try await source.keys(for: nil) }
            #expect(await source.statistics.lastFailure == .tooLarge)
            for body in [#"{"keys":"#, #"{"keys":{}}"#, #"{"keys":[{"kty":"oct","k":"AAAA"}]}"#, #"{"keys":[],"keys":[]}"#] {
                server.update { $0.jwksBody = Array(body.utf8) }
                await #expect(throws: ProviderKeyError.self, "\(body)") { try await source.keys(for: nil) }
                #expect(await source.statistics.lastFailure == .malformed, "\(body)")
            }
            // A small cap refuses the provider's real set.
            configuration.maxDocumentBytes = 100
            let capped = try remoteSource(server, clock: TestClock(), configuration: configuration)
            server.update { $0.jwksBody = nil }
            #expect(provider.jwksJSON().count > 100)
            await #expect(throws: ProviderKeyError.self) { try await capped.keys(for: nil) }
            #expect(await capped.statistics.lastFailure == .tooLarge)
        }
    }

    @Test("only https, or plain http to a loopback host; no credentials in the URL",
          arguments: [
              ("https://appleid.apple.com/auth/keys", true), ("http://127.0.0.1:9/jwks", true), ("http://[::1]:9/jwks", true),
              ("http://localhost:9/jwks", true), ("HTTP://LOCALHOST:9/jwks", true), ("http://example.com/jwks", false),
              ("http://127.0.0.2/jwks", false), ("http://10.0.0.1/jwks", false), ("ftp://example.com/jwks", false),
              ("https://user:secret@example.com/jwks", false), ("/jwks", false), ("", false), ("https://", false),
          ])
    func urlRule(url: String, allowed: Bool) {
        // Constructors only: nothing is fetched.
        let failure = syncFailureOf { try RemoteKeySource(url: url, httpClient: .shared, logger: quietLogger) }
        #expect(failure == (allowed ? nil : .insecureURL), "\(url)")
    }

    @Test("refresh() fetches now regardless of the interval")
    func explicitRefresh() async throws {
        try await withProviderServer { server, _ in
            let source = try remoteSource(server, clock: TestClock())
            await source.refresh()
            await source.refresh()
            #expect(server.record.jwksRequests == 2)
            _ = try await source.keys(for: "es-1")
            #expect(server.record.jwksRequests == 2)
        }
    }
}
