public import NIOCore
public import NIOPosix
internal import Synchronization

/// A fixed-size pool of ``PGConnection``s to one server, running every libpq call on an `NIOThreadPool`.
///
/// ## Threads
/// libpq blocks. Every libpq call the pool makes (connect, validation, the caller's body, rollback, close) runs
/// inside `NIOThreadPool.runIfActive`, never on the calling task. The pool does not own the thread pool: start
/// it before the first use and shut it down after ``shutdown()``. A thread pool with fewer threads than
/// ``size`` works, but caps concurrency at its thread count.
///
/// ## Leasing
/// A connection is leased for exactly one ``withConnection(_:)`` or ``withTransaction(_:)`` body and returned
/// when the body ends. At most ``size`` connections exist; further callers wait in FIFO order (a waiting task
/// that is cancelled leaves the queue with `CancellationError`).
///
/// ## Bounds (``Configuration``)
/// - `connectTimeout`: libpq's `connect_timeout` (per host), unless the URL sets its own.
/// - `statementTimeout`: `SET statement_timeout` on every new connection, so the server cancels a statement
///   that runs (or waits for a lock) longer; the caller gets ``PGError/Code/queryFailed`` (SQLSTATE 57014).
/// - `forceGenericPlans`: `SET plan_cache_mode = force_generic_plan` on every new connection, so a prepared
///   statement is planned once per connection instead of on every execution. PostgreSQL otherwise keeps choosing
///   a fresh custom plan for statements whose parameters could fold away (`$1 IS NULL`, an `unnest($1)` whose
///   length it would then know), and planning then costs more than running them.
/// - `readOnly`: `SET default_transaction_read_only = on` on every new connection, so no statement on the pool can
///   write (a read-only pool on a hot standby).
/// - `acquireTimeout`: a caller that waits longer than this for a connection fails with
///   ``PGError/Code/timedOut`` instead of queueing without bound.
/// - `leaseTimeout`: a client-side bound on one lease (connect + validation + body) for a server that stops
///   answering altogether (stopped process, network black hole), where the server-side statement timeout never
///   fires. The caller gets ``PGError/Code/timedOut``; the blocked libpq call keeps its thread and slot until it
///   returns, and that connection is then discarded.
///
/// ## Connecting lazily
/// No connection is opened by `init`. A connection is opened, on a pool thread, the first time a lease needs one
/// and no idle open connection is available; idle open connections are preferred, most recently used first, so
/// the pool opens only as many connections as were ever needed at once. A failed connect fails that lease only
/// (``PGError/Code/connectionFailed``) and the next lease tries again.
///
/// ## Recovery after connection loss (server restart, failover, terminated backend)
/// - When a body fails with a connection-level error (``PGError/isConnectionError``), or the connection is no
///   longer healthy afterwards, the connection is closed and its slot is reopened on the next lease.
/// - Such a failure also marks every other idle connection as suspect: before its next lease each one is checked
///   with `SELECT 1` and replaced if that fails. So after a restart at most one caller sees the failure, not one
///   per pooled connection.
/// - A body that leaves a transaction open (or aborted) gets it rolled back; if that fails, the connection is
///   replaced. A leased connection is never handed out inside a transaction.
/// - Retry policy: ``withConnection(_:)`` and ``withTransaction(_:)`` never retry (the body may have had effects).
///   ``executePrepared(_:_:)`` retries once, on a fresh or validated connection, only for statements marked
///   ``PGPreparedStatement/isIdempotent`` and only after a connection-level error.
public final class PGPool: Sendable {
    typealias Slot = PGPoolSlot<PGConnection>
    typealias StateMachine = PGPoolStateMachine<PGConnection, Waiter>

    /// A caller parked in the state machine's queue.
    struct Waiter: Sendable {
        let continuation: CheckedContinuation<Slot, any Error>
        /// Fails the wait at the acquire timeout; cancelled when a slot arrives first.
        let timer: Scheduled<Void>?
    }

