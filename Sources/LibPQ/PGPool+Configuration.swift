// PGPool's public value types: its time bounds and its counters.

extension PGPool {
    /// Time bounds (see "Bounds"). `nil` means unbounded.
    public struct Configuration: Sendable, Hashable {
        /// libpq `connect_timeout` in seconds, unless the URL sets one (default 10).
        public var connectTimeout: Int
        /// `statement_timeout` set on every new connection; `nil` leaves the server's (or role's) setting.
        public var statementTimeout: Duration?
        /// `plan_cache_mode = force_generic_plan` on every new connection.
        public var forceGenericPlans: Bool
        /// Longest wait for a free connection.
        public var acquireTimeout: Duration?
        /// Longest a caller waits for one lease's work on its thread.
        public var leaseTimeout: Duration?
        /// `default_transaction_read_only = on` on every new connection: any write on it fails (SQLSTATE 25006),
        /// whatever server it reaches (a pool for reads from a hot standby, which also refuses writes itself).
        public var readOnly: Bool

        public init(
            connectTimeout: Int = 10, statementTimeout: Duration? = nil, forceGenericPlans: Bool = false, acquireTimeout: Duration? = nil,
            leaseTimeout: Duration? = nil, readOnly: Bool = false
        ) {
            self.connectTimeout = connectTimeout
            self.statementTimeout = statementTimeout
            self.forceGenericPlans = forceGenericPlans
            self.acquireTimeout = acquireTimeout
            self.leaseTimeout = leaseTimeout
            self.readOnly = readOnly
        }
    }
}

/// Counters describing a ``PGPool``, for metrics export.
public struct PGPoolStats: Sendable, Hashable {
    /// The maximum number of connections (fixed at init).
    public var size: Int
    /// Connections currently open (leased or idle).
    public var open: Int
    /// Connections currently leased to a `withConnection`/`withTransaction` body.
    public var inUse: Int
    /// Callers waiting for a connection because all ``size`` are leased.
    public var waiting: Int
    /// Successful connection attempts since the pool was created.
    public var totalConnects: Int
    /// Failures since the pool was created: failed connection attempts, plus connections discarded because
    /// a call on them failed with a connection-level error or a validation query failed.
    public var totalFailures: Int
}
