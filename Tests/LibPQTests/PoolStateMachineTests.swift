@testable import LibPQ
import Testing

// PGPoolStateMachine with no database: events in, actions out. Connections are plain numbered values and waiters
// are names, so every test spells out which caller gets which slot and which connection is closed.

private struct FakeConnection: Hashable, Sendable, CustomStringConvertible {
    let id: Int
    var description: String { "c\(id)" }
}

private typealias Machine = PGPoolStateMachine<FakeConnection, String>
private typealias Slot = PGPoolSlot<FakeConnection>

extension PGPoolStateMachine.LeaseRequestAction {
    fileprivate var slot: PGPoolSlot<Connection>? {
        if case .use(let slot) = self { return slot }
        return nil
    }
    fileprivate var waiterID: UInt64? {
        if case .mustWait(let id) = self { return id }
        return nil
    }
}

extension PGPoolStateMachine.WaitAction {
    fileprivate var slot: PGPoolSlot<Connection>? {
        if case .use(let slot) = self { return slot }
        return nil
    }
    fileprivate var failure: PGPoolStateMachine<Connection, Waiter>.Failure? {
        if case .fail(let failure) = self { return failure }
        return nil
    }
    fileprivate var isEnqueued: Bool {
        if case .enqueued = self { return true }
        return false
    }
}

extension PGPoolStateMachine.CheckOutAction {
    fileprivate var connect: (epoch: UInt64, closing: Connection?)? {
        if case .connect(let epoch, let closing) = self { return (epoch, closing) }
        return nil
    }
}

extension PGPoolStateMachine.ReleaseAction {
    fileprivate var resumed: (waiter: Waiter, slot: PGPoolSlot<Connection>)? {
        if case .resume(let waiter, let slot) = self { return (waiter, slot) }
        return nil
    }
    fileprivate var closed: Connection? {
        if case .close(let connection) = self { return connection }
        return nil
    }
    fileprivate var keptIdle: Bool {
        if case .keepIdle = self { return true }
        return false
    }
    fileprivate var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}

/// Drives the machine the way PGPool does (fast path, then the waiter; a lease starts with `checkOut`, then
/// validates or connects), with connections that are numbered values and switches for what the "server" does.
private struct Driver {
    var machine: Machine
    var opened = 0
    var closed: [FakeConnection] = []
    var validations: [FakeConnection] = []
    var unhealthy: Set<FakeConnection> = []
    var failingValidation: Set<FakeConnection> = []
    var serverDown = false

    init(size: Int) { machine = Machine(size: size) }

    /// A slot at once, or `nil` after the caller was queued as `name`; fails the test on any other answer.
    mutating func lease(_ name: String) -> Slot? {
        switch machine.leaseRequested() {
        case .use(let slot):
            return slot
        case .mustWait(let id):
            let action = machine.waiterArrived(id, name, isCancelled: false)
            if case .use(let slot) = action { return slot }
            #expect(action.isEnqueued, "\(name) should be queued")
            return nil
        }
    }

    /// A lease starting on a pool thread: the usable connection, or `nil` if connecting failed.
    mutating func start(_ slot: inout Slot) -> FakeConnection? {
        let isHealthy = slot.connection.map { !unhealthy.contains($0) } ?? false
        let epoch: UInt64
        switch machine.checkOut(&slot, isHealthy: isHealthy) {
        case .use(let connection):
            return connection
        case .validate(let connection, let validationEpoch):
            validations.append(connection)
            if !failingValidation.contains(connection) {
                Machine.validated(&slot, epoch: validationEpoch)
                return connection
            }
            if let gone = machine.discard(&slot, .validationFailed) { closed.append(gone) }
            epoch = validationEpoch
        case .connect(let connectEpoch, let closing):
            if let closing { closed.append(closing) }
            epoch = connectEpoch
        }
        if serverDown {
            machine.connectFailed()
            return nil
        }
        opened += 1
        let connection = FakeConnection(id: opened)
        machine.connected(&slot, to: connection, epoch: epoch)
        return connection
    }

