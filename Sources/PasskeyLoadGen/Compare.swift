// The interleaved comparison (--compare-url, scripts/loadbench.sh --million): side A is the main passkeyd and
// database (--url, --database-url, --credentials), side B a second passkeyd on its own database seeded here with
// --compare-credentials. After a begin + finish warm-up of each side, every authentication phase runs in short
// alternating rounds A, B, A, B, … (--repeats each, at the highest concurrency, each round bounded like the other
// phases by --seconds and its request count), so the machine's run-to-run drift affects both sides alike. Medians
// per side and their ratio B / A go to the summary, with the verdict against "within 10%".
// With --compare-labels the two sides are two builds of passkeyd (scripts/loadbench.sh --compare-binary) on
// databases of the same size: the rounds include registration, and the section gives the medians of throughput
// and of server CPU per operation with their ratios, the before/after measure of a change.
import Foundation
import NIOCore
import WebAuthnTestSupport

/// One side of the comparison: its passkeyd instances, its database and the credentials seeded into it.
struct ComparisonSide: Sendable {
    /// "A" or "B".
    let letter: String
    let credentials: Int
    /// This side's URLs, database and server pids (the rest as the main options).
    let options: Options
    let endpoints: [(host: String, port: Int)]
    let seeder: Seeder
    let workingSet: [SoftCredential]

    /// The side's label (--compare-labels), or its table size.
    let label: String?

    var name: String { "\(letter): \(label ?? grouped(credentials))" }
}

/// One authentication phase of the comparison, measured at the highest concurrency.
enum ComparisonPhase: CaseIterable {
    case presigned
    case mixed
    case registration

    var title: String {
        switch self {
        case .presigned: "auth finish, pre-signed"
        case .mixed: "auth begin + sign + finish"
        case .registration: "registration begin + create + finish"
        }
    }

    /// Key of the figures written to --results.
    var key: String {
        switch self {
        case .presigned: "presigned"
        case .mixed: "mixed"
        case .registration: "registration"
        }
    }
}

/// What one round of one side measured.
struct ComparisonRound {
    let rate: Double
    let p99: Double
    let errors: [String: Int]
    let bound: String
    /// µs of CPU per completed operation.
    let cpu: CPUUse.PerOperation?
}

/// 1000000 → "1,000,000".
func grouped(_ number: Int) -> String {
    var digits = Array(String(number))
    var index = digits.count - 3
    while index > 0 {
        digits.insert(",", at: index)
        index -= 3
    }
    return String(digits)
}

/// The middle value (the mean of the two middle ones for an even count); NaN for none.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Seeds side B's database (side A is the main run's, already seeded) and returns both sides.
@MainActor func seedComparison() throws -> Comparison {
    let sideOptions = options.compareSide
    // The same number of signing credentials as side A (drawn uniformly from B's larger table), so the rounds differ
    // only in the table's size, not in how many distinct keys and rows are active.
    let sideWorkingSetSize = min(workingSet.count, sideOptions.credentials)
    log("comparison: seeding \(sideOptions.credentials) users + credentials into the second database (working set \(sideWorkingSetSize))")
    let clock = ContinuousClock.now
    let sideSeeder = Seeder(
        databaseURL: sideOptions.databaseURL, rpID: seeder.rpID, origin: seeder.origin, directory: URL(fileURLWithPath: options.workDirectory))
    let sideWorkingSet = try sideSeeder.seed(count: sideOptions.credentials, workingSet: sideWorkingSetSize)
    let seeded = seconds(ContinuousClock.now - clock)
    log(String(format: "comparison: seeded in %.1f s", seeded))
    figures["compare_seed_seconds"] = seeded
    let a = ComparisonSide(
        letter: "A", credentials: options.credentials, options: options, endpoints: endpoints, seeder: seeder, workingSet: workingSet,
        label: options.compareLabels?.a)
    let b = ComparisonSide(
        letter: "B", credentials: sideOptions.credentials, options: sideOptions,
        endpoints: parseEndpoints(sideOptions.urls, "--compare-url"), seeder: sideSeeder, workingSet: sideWorkingSet,
        label: options.compareLabels?.b)
    return Comparison(a: a, b: b, seedSeconds: seeded)
}

/// The two sides and, once run, their rounds.
@MainActor final class Comparison {
    let a: ComparisonSide
    let b: ComparisonSide
    let seedSeconds: Double
    let concurrency: Int
    /// Builds compared (--compare-labels) rather than table sizes: registration is measured too, and no verdict.
    let buildComparison: Bool
    let phases: [ComparisonPhase]
    /// Rounds per phase, then per side letter, in the order they ran.
    var rounds: [ComparisonPhase: [String: [ComparisonRound]]] = [:]
    /// Errors of the warm-ups, per side letter.
    var warmupErrors: [String: [String: Int]] = [:]

