import Foundation
import Testing
import WebhookCore

@Suite("Webhook retries")
struct RetryTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("ceilings grow ×5 from 5 s up to the 1 h cap")
    func ceilings() {
        let policy = WebhookRetryPolicy()
        #expect((1...7).map { policy.ceiling(retry: $0) } == [5, 25, 125, 625, 3125, 3600, 3600])
        #expect(policy.ceiling(retry: 10_000) == 3600)
    }

    @Test("each wait is between half and all of its ceiling, chosen by the injected random source")
    func jitter() throws {
        let policy = WebhookRetryPolicy()
        let low = try #require(policy.nextAttempt(attempts: 3, since: start, now: start + 100, random: { 0 }))
        let high = try #require(policy.nextAttempt(attempts: 3, since: start, now: start + 100, random: { 0.999_999 }))
        #expect(low == start + 100 + 62.5)
        #expect(abs(high.timeIntervalSince(start + 100) - 125) < 0.001)
        // An out-of-range random number is clamped.
        #expect(policy.nextAttempt(attempts: 1, since: start, now: start, random: { 7 }) == start + 5)
    }

    @Test("retries for at least the window (24 h), then gives up; the last retry is at most the cap past it")
    func window() throws {
        let policy = WebhookRetryPolicy()
        var now = start
        var attempts = 0
        var last = start
        while let next = policy.nextAttempt(attempts: attempts + 1, since: start, now: now, random: { 0.5 }) {
            attempts += 1
            last = next
            now = next
        }
        #expect(now.timeIntervalSince(start) >= 86_400)
        #expect(last.timeIntervalSince(start) < 86_400 + 3600)
        #expect(attempts > 20 && attempts < 60)
        #expect(policy.nextAttempt(attempts: 1, since: start, now: start + 86_400, random: { 0 }) == nil)
        #expect(WebhookRetryPolicy(window: 0).nextAttempt(attempts: 1, since: start, now: start, random: { 0 }) == nil)
    }

    @Test("Retry-After lengthens a wait up to the cap, never shortens it")
    func retryAfter() {
        let policy = WebhookRetryPolicy()
        #expect(policy.nextAttempt(attempts: 1, since: start, now: start, retryAfter: 60, random: { 0 }) == start + 60)
        #expect(policy.nextAttempt(attempts: 1, since: start, now: start, retryAfter: 1, random: { 0 }) == start + 2.5)
        #expect(policy.nextAttempt(attempts: 1, since: start, now: start, retryAfter: 99_999, random: { 0 }) == start + 3600)
        #expect(WebhookAnswer.retryAfter("120") == 120)
        #expect(WebhookAnswer.retryAfter(" 7 ") == 7)
        #expect(WebhookAnswer.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == nil)
        #expect(WebhookAnswer.retryAfter("-1") == nil)
        #expect(WebhookAnswer.retryAfter("9999999") == nil)
        #expect(WebhookAnswer.retryAfter(nil) == nil)
    }

    @Test("2xx is delivered, 410 is final, every other status is retried")
    func answers() {
        for code in [200, 201, 202, 204, 299] { #expect(WebhookAnswer(statusCode: code) == .delivered) }
        #expect(WebhookAnswer(statusCode: 410) == .final)
        for code in [100, 301, 302, 307, 400, 401, 403, 404, 408, 409, 413, 429, 500, 502, 503, 504] {
            #expect(WebhookAnswer(statusCode: code) == .retry, "\(code)")
        }
    }
}