    /// Gives a slot back; returns who was resumed with it, if anyone.
    mutating func release(_ slot: Slot) -> String? {
        let action = machine.slotReleased(slot)
        if let closing = action.closed { closed.append(closing) }
        return action.resumed?.waiter
    }

    /// Every invariant that holds while the pool runs.
    func checkInvariants(leased: [Slot], sourceLocation: SourceLocation = #_sourceLocation) {
        let stats = machine.stats
        #expect(stats.inUse <= stats.size, sourceLocation: sourceLocation)
        #expect(stats.open <= stats.size, sourceLocation: sourceLocation)
        #expect(stats.inUse == leased.count, sourceLocation: sourceLocation)
        if !machine.isShutdown {
            #expect(machine.idle.count + stats.inUse == stats.size, "slots are conserved", sourceLocation: sourceLocation)
            let openIdle = machine.idle.filter { $0.connection != nil }.count
            let openLeased = leased.filter { $0.connection != nil }.count
            #expect(stats.open == openIdle + openLeased, "open counts every connection", sourceLocation: sourceLocation)
            // Unopened slots at the front of the idle list, open ones after them.
            let firstOpen = machine.idle.firstIndex { $0.connection != nil } ?? machine.idle.count
            #expect(machine.idle[firstOpen...].allSatisfy { $0.connection != nil }, sourceLocation: sourceLocation)
        }
        #expect(stats.waiting == 0 || machine.idle.isEmpty || machine.isShutdown, "nobody waits beside an idle slot", sourceLocation: sourceLocation)
    }
}

@Suite("PGPool state machine (no database)")
struct PoolStateMachineTests {
    // MARK: - leasing

    @Test func aNewPoolHasSizeUnopenedSlotsAndZeroCounters() throws {
        let machine = Machine(size: 3)
        #expect(machine.stats == PGPoolStats(size: 3, open: 0, inUse: 0, waiting: 0, totalConnects: 0, totalFailures: 0))
        #expect(machine.idle.count == 3 && machine.idle.allSatisfy { $0.connection == nil })
        #expect(Machine(size: 0).size == 1 && Machine(size: -4).idle.count == 1, "sizes below 1 become 1")
    }

    @Test func aLeaseWithNobodyWaitingGetsASlotAtOnceAndTheFirstUseConnects() throws {
        var driver = Driver(size: 2)
        var slot = try unwrap(driver.lease("a"))
        #expect(slot.connection == nil)
        #expect(driver.machine.stats.inUse == 1 && driver.machine.stats.open == 0)
        var probe = Machine(size: 1)
        var unopened = slot
        let action = probe.checkOut(&unopened, isHealthy: false)
        #expect(action.connect?.epoch == 0 && action.connect?.closing == nil, "an unopened slot is connected")
        let connection = driver.start(&slot)
        #expect(connection == FakeConnection(id: 1) && slot.connection == connection)
        #expect(driver.machine.stats.open == 1 && driver.machine.stats.totalConnects == 1)
        #expect(driver.release(slot) == nil)
        #expect(driver.machine.stats.inUse == 0 && driver.machine.stats.open == 1)
        driver.checkInvariants(leased: [])
    }

    @Test func sequentialLeasesReuseTheOneWarmConnection() throws {
        var driver = Driver(size: 3)
        for _ in 0..<5 {
            var slot = try unwrap(driver.lease("x"))
            #expect(driver.start(&slot) == FakeConnection(id: 1))
            _ = driver.release(slot)
        }
        #expect(driver.machine.stats.totalConnects == 1 && driver.machine.stats.open == 1)
        driver.checkInvariants(leased: [])
    }

