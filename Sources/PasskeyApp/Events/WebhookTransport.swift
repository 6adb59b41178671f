public import Foundation

/// One POST of a delivery: the endpoint's URL, the headers (`content-type`, `user-agent`, `webhook-id`,
/// `webhook-timestamp`, `webhook-signature`) and the body.
public struct WebhookRequest: Sendable, Hashable {
    public let endpointID: String
    public let url: String
    public let headers: [String: String]
    public let body: [UInt8]

    public init(endpointID: String, url: String, headers: [String: String], body: [UInt8]) {
        self.endpointID = endpointID
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// What came of one POST.
public enum WebhookTransportResult: Sendable, Hashable {
    /// The receiver answered with this status (and maybe a `Retry-After`); its body is not kept.
    case answered(statusCode: Int, retryAfter: String?)
    /// No answer: the address was refused by the URL policy, the connection or TLS failed, or the time ran out. The
    /// text says which (for the delivery's last error: never a secret, never the receiver's body).
    case noAnswer(String)
}

/// Sends a delivery. The executable's is an HTTPS client (PasskeyServerSupport's `WebhookHTTPTransport`); tests pass
/// a fake or a client of a local receiver. Must give up by `timeout` and honour cancellation.
public protocol WebhookTransport: Sendable {
    func send(_ request: WebhookRequest, timeout: Duration) async -> WebhookTransportResult
}
