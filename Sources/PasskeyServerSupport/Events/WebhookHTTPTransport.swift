public import AsyncHTTPClient
import Foundation
public import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
public import PasskeyApp
public import WebhookCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The executable's webhook transport: an HTTPS POST with async-http-client, after the URL policy.
///
/// Before each attempt the URL is checked again and its host resolved (`getaddrinfo`, on NIO's blocking thread pool);
/// every address it resolves to must pass the policy, else nothing is sent. Caveat (DNS rebinding): the client
/// resolves the name again when it connects, and async-http-client cannot be handed the checked address, so a name
/// whose records change between the two look-ups (a low TTL under an attacker's control) could still reach an
/// address the check refused; an egress firewall that blocks private ranges closes that gap. Redirects are not
/// followed (a 3xx is an answer like any other), no proxy is used, at most 4 KiB of the answer's body is read and
/// then dropped (never logged or stored).
public struct WebhookHTTPTransport: WebhookTransport {
    let client: HTTPClient
    let policy: WebhookURLPolicy
    let logger: Logger
    let resolve: @Sendable (String, Int) async throws -> [IPAddress]

    /// The body bytes of an answer that are read (then dropped).
    static let answerBytes = 4096

    /// - Parameter resolve: host and port to addresses; nil: the system resolver.
    public init(client: HTTPClient, policy: WebhookURLPolicy, logger: Logger, resolve: (@Sendable (String, Int) async throws -> [IPAddress])? = nil) {
        self.client = client
        self.policy = policy
        self.logger = logger
        self.resolve = resolve ?? { host, port in try await NIOThreadPool.singleton.runIfActive { try Self.systemResolve(host: host, port: port) } }
    }

    /// The client the executable uses: no redirects, connect timeout 5 s, no decompression.
    public static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(5))
        configuration.connectionPool = .init(idleTimeout: .seconds(30))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func send(_ request: WebhookRequest, timeout: Duration) async -> WebhookTransportResult {
        let target: WebhookURLPolicy.Target
        do {
            target = try policy.check(url: request.url)
            if target.address == nil {
                let addresses: [IPAddress]
                do {
                    addresses = try await resolve(target.host, target.port)
                } catch {
                    return .noAnswer("resolving \(target.host) failed: \(String(describing: error).prefix(200))")
                }
                guard !addresses.isEmpty else { return .noAnswer("\(target.host) has no address") }
                for address in addresses { try policy.check(address: address, host: target.host) }
            }
        } catch {
            return .noAnswer("\(error)")
        }
        var http = HTTPClientRequest(url: request.url)
        http.method = .POST
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) { http.headers.add(name: name, value: value) }
        http.body = .bytes(ByteBuffer(bytes: request.body))
        let nanoseconds = max(Int64(0), min(timeout.components.seconds, 3600) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        do {
            let response = try await client.execute(http, deadline: .now() + .nanoseconds(nanoseconds), logger: logger)
            let status = Int(response.status.code)
            let retryAfter = response.headers.first(name: "retry-after")
            _ = try? await response.body.collect(upTo: Self.answerBytes)
            return .answered(statusCode: status, retryAfter: retryAfter)
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            return .noAnswer("timed out after \(timeout)")
        } catch {
            return .noAnswer(String(describing: error).prefix(300).description)
        }
    }

    /// `getaddrinfo` (blocking): every TCP address of `host`.
    public static func systemResolve(host: String, port: Int) throws -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else { throw ResolveError(message: String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var cursor = list
        while let entry = cursor?.pointee {
            if entry.ai_family == AF_INET, let raw = entry.ai_addr {
                let address = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                addresses.append(.v4(withUnsafeBytes(of: address) { Array($0) }))
            } else if entry.ai_family == AF_INET6, let raw = entry.ai_addr {
                let address = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                addresses.append(.v6(withUnsafeBytes(of: address) { Array($0) }))
            }
            cursor = entry.ai_next
        }
        return addresses
    }

    struct ResolveError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