    @Test func theMostRecentlyUsedOpenSlotIsPreferredAndUnopenedSlotsComeLast() throws {
        var driver = Driver(size: 3)
        var a = try unwrap(driver.lease("a"))
        var b = try unwrap(driver.lease("b"))
        #expect(driver.start(&a)?.id == 1 && driver.start(&b)?.id == 2)
        _ = driver.release(a)
        _ = driver.release(b)
        // Idle: [unopened, c1, c2]: c2 was used last.
        #expect(driver.machine.idle.map(\.connection) == [nil, FakeConnection(id: 1), FakeConnection(id: 2)])
        var first = try unwrap(driver.lease("c"))
        #expect(first.connection?.id == 2)
        var second = try unwrap(driver.lease("d"))
        #expect(second.connection?.id == 1)
        var third = try unwrap(driver.lease("e"))
        #expect(third.connection == nil, "an unopened slot only when no open one is idle")
        #expect(driver.start(&first)?.id == 2 && driver.start(&second)?.id == 1 && driver.start(&third)?.id == 3)
        driver.checkInvariants(leased: [first, second, third])
        // An unopened slot goes back to the front, an open one to the back.
        var empty = third
        _ = driver.machine.discard(&empty, .abandonedAfterLeaseTimeout)
        _ = driver.release(first)
        _ = driver.release(empty)
        #expect(driver.machine.idle.map(\.connection) == [nil, FakeConnection(id: 2)])
    }

    @Test func whenEverySlotIsLeasedTheCallerMustWaitThenIsQueued() throws {
        var machine = Machine(size: 1)
        let held = try unwrap(machine.leaseRequested().slot)
        let id = try unwrap(machine.leaseRequested().waiterID)
        #expect(machine.stats.waiting == 0, "not queued before its continuation exists")
        #expect(machine.waiterArrived(id, "w", isCancelled: false).isEnqueued)
        #expect(machine.stats.waiting == 1 && machine.stats.inUse == 1)
        let release = machine.slotReleased(held)
        #expect(release.resumed?.waiter == "w" && release.resumed?.slot == held)
        #expect(machine.stats.waiting == 0 && machine.stats.inUse == 1, "the slot stays in use, now by the waiter")
    }

    @Test func waiterIDsAreUnique() throws {
        var machine = Machine(size: 1)
        _ = machine.leaseRequested()
        let ids = (0..<5).compactMap { _ in machine.leaseRequested().waiterID }
        #expect(Set(ids).count == 5)
    }

    @Test func aWaiterThatArrivesWhenASlotWasFreedMeanwhileTakesIt() throws {
        var machine = Machine(size: 1)
        let held = try unwrap(machine.leaseRequested().slot)
        let id = try unwrap(machine.leaseRequested().waiterID)
        #expect(machine.slotReleased(held).keptIdle)
        let action = machine.waiterArrived(id, "late", isCancelled: false)
        #expect(action.slot == held)
        #expect(machine.stats.inUse == 1 && machine.stats.waiting == 0)
    }

    @Test func aWaiterNeverOvertakesTheQueue() throws {
        var machine = Machine(size: 2)
        let a = try unwrap(machine.leaseRequested().slot)
        _ = try unwrap(machine.leaseRequested().slot)
        let first = try unwrap(machine.leaseRequested().waiterID)
        #expect(machine.waiterArrived(first, "first", isCancelled: false).isEnqueued)
        // A caller that had to wait behind a queued one stays behind it: the released slot goes to the first.
        let second = try unwrap(machine.leaseRequested().waiterID)
        #expect(machine.slotReleased(a).resumed?.waiter == "first")
        #expect(machine.waiterArrived(second, "second", isCancelled: false).isEnqueued)
        #expect(machine.waiterIDs == [second])
    }

