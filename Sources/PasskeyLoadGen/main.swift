// passkeyd-loadgen: the load generator of scripts/loadbench.sh (see docs/benchmark.md).
//
// Against a running passkeyd (release build, same PASSKEYD_* environment as this process, so both build the same
// RelyingParty from PasskeyServerSupport.Settings), it:
//   1. seeds N users, each with one ES256 credential (real key generation; CSV + psql \copy), keeping the private
//      keys of a uniformly chosen working set;
//   2. warm-up: authentication begin + finish for a few seconds;
//   3. presigned: pending ceremonies are written straight into the ceremonies table (COPY), their assertions are
//      signed up front, and only POST /v1/authentication/finish is measured, at each concurrency;
//   4. mixed: POST /v1/authentication/begin over HTTP, sign in this process, POST …/finish, at each concurrency;
//   5. registration: POST /v1/registration/begin, create the credential in this process (key generation,
//      "none" attestation), POST …/finish (201), at each concurrency;
//   6. soak (optional): mixed authentication at the highest concurrency for S seconds, then server RSS again.
// Every response is checked (status and body shape); anything else is counted as an error by kind.
// --url may list several instances sharing one database (comma-separated): each virtual user keeps one connection
// per instance, iterations go round-robin over them, and a ceremony that begins on instance i finishes on instance
// (i + 1) mod n, so with n > 1 every begin + finish crosses instances (counted in the summary).
// Each phase stops at its request count or its duration, whichever comes first. Results go to stdout and, as
// Markdown, to --out; --results/--baseline write and read key figures so two runs can be compared.
// --compare-url/--compare-database-url add an interleaved comparison (Compare.swift): a second passkeyd on its own
// database with --compare-credentials (default 1,000,000), seeded by this process too, and after the phases above
// alternating rounds A, B, A, B, … (--repeats each) of pre-signed finishes and begin + finish at the highest
// concurrency, so the machine's drift affects both sides alike; medians and their ratio B / A go to the summary.
import COSECrypto
import Foundation
import NIOCore
import NIOPosix
import PasskeyServerSupport
import Synchronization
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

// MARK: options

struct Options {
    /// Base URLs of the instances (--url, comma-separated), all serving the same database.
    var urls = ["http://127.0.0.1:18090"]
    var databaseURL = ""
    var credentials = 10_000
    var workingSet = 50_000
    var concurrencies = [16, 64]
    var seconds = 10.0
    var requests = 200_000
    var presigned = 40_000
    var warmup = 3.0
    var soak = 0.0
    var phases: Set<String> = ["presigned", "mixed", "registration"]
    /// The instances' process ids (--server-pid, comma-separated): CPU and RSS are summed over them.
    var serverPIDs: [Int32] = []
    /// The postmaster's pid (--postgres-pid): PostgreSQL's CPU is that of its whole process tree.
    var postgresPID: Int32?
    var out: String?
    var results: String?
    var baseline: String?
    var label = ""
    /// perf record of the server during the pre-signed phase at the highest concurrency: the output file.
    var perfOutput: String?
    var workDirectory = NSTemporaryDirectory()
    /// The interleaved comparison (--compare-url): a second passkeyd on its own database, seeded here with
    /// `compareCredentials`, measured in alternating rounds against the first.
    var compareURLs: [String] = []
    var compareDatabaseURL = ""
    var compareCredentials = 1_000_000
    var compareServerPIDs: [Int32] = []
    /// Names of sides A and B when they are two builds rather than two table sizes (--compare-labels "A,B").
    var compareLabels: (a: String, b: String)?
    /// Rounds per side and phase in the interleaved comparison.
    var repeats = 3

