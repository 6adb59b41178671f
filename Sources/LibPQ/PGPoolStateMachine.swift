/// A pool slot: an open connection or `nil` (to be opened), and the failure epoch it was last checked in.
///
/// A pool of size `n` has `n` slots for its whole life (until shutdown): each is either idle in the state machine
/// or carried by exactly one lease.
struct PGPoolSlot<Connection> {
    var connection: Connection?
    var epoch: UInt64
}

extension PGPoolSlot: Sendable where Connection: Sendable {}
extension PGPoolSlot: Equatable where Connection: Equatable {}

/// ``PGPool``'s bookkeeping as a value: events in, actions out.
///
/// The machine decides who gets which slot, when a connection is opened, validated or discarded, and what
/// shutdown ends; it does no I/O, holds no lock and never blocks. ``PGPool`` keeps the I/O (the thread pool,
/// libpq calls, continuations and timers), guards one value of this type with its lock, feeds it each event
/// and carries out the action it returns. Generic over the connection and the waiter (a continuation and its
/// timer in the pool) so that it can be tested with plain values and no database.
///
/// ## Events and actions
/// - ``leaseRequested()``: ``LeaseRequestAction/use(_:)`` an idle slot (nobody waiting), else
///   ``LeaseRequestAction/mustWait(_:)`` with a new waiter id.
/// - ``waiterArrived(_:_:isCancelled:)``: ``WaitAction/use(_:)``, ``WaitAction/fail(_:)`` (shutdown,
///   cancelled) or ``WaitAction/enqueued`` (FIFO).
/// - ``waiterTimedOut(_:)``, ``waiterCancelled(_:)``: the waiter to fail, if it was still queued.
/// - ``slotReleased(_:)``: ``ReleaseAction/resume(_:_:)`` the oldest waiter with the slot,
///   ``ReleaseAction/keepIdle``, or ``ReleaseAction/close(_:)`` after shutdown.
/// - ``checkOut(_:isHealthy:)`` (a lease starts on a pool thread): ``CheckOutAction/use(_:)``,
///   ``CheckOutAction/validate(_:epoch:)`` after a failure elsewhere, or ``CheckOutAction/connect(epoch:closing:)``.
/// - ``validated(_:epoch:)``, ``connected(_:to:epoch:)``, ``connectFailed()``.
/// - ``discard(_:_:)`` (unhealthy, failed validation, failed in the lease, abandoned after the lease timeout):
///   the connection to close; a failure in the lease marks every other connection suspect.
/// - ``shutdownRequested()``: the waiters to fail and the idle connections to close.
struct PGPoolStateMachine<Connection, Waiter> {
    typealias Slot = PGPoolSlot<Connection>
    typealias WaiterID = UInt64

    /// Why a lease request fails before it gets a slot.
    enum Failure: Hashable, Sendable {
        /// ``PGPool/shutdown()`` ran.
        case poolShutDown
        /// The waiting task was cancelled.
        case cancelled
        /// ``PGPool/Configuration/acquireTimeout`` passed.
        case acquireTimedOut
    }

    /// The answer to ``leaseRequested()``.
    enum LeaseRequestAction {
        /// Proceed with this slot (now counted in use).
        case use(Slot)
        /// No slot for now (or shut down): wait under this id, then report ``waiterArrived(_:_:isCancelled:)``.
        case mustWait(WaiterID)
    }

    /// The answer to ``waiterArrived(_:_:isCancelled:)``.
    enum WaitAction {
        /// A slot is free and nobody is ahead: resume the waiter with it at once (now counted in use).
        case use(Slot)
        /// Resume the waiter with this failure at once.
        case fail(Failure)
        /// The waiter is queued; a release, its timeout or its cancellation will resume it.
        case enqueued
    }

    /// The answer to ``slotReleased(_:)``.
    enum ReleaseAction {
        /// Resume this waiter (the oldest) with the released slot; the slot stays in use.
        case resume(Waiter, Slot)
        /// The slot went back to the idle list; nothing to do.
        case keepIdle
        /// The pool is shut down: close this connection.
        case close(Connection)
        /// The pool is shut down and the slot had no connection: nothing to do.
        case none
    }

