public import Foundation
public import Logging
public import Metrics
public import PasskeyStore
import Synchronization

/// Where stateless begins read the user they name (`PASSKEYD_DATABASE_READ_URL`, issue 29): a read-only store on a hot
/// standby, with the primary (the ceremony service's store) as the fallback. Only begins with ceremony keys use it:
/// they write nothing, so their one read may come from a standby; a begin on the ceremony table writes, and stays on
/// the primary.
///
/// The policy for lag and failures (docs/operations.md, "Read replica"):
/// - an answer the caller cannot use as it is (``read(_:usable:)``'s `usable` says no: an unknown user, a known one
///   without credentials, a name a sign-up finds taken) is asked of the primary again, so a user who registered a
///   moment ago is found at once and every refusal is the primary's;
/// - a usable answer is used as it is, also when it misses a credential added within the lag (a sign-in's
///   allowCredentials then lacks it until the standby has replayed it);
/// - a read that fails (the standby is down, or cancelled a query for a recovery conflict) goes to the primary, is
///   logged, and for ``retryAfter`` every begin skips the standby and reads the primary, so a dead standby costs one
///   failed read per period, not one per begin.
///
/// Metrics: `passkeyd_replica_begin_reads_total{outcome}` with `served` (answered by the standby), `not_usable`
/// (asked of the primary again), `failed` (the standby's read failed) and `skipped` (not tried, after a failure).
public final class ReplicaReads: Sendable {
    /// What a begin's read of the standby gave.
    public enum Answer: Sendable, Hashable {
        /// The standby's answer, usable as it is: the user with their credentials, or nil for none.
        case answered(UserWithCredentials?)
        /// Ask the primary (the standby's answer was not usable, it failed, or it is being skipped).
        case askPrimary
    }

    public let replica: any PasskeyReadStore
    /// How long begins skip the standby after one of its reads failed.
    public let retryAfter: TimeInterval
    let logger: Logger
    let now: @Sendable () -> Date
    /// Until when begins skip the standby (set by a failed read); nil while it answers.
    private let failingUntil = Mutex<Date?>(nil)
    private let served, notUsable, failed, skipped: Counter

    /// - Parameters:
    ///   - replica: the read-only store on the standby.
    ///   - retryAfter: seconds begins skip the standby after a failed read (default 5).
    ///   - logger: where a failure and the recovery are logged.
    ///   - metricsFactory: the counters' backend.
    ///   - now: the clock of the skip period.
    public init(
        replica: any PasskeyReadStore, retryAfter: TimeInterval = 5, logger: Logger,
        metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.replica = replica
        self.retryAfter = retryAfter
        self.logger = logger
        self.now = now
        let label = "passkeyd_replica_begin_reads_total"
        served = Counter(label: label, dimensions: [("outcome", "served")], factory: metricsFactory)
        notUsable = Counter(label: label, dimensions: [("outcome", "not_usable")], factory: metricsFactory)
        failed = Counter(label: label, dimensions: [("outcome", "failed")], factory: metricsFactory)
        skipped = Counter(label: label, dimensions: [("outcome", "skipped")], factory: metricsFactory)
    }

    /// Reads `lookup` from the standby: its answer when `usable` accepts it, else ``Answer/askPrimary``. Never throws:
    /// a failure of the standby means asking the primary.
    public func read(_ lookup: UserLookup, usable: (UserWithCredentials?) -> Bool) async -> Answer {
        let start = now()
        if let until = failingUntil.withLock({ $0 }), start < until {
            skipped.increment()
            return .askPrimary
        }
        let found: UserWithCredentials?
        do throws(StoreError) {
            found = try await replica.userWithCredentials(lookup)
        } catch {
            failed.increment()
            let first = failingUntil.withLock { until in
                defer { until = start.addingTimeInterval(retryAfter) }
                return until == nil
            }
            let message: Logger.Message = first
                ? "the read replica failed: begins read the primary, and try the replica again every \(retryAfter) s"
                : "the read replica failed again"
            logger.log(
                level: first ? .warning : .debug, message,
                metadata: ["reason": .string("\(error.code.rawValue): \(error.reason)")])
            return .askPrimary
        }
        if failingUntil.withLock({ until in defer { until = nil }; return until != nil }) {
            logger.notice("the read replica answers again: begins read it")
        }
        guard usable(found) else {
            notUsable.increment()
            return .askPrimary
        }
        served.increment()
        return .answered(found)
    }
}
