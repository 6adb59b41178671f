import PasskeyApp
import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import IdentityTestSupport
import JOSE
import PasskeyHTTP
import PasskeyServerSupport
import ProviderKeys
import PostgresTestSupport
import Testing

/// End to end with a provider on loopback: passkeyd fetches the provider's JWKS over HTTP (RemoteKeySource, as the
/// executable wires it), a token with an unknown `kid` costs exactly one refetch and is refused, a rotated key is
/// picked up by that refetch, and a provider that never answered is 503.
@Suite("ID-token sign-in with a live provider", .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct IDTokenProviderHTTPTests {
    @Test("unknown kid: one refetch, then idtoken_key_unknown; a rotated key signs in after its refetch; no keys: 503")
    func liveProvider() async throws {
        let provider = try TestIdentityProvider(issuer: "https://appleid.apple.com", audience: "com.example.app")
        let server = try await TestProviderServer.start(provider: provider)
        let clock = RealTimeClock()
        // Apple's keys from the provider's JWKS URL, refetched at most once a minute; the test provider signs with its
        // current key (ES256 or RS256).
        let settings = try TestPasskeyd.unboundedSettings([
            "PASSKEYD_IDTOKEN_PROVIDERS": "apple", "PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS": "com.example.app",
            "PASSKEYD_IDTOKEN_APPLE_JWKS_URL": server.jwksURL, "PASSKEYD_IDTOKEN_APPLE_ALGORITHMS": "RS256,ES256",
            "PASSKEYD_IDTOKEN_JWKS_REFETCH_INTERVAL": "60",
        ])
        let schema = try await HTTPTestSchema.create(baseURL: try #require(PostgresHTTP.databaseURL))
        // The instance's clock is the one its key cache reads: the test moves it past the refetch interval.
        let instance = try await PostgresHTTPInstance(url: schema.url, settings: settings, now: { clock.now })
        do {
            try await instance.app.test(.router) { http in
                func signIn(_ options: TestIdentityProvider.TokenOptions = .init()) async throws -> Reply {
                    let begun = try await IDTokenHTTPTests.begin(http)
                    let token = try provider.idToken(nonce: begun.providerNonce, options: options)
                    return try await IDTokenHTTPTests.finish(http, session: begun.session, token: token)
                }
                #expect(try await signIn().status == 201)
                #expect(server.record.jwksRequests == 1)
                #expect(try await signIn().status == 200)
                #expect(server.record.jwksRequests == 1)  // cached

                // A kid the provider never published: one refetch (the interval has passed), then refused.
                clock.advance(61)
                var bogus = TestIdentityProvider.TokenOptions()
                bogus.headerKeyID = .some("no-such-key")
                let refused = try await signIn(bogus)
                #expect(refused.status == 422 && refused.errorCode == "idtoken_key_unknown")
                #expect(server.record.jwksRequests == 2)
                // Ten more within the interval: no fetch at all.
                for _ in 0..<10 { #expect(try await signIn(bogus).errorCode == "idtoken_key_unknown") }
                #expect(server.record.jwksRequests == 2)

                // The provider rotates to a new key: after the interval, the first token with it causes the refetch.
                _ = try provider.addKey(.rs256, keyID: "rotated-1")
                let early = try await signIn()
                #expect(early.errorCode == "idtoken_key_unknown" && server.record.jwksRequests == 2)
                clock.advance(61)
                #expect(try await signIn().status == 200)
                #expect(server.record.jwksRequests == 3)
            }
            // A provider that never answered: no key set at all is 503, never an accepted token.
            server.update { $0.jwksMode = .fail(status: 500) }
            let down = try await PostgresHTTPInstance(url: schema.url, settings: settings)
            try await down.app.test(.router) { http in
                let begun = try await IDTokenHTTPTests.begin(http)
                let reply = try await IDTokenHTTPTests.finish(
                    http, session: begun.session, token: try provider.idToken(nonce: begun.providerNonce))
                #expect(reply.status == 503 && reply.errorCode == "provider_unavailable")
            }
            await down.shutdown()
        } catch {
            Issue.record(error)
        }
        await instance.shutdown()
        await schema.drop()
        await server.shutdown()
    }
}
