/// When a call is tried again: on a 429 or 503 answer, for the calls where a second attempt is harmless (begins and
/// reads) unless ``writes`` opts the others in; `getReadiness` never (a 503 is its answer). The wait is the answer's
/// `Retry-After` when it has one, else ``backoff`` doubled per attempt, with jitter; a `Retry-After` longer than
/// ``maxWait`` is not waited for (the ``PasskeydError`` is thrown with its `retryAfter`). Failures to get an answer
/// are never retried here: the transport's error is thrown.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included (1: no retry).
    public var maxAttempts: Int
    public var backoff: Duration
    public var maxWait: Duration
    /// Also retry finishes and other writes (a second attempt of a write whose answer was lost may be refused, as a
    /// used challenge or a rotated refresh token is, or act twice).
    public var writes: Bool

    public init(maxAttempts: Int = 3, backoff: Duration = .milliseconds(250), maxWait: Duration = .seconds(10), writes: Bool = false) {
        self.maxAttempts = maxAttempts
        self.backoff = backoff
        self.maxWait = maxWait
        self.writes = writes
    }

    /// 3 attempts for begins and reads.
    public static let `default` = RetryPolicy()
    /// One attempt.
    public static let none = RetryPolicy(maxAttempts: 1)

    func retries(_ operation: PasskeydOperation, status: Int) -> Bool {
        guard status == 429 || status == 503 else { return false }
        switch operation.kind {
        case .begin, .read: return true
        case .write: return writes
        case .probe: return false
        }
    }

    /// The wait before attempt `attempt + 1` when the answer gave no `Retry-After`.
    func backoff(after attempt: Int) -> Duration {
        let doubled = backoff * (1 << min(attempt - 1, 16))
        return min(doubled * Double.random(in: 0.5...1.0), maxWait)
    }
}