    init(a: ComparisonSide, b: ComparisonSide, seedSeconds: Double) {
        self.a = a
        self.b = b
        self.seedSeconds = seedSeconds
        concurrency = options.concurrencies.max()!
        buildComparison = options.compareLabels != nil
        phases = buildComparison ? ComparisonPhase.allCases : [.presigned, .mixed]
    }

    /// Warms both sides up, runs the alternating rounds of every phase and returns the Markdown section.
    func run() async throws -> [String] {
        if options.warmup > 0 {
            for side in [a, b] {
                let warm = try await runPhase(
                    "comparison warm-up \(side.letter)", concurrency: concurrency, duration: options.warmup, limit: options.requests,
                    options: side.options, group: group, endpoints: side.endpoints, operation: makeMixed(workingSet: side.workingSet))
                warmupErrors[side.letter] = warm.errors
                log(String(format: "comparison warm-up %@: %.0f/s, %d errors", side.name, warm.rate, warm.errorCount))
            }
        }
        for phase in phases {
            for repeat_ in 1...options.repeats {
                for side in [a, b] {
                    let round = try await runRound(phase, side: side)
                    rounds[phase, default: [:]][side.letter, default: []].append(round)
                    log(String(
                        format: "comparison %@ round %d, %@: %.0f/s, p99 %.1f ms, server %.0f µs/op, %d errors, bound by %@",
                        phase.title, repeat_, side.name, round.rate, round.p99, round.cpu?.server ?? .nan,
                        round.errors.values.reduce(0, +), round.bound))
                }
            }
        }
        return markdown()
    }

    static let unusedCeremonies = """
        DELETE FROM ceremonies; DO $$ BEGIN IF to_regclass('go_ceremonies') IS NOT NULL THEN DELETE FROM go_ceremonies; END IF; END $$
        """

    /// One round of `phase` against `side`; pre-signed rounds first begin their own ceremonies on that side (over
    /// HTTP) and remove unused table-mode ones afterwards.
    func runRound(_ phase: ComparisonPhase, side: ComparisonSide) async throws -> ComparisonRound {
        let result: PhaseResult
        switch phase {
        case .presigned:
            let prepared = try await presign(count: options.presigned, group: group, endpoints: side.endpoints, workingSet: side.workingSet)
            result = try await runPhase(
                phase.title, concurrency: concurrency, duration: options.seconds, limit: prepared.count, options: side.options,
                group: group, endpoints: side.endpoints, operation: presignedFinish(prepared))
            // Ceremonies the round began but did not finish: passkeyd's on the ceremony table, and the Go reference
            // server's (scripts/bench/go-reference), so the next round starts from the same state on either side.
            try psql(side.options.databaseURL, Self.unusedCeremonies)
        case .mixed:
            result = try await runPhase(
                phase.title, concurrency: concurrency, duration: options.seconds, limit: options.requests, options: side.options,
                group: group, endpoints: side.endpoints, operation: makeMixed(workingSet: side.workingSet))
        case .registration:
            result = try await runPhase(
                phase.title, concurrency: concurrency, duration: options.seconds, limit: options.requests, options: side.options,
                group: group, endpoints: side.endpoints, operation: makeRegistration(prefix: "cmp\(side.letter)-\(rounds[phase]?[side.letter]?.count ?? 0)"))
        }
        return ComparisonRound(
            rate: result.rate, p99: PhaseResult.percentile(result.finish, 0.99), errors: result.errors, bound: result.bound,
            cpu: result.cpu.perOperation(result.completed))
    }

    /// Errors of all rounds of `letter`'s side, by kind.
    func errors(_ letter: String) -> [String: Int] {
        var all: [String: Int] = [:]
        for phase in phases {
            for round in rounds[phase]?[letter] ?? [] { all.merge(round.errors, uniquingKeysWith: +) }
        }
        return all
    }

