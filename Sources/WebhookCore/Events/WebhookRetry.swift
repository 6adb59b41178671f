public import Foundation

/// When a failed delivery is tried again, and when it is given up.
///
/// Attempt `n` (1 for the first retry) waits a random time between half and all of `min(firstDelay × factor^(n-1),
/// maxDelay)` ("equal jitter": the backoff keeps growing, and receivers that failed together are not retried together;
/// full jitter could retry a struggling receiver almost at once). With the defaults the ceilings are 5 s, 25 s, 2 min
/// 5 s, 10 min 25 s, 52 min 5 s, then 1 h. A `Retry-After` from the receiver (429, 503) is honoured up to `maxDelay`.
/// A delivery is given up (failed) only when an attempt fails at or after `window` past the event: so retries go on
/// for at least `window` (24 h by default), and the last one is at most `maxDelay` later.
public struct WebhookRetryPolicy: Sendable, Hashable {
    public var firstDelay: TimeInterval
    public var factor: Double
    public var maxDelay: TimeInterval
    public var window: TimeInterval

    /// The safe defaults: 5 s, ×5, at most 1 h apart, for 24 h.
    public init(firstDelay: TimeInterval = 5, factor: Double = 5, maxDelay: TimeInterval = 3600, window: TimeInterval = 86_400) {
        precondition(firstDelay > 0 && factor >= 1 && maxDelay >= firstDelay && window >= 0)
        self.firstDelay = firstDelay
        self.factor = factor
        self.maxDelay = maxDelay
        self.window = window
    }

    /// The ceiling of the wait before retry number `retry` (1-based).
    public func ceiling(retry: Int) -> TimeInterval {
        let exponent = Double(max(0, retry - 1))
        // pow can overflow to +inf for large exponents: min caps it.
        return min(firstDelay * pow(factor, exponent), maxDelay)
    }

    /// When to retry after attempt number `attempts` (1 = the first attempt) failed at `now`, for an event that
    /// occurred at `since`; nil: give up. `random` returns a number in [0, 1) (injected; tests pass a fixed one).
    public func nextAttempt(
        attempts: Int, since: Date, now: Date, retryAfter: TimeInterval? = nil, random: () -> Double
    ) -> Date? {
        guard now < since + window else { return nil }
        let ceiling = ceiling(retry: attempts)
        let unit = min(max(random(), 0), 1)
        var delay = ceiling / 2 + unit * ceiling / 2
        if let retryAfter, retryAfter > delay { delay = min(retryAfter, maxDelay) }
        return now + delay
    }
}

/// What an HTTP answer (or its absence) means for a delivery.
///
/// 2xx is delivered. Every other answer is retried, like Standard Webhooks and Svix do: a receiver that answers 401,
/// 404 or 400 during a bad deploy, a proxy change or a secret rotation on its side would otherwise lose events for
/// good, and the retries of a broken endpoint cost one small request per hour. The one exception is 410 Gone, which a
/// receiver sends to say the endpoint is gone for good (the Standard Webhooks recommendation): that delivery is failed
/// at once. Redirects are not followed (3xx is retried, in case the receiver fixes its URL); no answer (connection
/// refused or reset, TLS failure, timeout, a refused address) is retried.
public enum WebhookAnswer: Sendable, Hashable {
    case delivered
    case retry
    case final

    public init(statusCode: Int) {
        switch statusCode {
        case 200...299: self = .delivered
        case 410: self = .final
        default: self = .retry
        }
    }

    /// A `Retry-After` header in seconds (delta form only; an HTTP date is ignored), at most a day.
    public static func retryAfter(_ header: String?) -> TimeInterval? {
        guard let text = header?.trimmingCharacters(in: .whitespaces), !text.isEmpty, text.utf8.count <= 6,
              text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Int(text)
        else { return nil }
        return TimeInterval(min(seconds, 86_400))
    }
}
