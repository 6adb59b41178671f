import Foundation

/// An error answer of passkeyd. `code` is the stable snake_case code (an ``ErrorCode``: compare with its known
/// members, `error.code == .userExists`, or switch over them); `message` is for humans and not stable.
///
/// A failure to get an answer (connecting, a timeout) is not a `PasskeydError`: the transport's error is thrown as
/// it is (AsyncHTTPClient's `HTTPClientError`, NIO's connection errors). An answer that does not decode as its
/// operation's documented type throws the decoder's `DecodingError`.
public struct PasskeydError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status.
    public let status: Int
    /// `http_<status>` when the answer was not passkeyd's JSON error form (a proxy's page, say).
    public let code: ErrorCode
    public let message: String
    /// Seconds to wait before trying again (`Retry-After`, on 429 and 503), when the answer said.
    public let retryAfter: Int?
    /// On `credential_unknown` at a sign-in: the arguments of `PublicKeyCredential.signalUnknownCredential` for the
    /// page, so the passkey provider hides the passkey passkeyd no longer knows.
    public let signal: UnknownCredentialSignal?
    /// The operationId of the call that failed.
    public let operation: String
    /// How many attempts were made (more than 1 after retries; ``RetryPolicy``).
    public let attempts: Int

    public init(
        status: Int, code: ErrorCode, message: String, retryAfter: Int? = nil, signal: UnknownCredentialSignal? = nil,
        operation: String, attempts: Int = 1
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.signal = signal
        self.operation = operation
        self.attempts = attempts
    }

    /// From an error answer.
    init(answer: PasskeydHTTPResponse, operation: String, attempts: Int, now: Date = Date()) {
        struct Body: Decodable {
            struct Inner: Decodable {
                let code: String
                let message: String
            }
            let error: Inner
            let signal: UnknownCredentialSignal?
        }
        let retryAfter = answer.headers["retry-after"].flatMap { Self.seconds(retryAfter: $0, now: now) }
        if let body = try? JSONDecoder().decode(Body.self, from: answer.body) {
            self.init(
                status: answer.status, code: ErrorCode(body.error.code), message: body.error.message,
                retryAfter: retryAfter, signal: body.signal, operation: operation, attempts: attempts)
        } else {
            self.init(
                status: answer.status, code: ErrorCode("http_\(answer.status)"),
                message: "the answer is not passkeyd's JSON error form", retryAfter: retryAfter, operation: operation,
                attempts: attempts)
        }
    }

    /// `Retry-After` in seconds: delta-seconds, or an HTTP-date (RFC 9110 §10.2.3) from now, at least 0.
    static func seconds(retryAfter value: String, now: Date) -> Int? {
        let value = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(value) { return max(seconds, 0) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(Int(date.timeIntervalSince(now).rounded(.up)), 0)
    }

    public var description: String { "\(status) \(code): \(message) (\(operation))" }
}

/// A stable error code of passkeyd (`error.code`). Open: a server newer than this client may send a code this
/// client does not list, and it is kept as it came (``isKnown`` false). The known codes are the static members
/// (`ErrorCode+Known.swift`, written from `openapi.json` by `tools/generate-error-codes.py` and checked against it by
/// the tests), so `switch error.code { case .userExists: … default: … }` works.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Whether `openapi.json` (as of this client) lists it.
    public var isKnown: Bool { Self.known.contains(self) }

    public var description: String { rawValue }
}