    @Test func aWaiterCancelledBeforeItArrivesFailsWithCancellation() throws {
        var machine = Machine(size: 1)
        _ = machine.leaseRequested()
        let id = try unwrap(machine.leaseRequested().waiterID)
        #expect(machine.waiterCancelled(id) == nil, "not queued yet: the handler finds nothing")
        #expect(machine.waiterArrived(id, "w", isCancelled: true).failure == .cancelled)
        #expect(machine.stats.waiting == 0 && machine.stats.inUse == 1)
        // Cancellation wins even over a free slot, which stays free.
        var free = Machine(size: 1)
        let slot = try unwrap(free.leaseRequested().slot)
        let late = try unwrap(free.leaseRequested().waiterID)
        #expect(free.slotReleased(slot).keptIdle)
        #expect(free.waiterArrived(late, "w", isCancelled: true).failure == .cancelled)
        #expect(free.stats.inUse == 0 && free.idle.count == 1)
    }

    // MARK: - FIFO, timeouts, cancellation

    @Test func waitersAreServedInFIFOOrder() throws {
        var driver = Driver(size: 1)
        var held = try unwrap(driver.lease("holder"))
        _ = driver.start(&held)
        for index in 0..<5 {
            #expect(driver.lease("w\(index)") == nil)
            #expect(driver.machine.stats.waiting == index + 1)
        }
        var order: [String] = []
        var slot = held
        while let next = driver.release(slot) {
            order.append(next)
            #expect(driver.machine.stats.inUse == 1)
            #expect(driver.start(&slot) == FakeConnection(id: 1))
        }
        #expect(order == ["w0", "w1", "w2", "w3", "w4"])
        #expect(driver.machine.stats == PGPoolStats(size: 1, open: 1, inUse: 0, waiting: 0, totalConnects: 1, totalFailures: 0))
    }

    @Test func aTimedOutWaiterLeavesTheQueueOnceAndTheOthersKeepTheirOrder() throws {
        var machine = Machine(size: 1)
        let held = try unwrap(machine.leaseRequested().slot)
        var ids: [UInt64] = []
        for name in ["a", "b", "c"] {
            let id = try unwrap(machine.leaseRequested().waiterID)
            #expect(machine.waiterArrived(id, name, isCancelled: false).isEnqueued)
            ids.append(id)
        }
        #expect(machine.waiterTimedOut(ids[1]) == "b")
        #expect(machine.waiterTimedOut(ids[1]) == nil, "a second firing finds nothing")
        #expect(machine.waiterCancelled(ids[1]) == nil)
        #expect(machine.stats.waiting == 2)
        #expect(machine.slotReleased(held).resumed?.waiter == "a")
        #expect(machine.waiterTimedOut(ids[0]) == nil, "a waiter that got its slot cannot time out any more")
        #expect(machine.waiterIDs == [ids[2]])
    }

    @Test func aCancelledWaiterLeavesTheQueue() throws {
        var machine = Machine(size: 1)
        let held = try unwrap(machine.leaseRequested().slot)
        var ids: [UInt64] = []
        for name in ["a", "b", "c"] {
            let id = try unwrap(machine.leaseRequested().waiterID)
            _ = machine.waiterArrived(id, name, isCancelled: false)
            ids.append(id)
        }
        #expect(machine.waiterCancelled(ids[0]) == "a")
        #expect(machine.waiterCancelled(ids[0]) == nil)
        #expect(machine.stats.waiting == 2 && machine.stats.inUse == 1)
        #expect(machine.slotReleased(held).resumed?.waiter == "b")
        #expect(machine.waiterTimedOut(ids[2]) == "c")
        #expect(machine.stats.waiting == 0 && machine.stats.inUse == 1)
    }

    // MARK: - bounds

