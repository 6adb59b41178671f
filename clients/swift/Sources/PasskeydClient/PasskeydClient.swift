import AsyncHTTPClient
import Foundation
import NIOCore

/// passkeyd's HTTP API for Swift backends: one method per operation of passkeyd's `openapi.json`, named as its
/// operationId (`registrationBegin`, `idTokenFinish`, `refreshSession`, `adminListUsers`, …), each answering the
/// operation's schema as a typed value (`Void` for a 204). Every error answer throws ``PasskeydError``.
///
/// Credentials: ``apiKey`` goes with the operations that take one (ceremonies, ID tokens, App Store, App Attest, …),
/// ``adminKey`` with `admin*`; the `me*` calls take the signed-in person's access token as a parameter. A value type:
/// copy it to change a key (`var keyless = passkeyd; keyless.apiKey = nil`). Create one per process and share it:
/// it holds no connection itself (``AsyncHTTPClientTransport`` on `HTTPClient.shared` by default).
public struct PasskeydClient: Sendable {
    /// e.g. `http://127.0.0.1:8080` (no trailing slash needed).
    public var baseURL: String
    /// One of `PASSKEYD_API_KEYS`.
    public var apiKey: String?
    /// One of `PASSKEYD_ADMIN_KEYS`.
    public var adminKey: String?
    public var retry: RetryPolicy
    public var transport: any PasskeydTransport
    /// How the client waits between attempts (the tests replace it).
    var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

    /// The client on AsyncHTTPClient.
    /// - Parameters:
    ///   - httpClient: the caller's client (`.shared` by default); the client never shuts it down.
    ///   - timeout: per request (each attempt).
    public init(
        baseURL: String, apiKey: String? = nil, adminKey: String? = nil, httpClient: HTTPClient = .shared,
        timeout: TimeAmount = .seconds(10), retry: RetryPolicy = .default
    ) {
        self.init(
            baseURL: baseURL, apiKey: apiKey, adminKey: adminKey,
            transport: AsyncHTTPClientTransport(httpClient: httpClient, timeout: timeout), retry: retry)
    }

    /// The client on another transport.
    public init(
        baseURL: String, apiKey: String? = nil, adminKey: String? = nil, transport: any PasskeydTransport,
        retry: RetryPolicy = .default
    ) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.apiKey = apiKey
        self.adminKey = adminKey
        self.transport = transport
        self.retry = retry
    }

    /// This client's version, sent in `User-Agent`.
    public static let version = "0.3.0"

    // MARK: calling an operation

    /// The request of one call: the path's parameters, the query, the body; `bearer` replaces the key the
    /// operation's security scheme picks (an access token); `cookie` is sent as the `Cookie` header.
    func request(
        _ operation: PasskeydOperation, path parameters: [String: String] = [:], query: [(String, String?)] = [],
        bearer: String? = nil, cookie: String? = nil, body: (any Encodable)? = nil
    ) throws -> PasskeydHTTPRequest {
        var path = operation.path
        for (name, value) in parameters {
            path = path.replacingOccurrences(of: "{\(name)}", with: Self.percentEncoded(value))
        }
        let pairs = query.compactMap { name, value in value.map { "\(name)=\(Self.percentEncoded($0))" } }
        let url = baseURL + path + (pairs.isEmpty ? "" : "?" + pairs.joined(separator: "&"))
        var headers = ["Accept": "application/json", "User-Agent": "passkeyd-client-swift/\(Self.version)"]
        let key: String? =
            if let bearer { bearer }
            else if operation.security.contains(.adminKey) { adminKey }
            else if operation.security.contains(.apiKey) { apiKey }
            else { nil }
        if let key { headers["Authorization"] = "Bearer \(key)" }
        if let cookie { headers["Cookie"] = cookie }
        var data: Data?
        if let body {
            headers["Content-Type"] = "application/json"
            data = try JSONEncoder().encode(body)
        }
        return PasskeydHTTPRequest(method: operation.method, url: url, headers: headers, body: data)
    }

    /// Sends the request (again, as ``retry`` allows); the answer when its status is 2xx, else ``PasskeydError``.
    func send(_ operation: PasskeydOperation, _ request: PasskeydHTTPRequest) async throws -> PasskeydHTTPResponse {
        var attempt = 0
        while true {
            attempt += 1
            let answer = try await transport.send(request)
            if (200..<300).contains(answer.status) { return answer }
            let error = PasskeydError(answer: answer, operation: operation.id, attempts: attempt)
            guard attempt < retry.maxAttempts, retry.retries(operation, status: answer.status) else { throw error }
            let wait = error.retryAfter.map { Duration.seconds($0) } ?? retry.backoff(after: attempt)
            guard wait <= retry.maxWait else { throw error }
            try await sleep(wait)
        }
    }

    /// A call whose answer is JSON of type `Answer`.
    func call<Answer: Decodable>(
        _ operation: PasskeydOperation, path: [String: String] = [:], query: [(String, String?)] = [],
        bearer: String? = nil, cookie: String? = nil, body: (any Encodable)? = nil, as answer: Answer.Type = Answer.self
    ) async throws -> Answer {
        let request = try request(operation, path: path, query: query, bearer: bearer, cookie: cookie, body: body)
        return try JSONDecoder().decode(Answer.self, from: try await send(operation, request).body)
    }

    /// A call answered with 204 (or whose body is not wanted).
    func callWithoutAnswer(
        _ operation: PasskeydOperation, path: [String: String] = [:], bearer: String? = nil, body: (any Encodable)? = nil
    ) async throws {
        _ = try await send(operation, try request(operation, path: path, bearer: bearer, body: body))
    }

    /// A path parameter or query value: everything but RFC 3986's unreserved characters percent-encoded (ids are
    /// base64url, which is all unreserved).
    static func percentEncoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