    static let usage = """
        usage: passkeyd-loadgen --url URL[,URL…] --database-url PGURL [--credentials N] [--working-set W] [--concurrency 16,64]
               [--seconds S] [--requests R] [--presigned P] [--warmup S] [--soak S] [--phases presigned,mixed,registration]
               [--server-pid PID[,PID…]] [--postgres-pid PID] [--out FILE.md] [--results FILE.json] [--baseline FILE.json] [--label TEXT] [--work-dir DIR]
               [--perf-output FILE] [--compare-url URL --compare-database-url PGURL [--compare-credentials N]
               [--compare-server-pid PID] [--compare-labels A,B] [--repeats R]]
        """

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        func value(_ name: String) -> String {
            guard let value = iterator.next() else { Self.fail("\(name) needs a value") }
            return value
        }
        func number<T: LosslessStringConvertible>(_ name: String) -> T {
            guard let parsed = T(value(name)) else { Self.fail("\(name) needs a number") }
            return parsed
        }
        while let argument = iterator.next() {
            switch argument {
            case "--url": urls = value(argument).split(separator: ",").map(String.init)
            case "--database-url": databaseURL = value(argument)
            case "--credentials": credentials = number(argument)
            case "--working-set": workingSet = number(argument)
            case "--concurrency": concurrencies = value(argument).split(separator: ",").compactMap { Int($0) }
            case "--seconds": seconds = number(argument)
            case "--requests": requests = number(argument)
            case "--presigned": presigned = number(argument)
            case "--warmup": warmup = number(argument)
            case "--soak": soak = number(argument)
            case "--phases": phases = Set(value(argument).split(separator: ",").map(String.init))
            case "--server-pid":
                let text = value(argument)
                serverPIDs = text.split(separator: ",").compactMap { Int32($0) }
                if serverPIDs.count != text.split(separator: ",").count { Self.fail("--server-pid needs numbers") }
            case "--postgres-pid": postgresPID = number(argument)
            case "--out": out = value(argument)
            case "--results": results = value(argument)
            case "--baseline": baseline = value(argument)
            case "--label": label = value(argument)
            case "--work-dir": workDirectory = value(argument)
            case "--perf-output": perfOutput = value(argument)
            case "--compare-url": compareURLs = value(argument).split(separator: ",").map(String.init)
            case "--compare-database-url": compareDatabaseURL = value(argument)
            case "--compare-credentials": compareCredentials = number(argument)
            case "--compare-server-pid":
                let text = value(argument)
                compareServerPIDs = text.split(separator: ",").compactMap { Int32($0) }
                if compareServerPIDs.count != text.split(separator: ",").count { Self.fail("--compare-server-pid needs numbers") }
            case "--repeats": repeats = number(argument)
            case "--compare-labels":
                let parts = value(argument).split(separator: ",", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { Self.fail("--compare-labels needs two labels: A,B") }
                compareLabels = (parts[0], parts[1])
            default: Self.fail("unknown argument \(argument)")
            }
        }
        if databaseURL.isEmpty { Self.fail("--database-url is required") }
        if concurrencies.isEmpty { Self.fail("--concurrency needs at least one number") }
        if urls.isEmpty { Self.fail("--url needs at least one URL") }
        if compareURLs.isEmpty != compareDatabaseURL.isEmpty { Self.fail("--compare-url and --compare-database-url go together") }
        if repeats < 1 { Self.fail("--repeats needs at least 1") }
    }

    /// Whether the interleaved comparison runs.
    var comparing: Bool { !compareURLs.isEmpty }

