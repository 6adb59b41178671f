// The main run's phases, in order: a begin + finish warm-up, then at each concurrency the pre-signed finishes,
// begin + sign + finish and registration (as --phases selects; with --perf-output, the --perf-phase one at the highest
// concurrency under perf record), then the optional soak; one table row each (Report.swift), and the servers' RSS between them.
// With --statements-url, pg_stat_statements is reset after the warm-up, and begin + finish and registration at the
// highest concurrency are profiled (StatementProfile.swift).
import Foundation
import WebAuthnTestSupport

/// VmRSS of the servers (summed over the instances) at the points the summary reports; nil where unreadable.
struct RSSReadings {
    var start: Int?
    var warm: Int?
    var afterPhases: Int?
    var soak: Int?
}

/// Runs the main run's phases against the instances of --url, pre-signing into `seeder`'s database and signing with
/// `workingSet`; returns the RSS readings (`rssStart` was read before seeding).
@MainActor func runMainPhases(seeder: Seeder, workingSet: [SoftCredential], rssStart: Int?) async throws -> RSSReadings {
    let mixed = makeMixed(workingSet: workingSet)
    report.append(phaseTableHeader())
    if options.warmup > 0 {
        let warm = try await runPhase(
            "warm-up (mixed)", concurrency: options.concurrencies.first!, duration: options.warmup, limit: options.requests,
            options: options, group: group, endpoints: endpoints, operation: mixed)
        record(warm, key: "warmup")
    }
    let rssWarm = rssKiB(options.serverPIDs)
    let maxConcurrency = options.concurrencies.max()!
    // The statement profile counts from here: the measured phases.
    try statementProfiler?.reset()

    if options.phases.contains("presigned") {
        for concurrency in options.concurrencies {
            log("pre-signing \(options.presigned) finishes for concurrency \(concurrency)")
            let prepared = try await presign(count: options.presigned, group: group, endpoints: endpoints, workingSet: workingSet)
            let perfed = concurrency == maxConcurrency && recordsPerf("presigned")
            let result = try await underPerf(perfed) {
                try await runPhase(
                    perfed ? "auth finish, pre-signed, under perf record" : "auth finish, pre-signed", concurrency: concurrency,
                    duration: options.seconds, limit: prepared.count,
                    options: options, group: group, endpoints: endpoints, operation: presignedFinish(prepared))
            }
            record(result, key: "presigned\(concurrency)")
            // Table-mode ceremonies a time-bounded phase did not use would only sit in the table until the purge.
            try psql(options.databaseURL, "DELETE FROM ceremonies")
        }
    }
    if options.phases.contains("mixed") {
        for concurrency in options.concurrencies {
            let perfed = concurrency == maxConcurrency && recordsPerf("mixed")
            let result = try await withStatementProfile(
                "complete sign-in (begin + finish)", unit: "sign-in", profiled: concurrency == maxConcurrency
            ) {
                try await underPerf(perfed) {
                    try await runPhase(
                        perfed ? "auth begin + sign + finish, under perf record" : "auth begin + sign + finish",
                        concurrency: concurrency, duration: options.seconds, limit: options.requests,
                        options: options, group: group, endpoints: endpoints, operation: mixed)
                }
            }
            record(result, key: "mixed\(concurrency)")
        }
    }
    if options.phases.contains("registration") {
        for concurrency in options.concurrencies {
            let perfed = concurrency == maxConcurrency && recordsPerf("registration")
            let result = try await withStatementProfile(
                "registration (begin + finish)", unit: "registration", profiled: concurrency == maxConcurrency
            ) {
                try await underPerf(perfed) {
                    try await runPhase(
                        perfed ? "registration begin + create + finish, under perf record" : "registration begin + create + finish",
                        concurrency: concurrency, duration: options.seconds,
                        limit: options.requests, options: options, group: group, endpoints: endpoints,
                        operation: makeRegistration(prefix: "\(concurrency)"))
                }
            }
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
    return RSSReadings(start: rssStart, warm: rssWarm, afterPhases: rssAfterPhases, soak: rssSoak)
}

/// Whether --perf-output asks for a profile of `phase` (--perf-phase) and there is a server to record.
@MainActor func recordsPerf(_ phase: String) -> Bool {
    options.perfOutput != nil && options.perfPhase == phase && !options.serverPIDs.isEmpty
}

/// `body` under `perf record -g` of every server instance when `recorded` (stopped with SIGINT when it ends). perf
/// record costs the server CPU: the phase's row says so (the other phases and the comparisons run without it).
@MainActor func underPerf<T>(_ recorded: Bool, _ body: () async throws -> T) async throws -> T {
    guard recorded, let output = options.perfOutput else { return try await body() }
    let pids = options.serverPIDs.map(String.init).joined(separator: ",")
    let perf = spawn(["/usr/bin/perf", "record", "-q", "-F", "999", "-g", "-p", pids, "-o", output])
    defer {
        if let perf {
            var status: Int32 = 0
            kill(perf, SIGINT)
            while waitpid(perf, &status, 0) == -1 && errno == EINTR {}
            log("perf record: wait status \(status), \(output)")
        }
    }
    return try await body()
}
