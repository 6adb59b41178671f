// passkeyd-loadgen: the load generator of scripts/loadbench.sh (see docs/benchmark.md).
//
// Against a running passkeyd (release build), told the relying party passkeyd was started with (--rp-id and --origin,
// required; scripts/loadbench.sh passes the values it starts passkeyd with), it:
//   1. seeds N users, each with one ES256 credential (real key generation; CSV + psql \copy), keeping the private
//      keys of a uniformly chosen working set;
//   2. warm-up: authentication begin + finish for a few seconds;
//   3. presigned: ceremonies are begun over HTTP (POST /v1/authentication/begin, not measured), their assertions are
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
// Markdown, to --out; --results/--baseline write and read key figures so two runs can be compared. --lead-out gets
// the summary's lead (StatementProfile.swift): server CPU per sign-in and per registration at the highest
// concurrency, the statement profile (pg_stat_statements through --statements-url) and table health. The server's
// fsync, synchronous_commit and full_page_writes are read back at start: with any of them off (or --non-durable),
// every heading and figure row says NON-DURABLE.
// --compare-url/--compare-database-url add an interleaved comparison (Compare.swift): a second passkeyd on its own
// database with --compare-credentials (default 1,000,000), seeded by this process too, and after the phases above
// alternating rounds A, B, A, B, … (--repeats each) of pre-signed finishes and begin + finish at the highest
// concurrency, so the machine's drift affects both sides alike; medians and their ratio B / A go to the summary.
//
// The files of this folder, one job each: main.swift the top-level flow; Options.swift the command line; Seed.swift
// the users and credentials written through psql; HTTPClient.swift the HTTP/1.1 keep-alive
// client; Operations.swift what a virtual user does per iteration and the checks of the answers; PhaseRunner.swift
// running one phase; Phases.swift the main run's phases in order; CPU.swift and Processes.swift the readings from
// /proc (CPU, RSS) and starting psql or perf; Report.swift the table rows, the Markdown section and --results;
// Compare.swift the interleaved comparison; StatementProfile.swift the lead: durability, pg_stat_statements, table health.
import Foundation
import NIOCore
import NIOPosix
import WebAuthnCore

let options = Options(CommandLine.arguments)
let endpoints = parseEndpoints(options.urls, "--url")
/// The origin the assertions and registrations claim (--origin).
let origin = options.origin
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let runID = String(UInt64(Date().timeIntervalSince1970 * 1000), radix: 36)
/// The server's durability settings, read back at start; nil if they could not be read.
let durability: Durability? = {
    do { return try Durability.read(options.databaseURL, directory: options.workDirectory) } catch {
        log("could not read the durability settings: \(error)")
        return nil
    }
}()
/// The prefix of every heading and figure row: "NON-DURABLE " when --non-durable or the server's own settings say so,
/// "DURABILITY UNKNOWN " when they could not be read, else "".
let durabilityTag: String = {
    if options.nonDurable || durability?.isDurable == false { return "NON-DURABLE " }
    return durability == nil ? "DURABILITY UNKNOWN " : ""
}()
log("PostgreSQL: \(durability?.description ?? "durability settings unknown")\(durabilityTag.isEmpty ? "" : " (\(durabilityTag.trimmingCharacters(in: .whitespaces)))")")
if options.nonDurable && durability?.isDurable == true { log("--non-durable, but the server reports durable settings: labelled NON-DURABLE anyway") }

let rssStart = rssKiB(options.serverPIDs)
log("\(options.label): seeding \(options.credentials) users + credentials (working set \(min(options.workingSet, options.credentials)))")
let seedClock = ContinuousClock.now
let seeder = Seeder(
    databaseURL: options.databaseURL, rpID: options.rpID, origin: origin, directory: URL(fileURLWithPath: options.workDirectory))
let workingSet = try seeder.seed(count: options.credentials, workingSet: options.workingSet)
let seedSeconds = seconds(ContinuousClock.now - seedClock)
log(String(format: "seeded in %.1f s", seedSeconds))
figures["seed_seconds"] = seedSeconds
let interleaved = try options.comparing ? seedComparison() : nil

do {
    let rss = try await runMainPhases(seeder: seeder, workingSet: workingSet, rssStart: rssStart)
    try await writeLead()
    let section = mainSection(seedSeconds: seedSeconds, workingSetCount: workingSet.count, rss: rss)
    recordRunFigures(rss: rss)
    try emit(section)
    if let interleaved { try emit(try await interleaved.run()) }
    try writeResults()
    try await group.shutdownGracefully()
} catch {
    log("failed: \(error)")
    exit(1)
}
