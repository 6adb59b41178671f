import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// One HTTP request of the client, before it is sent.
public struct PasskeydHTTPRequest: Sendable, Equatable {
    public var method: String
    /// The whole URL: the base URL, the path with its parameters, the query.
    public var url: String
    public var headers: [String: String]
    /// JSON, when the operation takes a body.
    public var body: Data?

    public init(method: String, url: String, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// An answer, whatever its status.
public struct PasskeydHTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Names in lower case; repeated headers joined with ", ".
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { "\($0), \($1)" })
        self.body = body
    }
}

/// What carries the client's requests: ``AsyncHTTPClientTransport`` unless you give the client another (a recording
/// one in your tests, say). Throws only when no answer came: every answer, an error status included, is returned.
public protocol PasskeydTransport: Sendable {
    func send(_ request: PasskeydHTTPRequest) async throws -> PasskeydHTTPResponse
}

/// The transport on AsyncHTTPClient: the caller's `HTTPClient` (`.shared` by default; this never shuts it down),
/// a timeout per request, and a cap on the answer's size.
public struct AsyncHTTPClientTransport: PasskeydTransport {
    public let httpClient: HTTPClient
    public var timeout: TimeAmount
    public var maxAnswerBytes: Int

    public init(httpClient: HTTPClient = .shared, timeout: TimeAmount = .seconds(10), maxAnswerBytes: Int = 8 << 20) {
        self.httpClient = httpClient
        self.timeout = timeout
        self.maxAnswerBytes = maxAnswerBytes
    }

    public func send(_ request: PasskeydHTTPRequest) async throws -> PasskeydHTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers {
            outgoing.headers.add(name: name, value: value)
        }
        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(data: body))
        }
        let response = try await httpClient.execute(outgoing, timeout: timeout)
        let bytes = try await response.body.collect(upTo: maxAnswerBytes)
        var headers: [String: String] = [:]
        for (name, value) in response.headers {
            let name = name.lowercased()
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return PasskeydHTTPResponse(status: Int(response.status.code), headers: headers, body: Data(buffer: bytes))
    }
}
