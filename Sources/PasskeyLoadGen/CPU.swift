// CPU accounting of the load benchmark, read from /proc: the passkeyd instances, PostgreSQL's whole process tree,
// this load generator and the machine, before and after each phase. Divided by the operations a phase completed,
// these are the µs of CPU per operation that BENCHMARKS.md leads with: unlike throughput, they hold steady while
// this shared machine's speed drifts.
import Foundation

/// CPU readings of this process, the servers, PostgreSQL and the whole machine, in seconds.
struct CPUSnapshot {
    let wall: ContinuousClock.Instant
    let selfSeconds: Double
    let serverSeconds: Double
    /// The postmaster and every process below it (backends, WAL writer, checkpointer, …), plus the CPU of the
    /// children it has already reaped; 0 without --postgres-pid.
    let postgresSeconds: Double
    let machineBusy: Double
    let machineTotal: Double

    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// The fields of /proc/PID/stat after "(comm)": index 0 is the state (field 3), so field n is at n - 3.
    static func statFields(_ pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// utime + stime (fields 14 and 15) of a process, in seconds; with `reaped`, also cutime + cstime (16 and 17),
    /// the CPU of its children that have exited and been waited for.
    static func processCPUSeconds(_ pid: Int32, reaped: Bool = false) -> Double {
        guard let fields = statFields(pid), fields.count > 14, let user = Double(fields[11]), let system = Double(fields[12])
        else { return 0 }
        var ticks = user + system
        if reaped, let childUser = Double(fields[13]), let childSystem = Double(fields[14]) { ticks += childUser + childSystem }
        return ticks / ticksPerSecond
    }

    /// The CPU of `root`'s process tree: every live descendant (found through the parent pid, field 4, of every
    /// process in /proc) and the children `root` has reaped. A backend that exits during a phase moves its CPU into
    /// the postmaster's cutime/cstime, so it is still counted.
    static func treeCPUSeconds(_ root: Int32) -> Double {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
        var children: [Int32: [Int32]] = [:]
        for entry in entries {
            guard let pid = Int32(entry), let fields = statFields(pid), fields.count > 1, let parent = Int32(fields[1]) else { continue }
            children[parent, default: []].append(pid)
        }
        var total = processCPUSeconds(root, reaped: true)
        var pending = children[root] ?? []
        while let pid = pending.popLast() {
            total += processCPUSeconds(pid)
            pending += children[pid] ?? []
        }
        return total
    }

    /// `serverSeconds` is the sum over all instances.
    static func take(serverPIDs: [Int32], postgresPID: Int32?) -> CPUSnapshot {
        let mine = processCPUSeconds(getpid())
        let server = serverPIDs.map { processCPUSeconds($0) }.reduce(0, +)
        let postgres = postgresPID.map(treeCPUSeconds) ?? 0
        var busy = 0.0
        var total = 0.0
        if let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8), let line = text.split(separator: "\n").first {
            let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            total = values.reduce(0, +)
            // idle + iowait are not busy
            busy = total - (values.count > 4 ? values[3] + values[4] : 0)
        }
        return CPUSnapshot(
            wall: .now, selfSeconds: mine, serverSeconds: server, postgresSeconds: postgres, machineBusy: busy / ticksPerSecond,
            machineTotal: total / ticksPerSecond)
    }
}

/// CPU seconds a phase used, by whom.
struct CPUUse: Sendable {
    var passkeyd = 0.0
    var postgres = 0.0
    var loadgen = 0.0
    /// Busy time of the whole machine (all cores).
    var machine = 0.0

    init() {}

    init(from before: CPUSnapshot, to after: CPUSnapshot) {
        passkeyd = after.serverSeconds - before.serverSeconds
        postgres = after.postgresSeconds - before.postgresSeconds
        loadgen = after.selfSeconds - before.selfSeconds
        machine = after.machineBusy - before.machineBusy
    }

    /// What no measured process accounts for: the kernel's softirq work on loopback, other tenants, …
    var other: Double { max(0, machine - passkeyd - postgres - loadgen) }

    /// µs of CPU per operation.
    struct PerOperation {
        let passkeyd: Double
        let postgres: Double
        let loadgen: Double
        let other: Double
        var server: Double { passkeyd + postgres }
    }

    func perOperation(_ operations: Int) -> PerOperation? {
        guard operations > 0 else { return nil }
        let scale = 1e6 / Double(operations)
        return PerOperation(passkeyd: passkeyd * scale, postgres: postgres * scale, loadgen: loadgen * scale, other: other * scale)
    }
}