    /// These options aimed at the comparison's second passkeyd and its database.
    var compareSide: Options {
        var side = self
        side.urls = compareURLs
        side.databaseURL = compareDatabaseURL
        side.serverPIDs = compareServerPIDs
        side.credentials = compareCredentials
        return side
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("passkeyd-loadgen: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
}

// MARK: measurement helpers

func rssKiB(_ pid: Int32?) -> Int? {
    guard let pid, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }
    return nil
}

/// VmRSS summed over the instances; nil if none could be read.
func rssKiB(_ pids: [Int32]) -> Int? {
    let readings = pids.compactMap { rssKiB($0) }
    return readings.isEmpty ? nil : readings.reduce(0, +)
}

/// Starts `arguments` (absolute path first) without waiting; nil if it cannot start. (posix_spawn: Foundation's
/// Process.waitUntilExit hung here on Linux when called from the main actor during a phase.)
func spawn(_ arguments: [String]) -> pid_t? {
    var pid: pid_t = 0
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    // The child starts with default signal handling (this process's runtime may ignore SIGCHLD or SIGPIPE, and
    // ignored signals stay ignored across exec).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGCHLD, SIGPIPE, SIGINT, SIGTERM] { sigaddset(&defaults, signal) }
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    let rc = posix_spawn(&pid, arguments[0], nil, &attributes, &argv, environ)
    return rc == 0 ? pid : nil
}

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

// MARK: request and response checks

struct FinishBody<Credential: Encodable>: Encodable {
    let credential: Credential
}

struct BeginAuthenticationAnswer: Decodable { let publicKey: RequestOptionsJSON }
struct BeginRegistrationAnswer: Decodable { let publicKey: CreationOptionsJSON }

/// "HTTP 400 challenge_unknown_or_expired" for an error body, "HTTP 502" otherwise.
func describe(_ result: HTTPResult, _ step: String) -> String {
    var code = ""
    if let object = try? JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any],
        let error = object["error"] as? [String: Any], let text = error["code"] as? String
    {
        code = " " + text
    }
    return "\(step): HTTP \(result.status)\(code)"
}

/// 200 {"user":{…},"credential":{"id": expected,…},"userVerified":true,"signCountStatus":…}
func checkAuthenticationFinish(_ result: HTTPResult, credentialID: String) -> String? {
    guard result.status == 200 else { return describe(result, "authentication finish") }
    guard let object = try? JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any],
        object["user"] is [String: Any], let credential = object["credential"] as? [String: Any],
        credential["id"] as? String == credentialID, object["userVerified"] as? Bool == true, object["signCountStatus"] != nil
    else { return "authentication finish: 200 with an unexpected body" }
    return nil
}

/// 201 {"user":{"id",…},"credential":{"id": expected,…}}
func checkRegistrationFinish(_ result: HTTPResult, credentialID: String) -> String? {
    guard result.status == 201 else { return describe(result, "registration finish") }
    guard let object = try? JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any],
        let user = object["user"] as? [String: Any], user["id"] is String, let credential = object["credential"] as? [String: Any],
        credential["id"] as? String == credentialID
    else { return "registration finish: 201 with an unexpected body" }
    return nil
}

/// Appends `text` to the file at `path`, creating it if needed.
func append(_ text: String, to path: String) throws {
    if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seekToEnd()
    handle.write(Data(text.utf8))
    try handle.close()
}

// MARK: main

let options = Options(CommandLine.arguments)
/// Host and port of each URL; exits with usage for anything else.
func parseEndpoints(_ urls: [String], _ name: String) -> [(host: String, port: Int)] {
    urls.map { text in
        guard let url = URL(string: text), let host = url.host, let port = url.port else {
            Options.fail("\(name) must look like http://127.0.0.1:PORT[,http://127.0.0.1:PORT2…]")
        }
        return (host, port)
    }
}
let endpoints = parseEndpoints(options.urls, "--url")
let settings: Settings
do {
    settings = try Settings.load(environment: ProcessInfo.processInfo.environment.merging(
        ["PASSKEYD_DATABASE_URL": options.databaseURL], uniquingKeysWith: { old, _ in old }))
} catch {
    Options.fail("the PASSKEYD_* environment does not load: \(error)")
}
let relyingParty = settings.relyingParty
/// The origin the assertions and registrations claim: the first allowed one.
let origin: String = {
    guard let first = relyingParty.allowedOrigins.sorted().first else { Options.fail("no origin configured") }
    return first
}()
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let runID = String(UInt64(Date().timeIntervalSince1970 * 1000), radix: 36)
var report: [String] = []
/// Per phase: completed ceremonies that began on one instance and finished on another (several instances only).
var crossInstance: [String] = []
var figures: [String: Double] = [:]
func log(_ line: String) { FileHandle.standardError.write(Data("loadgen: \(line)\n".utf8)) }