    @Test(arguments: [1, 2, 5])
    func theSizeIsNeverExceededUnderARandomWorkload(size: Int) throws {
        var random = SplitMix64(seed: UInt64(size) * 7919)
        var driver = Driver(size: size)
        var leased: [Slot] = []
        var queued: [(id: UInt64, name: String)] = []
        var served: [String] = []
        var counter = 0
        for step in 0..<2_000 {
            switch random.next() % 6 {
            case 0, 1:
                counter += 1
                let name = "w\(counter)"
                switch driver.machine.leaseRequested() {
                case .use(var slot):
                    _ = driver.start(&slot)
                    leased.append(slot)
                case .mustWait(let id):
                    let action = driver.machine.waiterArrived(id, name, isCancelled: false)
                    if var slot = action.slot {
                        _ = driver.start(&slot)
                        leased.append(slot)
                    } else {
                        #expect(action.isEnqueued)
                        queued.append((id, name))
                    }
                }
            case 2, 3:
                guard !leased.isEmpty else { continue }
                var slot = leased.remove(at: Int(random.next() % UInt64(leased.count)))
                if random.next() % 5 == 0 { _ = driver.machine.discard(&slot, .failedInLease) }
                if let next = driver.release(slot) {
                    #expect(next == queued.first?.name, "FIFO at step \(step)")
                    if !queued.isEmpty { queued.removeFirst() }
                    served.append(next)
                    _ = driver.start(&slot)
                    leased.append(slot)
                }
            case 4:
                guard !queued.isEmpty else { continue }
                let index = Int(random.next() % UInt64(queued.count))
                let gone = random.next() % 2 == 0
                    ? driver.machine.waiterTimedOut(queued[index].id) : driver.machine.waiterCancelled(queued[index].id)
                #expect(gone == queued[index].name)
                queued.remove(at: index)
            default:
                if let connection = leased.compactMap(\.connection).first {
                    if random.next() % 2 == 0 { driver.unhealthy.insert(connection) } else { driver.failingValidation.insert(connection) }
                }
            }
            driver.checkInvariants(leased: leased)
            #expect(driver.machine.stats.waiting == queued.count)
        }
        #expect(driver.opened == driver.machine.stats.totalConnects)
        #expect(served.count > 10, "the workload saturated the pool often enough to queue callers")
    }

    // MARK: - connection failures

    @Test func aConnectionBrokenInALeaseIsDiscardedAndReplacedOnTheNextLease() throws {
        var driver = Driver(size: 1)
        var slot = try unwrap(driver.lease("a"))
        #expect(driver.start(&slot) == FakeConnection(id: 1))
        let gone = driver.machine.discard(&slot, .failedInLease)
        #expect(gone == FakeConnection(id: 1) && slot.connection == nil)
        #expect(driver.machine.stats.open == 0 && driver.machine.stats.totalFailures == 1)
        #expect(driver.machine.epoch == 1)
        _ = driver.release(slot)
        var next = try unwrap(driver.lease("b"))
        #expect(next.connection == nil)
        #expect(driver.start(&next) == FakeConnection(id: 2))
        #expect(next.epoch == 1, "a new connection is current: no validation on its next lease")
        _ = driver.release(next)
        var again = try unwrap(driver.lease("c"))
        #expect(driver.start(&again) == FakeConnection(id: 2) && driver.validations.isEmpty)
        #expect(driver.machine.stats == PGPoolStats(size: 1, open: 1, inUse: 1, waiting: 0, totalConnects: 2, totalFailures: 1))
    }

    @Test func aFailureInALeaseMakesEveryOtherIdleConnectionBeValidatedOnce() throws {
        var driver = Driver(size: 3)
        var slots: [Slot] = []
        for _ in 0..<3 { slots.append(try unwrap(driver.lease("x"))) }
        for index in slots.indices { _ = driver.start(&slots[index]) }
        _ = driver.machine.discard(&slots[0], .failedInLease)
        for slot in slots { _ = driver.release(slot) }
        // c3 was used last; both survivors are validated before their next use, then no more.
        var first = try unwrap(driver.lease("y"))
        var second = try unwrap(driver.lease("z"))
        #expect(driver.start(&first) == FakeConnection(id: 3))
        #expect(driver.start(&second) == FakeConnection(id: 2))
        #expect(driver.validations == [FakeConnection(id: 3), FakeConnection(id: 2)])
        _ = driver.release(first)
        var third = try unwrap(driver.lease("w"))
        #expect(driver.start(&third) == FakeConnection(id: 3))
        #expect(driver.validations.count == 2, "validated once per failure")
        #expect(driver.machine.stats.totalFailures == 1)
    }

