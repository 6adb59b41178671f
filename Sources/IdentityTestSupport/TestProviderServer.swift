import Foundation
import HTTPTypes
import Hummingbird
import JOSE
import Logging
import NIOCore
import Synchronization
public import WebAuthnModel

/// A loopback HTTP server playing an identity provider for tests: `GET /jwks` (the ``TestIdentityProvider``'s set as it
/// is at each request), `GET /.well-known/openid-configuration`, and stubs of Apple's `POST /auth/token` and
/// `POST /auth/revoke` that record the form fields they receive and answer canned JSON.
///
/// It binds 127.0.0.1 on an ephemeral port by default (``port`` says which). What it serves is changed at any time
/// with ``update(_:)``; what it received is read with ``record``. Call ``shutdown()`` at the end of a test.
public final class TestProviderServer: Sendable {
    /// What `GET /jwks` does.
    public enum JWKSMode: Sendable, Equatable {
        /// Answer 200 with the JWKS.
        case serve
        /// Answer with this status and a small JSON error body.
        case fail(status: Int)
        /// Answer nothing for this many seconds (or until shutdown), then serve.
        case hang(seconds: Double)
    }

    /// A canned answer: status and body.
    public struct CannedResponse: Sendable, Equatable {
        /// The HTTP status.
        public var status: Int
        /// The body, served as `application/json`.
        public var body: [UInt8]

        /// A canned answer with these bytes.
        public init(status: Int = 200, body: [UInt8]) {
            self.status = status
            self.body = body
        }

        /// A canned answer with this JSON document.
        public init(status: Int = 200, json: JSONValue) {
            self.init(status: status, body: JSONText.bytes(of: json))
        }
    }

    /// What the server serves; every member can be changed between requests.
    public struct Behaviour: Sendable {
        /// Serve, fail or hang.
        public var jwksMode: JWKSMode = .serve
        /// The `Cache-Control` of `/jwks` (`nil`: none).
        public var cacheControl: String? = "public, max-age=3600"
        /// A body served at `/jwks` instead of the provider's set (malformed or oversized documents).
        public var jwksBody: [UInt8]?
        /// The discovery document's `issuer` (default: ``TestProviderServer/baseURL``).
        public var issuer: String?
        /// The discovery document's `jwks_uri` (default: ``TestProviderServer/jwksURL``).
        public var jwksURI: String?
        /// A body served as the discovery document instead of the one built from the members above.
        public var discoveryBody: [UInt8]?
        /// The answer of `POST /auth/token`.
        public var tokenResponse = CannedResponse(json: .object([
            "access_token": .string("test-access-token"), "token_type": .string("Bearer"),
            "expires_in": .number(3600), "refresh_token": .string("test-refresh-token"),
        ]))
        /// The answer of `POST /auth/revoke` (Apple answers 200 with an empty body).
        public var revokeResponse = CannedResponse(body: [])

        /// Serve the provider's set with `max-age=3600`, the standard discovery document, and 200 from the stubs.
        public init() {}
    }

    /// One form POST as received.
    public struct ReceivedForm: Sendable, Equatable {
        /// `/auth/token` or `/auth/revoke`.
        public let path: String
        /// The decoded form fields (a repeated field keeps its last value).
        public let fields: [String: String]
        /// The `Content-Type` header.
        public let contentType: String?
        /// The raw body.
        public let body: String
    }

    /// What the server has received so far.
    public struct Record: Sendable {
        /// `GET /jwks` requests, whatever they were answered.
        public var jwksRequests = 0
        /// `GET /.well-known/openid-configuration` requests.
        public var discoveryRequests = 0
        /// `POST /auth/token` requests, oldest first.
        public var tokenRequests: [ReceivedForm] = []
        /// `POST /auth/revoke` requests, oldest first.
        public var revokeRequests: [ReceivedForm] = []
    }

    /// The bound port.
    public let port: Int
    /// `http://127.0.0.1:PORT` (the host as bound).
    public let baseURL: String
    /// The provider whose keys `/jwks` serves.
    public let provider: TestIdentityProvider
    private let state: SharedState
    private let task: Mutex<Task<Void, any Error>?>

    private init(port: Int, host: String, provider: TestIdentityProvider, state: SharedState) {
        self.port = port
        self.baseURL = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        self.provider = provider
        self.state = state
        self.task = Mutex(nil)
    }

    /// `baseURL/jwks`.
    public var jwksURL: String { baseURL + "/jwks" }
    /// `baseURL/.well-known/openid-configuration`.
    public var discoveryURL: String { baseURL + "/.well-known/openid-configuration" }

    /// What is served now.
    public var behaviour: Behaviour { state.mutex.withLock { $0.behaviour } }
    /// What has been received.
    public var record: Record { state.mutex.withLock { $0.record } }

    /// Changes what is served.
    public func update(_ change: (inout Behaviour) -> Void) {
        state.mutex.withLock { change(&$0.behaviour) }
    }

    /// Starts a server and returns once it listens.
    /// - Parameters:
    ///   - provider: the provider whose JWKS is served.
    ///   - host: the address to bind (a loopback address).
    ///   - port: the port (0: any free port).
    ///   - behaviour: what to serve at first.
    public static func start(
        provider: TestIdentityProvider, host: String = "127.0.0.1", port: Int = 0, behaviour: Behaviour = Behaviour()
    ) async throws -> TestProviderServer {
        let shared = SharedState(behaviour)
        let baseHolder = Mutex<String>("")
        let router = Router()
        Routes.install(on: router, provider: provider, shared: shared, base: { baseHolder.withLock { $0 } })

        var logger = Logger(label: "passkeyd.test-provider-server")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? -1)
                continuation.finish()
            },
            logger: logger)
        let task = Task {
            defer { continuation.finish() }
            try await app.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), bound > 0 else {
            task.cancel()
            try await task.value
            throw ServerError(description: "the test provider server did not start on \(host):\(port)")
        }
        let server = TestProviderServer(port: bound, host: host, provider: provider, state: shared)
        baseHolder.withLock { $0 = server.baseURL }
        server.task.withLock { $0 = task }
        return server
    }

    /// Stops the server (requests still hanging are cancelled).
    public func shutdown() async {
        guard let task = self.task.withLock({ $0 }) else { return }
        task.cancel()
        _ = await task.result
    }

    /// Waits until the server stops (for a command-line tool that serves until killed).
    public func waitUntilStopped() async throws {
        guard let task = self.task.withLock({ $0 }) else { return }
        try await task.value
    }

    struct ServerError: Error, CustomStringConvertible { let description: String }
}

/// A reference to the state shared by the routes and the server object (a `Mutex` cannot be copied).
final class SharedState: Sendable {
    let mutex: Mutex<(behaviour: TestProviderServer.Behaviour, record: TestProviderServer.Record)>
    init(_ behaviour: TestProviderServer.Behaviour) {
        mutex = Mutex((behaviour: behaviour, record: TestProviderServer.Record()))
    }
}