    /// The maximum number of connections.
    public let size: Int
    /// The bounds this pool applies.
    public let configuration: Configuration
    private let url: String
    private let threadPool: NIOThreadPool
    /// The lock guards only the state machine; every action it returns is carried out after the lock is released.
    private let state: Mutex<StateMachine>

    /// Creates a pool. Opens no connection (see "Connecting lazily").
    /// - Parameters:
    ///   - url: A libpq connection string, as for ``PGConnection/connect(url:connectTimeout:)``.
    ///   - size: The maximum number of connections; values below 1 are treated as 1.
    ///   - threadPool: A started thread pool that runs every libpq call. Not owned by the pool.
    ///   - configuration: Time bounds (default: only libpq's 10 s connect timeout).
    public init(url: String, size: Int, threadPool: NIOThreadPool, configuration: Configuration = .init()) {
        let machine = StateMachine(size: size)
        self.size = machine.size
        self.url = url
        self.threadPool = threadPool
        self.configuration = configuration
        self.state = Mutex(machine)
    }

    /// Current counters. A snapshot: values may change immediately afterwards.
    public var stats: PGPoolStats {
        state.withLock { $0.stats }
    }

    /// Leases a connection for the duration of `body`, which runs on a thread of the thread pool.
    ///
    /// `body` must not keep the connection, hand it to another thread, or leave a transaction open (an open
    /// transaction is rolled back when it returns). Use ``withTransaction(_:)`` for a transaction.
    /// - Parameter body: The blocking work; it receives the leased connection.
    /// - Returns: `body`'s value.
    /// - Throws: `body`'s error; ``PGError/Code/connectionFailed`` if no connection could be opened;
    ///   ``PGError/Code/connectionClosed`` after ``shutdown()``; `CancellationError` if the task is cancelled
    ///   before `body` starts; `NIOThreadPoolError.ThreadPoolInactive` if the thread pool is not running.
    /// `body` is `@escaping` because the thread pool's work item may hold it briefly after the result has been
    /// delivered (`withoutActuallyEscaping` traps on that); it is still called exactly once, before this returns.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PGConnection) throws -> T) async throws -> T {
        let slot = try await acquire()
        if let leaseTimeout = configuration.leaseTimeout {
            return try await withLeaseTimeout(leaseTimeout, slot: slot, body)
        }
        let threadPool = self.threadPool
        let outcome: (result: Result<T, any Error>, slot: Slot)
        do {
            outcome = try await threadPool.runIfActive { self.run(body, on: slot) }
        } catch {
            // The closure never ran (cancelled before start, or the thread pool is inactive): slot untouched.
            await release(slot)
            throw error
        }
        await release(outcome.slot)
        return try outcome.result.get()
    }

    /// Leases a connection and runs `body` inside `BEGIN` ... `COMMIT`, rolling back if `body` throws.
    ///
    /// See ``PGConnection/transaction(_:)`` for the commit semantics (a swallowed server error makes the
    /// commit fail with ``PGError/Code/transactionRolledBack``). Never retried automatically.
    /// - Parameter body: The transaction's work; it runs on a thread of the thread pool.
    /// - Returns: `body`'s value, once committed.
    /// - Throws: `body`'s error after rolling back, errors of `BEGIN`/`COMMIT`, or as ``withConnection(_:)``.
    public func withTransaction<T: Sendable>(_ body: @escaping @Sendable (PGConnection) throws -> T) async throws -> T {
        try await withConnection { connection in
            try connection.transaction { connection in try body(connection) }
        }
    }

    /// Runs a prepared statement on a leased connection, preparing it there first if needed.
    ///
    /// If the statement is ``PGPreparedStatement/isIdempotent`` and the first attempt fails with a
    /// connection-level error, it is retried once (the failed connection has been discarded and the others are
    /// validated first). Other statements are never retried.
    /// - Parameters:
    ///   - statement: The statement.
    ///   - bindings: One value per parameter.
    /// - Returns: The result.
    /// - Throws: As ``PGConnection/executePrepared(_:_:)`` and ``withConnection(_:)``.
    public func executePrepared(_ statement: PGPreparedStatement, _ bindings: PGBindings) async throws -> PGResult {
        do {
            return try await withConnection { connection in try connection.executePrepared(statement, bindings) }
        } catch {
            guard statement.isIdempotent, (error as? PGError)?.isConnectionError == true else {
                throw error
            }
            return try await withConnection { connection in try connection.executePrepared(statement, bindings) }
        }
    }

    /// Stops the pool: waiting callers fail with ``PGError/Code/connectionClosed``, idle connections are closed
    /// (on the thread pool), and leased connections are closed when their bodies return. Later leases fail with
    /// ``PGError/Code/connectionClosed``. Does not wait for running bodies; does not shut down the thread pool.
    public func shutdown() async {
        let (waiters, idle) = state.withLock { $0.shutdownRequested() }
        for waiter in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume(throwing: leaseError(for: .poolShutDown))
        }
        await close(idle)
    }

    // MARK: - Internals

    /// `withConnection`'s lease with a client-side deadline: the work runs on the thread pool as usual; if it
    /// has not finished when the deadline passes, the caller gets ``PGError/Code/timedOut`` and the slot is
    /// released (its connection discarded) whenever the work does finish.
    private func withLeaseTimeout<T: Sendable>(
        _ timeout: Duration, slot: Slot, _ body: @escaping @Sendable (PGConnection) throws -> T
    ) async throws -> T {
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let promise = loop.makePromise(of: T.self)
        let work = threadPool.runIfActive(eventLoop: loop) { self.run(body, on: slot) }
        let settled = OneShot()
        let timer = loop.scheduleTask(in: Self.timeAmount(timeout)) {
            guard settled.claim() else { return }
            promise.fail(PGError(code: .timedOut, message: "the database did not answer within \(timeout) (lease timeout)"))
        }
        work.whenComplete { completion in
            timer.cancel()
            switch completion {
            case .failure(let error):  // never ran (thread pool inactive): slot untouched
                Task { await self.release(slot) }
                if settled.claim() { promise.fail(error) }
            case .success(let (result, finishedSlot)):
                if settled.claim() {
                    Task { await self.release(finishedSlot) }
                    promise.completeWith(result)
                } else {
                    // Too late for the caller: the connection may be in any state; do not reuse it.
                    Task {
                        var slot = finishedSlot
                        self.discard(&slot, .abandonedAfterLeaseTimeout)
                        await self.release(slot)
                    }
                }
            }
        }
        return try await promise.futureResult.get()
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// The error a lease request that got no slot fails with.
    private func leaseError(for failure: StateMachine.Failure) -> any Error {
        switch failure {
        case .poolShutDown:
            return PGError(code: .connectionClosed, message: "the pool was shut down")
        case .cancelled:
            return CancellationError()
        case .acquireTimedOut:
            let timeout = configuration.acquireTimeout.map { "\($0)" } ?? "the acquire timeout"
            return PGError(code: .timedOut, message: "no database connection became free within \(timeout) (pool timeout)")
        }
    }

    private func acquire() async throws -> Slot {
        let id: StateMachine.WaiterID
        switch state.withLock({ $0.leaseRequested() }) {
        case .use(let immediate):
            if Task.isCancelled {
                await release(immediate)
                throw CancellationError()
            }
            return immediate
        case .mustWait(let waiterID):
            id = waiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Slot, any Error>) in
                let timer = configuration.acquireTimeout.map { timeout in
                    MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: Self.timeAmount(timeout)) {
                        let waiter = self.state.withLock { $0.waiterTimedOut(id) }
                        waiter?.continuation.resume(throwing: self.leaseError(for: .acquireTimedOut))
                    }
                }
                let waiter = Waiter(continuation: continuation, timer: timer)
                // Task.isCancelled is read under the lock, so a cancellation handler that ran before we enqueue is
                // not missed.
                let action = state.withLock { $0.waiterArrived(id, waiter, isCancelled: Task.isCancelled) }
                switch action {
                case .enqueued:
                    break
                case .use(let slot):
                    timer?.cancel()
                    continuation.resume(returning: slot)
                case .fail(let failure):
                    timer?.cancel()
                    continuation.resume(throwing: leaseError(for: failure))
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiterCancelled(id) }
            waiter?.timer?.cancel()
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns a slot: to the oldest waiter if there is one, else to the idle list.
    private func release(_ slot: Slot) async {
        switch state.withLock({ $0.slotReleased(slot) }) {
        case .resume(let waiter, let slot):
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: slot)
        case .close(let connection):
            await close([connection])
        case .keepIdle, .none:
            break
        }
    }

    /// Closes connections on the thread pool (or, if it is no longer running, here: `PQfinish` does not wait).
    private func close(_ connections: [PGConnection]) async {
        guard !connections.isEmpty else { return }
        let closed: Void? = try? await threadPool.runIfActive {
            for connection in connections {
                try? connection.close()
            }
        }
        if closed == nil {
            for connection in connections {
                try? connection.close()
            }
        }
    }

    /// Runs on a pool thread: makes the slot's connection usable, runs `body`, and decides whether to keep it.
    private func run<T>(_ body: @Sendable (PGConnection) throws -> T, on slot: Slot) -> (Result<T, any Error>, Slot) {
        var slot = slot
        let connection: PGConnection
        switch usableConnection(&slot) {
        case .success(let usable):
            connection = usable
        case .failure(let error):
            return (.failure(error), slot)
        }

        let result = Result { try body(connection) }

        var broken = false
        if case .failure(let error) = result, let pgError = error as? PGError, pgError.isConnectionError {
            broken = true
        } else if !connection.isHealthy {
            broken = true
        } else if connection.isInTransaction {
            // The body left a transaction open or aborted; never hand it to the next caller.
            let rolledBack = Result { () throws(PGError) in try connection.simpleQuery("ROLLBACK") }
            if case .failure = rolledBack {
                broken = true
            } else if connection.isInTransaction {
                broken = true
            }
        }
        if broken {
            discard(&slot, .failedInLease)
        }
        return (result, slot)
    }

    /// Runs on a pool thread: opens the slot's connection if needed, or validates it if a failure was seen since
    /// it was last checked.
    private func usableConnection(_ slot: inout Slot) -> Result<PGConnection, PGError> {
        let isHealthy = slot.connection?.isHealthy ?? false
        let epoch: UInt64
        switch state.withLock({ $0.checkOut(&slot, isHealthy: isHealthy) }) {
        case .use(let connection):
            return .success(connection)
        case .validate(let connection, let validationEpoch):
            let check = Result { () throws(PGError) in try connection.simpleQuery("SELECT 1") }
            if case .success = check {
                StateMachine.validated(&slot, epoch: validationEpoch)
                return .success(connection)
            }
            discard(&slot, .validationFailed)
            epoch = validationEpoch
        case .connect(let connectEpoch, let unhealthy):
            try? unhealthy?.close()
            epoch = connectEpoch
        }
        let configuration = self.configuration
        let connected = Result { () throws(PGError) in
            let connection = try PGConnection.connect(url: url, connectTimeout: configuration.connectTimeout)
            var settings: [String] = []
            if let timeout = configuration.statementTimeout {
                let milliseconds = max(1, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
                settings.append("SET statement_timeout = \(milliseconds)")
            }
            if configuration.forceGenericPlans { settings.append("SET plan_cache_mode = force_generic_plan") }
            if configuration.readOnly { settings.append("SET default_transaction_read_only = on") }
            if !settings.isEmpty { try connection.simpleQuery(settings.joined(separator: "; ")) }
            return connection
        }
        state.withLock { state in
            switch connected {
            case .success(let connection): state.connected(&slot, to: connection, epoch: epoch)
            case .failure: state.connectFailed()
            }
        }
        return connected
    }

    /// Runs on a pool thread: takes the slot's connection out of the pool and closes it.
    private func discard(_ slot: inout Slot, _ reason: StateMachine.DiscardReason) {
        let connection = state.withLock { $0.discard(&slot, reason) }
        try? connection?.close()
    }
}

/// A flag that exactly one caller can claim.
final class OneShot: Sendable {
    private let claimed = Atomic<Bool>(false)

    /// `true` for the first caller only.
    func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
