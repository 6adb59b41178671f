import AsyncHTTPClient
import COSECrypto
import Foundation
import IdentityCore
import IdentityTestSupport
import JOSE
import Logging
import ProviderKeys
import Synchronization

/// A wall clock tests move by hand.
final class TestClock: Sendable {
    private let value = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { value.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { value.withLock { $0 += seconds } }
    var function: @Sendable () -> Date { { self.now } }
}

/// Quiet logs: refresh failures are expected in these tests.
let quietLogger: Logger = {
    var logger = Logger(label: "provider-keys-tests")
    logger.logLevel = .critical
    return logger
}()

/// The keys `es-1` and `rs-1`, generated once for the whole run (RSA generation is the slow part of these tests).
private let sharedKeys = Result { () throws(CryptoError) -> [TestIdentityProvider.SigningKey] in
    [try .generate(.es256, keyID: "es-1"), try .generate(.rs256, keyID: "rs-1")]
}

/// A provider as `TestIdentityProvider()` makes one (keys `es-1` and `rs-1`), with keys shared between tests. Each
/// provider has its own key list, so rotation in one test does not show in another.
func makeProvider() throws -> TestIdentityProvider {
    TestIdentityProvider(issuer: "https://idp.passkeyd.test", audience: "com.example.app", keys: try sharedKeys.get())
}

/// A fresh provider and a server for it, shut down after `body` whatever happens.
func withProviderServer<T>(
    behaviour: TestProviderServer.Behaviour = TestProviderServer.Behaviour(),
    _ body: (TestProviderServer, TestIdentityProvider) async throws -> T
) async throws -> T {
    let provider = try makeProvider()
    let server = try await TestProviderServer.start(provider: provider, behaviour: behaviour)
    do {
        let result = try await body(server, provider)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

func remoteSource(
    _ server: TestProviderServer, clock: TestClock, configuration: RemoteKeySource.Configuration = .init()
) throws -> RemoteKeySource {
    try RemoteKeySource(url: server.jwksURL, httpClient: .shared, configuration: configuration, logger: quietLogger, now: clock.function)
}

/// Runs `count` calls of `body` at once and returns their results.
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async -> T) async -> [T] {
    await withTaskGroup(of: T.self) { group in
        for index in 0..<count { group.addTask { await body(index) } }
        var results: [T] = []
        for await result in group { results.append(result) }
        return results
    }
}

/// The failure code `body` throws, or `nil` when it succeeds.
func failureOf<T>(_ body: () async throws -> T) async -> ProviderKeyFailure? {
    do {
        _ = try await body()
        return nil
    } catch {
        return (error as? ProviderKeyError)?.failure
    }
}

/// The failure code `body` throws, or `nil` when it succeeds.
func syncFailureOf<T>(_ body: () throws -> T) -> ProviderKeyFailure? {
    do {
        _ = try body()
        return nil
    } catch {
        return (error as? ProviderKeyError)?.failure
    }
}