    @Test func aConnectionThatFailsValidationIsClosedAndReplacedWithoutSuspectingTheOthers() throws {
        var driver = Driver(size: 2)
        var a = try unwrap(driver.lease("a"))
        var b = try unwrap(driver.lease("b"))
        _ = driver.start(&a)
        _ = driver.start(&b)
        _ = driver.machine.discard(&b, .failedInLease)
        _ = driver.release(b)
        _ = driver.release(a)
        driver.failingValidation = [FakeConnection(id: 1)]
        var next = try unwrap(driver.lease("c"))
        #expect(driver.start(&next) == FakeConnection(id: 3))
        #expect(driver.closed == [FakeConnection(id: 1)])
        #expect(driver.machine.epoch == 1, "a failed validation does not start another round of validations")
        #expect(driver.machine.stats == PGPoolStats(size: 2, open: 1, inUse: 1, waiting: 0, totalConnects: 3, totalFailures: 2))
    }

    @Test func anUnhealthyConnectionIsClosedAndReplacedWhenALeaseStarts() throws {
        var driver = Driver(size: 1)
        var slot = try unwrap(driver.lease("a"))
        _ = driver.start(&slot)
        _ = driver.release(slot)
        driver.unhealthy = [FakeConnection(id: 1)]
        var next = try unwrap(driver.lease("b"))
        var probe = driver.machine
        var probed = next
        let action = probe.checkOut(&probed, isHealthy: false)
        #expect(action.connect?.epoch == 0 && action.connect?.closing == FakeConnection(id: 1), "closed and replaced")
        #expect(probed.connection == nil)
        #expect(probe.stats.open == 0 && probe.stats.totalFailures == 1)
        #expect(driver.start(&next) == FakeConnection(id: 2))
        #expect(driver.closed == [FakeConnection(id: 1)])
        #expect(driver.machine.epoch == 0, "an unhealthy idle connection does not suspect the others")
        #expect(driver.machine.stats == PGPoolStats(size: 1, open: 1, inUse: 1, waiting: 0, totalConnects: 2, totalFailures: 1))
    }

    @Test func aFailedConnectCountsAFailureAndTheNextLeaseTriesAgain() throws {
        var driver = Driver(size: 1)
        driver.serverDown = true
        for _ in 0..<2 {
            var slot = try unwrap(driver.lease("a"))
            #expect(driver.start(&slot) == nil && slot.connection == nil)
            _ = driver.release(slot)
        }
        #expect(driver.machine.stats == PGPoolStats(size: 1, open: 0, inUse: 0, waiting: 0, totalConnects: 0, totalFailures: 2))
        driver.serverDown = false
        var slot = try unwrap(driver.lease("b"))
        #expect(driver.start(&slot) == FakeConnection(id: 1))
        #expect(driver.machine.stats.totalConnects == 1 && driver.machine.stats.open == 1)
    }

    @Test func anAbandonedLeaseIsDiscardedWithoutSuspectingTheOthers() throws {
        var driver = Driver(size: 1)
        var slot = try unwrap(driver.lease("a"))
        _ = driver.start(&slot)
        #expect(driver.machine.discard(&slot, .abandonedAfterLeaseTimeout) == FakeConnection(id: 1))
        #expect(driver.machine.epoch == 0)
        #expect(driver.machine.stats.inUse == 1, "the slot stays taken until it is released")
        _ = driver.release(slot)
        #expect(driver.machine.stats == PGPoolStats(size: 1, open: 0, inUse: 0, waiting: 0, totalConnects: 1, totalFailures: 1))
    }

    @Test func discardingAnEmptySlotCountsNothing() throws {
        var machine = Machine(size: 1)
        var slot = try unwrap(machine.leaseRequested().slot)
        #expect(machine.discard(&slot, .failedInLease) == nil)
        #expect(machine.stats.totalFailures == 0 && machine.epoch == 0)
    }

