import AsyncHTTPClient
import Foundation
import IdentityCore
import IdentityTestSupport
import JOSE
import ProviderKeys
import Testing
import WebAuthnModel

@Suite("OIDC discovery and its lazy key source")
struct DiscoveryTests {
    @Test("the discovery URL is the issuer plus /.well-known/openid-configuration")
    func discoveryURL() throws {
        #expect(try OIDCDiscovery(issuer: "https://accounts.google.com").discoveryURL
                == "https://accounts.google.com/.well-known/openid-configuration")
        #expect(try OIDCDiscovery(issuer: "https://idp.example/tenant/").discoveryURL
                == "https://idp.example/tenant/.well-known/openid-configuration")
        #expect(try OIDCDiscovery(issuer: "https://idp.example", discoveryURL: "https://meta.idp.example/oidc.json").discoveryURL
                == "https://meta.idp.example/oidc.json")
        #expect(throws: ProviderKeyError.self) { try OIDCDiscovery(issuer: "http://idp.example") }
        #expect(throws: ProviderKeyError.self) { try OIDCDiscovery(issuer: "https://idp.example", discoveryURL: "http://idp.example/x") }
    }

    @Test("discovery returns jwks_uri when the document's issuer is exactly the configured one")
    func discoveryFindsJWKS() async throws {
        try await withProviderServer { server, _ in
            let document = try await OIDCDiscovery(issuer: server.baseURL).fetch(httpClient: .shared, logger: quietLogger)
            #expect(document.issuer == server.baseURL)
            #expect(document.jwksURI == server.jwksURL)
            #expect(document.members["token_endpoint"]?.stringValue == server.baseURL + "/auth/token")
        }
    }

    @Test("an issuer that differs in any character is refused", arguments: ["/", "/tenant", "x"])
    func issuerMismatch(suffix: String) async throws {
        try await withProviderServer { server, _ in
            server.update { $0.issuer = server.baseURL + suffix }
            let discovery = try OIDCDiscovery(issuer: server.baseURL)
            #expect(await failureOf { try await discovery.fetch(httpClient: .shared, logger: quietLogger) } == .issuerMismatch)
        }
    }

    @Test("a jwks_uri that is not https (or loopback http) is refused; a broken document is malformed")
    func badDocuments() async throws {
        try await withProviderServer { server, _ in
            let discovery = try OIDCDiscovery(issuer: server.baseURL)
            server.update { $0.jwksURI = "http://keys.example/jwks" }
            #expect(await failureOf { try await discovery.fetch(httpClient: .shared, logger: quietLogger) } == .insecureURL)
            for body in ["[]", #"{"issuer":1}"#, "{\"issuer\":\"\(server.baseURL)\"}", "{"] {
                server.update { $0.discoveryBody = Array(body.utf8) }
                #expect(await failureOf { try await discovery.fetch(httpClient: .shared, logger: quietLogger) } == .malformed, "\(body)")
            }
        }
    }

    @Test("DiscoveryKeySource fetches nothing at init, survives a provider that is down, and recovers")
    func lazyDiscovery() async throws {
        try await withProviderServer { server, _ in
            let clock = TestClock()
            server.update { $0.issuer = "https://someone.else" }
            let source = DiscoveryKeySource(
                discovery: try OIDCDiscovery(issuer: server.baseURL), httpClient: .shared, logger: quietLogger, now: clock.function)
            #expect(server.record.discoveryRequests == 0)
            await #expect(throws: ProviderKeyError.self) { try await source.keys(for: "es-1") }
            let failures = await concurrently(20) { _ in (try? await source.keys(for: "es-1")) == nil }
            #expect(failures.allSatisfy { $0 })
            #expect(server.record.discoveryRequests == 1, "one attempt per interval")
            server.update { $0.issuer = nil }
            clock.advance(60)
            let sets = await concurrently(20) { _ in (try? await source.keys(for: "es-1"))?.contains(keyID: "es-1") ?? false }
            #expect(sets.allSatisfy { $0 })
            #expect(server.record.discoveryRequests == 2 && server.record.jwksRequests == 1)
            #expect(await source.discoveryAttempts == 2)
            #expect(await source.remote?.url == server.jwksURL)
        }
    }
}

@Suite("FileKeySource: read at init, re-read on unknown kids at most once per interval")
struct FileKeySourceTests {
    func temporaryFile(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try Data(bytes).write(to: url)
        return url
    }

    @Test("an unreadable or invalid file fails at init")
    func initFailures() throws {
        #expect(syncFailureOf { try FileKeySource(path: "/nonexistent/jwks.json", logger: quietLogger) } == .fileUnreadable)
        for (body, failure) in [("{", ProviderKeyFailure.malformed), (#"{"keys":[]}"#, .malformed)] {
            let url = try temporaryFile(Array(body.utf8))
            defer { try? FileManager.default.removeItem(at: url) }
            #expect(syncFailureOf { try FileKeySource(path: url.path, logger: quietLogger) } == failure)
        }
        let provider = try makeProvider()
        let url = try temporaryFile(provider.jwksJSON())
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(syncFailureOf { try FileKeySource(path: url.path, maxDocumentBytes: 64, logger: quietLogger) } == .tooLarge)
    }

    @Test("a rotated file is re-read for an unknown kid once the interval has passed; floods cost one read")
    func reloadLimits() async throws {
        let provider = try makeProvider()
        let url = try temporaryFile(provider.jwksJSON())
        defer { try? FileManager.default.removeItem(at: url) }
        let clock = TestClock()
        let source = try FileKeySource(path: url.path, logger: quietLogger, now: clock.function)
        #expect(try await source.keys(for: "es-1").contains(keyID: "es-1"))
        #expect(source.statistics.reads == 1)

        try provider.addKey(.es256, keyID: "es-2")
        try Data(provider.jwksJSON()).write(to: url)
        #expect(try await source.keys(for: "es-2").contains(keyID: "es-2") == false, "too soon after the read at init")
        #expect(source.statistics.reads == 1)
        clock.advance(60)
        _ = await concurrently(50) { index in try? await source.keys(for: index == 0 ? "es-2" : "bogus-\(index)") }
        #expect(source.statistics.reads == 2)
        #expect(try await source.keys(for: "es-2").contains(keyID: "es-2"))
        #expect(source.statistics.keyCount == 3)

        // A broken file is a failed re-read: the loaded set stays.
        try Data("not json".utf8).write(to: url)
        clock.advance(60)
        let set = try await source.keys(for: "bogus")
        #expect(set.keys.count == 3)
        #expect(source.statistics.reads == 3 && source.statistics.failures == 1 && source.statistics.lastFailure == .malformed)
        // Known kids and kid-less calls never re-read.
        clock.advance(600)
        _ = try await source.keys(for: "es-1")
        _ = try await source.keys(for: nil)
        #expect(source.statistics.reads == 3)
    }
}