let rssStart = rssKiB(options.serverPIDs)
log("\(options.label): seeding \(options.credentials) users + credentials (working set \(min(options.workingSet, options.credentials)))")
let seedClock = ContinuousClock.now
let seeder = Seeder(
    databaseURL: options.databaseURL, rpID: relyingParty.id, origin: origin, directory: URL(fileURLWithPath: options.workDirectory))
let workingSet = try seeder.seed(count: options.credentials, workingSet: options.workingSet)
let seedSeconds = seconds(ContinuousClock.now - seedClock)
log(String(format: "seeded in %.1f s", seedSeconds))
figures["seed_seconds"] = seedSeconds
let interleaved = try options.comparing ? seedComparison() : nil

/// begin {} over HTTP → sign here → finish (on the next instance when there are several); the credential is drawn
/// uniformly from `workingSet`.
func makeMixed(workingSet: [SoftCredential]) -> @Sendable (Connections, Int) async -> Outcome {
    { connections, index in
        var outcome = Outcome()
        do {
            let t0 = ContinuousClock.now
            let begin = try await connections.begin(index).post("/v1/authentication/begin", Array("{}".utf8))
            let t1 = ContinuousClock.now
            outcome.begin = nanos(t1 - t0)
            guard begin.status == 200, let answer = try? JSONDecoder().decode(BeginAuthenticationAnswer.self, from: Data(begin.body)),
                !answer.publicKey.challenge.isEmpty
            else {
                outcome.error = describe(begin, "authentication begin")
                return outcome
            }
            var credential = workingSet.randomElement()!
            var knobs = AssertionKnobs(origin: origin)
            knobs.counterIncrement = 0  // counter 0 stays 0 (as synced passkeys send): concurrent uses of one credential never race
            let assertion = try SoftAuthenticator.authenticate(options: answer.publicKey, credential: &credential, knobs: knobs)
            let body = Array(try JSONEncoder().encode(FinishBody(credential: assertion)))
            let t2 = ContinuousClock.now
            outcome.client = nanos(t2 - t1)
            let finish = try await connections.finish(index).post("/v1/authentication/finish", body)
            outcome.finish = nanos(ContinuousClock.now - t2)
            outcome.error = checkAuthenticationFinish(finish, credentialID: assertion.id)
            outcome.crossed = connections.crosses
        } catch {
            outcome.error = "authentication: \(error)"
        }
        return outcome
    }
}
let mixed = makeMixed(workingSet: workingSet)

/// registration begin for a new name over HTTP → create the credential here ("none" attestation) → finish (on the
/// next instance when there are several), checked; names are unique per run, `prefix` and iteration.
func makeRegistration(prefix: String) -> @Sendable (Connections, Int) async -> Outcome {
    { connections, index in
        var outcome = Outcome()
        do {
            let name = "lb-reg-\(runID)-\(prefix)-\(index)"
            let t0 = ContinuousClock.now
            let begin = try await connections.begin(index).post(
                "/v1/registration/begin", Array("{\"user\":{\"name\":\"\(name)\",\"displayName\":\"Load Bench\"}}".utf8))
            let t1 = ContinuousClock.now
            outcome.begin = nanos(t1 - t0)
            guard begin.status == 200,
                let answer = try? JSONDecoder().decode(BeginRegistrationAnswer.self, from: Data(begin.body)),
                answer.publicKey.user.name == name
            else {
                outcome.error = describe(begin, "registration begin")
                return outcome
            }
            let (response, _) = try SoftAuthenticator.register(options: answer.publicKey, knobs: RegistrationKnobs(origin: origin))
            let body = Array(try JSONEncoder().encode(FinishBody(credential: response)))
            let t2 = ContinuousClock.now
            outcome.client = nanos(t2 - t1)
            let finish = try await connections.finish(index).post("/v1/registration/finish", body)
            outcome.finish = nanos(ContinuousClock.now - t2)
            outcome.error = checkRegistrationFinish(finish, credentialID: response.id)
            outcome.crossed = connections.crosses
        } catch {
            outcome.error = "registration: \(error)"
        }
        return outcome
    }
}