    /// The answer to ``checkOut(_:isHealthy:)``.
    enum CheckOutAction {
        /// The slot's connection is usable as it is.
        case use(Connection)
        /// A failure was seen since the slot was last checked: run `SELECT 1`, then report ``validated(_:epoch:)``
        /// or ``discard(_:_:)`` with ``DiscardReason/validationFailed`` and connect.
        case validate(Connection, epoch: UInt64)
        /// Open a new connection (after closing `closing`, which was unhealthy), then report
        /// ``connected(_:to:epoch:)`` or ``connectFailed()``.
        case connect(epoch: UInt64, closing: Connection?)
    }

    /// Why a connection is closed while the pool runs.
    enum DiscardReason: Hashable, Sendable {
        /// Not healthy when a lease started.
        case unhealthyAtLease
        /// `SELECT 1` failed when a lease started.
        case validationFailed
        /// The lease's body failed with a connection-level error, or left the connection unhealthy or in a
        /// transaction that could not be rolled back. Marks every other connection suspect.
        case failedInLease
        /// The lease outlived the lease timeout; its connection may be in any state.
        case abandonedAfterLeaseTimeout

        var suspectsOthers: Bool { self == .failedInLease }
    }

    /// The maximum number of connections (and of slots).
    let size: Int
    /// Idle slots: unopened ones at the front, open ones after them, most recently used last.
    private(set) var idle: [Slot]
    /// Queued waiters, oldest first.
    private var waiters: [(id: WaiterID, waiter: Waiter)] = []
    private(set) var inUse = 0
    private(set) var open = 0
    private(set) var totalConnects = 0
    private(set) var totalFailures = 0
    /// Bumped on every failure that suspects the other connections; slots checked in an older epoch are validated
    /// before use.
    private(set) var epoch: UInt64 = 0
    private var nextWaiterID: WaiterID = 0
    private(set) var isShutdown = false

    /// A pool of `size` (at least 1) unopened slots.
    init(size: Int) {
        self.size = max(1, size)
        self.idle = Array(repeating: Slot(connection: nil, epoch: 0), count: self.size)
    }

    /// The counters of ``PGPool/stats``.
    var stats: PGPoolStats {
        PGPoolStats(
            size: size, open: open, inUse: inUse, waiting: waiters.count, totalConnects: totalConnects,
            totalFailures: totalFailures)
    }

    /// The ids of the queued waiters, oldest first.
    var waiterIDs: [WaiterID] { waiters.map(\.id) }

    // MARK: - Leasing

    /// A caller wants a slot. The fast path: an idle slot and nobody waiting (the common case below saturation)
    /// needs no continuation.
    mutating func leaseRequested() -> LeaseRequestAction {
        if !isShutdown, waiters.isEmpty, let slot = idle.popLast() {
            inUse += 1
            return .use(slot)
        }
        nextWaiterID += 1
        return .mustWait(nextWaiterID)
    }

    /// The caller that got ``LeaseRequestAction/mustWait(_:)`` is ready to wait as `waiter` (its continuation
    /// exists). `isCancelled` is read under the pool's lock, so a cancellation handler that ran before this is
    /// not missed.
    mutating func waiterArrived(_ id: WaiterID, _ waiter: Waiter, isCancelled: Bool) -> WaitAction {
        if isShutdown {
            return .fail(.poolShutDown)
        }
        if isCancelled {
            return .fail(.cancelled)
        }
        if waiters.isEmpty, let slot = idle.popLast() {
            inUse += 1
            return .use(slot)
        }
        waiters.append((id, waiter))
        return .enqueued
    }

    /// The waiter's acquire timeout fired. Returns the waiter to fail with ``Failure/acquireTimedOut``, or `nil`
    /// if it is no longer queued (it got a slot, was cancelled, or the pool shut down).
    mutating func waiterTimedOut(_ id: WaiterID) -> Waiter? {
        removeWaiter(id)
    }

