// The command line of passkeyd-loadgen: what to drive (URLs, database, server and PostgreSQL pids), the relying party
// passkeyd was started with (--rp-id, --origin: required, with no defaults here, so the values live
// in one place, scripts/loadbench.sh), the phases and their limits, the outputs and the interleaved comparison. A bad
// or missing option exits 2 with the usage.
import Foundation

struct Options {
    /// Base URLs of the instances (--url, comma-separated), all serving the same database.
    var urls = ["http://127.0.0.1:18090"]
    var databaseURL = ""
    /// passkeyd's RP id (--rp-id, its PASSKEYD_RP_ID): the rpIdHash of the seeded credentials' authenticator data
    /// (the software authenticator checks the rpId of each request against it).
    var rpID = ""
    /// The origin the client data of every assertion and registration claims (--origin): one of passkeyd's
    /// PASSKEYD_ORIGINS.
    var origin = ""
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
    /// perf record of the server during one phase at the highest concurrency: the output file.
    var perfOutput: String?
    /// The phase perf records (--perf-phase): presigned (default), mixed or registration.
    var perfPhase = "presigned"
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
    /// The lead of the summary (--lead-out): server CPU per sign-in and registration at the highest concurrency,
    /// the statement profile and table health (StatementProfile.swift); overwritten, not appended to.
    var leadOut: String?
    /// A database of the same cluster where the extension pg_stat_statements exists (--statements-url, e.g. the
    /// cluster's "postgres" database): the statement profile reads the statements of --database-url's database there.
    var statementsURL: String?
    /// The cluster runs without durability (--non-durable: fsync, synchronous_commit or full_page_writes off):
    /// every heading and figure row of the output says NON-DURABLE. The settings read back from the server at
    /// start say so too, whatever this says (main.swift, `durabilityTag`).
    var nonDurable = false

    static let usage = """
        usage: passkeyd-loadgen --url URL[,URL…] --database-url PGURL --rp-id RPID --origin ORIGIN
               [--credentials N] [--working-set W] [--concurrency 16,64] [--seconds S] [--requests R] [--presigned P]
               [--warmup S] [--soak S] [--phases presigned,mixed,registration]
               [--server-pid PID[,PID…]] [--postgres-pid PID] [--out FILE.md] [--results FILE.json] [--baseline FILE.json] [--label TEXT] [--work-dir DIR]
               [--perf-output FILE [--perf-phase presigned|mixed|registration]] [--compare-url URL --compare-database-url PGURL [--compare-credentials N]
               [--compare-server-pid PID] [--compare-labels A,B] [--repeats R]]
               [--lead-out FILE.md [--statements-url PGURL]] [--non-durable]
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
            case "--rp-id": rpID = value(argument)
            case "--origin": origin = value(argument)
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
            case "--perf-phase":
                perfPhase = value(argument)
                if !["presigned", "mixed", "registration"].contains(perfPhase) { Self.fail("--perf-phase is presigned, mixed or registration") }
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
            case "--lead-out": leadOut = value(argument)
            case "--statements-url": statementsURL = value(argument)
            case "--non-durable": nonDurable = true
            default: Self.fail("unknown argument \(argument)")
            }
        }
        if databaseURL.isEmpty { Self.fail("--database-url is required") }
        // The relying party passkeyd runs with: required, since a guess that differs from passkeyd's would make every
        // ceremony fail rather than measure anything.
        if rpID.isEmpty { Self.fail("--rp-id is required: the RP id passkeyd was started with (PASSKEYD_RP_ID)") }
        if origin.isEmpty { Self.fail("--origin is required: an origin passkeyd accepts (one of its PASSKEYD_ORIGINS)") }
        if concurrencies.isEmpty { Self.fail("--concurrency needs at least one number") }
        if urls.isEmpty { Self.fail("--url needs at least one URL") }
        if compareURLs.isEmpty != compareDatabaseURL.isEmpty { Self.fail("--compare-url and --compare-database-url go together") }
        if repeats < 1 { Self.fail("--repeats needs at least 1") }
        if statementsURL != nil && leadOut == nil { Self.fail("--statements-url needs --lead-out (the profile goes there)") }
    }

    /// The name of --database-url's database (the last path component), for pg_stat_statements' dbid.
    var databaseName: String {
        let path = URL(string: databaseURL)?.path ?? ""
        return path.split(separator: "/").last.map(String.init) ?? ""
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

/// Host and port of each URL; exits with usage for anything else.
func parseEndpoints(_ urls: [String], _ name: String) -> [(host: String, port: Int)] {
    urls.map { text in
        guard let url = URL(string: text), let host = url.host, let port = url.port else {
            Options.fail("\(name) must look like http://127.0.0.1:PORT[,http://127.0.0.1:PORT2…]")
        }
        return (host, port)
    }
}
