public import Hummingbird
public import Metrics
import NIOCore
import PasskeyStore
import Synchronization

/// Names and buckets of the request metrics. Public so the executable can configure its metrics backend (e.g.
/// Prometheus histogram buckets) without this module depending on one.
///
///     passkeyd_requests_total{operation, outcome="success"|"failure", code="ok"|<error code>}   counter
///     passkeyd_request_duration_seconds{operation}                                            timer (histogram)
public enum RequestMetricNames {
    /// Requests handled, by operation, outcome and error code (`ok` on success).
    public static let requests = "passkeyd_requests_total"
    /// Time from the start of handling (after routing) to the response, by operation.
    public static let duration = "passkeyd_request_duration_seconds"
    /// ID-token sign-in finishes by provider (a configured name, or `unknown`), outcome and code.
    public static let idTokenSignIns = "passkeyd_idtoken_signins_total"
    /// Automatic passkey upgrades (conditional create) by event: `begun` (a begin answered), `registered` (a finish
    /// stored the passkey), `uv_established` (an upgraded passkey's first sign-in with UV=1).
    public static let upgrades = "passkeyd_upgrades_total"
    /// Audit events (the webhooks' events) written by requests, by type: counted where their audit line is logged.
    public static let eventsWritten = "passkeyd_events_written_total"
    /// Histogram buckets for ``duration``: 0.5 ms … 1 s (a verification is ~0.1–1 ms, a database round trip ~1 ms).
    public static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1),
    ]
}

/// The request counters and timers, created once per (operation, code) and per operation, then reused: the hot
/// path takes one lock and does one dictionary lookup.
final class RequestMetrics: Sendable {
    private struct Family {
        let timer: Metrics.Timer
        /// By code; `ok` is the success counter.
        var counters: [String: Counter]
    }

    static let successCode = "ok"

    private let factory: any MetricsFactory
    private let families = Mutex<[String: Family]>([:])
    private let signIns = Mutex<[String: Counter]>([:])
    /// ``RequestMetricNames/upgrades`` by event.
    private let upgradeCounters: [String: Counter]
    /// ``RequestMetricNames/eventsWritten`` by type.
    private let eventCounters: [AuditEventKind: Counter]

    init(factory: any MetricsFactory) {
        self.factory = factory
        upgradeCounters = Dictionary(uniqueKeysWithValues: Self.upgradeEvents.map {
            ($0, Counter(label: RequestMetricNames.upgrades, dimensions: [("event", $0)], factory: factory))
        })
        eventCounters = Dictionary(uniqueKeysWithValues: AuditEventKind.allCases.map {
            ($0, Counter(label: RequestMetricNames.eventsWritten, dimensions: [("type", $0.rawValue)], factory: factory))
        })
    }

    /// Counts `count` written events of a type (``RequestMetricNames/eventsWritten``).
    func recordEvent(_ kind: AuditEventKind, count: Int = 1) {
        eventCounters[kind]?.increment(by: Int64(count))
    }

    static let upgradeEvents = ["begun", "registered", "uv_established"]

    /// Counts one automatic-upgrade event (``RequestMetricNames/upgrades``).
    func recordUpgrade(_ event: String) {
        upgradeCounters[event]?.increment()
    }

    /// Records one handled request. `code` is nil on success.
    func record(operation: String, code: String?, duration: Duration) {
        let code = code ?? Self.successCode
        let (counter, timer) = families.withLock { families -> (Counter, Metrics.Timer) in
            if let family = families[operation], let counter = family.counters[code] { return (counter, family.timer) }
            var family = families[operation] ?? Family(
                timer: Metrics.Timer(label: RequestMetricNames.duration, dimensions: [("operation", operation)], factory: factory),
                counters: [:])
            let counter = Counter(
                label: RequestMetricNames.requests,
                dimensions: [
                    ("operation", operation), ("outcome", code == Self.successCode ? "success" : "failure"), ("code", code),
                ],
                factory: factory)
            family.counters[code] = counter
            families[operation] = family
            return (counter, family.timer)
        }
        counter.increment()
        timer.recordNanoseconds(duration.wholeNanoseconds)
    }

    /// Records one ID-token finish by provider; `code` is nil on success.
    func recordSignIn(provider: String, code: String?) {
        let code = code ?? Self.successCode
        let key = provider + "\u{0}" + code
        let counter = signIns.withLock { counters -> Counter in
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: RequestMetricNames.idTokenSignIns,
                dimensions: [("provider", provider), ("outcome", code == Self.successCode ? "success" : "failure"), ("code", code)],
                factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
    }
}

extension Duration {
    /// Whole nanoseconds (saturating; requests do not last 292 years).
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue + attoseconds / 1_000_000_000
    }

    /// Milliseconds with microsecond precision, for logs.
    var loggedMilliseconds: Double { Double(wholeNanoseconds / 1_000) / 1_000 }
}

/// `GET /metrics` when the configuration has an exporter: its bytes as the Prometheus text format. Open, like
/// `/healthz` (restrict it at the network level if needed).
func addMetricsRoute(to router: Router<PasskeyRequestContext>, api: API, exporter: @escaping @Sendable () -> [UInt8]) {
    router.on(.metrics) { request, context in
        do {
            try RateLimiter.check(
                api.limiter.metrics, api.limiter.clientAddress(headers: request.headers, peer: context.remoteAddress), scope: "metrics")
        } catch {
            let failure = FailedRequest(error)
            var response = api.failure(failure.error)
            if let seconds = failure.retryAfter { response.headers[.retryAfter] = String(seconds) }
            return response
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: exporter())))
    }
}