    /// The waiting task was cancelled. Returns the waiter to fail with ``Failure/cancelled``, or `nil` if it is
    /// not queued (yet or any more).
    mutating func waiterCancelled(_ id: WaiterID) -> Waiter? {
        removeWaiter(id)
    }

    private mutating func removeWaiter(_ id: WaiterID) -> Waiter? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).waiter
    }

    /// A lease ended (or never started) and gives its slot back: to the oldest waiter if there is one, else to
    /// the idle list (an unopened slot at the front, an open one as the most recently used).
    mutating func slotReleased(_ slot: Slot) -> ReleaseAction {
        if isShutdown {
            inUse -= 1
            guard let connection = slot.connection else { return .none }
            open -= 1
            return .close(connection)
        }
        if !waiters.isEmpty {
            return .resume(waiters.removeFirst().waiter, slot)  // stays in use, now by the waiter
        }
        inUse -= 1
        if slot.connection == nil {
            idle.insert(slot, at: 0)
        } else {
            idle.append(slot)
        }
        return .keepIdle
    }

    /// Stops the pool: every queued waiter is to fail with ``Failure/poolShutDown`` and every idle connection to
    /// be closed. Leased slots are closed as they come back (``slotReleased(_:)``); later requests fail.
    mutating func shutdownRequested() -> (failWaiters: [Waiter], close: [Connection]) {
        isShutdown = true
        let failing = waiters.map(\.waiter)
        let closing = idle.compactMap(\.connection)
        waiters = []
        idle = []
        open -= closing.count
        return (failing, closing)
    }

    // MARK: - Connections (reported from the pool thread that runs the lease)

    /// A lease starts on its slot: use the connection, validate it first, or open one.
    /// - Parameters:
    ///   - slot: The leased slot; emptied if its connection is unhealthy.
    ///   - isHealthy: Whether the slot's connection reports itself healthy (ignored for an empty slot).
    mutating func checkOut(_ slot: inout Slot, isHealthy: Bool) -> CheckOutAction {
        let epoch = self.epoch
        if let connection = slot.connection {
            if !isHealthy {
                let unhealthy = discard(&slot, .unhealthyAtLease)
                return .connect(epoch: epoch, closing: unhealthy)
            }
            if slot.epoch < epoch {
                return .validate(connection, epoch: epoch)
            }
            return .use(connection)
        }
        return .connect(epoch: epoch, closing: nil)
    }

    /// `SELECT 1` succeeded: the slot is good up to `epoch`. Changes only the slot (which the lease holds), so it
    /// needs no lock.
    static func validated(_ slot: inout Slot, epoch: UInt64) {
        slot.epoch = epoch
    }

    /// A new connection was opened for `slot`.
    mutating func connected(_ slot: inout Slot, to connection: Connection, epoch: UInt64) {
        totalConnects += 1
        open += 1
        slot = Slot(connection: connection, epoch: epoch)
    }

    /// Opening a connection failed; the slot stays empty (the next lease tries again).
    mutating func connectFailed() {
        totalFailures += 1
    }

    /// Takes the slot's connection out of the pool. Returns it, to be closed, or `nil` if the slot was empty
    /// (then nothing is counted).
    mutating func discard(_ slot: inout Slot, _ reason: DiscardReason) -> Connection? {
        guard let connection = slot.connection else { return nil }
        slot.connection = nil
        open -= 1
        totalFailures += 1
        if reason.suspectsOthers {
            epoch += 1
        }
        return connection
    }
}

extension PGPoolStateMachine.LeaseRequestAction: Sendable where Connection: Sendable {}
extension PGPoolStateMachine.WaitAction: Sendable where Connection: Sendable {}
extension PGPoolStateMachine.ReleaseAction: Sendable where Connection: Sendable, Waiter: Sendable {}
extension PGPoolStateMachine.CheckOutAction: Sendable where Connection: Sendable {}