/// Pending ceremonies written into `seeder`'s table and their assertions signed up front with credentials of
/// `workingSet` (not measured).
func presign(count: Int, seeder: Seeder, workingSet: [SoftCredential]) throws -> [(body: [UInt8], credentialID: String)] {
    var ceremonies: [(challenge: [UInt8], state: [UInt8], expiresAt: Date)] = []
    var requests: [(body: [UInt8], credentialID: String)] = []
    ceremonies.reserveCapacity(count)
    requests.reserveCapacity(count)
    let encoder = JSONEncoder()
    for _ in 0..<count {
        // What POST /v1/authentication/begin {} does, minus HTTP: a discoverable request and its state.
        let (request, state) = relyingParty.beginAuthentication(allowCredentials: [], userHandle: nil, now: Date())
        ceremonies.append((state.challenge, state.stateBytes, state.expiresAt))
        var credential = workingSet.randomElement()!
        var knobs = AssertionKnobs(origin: origin)
        knobs.counterIncrement = 0
        let assertion = try SoftAuthenticator.authenticate(options: request, credential: &credential, knobs: knobs)
        requests.append((Array(try encoder.encode(FinishBody(credential: assertion))), assertion.id))
    }
    try seeder.insertCeremonies(ceremonies)
    return requests
}

/// POST /v1/authentication/finish of pre-signed request `index` (round-robin over the instances), checked.
func presignedFinish(_ prepared: [(body: [UInt8], credentialID: String)]) -> @Sendable (Connections, Int) async -> Outcome {
    { connections, index in
        let request = prepared[index]
        let t0 = ContinuousClock.now
        do {
            let answer = try await connections.spread(index).post("/v1/authentication/finish", request.body)
            return Outcome(finish: nanos(ContinuousClock.now - t0), error: checkAuthenticationFinish(answer, credentialID: request.credentialID))
        } catch {
            return Outcome(error: "authentication finish: \(error)")
        }
    }
}

@MainActor func record(_ result: PhaseResult, key: String) {
    let p50 = PhaseResult.percentile(result.finish, 0.5)
    let p99 = PhaseResult.percentile(result.finish, 0.99)
    let p999 = PhaseResult.percentile(result.finish, 0.999)
    figures["\(key)_rate"] = result.rate
    figures["\(key)_p50"] = p50
    figures["\(key)_p99"] = p99
    figures["\(key)_p999"] = p999
    figures["\(key)_errors"] = Double(result.errorCount)
    figures["\(key)_cross"] = Double(result.crossInstance)
    figures["\(key)_completed"] = Double(result.completed)
    if endpoints.count > 1 && result.crossInstance > 0 {
        crossInstance.append("\(result.name), c=\(result.concurrency): \(result.crossInstance) of \(result.completed)")
    }
    // Wall time a virtual user spent in this process between its two requests (signing or creating, JSON), per iteration.
    let clientMicros = result.completed > 0 ? Double(result.client) / 1e3 / Double(result.completed + result.errorCount) : 0
    var begin = ""
    if !result.begin.isEmpty {
        begin = String(
            format: "%.2f / %.2f / %.2f", PhaseResult.percentile(result.begin, 0.5), PhaseResult.percentile(result.begin, 0.99),
            PhaseResult.percentile(result.begin, 0.999))
    }
    let errors = result.errors.isEmpty ? "0" : result.errors.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }.joined(separator: "; ")
    // CPU per completed operation (a failed one costs too, but there are none in a good run).
    let perOperation = result.cpu.perOperation(result.completed)
    if let perOperation {
        figures["\(key)_passkeyd_us"] = perOperation.passkeyd
        figures["\(key)_postgres_us"] = perOperation.postgres
        figures["\(key)_loadgen_us"] = perOperation.loadgen
        figures["\(key)_server_us"] = perOperation.server
    }
    func micros(_ value: Double?) -> String { value.map { String(format: "%.0f", $0) } ?? "–" }
    let postgres = options.postgresPID == nil ? "n/a" : micros(perOperation?.postgres)
    let server = options.postgresPID == nil ? "n/a" : "**\(micros(perOperation?.server))**"
    let row = String(
        format: "| %@ | %d | %d | %@ | **%.0f** | %@ | %@ | %@ | %@%@ | %@ | %.0f%% | %.2f / %.2f / %.2f | %@ | %.1f s, %@ |",
        result.name, result.concurrency, result.completed, errors, result.rate, server, micros(perOperation?.passkeyd), postgres,
        micros(perOperation?.loadgen), clientMicros > 0 ? String(format: " (%.0f µs/iter client work)", clientMicros) : "",
        micros(perOperation?.other), result.cpu.machine / result.wall * 100, p50, p99, p999, begin.isEmpty ? "–" : begin,
        result.wall, result.bound)
    report.append(row)
    log(row)
}