    /// The section: how it ran, the table of rounds, medians and ratios, and (table sizes) one verdict line per phase.
    func markdown() -> [String] {
        let rest = (1..<options.repeats).map { "round \($0 + 1) |" }
        let how: String
        if buildComparison {
            how = String(
                format: "Two servers (two builds of passkeyd, or passkeyd and another server with the same API), each on its own database of %@ users with one ES256 credential (working set %@): A %@, B %@. Both are driven by this one load generator in alternating rounds A, B, A, B, … (%d each per phase, concurrency %d, each round at most %.0f s or %d requests, pre-signed: %d ceremonies begun over HTTP on that side and signed before each round, not measured), so the machine's drift affects both sides alike; server CPU per operation is the server process's plus PostgreSQL's whole process tree, read from /proc around each round. Each side had a %.0f s begin + finish warm-up first (not in the table). Every response is checked.",
                grouped(a.credentials), grouped(a.workingSet.count), a.label ?? "", b.label ?? "", options.repeats, concurrency,
                options.seconds, options.requests, options.presigned, options.warmup)
        } else {
            how = String(
                format: "Two passkeyd processes, each on its own database: A with %@ users (the run above), B with %@ (one ES256 credential each, seeded in %.1f s; working set %@ credentials). Both are driven by this one load generator in alternating rounds A, B, A, B, … (%d each per phase, concurrency %d, each round at most %.0f s or %d requests, pre-signed: %d ceremonies begun over HTTP on that side and signed before each round, not measured), so the machine's drift affects both sides alike. Each side had a %.0f s begin + finish warm-up first (not in the table). Every response is checked.",
                grouped(a.credentials), grouped(b.credentials), seedSeconds, grouped(b.workingSet.count), options.repeats, concurrency,
                options.seconds, options.requests, options.presigned, options.warmup)
        }
        var lines = [
            buildComparison
                ? "### \(durabilityTag)Interleaved: \(a.name) vs \(b.name)"
                : "### \(durabilityTag)Interleaved: \(grouped(a.credentials)) vs \(grouped(b.credentials)) credentials",
            "",
            how,
            "",
            "| phase, c=\(concurrency) | side | round 1 req/s, p99 ms, server µs/op | " + rest.joined(separator: " ")
                + " median req/s | median p99 ms | median server CPU µs/op | server process µs/op | PostgreSQL µs/op | errors |",
            "|---|---|" + String(repeating: "---:|", count: options.repeats + 6),
        ]
        var verdicts: [String] = []
        for phase in phases {
            var medians: [String: (rate: Double, p99: Double, server: Double, passkeyd: Double, postgres: Double)] = [:]
            for side in [a, b] {
                let sideRounds = rounds[phase]?[side.letter] ?? []
                let values = (
                    rate: median(sideRounds.map(\.rate)), p99: median(sideRounds.map(\.p99)),
                    server: median(sideRounds.compactMap { $0.cpu?.server }),
                    passkeyd: median(sideRounds.compactMap { $0.cpu?.passkeyd }),
                    postgres: median(sideRounds.compactMap { $0.cpu?.postgres }))
                medians[side.letter] = values
                let errorCount = sideRounds.reduce(0) { $0 + $1.errors.values.reduce(0, +) }
                let cells = sideRounds.map { String(format: "%.0f, %.1f, %.0f", $0.rate, $0.p99, $0.cpu?.server ?? .nan) }
                    .joined(separator: " | ")
                lines.append(String(
                    format: "| %@%@ | %@ | %@ | **%.0f** | %.1f | **%.0f** | %.0f | %.0f | %d |", durabilityTag, phase.title, side.name, cells, values.rate,
                    values.p99, values.server, values.passkeyd, values.postgres, errorCount))
                figures["compare_\(phase.key)_\(side.letter)_rate"] = values.rate
                figures["compare_\(phase.key)_\(side.letter)_p99"] = values.p99
                figures["compare_\(phase.key)_\(side.letter)_server_us"] = values.server
                figures["compare_\(phase.key)_\(side.letter)_errors"] = Double(errorCount)
            }
            let (sideA, sideB) = (medians["A"]!, medians["B"]!)
            let rateRatio = sideB.rate / sideA.rate
            let p99Ratio = sideB.p99 / sideA.p99
            figures["compare_\(phase.key)_ratio"] = rateRatio
            figures["compare_\(phase.key)_server_us_ratio"] = sideB.server / sideA.server
            lines.append(
                "| \(durabilityTag)\(phase.title) | B / A |" + String(repeating: " |", count: options.repeats)
                    + String(
                        format: " **%.1f%%** | %.1f%% | **%.1f%%** | %.1f%% | %.1f%% | |", rateRatio * 100, p99Ratio * 100,
                        sideB.server / sideA.server * 100, sideB.passkeyd / sideA.passkeyd * 100, sideB.postgres / sideA.postgres * 100))
            if !buildComparison {
                let met = rateRatio >= 0.9 && errors("A").isEmpty && errors("B").isEmpty
                verdicts.append(String(
                    format: "**%@%@ credentials: %.1f%% of the %@ figure (target within 10%%) — %@** (%@, median req/s; median p99 %.1f%% of A's)",
                    durabilityTag, grouped(b.credentials), rateRatio * 100, grouped(a.credentials), met ? "met" : "missed", phase.title, p99Ratio * 100))
            }
        }
        lines.append("")
        for verdict in verdicts {
            lines.append(verdict)
            lines.append("")
        }
        var errorNotes: [String] = []
        for side in [a, b] {
            let all = errors(side.letter).merging(warmupErrors[side.letter] ?? [:], uniquingKeysWith: +)
            let text = all.isEmpty ? "0" : all.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }.joined(separator: "; ")
            errorNotes.append("\(side.letter) \(text)")
        }
        lines.append("Errors, warm-ups included: " + errorNotes.joined(separator: ", ") + ".")
        return lines
    }
}
