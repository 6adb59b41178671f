// What the load generator reports: progress lines on stderr, one table row per phase (record), the main run's
// Markdown section (printed and appended to --out) with RSS, the comparison with --baseline and the verdicts
// against issue 15's targets, and the key figures written to --results.
import Foundation

/// The main run's phase table: its header and one row per phase.
@MainActor var report: [String] = []
/// Per phase: completed ceremonies that began on one instance and finished on another (several instances only).
@MainActor var crossInstance: [String] = []
/// Key figures by name (rates, percentiles, CPU per operation, RSS, the comparison's medians): --results, --baseline.
@MainActor var figures: [String: Double] = [:]

func log(_ line: String) { FileHandle.standardError.write(Data("loadgen: \(line)\n".utf8)) }

/// The header of the phase table (the machine's busy share is out of 100% per core).
func phaseTableHeader() -> String {
    """
    | scenario | conc. | completed | errors | per s | server CPU µs/op (passkeyd + PostgreSQL) | passkeyd µs/op | PostgreSQL µs/op | loadgen µs/op | other µs/op (kernel softirq, …) | machine busy (of \(ProcessInfo.processInfo.activeProcessorCount * 100)%) | finish p50 / p99 / p99.9 ms | begin p50 / p99 / p99.9 ms | ran |
    |---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|
    """
}

/// Adds `result`'s row to the phase table (and to the log) and its figures under `key` (e.g. presigned64).
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
        format: "| %@%@ | %d | %d | %@ | **%.0f** | %@ | %@ | %@ | %@%@ | %@ | %.0f%% | %.2f / %.2f / %.2f | %@ | %.1f s, %@ |",
        durabilityTag, result.name, result.concurrency, result.completed, errors, result.rate, server, micros(perOperation?.passkeyd), postgres,
        micros(perOperation?.loadgen), clientMicros > 0 ? String(format: " (%.0f µs/iter client work)", clientMicros) : "",
        micros(perOperation?.other), result.cpu.machine / result.wall * 100, p50, p99, p999, begin.isEmpty ? "–" : begin,
        result.wall, result.bound)
    report.append(row)
    log(row)
}

/// The main run's Markdown section: how it ran, the phase table, cross-instance ceremonies, RSS, the comparison with
/// --baseline and the verdicts against issue 15's targets.
@MainActor func mainSection(seedSeconds: Double, workingSetCount: Int, rss: RSSReadings) -> [String] {
    let maxConcurrency = options.concurrencies.max()!
    func mib(_ kib: Int?) -> String { kib.map { String(format: "%.1f MiB", Double($0) / 1024) } ?? "n/a" }
    var section: [String] = []
    section.append("### \(durabilityTag)\(options.label.isEmpty ? "\(options.credentials) credentials" : options.label)")
    section.append("")
    section.append(String(
        format: "%d users with one ES256 credential each, seeded in %.1f s (key generation + CSV + `\\copy`); working set %d credentials drawn uniformly from the table. Phases at most %.0f s or %d requests (pre-signed: %d per concurrency).",
        options.credentials, seedSeconds, workingSetCount, options.seconds, options.requests, options.presigned))
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
    var rssLine = "passkeyd RSS (VmRSS\(endpoints.count > 1 ? ", sum of \(endpoints.count) instances" : "")): start \(mib(rss.start)), after warm-up \(mib(rss.warm)), after the phases \(mib(rss.afterPhases))"
    if let rssSoak = rss.soak {
        rssLine += String(format: ", after a %.0f s soak at concurrency %d %@", options.soak, maxConcurrency, mib(rssSoak))
        if let rssAfterPhases = rss.afterPhases, rssAfterPhases > 0 {
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
    let targets = targetLines()
    if !targets.isEmpty {
        section.append("")
        section.append("\(durabilityTag.isEmpty ? "" : "**\(durabilityTag)run.** ")Against issue 15's targets (server CPU is passkeyd's plus PostgreSQL's whole process tree, per completed operation):")
        section.append("")
        section.append("| figure | measured | target | |")
        section.append("|---|---|---|---|")
        section += targets
    }
    return section
}

/// Issue 15's targets (CPU per operation first) and the first round's reference (py_webauthn + Django + PostgreSQL on
/// this machine: 580 finishes/s at 16 connections, 335 registrations/s), as ratios: one table row per figure measured.
@MainActor func targetLines() -> [String] {
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
    return comparison.map { "| \(durabilityTag)" + $0.dropFirst(2) }
}

/// The run's size and RSS readings among the figures of --results.
@MainActor func recordRunFigures(rss: RSSReadings) {
    figures["credentials"] = Double(options.credentials)
    if let rssStart = rss.start { figures["rss_start_kib"] = Double(rssStart) }
    if let rssWarm = rss.warm { figures["rss_warm_kib"] = Double(rssWarm) }
    if let rssAfterPhases = rss.afterPhases { figures["rss_after_kib"] = Double(rssAfterPhases) }
    if let rssSoak = rss.soak { figures["rss_soak_kib"] = Double(rssSoak) }
}

/// Prints a Markdown section to stdout and appends it to --out.
@MainActor func emit(_ section: [String]) throws {
    let markdown = section.joined(separator: "\n") + "\n\n"
    print(markdown, terminator: "")
    if let out = options.out { try append(markdown, to: out) }
}

/// Writes the figures to --results (sorted keys), if given.
@MainActor func writeResults() throws {
    guard let results = options.results else { return }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    // A side that completed nothing has no CPU per operation (NaN): such figures are left out, not written as JSON.
    try encoder.encode(figures.filter { $0.value.isFinite }).write(to: URL(fileURLWithPath: results))
}

/// Appends `text` to the file at `path`, creating it if needed.
func append(_ text: String, to path: String) throws {
    if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seekToEnd()
    handle.write(Data(text.utf8))
    try handle.close()
}