do {
    let header = """
        | scenario | conc. | completed | errors | per s | server CPU µs/op (passkeyd + PostgreSQL) | passkeyd µs/op | PostgreSQL µs/op | loadgen µs/op | other µs/op (kernel softirq, …) | machine busy (of \(ProcessInfo.processInfo.activeProcessorCount * 100)%) | finish p50 / p99 / p99.9 ms | begin p50 / p99 / p99.9 ms | ran |
        |---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|
        """
    report.append(header)
    if options.warmup > 0 {
        let warm = try await runPhase(
            "warm-up (mixed)", concurrency: options.concurrencies.first!, duration: options.warmup, limit: options.requests,
            options: options, group: group, endpoints: endpoints, operation: mixed)
        record(warm, key: "warmup")
    }
    let rssWarm = rssKiB(options.serverPIDs)
    let maxConcurrency = options.concurrencies.max()!

    if options.phases.contains("presigned") {
        for concurrency in options.concurrencies {
            log("pre-signing \(options.presigned) finishes for concurrency \(concurrency)")
            let prepared = try presign(count: options.presigned, seeder: seeder, workingSet: workingSet)
            var perf: pid_t?
            if concurrency == maxConcurrency, let output = options.perfOutput, !options.serverPIDs.isEmpty {
                // Records the whole phase (every instance); stopped with SIGINT when it ends.
                let pids = options.serverPIDs.map(String.init).joined(separator: ",")
                perf = spawn(["/usr/bin/perf", "record", "-q", "-F", "999", "-g", "-p", pids, "-o", output])
            }
            // perf record costs the server CPU: the row says so (the other phases and the comparisons run without it).
            let result = try await runPhase(
                perf == nil ? "auth finish, pre-signed" : "auth finish, pre-signed, under perf record", concurrency: concurrency,
                duration: options.seconds, limit: prepared.count,
                options: options, group: group, endpoints: endpoints, operation: presignedFinish(prepared))
            record(result, key: "presigned\(concurrency)")
            if let perf {
                var status: Int32 = 0
                kill(perf, SIGINT)
                while waitpid(perf, &status, 0) == -1 && errno == EINTR {}
                log("perf record: wait status \(status), \(options.perfOutput ?? "")")
            }
            // Ceremonies a time-bounded phase did not use would only sit in the table until the purge: remove them.
            try psql(options.databaseURL, "DELETE FROM ceremonies")
        }
    }
    if options.phases.contains("mixed") {
        for concurrency in options.concurrencies {
            let result = try await runPhase(
                "auth begin + sign + finish", concurrency: concurrency, duration: options.seconds, limit: options.requests,
                options: options, group: group, endpoints: endpoints, operation: mixed)
            record(result, key: "mixed\(concurrency)")
        }
    }
    if options.phases.contains("registration") {
        for concurrency in options.concurrencies {
            let result = try await runPhase(
                "registration begin + create + finish", concurrency: concurrency, duration: options.seconds,
                limit: options.requests, options: options, group: group, endpoints: endpoints,
                operation: makeRegistration(prefix: "\(concurrency)"))
            record(result, key: "registration\(concurrency)")
        }
    }
    let rssAfterPhases = rssKiB(options.serverPIDs)
    var rssSoak: Int?
    if options.soak > 0 {
        let result = try await runPhase(
            "soak: auth begin + sign + finish", concurrency: maxConcurrency, duration: options.soak, limit: Int.max,
            options: options, group: group, endpoints: endpoints, operation: mixed)
        record(result, key: "soak")
        rssSoak = rssKiB(options.serverPIDs)
    }

    // MARK: the Markdown section
    func mib(_ kib: Int?) -> String { kib.map { String(format: "%.1f MiB", Double($0) / 1024) } ?? "n/a" }
    var section: [String] = []
    section.append("### \(options.label.isEmpty ? "\(options.credentials) credentials" : options.label)")
    section.append("")
    section.append(String(
        format: "%d users with one ES256 credential each, seeded in %.1f s (key generation + CSV + `\\copy`); working set %d credentials drawn uniformly from the table. Phases at most %.0f s or %d requests (pre-signed: %d per concurrency).",
        options.credentials, seedSeconds, workingSet.count, options.seconds, options.requests, options.presigned))
    section.append("")
    if endpoints.count > 1 {
        section.append(
            "\(endpoints.count) passkeyd instances (\(options.urls.joined(separator: ", "))) on one database; every virtual user keeps a connection to each, iterations go round-robin over them, and a ceremony begun on instance i is finished on instance (i + 1) mod \(endpoints.count). passkeyd CPU and RSS are summed over the instances.")
        section.append("")
    }
    section += report
    section.append("")
    if !crossInstance.isEmpty {
        section.append("Ceremonies begun on one instance and finished (and checked) on another: " + crossInstance.joined(separator: "; ") + ".")
        section.append("")
    }
    var rssLine = "passkeyd RSS (VmRSS\(endpoints.count > 1 ? ", sum of \(endpoints.count) instances" : "")): start \(mib(rssStart)), after warm-up \(mib(rssWarm)), after the phases \(mib(rssAfterPhases))"
    if let rssSoak {
        rssLine += String(format: ", after a %.0f s soak at concurrency %d %@", options.soak, maxConcurrency, mib(rssSoak))
        if let rssAfterPhases, rssAfterPhases > 0 {
            rssLine += String(format: " (%+.1f%% over the soak)", (Double(rssSoak) / Double(rssAfterPhases) - 1) * 100)
        }
    }
    section.append(rssLine + ".")
    if let baselinePath = options.baseline, let data = FileManager.default.contents(atPath: baselinePath),
        let baseline = try? JSONDecoder().decode([String: Double].self, from: data)
    {
        section.append("")
        section.append("Compared with the baseline run (\(Int(baseline["credentials"] ?? 0)) credentials):")
        section.append("")
        section.append("| figure | baseline | this run | ratio |")
        section.append("|---|---:|---:|---:|")
        for key in figures.keys.sorted() where key.hasSuffix("_rate") || key.hasSuffix("_p99") {
            guard let before = baseline[key], let now = figures[key], !key.hasPrefix("warmup") else { continue }
            section.append(String(format: "| %@ | %.2f | %.2f | %.1f%% |", key, before, now, now / before * 100))
        }
    }
    // Issue 15's targets (CPU per operation first) and the first round's reference (py_webauthn + Django +
    // PostgreSQL on this machine: 580 finishes/s at 16 connections, 335 registrations/s), as ratios.
    var comparison: [String] = []
    func verdict(_ met: Bool) -> String { met ? "**met**" : "**missed**" }
    for concurrency in options.concurrencies {
        if let server = figures["presigned\(concurrency)_server_us"] {
            comparison.append(String(
                format: "| server CPU per auth finish (pre-signed), c=%d | %.0f µs (passkeyd %.0f + PostgreSQL %.0f) | ≤ 250 µs | %@ |", concurrency,
                server, figures["presigned\(concurrency)_passkeyd_us"] ?? .nan, figures["presigned\(concurrency)_postgres_us"] ?? .nan,
                verdict(server <= 250)))
        }
        if let server = figures["mixed\(concurrency)_server_us"] {
            comparison.append(String(
                format: "| server CPU per begin + finish sign-in, c=%d | %.0f µs (passkeyd %.0f + PostgreSQL %.0f) | ≤ 500 µs | %@ |", concurrency,
                server, figures["mixed\(concurrency)_passkeyd_us"] ?? .nan, figures["mixed\(concurrency)_postgres_us"] ?? .nan,
                verdict(server <= 500)))
        }
    }
    for concurrency in options.concurrencies {
        guard let rate = figures["presigned\(concurrency)_rate"] else { continue }
        let p99 = figures["presigned\(concurrency)_p99"] ?? .nan
        let errors = Int(figures["presigned\(concurrency)_errors"] ?? 0)
        let p99Target = concurrency == 16 ? 5.0 : nil
        comparison.append(String(
            format: "| auth finishes/s (pre-signed), c=%d | %.0f/s (%.1f× the reference 580/s), p99 %.1f ms, %d errors | ≥ 5,800/s, 0 errors%@ | %@ |",
            concurrency, rate, rate / 580, p99, errors, p99Target.map { String(format: ", p99 ≤ %.0f ms", $0) } ?? "",
            verdict(rate >= 5800 && errors == 0 && (p99Target.map { p99 <= $0 } ?? true))))
    }
    for concurrency in options.concurrencies {
        guard let rate = figures["registration\(concurrency)_rate"] else { continue }
        comparison.append(String(
            format: "| registration pairs/s, c=%d | %.0f/s (%.1f× the reference 335/s), p99 %.1f ms | ≥ 2,500/s | %@ |", concurrency, rate,
            rate / 335, figures["registration\(concurrency)_p99"] ?? .nan,
            verdict(rate >= 2500 && figures["registration\(concurrency)_errors"] == 0)))
    }
    if !comparison.isEmpty {
        section.append("")
        section.append("Against issue 15's targets (server CPU is passkeyd's plus PostgreSQL's whole process tree, per completed operation):")
        section.append("")
        section.append("| figure | measured | target | |")
        section.append("|---|---|---|---|")
        section += comparison
    }
    figures["credentials"] = Double(options.credentials)
    if let rssStart { figures["rss_start_kib"] = Double(rssStart) }
    if let rssWarm { figures["rss_warm_kib"] = Double(rssWarm) }
    if let rssAfterPhases { figures["rss_after_kib"] = Double(rssAfterPhases) }
    if let rssSoak { figures["rss_soak_kib"] = Double(rssSoak) }
    let markdown = section.joined(separator: "\n") + "\n\n"
    print(markdown, terminator: "")
    if let out = options.out { try append(markdown, to: out) }
    if let interleaved {
        let markdown = try await interleaved.run().joined(separator: "\n") + "\n\n"
        print(markdown, terminator: "")
        if let out = options.out { try append(markdown, to: out) }
    }
    if let results = options.results {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(figures).write(to: URL(fileURLWithPath: results))
    }
    try await group.shutdownGracefully()
} catch {
    log("failed: \(error)")
    exit(1)
}
