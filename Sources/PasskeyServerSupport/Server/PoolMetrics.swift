public import LibPQ
public import Metrics
import Synchronization

/// Exports a ``PGPool``'s counters through swift-metrics. Call ``update()`` before each scrape (the executable
/// does it in its `/metrics` exporter), so the values are current without a background task.
///
///     passkeyd_db_pool_size                    gauge    maximum connections
///     passkeyd_db_pool_connections_open        gauge    open connections (in use + idle)
///     passkeyd_db_pool_connections_in_use      gauge    connections leased to a request
///     passkeyd_db_pool_connections_idle        gauge    open connections not leased
///     passkeyd_db_pool_waiters                 gauge    callers waiting for a connection
///     passkeyd_db_pool_connects_total          counter  successful connection attempts
///     passkeyd_db_pool_failures_total          counter  failed connects and connections discarded after an error
///
/// The read replica's pool (`PASSKEYD_DATABASE_READ_URL`) has the same under `passkeyd_db_read_pool_*` (`prefix`).
public final class PoolMetrics: Sendable {
    private let stats: @Sendable () -> PGPoolStats
    private let size, open, inUse, idle, waiters: Gauge
    private let connects, failures: Counter
    /// The pool's lifetime totals at the previous update (counters only go up by the difference).
    private let last = Mutex((connects: 0, failures: 0))

    /// - Parameters:
    ///   - pool: the pool.
    ///   - factory: the metrics backend.
    ///   - prefix: the names' common start (`passkeyd_db_pool`; the read replica's pool: `passkeyd_db_read_pool`).
    public convenience init(pool: PGPool, factory: any MetricsFactory, prefix: String = "passkeyd_db_pool") {
        self.init(stats: { pool.stats }, factory: factory, prefix: prefix)
    }

    /// - Parameters:
    ///   - stats: reads the pool's counters.
    ///   - factory: the metrics backend.
    ///   - prefix: the names' common start.
    public init(stats: @escaping @Sendable () -> PGPoolStats, factory: any MetricsFactory, prefix: String = "passkeyd_db_pool") {
        self.stats = stats
        size = Gauge(label: "\(prefix)_size", factory: factory)
        open = Gauge(label: "\(prefix)_connections_open", factory: factory)
        inUse = Gauge(label: "\(prefix)_connections_in_use", factory: factory)
        idle = Gauge(label: "\(prefix)_connections_idle", factory: factory)
        waiters = Gauge(label: "\(prefix)_waiters", factory: factory)
        connects = Counter(label: "\(prefix)_connects_total", factory: factory)
        failures = Counter(label: "\(prefix)_failures_total", factory: factory)
    }

    /// Reads the pool's stats into the gauges and counters.
    public func update() {
        let current = stats()
        size.record(current.size)
        open.record(current.open)
        inUse.record(current.inUse)
        idle.record(max(0, current.open - current.inUse))
        waiters.record(current.waiting)
        let (newConnects, newFailures) = last.withLock { last -> (Int, Int) in
            defer { last = (current.totalConnects, current.totalFailures) }
            return (max(0, current.totalConnects - last.connects), max(0, current.totalFailures - last.failures))
        }
        if newConnects > 0 { connects.increment(by: newConnects) }
        if newFailures > 0 { failures.increment(by: newFailures) }
    }
}
