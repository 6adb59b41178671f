// Running one phase: `concurrency` virtual users in a closed loop, each with a keep-alive connection per instance,
// until the phase's request count or duration is reached; their outcomes merged into latencies, errors by kind,
// cross-instance ceremonies and the CPU the phase used.
import NIOCore
import Synchronization

func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return Double(whole) + Double(attoseconds) / 1e18
}

func nanos(_ duration: Duration) -> UInt64 { UInt64(max(0, seconds(duration) * 1e9)) }

final class Ticket: Sendable {
    private let counter = Atomic<Int>(0)
    func next() -> Int { counter.add(1, ordering: .relaxed).oldValue }
}

/// One virtual user's keep-alive connections, one per instance in --url order.
struct Connections: Sendable {
    let all: [HTTPConnection]

    /// Where iteration `index` sends its only request: round-robin over the instances.
    func spread(_ index: Int) -> HTTPConnection { all[index % all.count] }

    /// Where iteration `index` begins: round-robin, as `spread`.
    func begin(_ index: Int) -> HTTPConnection { spread(index) }

    /// Where iteration `index` finishes: the next instance, so with more than one the ceremony crosses instances.
    func finish(_ index: Int) -> HTTPConnection { all[(index + 1) % all.count] }

    /// Whether begin and finish of an iteration go to different instances.
    var crosses: Bool { all.count > 1 }

    static func connect(group: any EventLoopGroup, endpoints: [(host: String, port: Int)]) async throws -> Connections {
        var all: [HTTPConnection] = []
        for endpoint in endpoints { all.append(try await HTTPConnection.connect(group: group, host: endpoint.host, port: endpoint.port)) }
        return Connections(all: all)
    }

    func close() async {
        for connection in all { await connection.close() }
    }
}

/// What one iteration of a virtual user produced.
struct Outcome: Sendable {
    var begin: UInt64?
    var finish: UInt64?
    /// Time spent in this process between the two requests (signing or credential creation, JSON), in ns.
    var client: UInt64 = 0
    var error: String?
    /// A ceremony that began on one instance and finished, checked, on another.
    var crossed = false
}

struct PhaseResult: Sendable {
    var name: String
    var concurrency: Int
    var wall: Double
    var completed: Int
    var errors: [String: Int]
    var finish: [UInt64]
    var begin: [UInt64]
    var client: UInt64
    /// CPU seconds the phase used (passkeyd, PostgreSQL, this process, the machine).
    var cpu: CPUUse
    var bound: String
    /// Completed ceremonies that began on one instance and finished on another.
    var crossInstance = 0

    var errorCount: Int { errors.values.reduce(0, +) }
    var rate: Double { Double(completed) / wall }

    static func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
        return Double(sorted[index]) / 1e6
    }
}

/// Runs `concurrency` virtual users, each with its own keep-alive connection to every instance, until `limit`
/// iterations were handed out or `duration` passed. Iterations that throw or return an error are counted as errors
/// by message.
func runPhase(
    _ name: String, concurrency: Int, duration: Double, limit: Int, options: Options, group: any EventLoopGroup,
    endpoints: [(host: String, port: Int)], operation: @escaping @Sendable (Connections, Int) async -> Outcome
) async throws -> PhaseResult {
    var connections: [Connections] = []
    for _ in 0..<concurrency { connections.append(try await Connections.connect(group: group, endpoints: endpoints)) }
    let ticket = Ticket()
    let deadline = ContinuousClock.now + .milliseconds(Int64(duration * 1000))
    let before = CPUSnapshot.take(serverPIDs: options.serverPIDs, postgresPID: options.postgresPID)
    let perUser = try await withThrowingTaskGroup(of: PhaseResult.self) { group in
        for connection in connections {
            group.addTask {
                var result = PhaseResult(
                    name: name, concurrency: concurrency, wall: 0, completed: 0, errors: [:], finish: [], begin: [], client: 0,
                    cpu: CPUUse(), bound: "")
                while ContinuousClock.now < deadline {
                    let index = ticket.next()
                    if index >= limit { break }
                    let outcome = await operation(connection, index)
                    if let error = outcome.error {
                        result.errors[error, default: 0] += 1
                    } else {
                        result.completed += 1
                        if outcome.crossed { result.crossInstance += 1 }
                    }
                    if let finish = outcome.finish { result.finish.append(finish) }
                    if let begin = outcome.begin { result.begin.append(begin) }
                    result.client += outcome.client
                }
                return result
            }
        }
        var all: [PhaseResult] = []
        for try await result in group { all.append(result) }
        return all
    }
    let after = CPUSnapshot.take(serverPIDs: options.serverPIDs, postgresPID: options.postgresPID)
    for connection in connections { await connection.close() }
    let wall = seconds(after.wall - before.wall)
    var merged = PhaseResult(
        name: name, concurrency: concurrency, wall: wall, completed: 0, errors: [:], finish: [], begin: [], client: 0,
        cpu: CPUUse(from: before, to: after), bound: "")
    for part in perUser {
        merged.completed += part.completed
        merged.errors.merge(part.errors, uniquingKeysWith: +)
        merged.finish += part.finish
        merged.begin += part.begin
        merged.client += part.client
        merged.crossInstance += part.crossInstance
    }
    merged.finish.sort()
    merged.begin.sort()
    merged.bound = ticket.next() - concurrency >= limit ? "count (\(limit))" : "time (\(Int(duration)) s)"
    return merged
}