    // MARK: - shutdown

    @Test func shutdownFailsEveryWaiterInOrderAndClosesLeasedConnectionsAsTheyComeBack() throws {
        var driver = Driver(size: 2)
        var a = try unwrap(driver.lease("a"))
        var b = try unwrap(driver.lease("b"))
        _ = driver.start(&a)
        _ = driver.start(&b)
        #expect(driver.lease("w1") == nil && driver.lease("w2") == nil)
        let (waiters, idle) = driver.machine.shutdownRequested()
        #expect(waiters == ["w1", "w2"] && idle.isEmpty)
        #expect(driver.machine.stats == PGPoolStats(size: 2, open: 2, inUse: 2, waiting: 0, totalConnects: 2, totalFailures: 0))
        #expect(driver.release(b) == nil, "no waiter is resumed after shutdown")
        #expect(driver.release(a) == nil)
        #expect(driver.closed == [FakeConnection(id: 2), FakeConnection(id: 1)])
        #expect(driver.machine.stats == PGPoolStats(size: 2, open: 0, inUse: 0, waiting: 0, totalConnects: 2, totalFailures: 0))
        #expect(driver.machine.idle.isEmpty)
    }

    @Test func shutdownClosesTheIdleConnections() throws {
        var driver = Driver(size: 3)
        var a = try unwrap(driver.lease("a"))
        var b = try unwrap(driver.lease("b"))
        _ = driver.start(&a)
        _ = driver.start(&b)
        _ = driver.release(a)
        let (waiters, closing) = driver.machine.shutdownRequested()
        #expect(waiters.isEmpty && closing == [FakeConnection(id: 1)])
        #expect(driver.machine.stats.open == 1 && driver.machine.stats.inUse == 1 && driver.machine.idle.isEmpty)
        _ = driver.release(b)
        #expect(driver.closed == [FakeConnection(id: 2)])
        #expect(driver.machine.stats == PGPoolStats(size: 3, open: 0, inUse: 0, waiting: 0, totalConnects: 2, totalFailures: 0))
    }

    @Test func afterShutdownEveryLeaseFailsAndAnEmptySlotComesBackQuietly() throws {
        var machine = Machine(size: 2)
        let leased = try unwrap(machine.leaseRequested().slot)
        _ = machine.shutdownRequested()
        let id = try unwrap(machine.leaseRequested().waiterID, "no fast path after shutdown, even with nobody waiting")
        #expect(machine.waiterArrived(id, "late", isCancelled: false).failure == .poolShutDown)
        #expect(machine.waiterArrived(id, "late", isCancelled: true).failure == .poolShutDown, "shutdown is reported first")
        #expect(machine.stats.waiting == 0)
        // A lease that was running may still connect; its connection is closed when it comes back.
        var connecting = leased
        machine.connected(&connecting, to: FakeConnection(id: 9), epoch: machine.epoch)
        #expect(machine.stats.open == 1)
        #expect(machine.slotReleased(connecting).closed == FakeConnection(id: 9))
        #expect(machine.stats.open == 0 && machine.stats.inUse == 0)
        let second = machine.shutdownRequested()
        #expect(second.failWaiters.isEmpty && second.close.isEmpty, "a second shutdown does nothing")
    }

    @Test func aSlotWithoutConnectionReleasedAfterShutdownClosesNothing() throws {
        var machine = Machine(size: 1)
        let slot = try unwrap(machine.leaseRequested().slot)
        _ = machine.shutdownRequested()
        #expect(machine.slotReleased(slot).isNone)
        #expect(machine.stats.inUse == 0 && machine.stats.open == 0)
    }
}

/// `#require` for an optional produced by a mutating call (the macro cannot take one apart).
private func unwrap<T>(_ value: T?, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
    try #require(value, comment, sourceLocation: sourceLocation)
}

/// A small deterministic generator, so the random workload is the same on every run.
private struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
