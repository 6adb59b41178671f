// The lead of the summary (--lead-out): what a complete sign-in and a registration cost the server at the highest
// concurrency (passkeyd + PostgreSQL, the two shares), where PostgreSQL's share goes statement by statement
// (pg_stat_statements, --statements-url) and the state of the tables afterwards (pg_stat_user_tables), with the
// durability settings read back from the server. Everything here is read through psql subprocesses.
//
// The statement profile: pg_stat_statements is reset once after the warm-up (before the measured phases); around
// each profiled phase (begin + finish and registration at the highest concurrency) it is read before and after,
// and the phase's table is the difference. So the statements the load generator itself runs between phases
// (pre-signed ceremonies copied in, their removal, ANALYZE) are not in it, and every figure is per operation of
// exactly that phase.
import Foundation

/// Runs psql ($PSQL, default /usr/bin/psql) with one query and returns its rows, each split into its fields
/// (unaligned, tuples only, fields separated by U+001F; NULL is ""). Output goes through a file in `directory`.
func psqlRows(_ databaseURL: String, _ query: String, directory: String) throws -> [[String]] {
    let path = ProcessInfo.processInfo.environment["PSQL"] ?? "/usr/bin/psql"
    let output = URL(fileURLWithPath: directory).appendingPathComponent("psql-\(getpid())-\(UUID().uuidString).out").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    guard
        let pid = spawn([
            path, "-X", "-q", "-t", "-A", "-F", "\u{1F}", "-o", output, "-v", "ON_ERROR_STOP=1", "-d", databaseURL, "-c", query,
        ])
    else { throw Fail(description: "cannot start \(path)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    guard status == 0 else { throw Fail(description: "psql failed (wait status \(status)): \(query.prefix(80))") }
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    return text.split(separator: "\n", omittingEmptySubsequences: true).map {
        $0.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
    }
}

/// A string as an SQL literal.
func sqlLiteral(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

// MARK: - durability

/// The server's durability settings, read back with SHOW (current_setting) once at start.
struct Durability {
    let fsync: String
    let synchronousCommit: String
    let fullPageWrites: String

    /// fsync and full_page_writes on, and a commit waits for its WAL flush (synchronous_commit not off).
    var isDurable: Bool { fsync == "on" && fullPageWrites == "on" && synchronousCommit != "off" }

    var description: String { "fsync \(fsync), synchronous_commit \(synchronousCommit), full_page_writes \(fullPageWrites)" }

    static func read(_ databaseURL: String, directory: String) throws -> Durability {
        let rows = try psqlRows(
            databaseURL, "SELECT current_setting('fsync'), current_setting('synchronous_commit'), current_setting('full_page_writes')",
            directory: directory)
        guard let row = rows.first, row.count == 3 else { throw Fail(description: "could not read the durability settings") }
        return Durability(fsync: row[0], synchronousCommit: row[1], fullPageWrites: row[2])
    }
}

// MARK: - statement profile

/// One statement's counters in pg_stat_statements (or their difference over a phase).
struct StatementReading {
    /// queryid and whether the statement was top-level (with track = all, statements run inside functions are
    /// counted separately, and their time is also inside the calling statement's).
    let key: String
    let topLevel: Bool
    /// Normalised text (constants replaced by $n), whitespace collapsed.
    let query: String
    var calls: Double
    var totalMilliseconds: Double
    var rows: Double
    var walBytes: Double
}

/// Reads pg_stat_statements, for the statements of one database, through a database where the extension exists.
struct StatementProfiler {
    let url: String
    let databaseName: String
    let directory: String

    func reset() throws { try psql(url, "SELECT pg_stat_statements_reset()") }

    func read() throws -> [String: StatementReading] {
        let query = """
            SELECT queryid, toplevel, calls, total_exec_time, rows, wal_bytes, regexp_replace(query, '\\s+', ' ', 'g')
            FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = \(sqlLiteral(databaseName)))
            """
        var readings: [String: StatementReading] = [:]
        for row in try psqlRows(url, query, directory: directory) where row.count == 7 {
            let key = "\(row[0])/\(row[1])"
            readings[key] = StatementReading(
                key: key, topLevel: row[1] == "t", query: row[6], calls: Double(row[2]) ?? 0, totalMilliseconds: Double(row[3]) ?? 0,
                rows: Double(row[4]) ?? 0, walBytes: Double(row[5]) ?? 0)
        }
        return readings
    }

    /// What ran since `before`: the statements whose calls grew, most execution time first.
    func difference(since before: [String: StatementReading]) throws -> [StatementReading] {
        var changed: [StatementReading] = []
        for (key, var after) in try read() {
            let earlier = before[key]
            after.calls -= earlier?.calls ?? 0
            after.totalMilliseconds -= earlier?.totalMilliseconds ?? 0
            after.rows -= earlier?.rows ?? 0
            after.walBytes -= earlier?.walBytes ?? 0
            if after.calls > 0 { changed.append(after) }
        }
        return changed.sorted { $0.totalMilliseconds > $1.totalMilliseconds }
    }
}

/// The statements one profiled phase ran, with the operations it completed.
struct PhaseStatements {
    /// e.g. "complete sign-in (begin + finish)"
    let title: String
    /// What one operation is called in the table ("sign-in", "registration").
    let unit: String
    let concurrency: Int
    let operations: Int
    /// PostgreSQL's CPU per operation of the phase (its process tree, from /proc), for comparison.
    let postgresMicros: Double?
    let statements: [StatementReading]
}

/// The profiled phases of the main run, in order.
@MainActor var statementProfiles: [PhaseStatements] = []

/// The profiler of --statements-url, if given.
@MainActor let statementProfiler: StatementProfiler? = options.statementsURL.map {
    StatementProfiler(url: $0, databaseName: options.databaseName, directory: options.workDirectory)
}

/// Runs `phase`; when `profiled` and --statements-url is given, reads pg_stat_statements before and after it and
/// keeps the difference as the phase's statement profile.
@MainActor func withStatementProfile(
    _ title: String, unit: String, profiled: Bool, _ phase: () async throws -> PhaseResult
) async throws -> PhaseResult {
    guard profiled, let profiler = statementProfiler else { return try await phase() }
    let before = try profiler.read()
    let result = try await phase()
    let statements = try profiler.difference(since: before)
    statementProfiles.append(PhaseStatements(
        title: title, unit: unit, concurrency: result.concurrency, operations: result.completed,
        postgresMicros: options.postgresPID == nil ? nil : result.cpu.perOperation(result.completed)?.postgres, statements: statements))
    return result
}

// MARK: - table health

/// One table's row of pg_stat_user_tables.
struct TableHealth {
    let name: String
    let live: Int
    let dead: Int
    let inserted: Int
    let updated: Int
    let hotUpdated: Int
    let deleted: Int
    /// "never", or how long before the reading the last autovacuum (autoanalyze) ended.
    let lastAutovacuum: String
    let autovacuums: Int
    let lastAutoanalyze: String
    let autoanalyzes: Int

    /// The tables of --database-url with any rows, live or dead, or written to (the largest first), plus users,
    /// credentials and ceremonies whatever their state.
    static func read(_ databaseURL: String, directory: String) throws -> [TableHealth] {
        let query = """
            SELECT relname, n_live_tup, n_dead_tup, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del,
                coalesce(round(extract(epoch FROM now() - last_autovacuum))::text, ''), autovacuum_count,
                coalesce(round(extract(epoch FROM now() - last_autoanalyze))::text, ''), autoanalyze_count
            FROM pg_stat_user_tables
            WHERE n_live_tup + n_dead_tup + n_tup_ins + n_tup_upd + n_tup_del > 0 OR relname IN ('users', 'credentials', 'ceremonies')
            ORDER BY n_live_tup + n_dead_tup DESC, relname
            """
        func ago(_ seconds: String) -> String { seconds.isEmpty ? "never" : "\(seconds) s before" }
        return try psqlRows(databaseURL, query, directory: directory).compactMap { row in
            guard row.count == 11 else { return nil }
            return TableHealth(
                name: row[0], live: Int(row[1]) ?? 0, dead: Int(row[2]) ?? 0, inserted: Int(row[3]) ?? 0, updated: Int(row[4]) ?? 0,
                hotUpdated: Int(row[5]) ?? 0, deleted: Int(row[6]) ?? 0, lastAutovacuum: ago(row[7]), autovacuums: Int(row[8]) ?? 0,
                lastAutoanalyze: ago(row[9]), autoanalyzes: Int(row[10]) ?? 0)
        }
    }
}

// MARK: - the lead

/// A statement's text for a Markdown table cell: at most 150 characters, in code, no pipes.
func statementCell(_ query: String) -> String {
    var text = query.trimmingCharacters(in: .whitespaces)
    if text.count > 150 { text = String(text.prefix(149)) + "…" }
    return "`" + text.replacingOccurrences(of: "`", with: "'").replacingOccurrences(of: "|", with: "\\|") + "`"
}

/// The lead of the summary: server CPU per complete sign-in and per registration at the highest concurrency (with
/// issue 29's targets), the statement profile of those phases, and table health (`tables`, nil if not read).
@MainActor func leadSection(tables: [TableHealth]?, tablesError: String?) -> [String] {
    let top = options.concurrencies.max()!
    let tag = durabilityTag
    var lines: [String] = []
    lines.append("## \(tag)Server CPU per operation, concurrency \(top)")
    lines.append("")
    lines.append(
        "PostgreSQL: \(durability.map { $0.description + " (read back from the server)" } ?? "durability settings not readable")\(tag.isEmpty ? "" : " — **NON-DURABLE: a commit does not wait for its WAL flush, so PostgreSQL's share is lower than on a production server**"). "
            + "Server CPU is passkeyd's (`/proc/PID/stat`) plus PostgreSQL's whole process tree (postmaster, backends, WAL writer, checkpointer, reaped children), "
            + "over the phase, divided by the operations it completed; the load generator's own CPU (signing, key generation) is not in it.")
    lines.append("")
    lines.append("| operation, c=\(top) | server CPU µs/op | passkeyd µs/op | PostgreSQL µs/op | PostgreSQL share | completed | per s | finish p99 ms | errors | issue 29 target |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    func row(_ key: String, _ title: String, target: (server: Double, postgres: Double?)) {
        guard let server = figures["\(key)\(top)_server_us"], let passkeyd = figures["\(key)\(top)_passkeyd_us"],
            let postgres = figures["\(key)\(top)_postgres_us"]
        else {
            lines.append("| \(tag)\(title) | not measured | | | | | | | | |")
            return
        }
        let met = server <= target.server && (target.postgres.map { postgres <= $0 } ?? true)
        var targetText = String(format: "≤ %@ µs", grouped(Int(target.server)))
        if let postgresTarget = target.postgres { targetText += String(format: ", PostgreSQL ≤ %.0f µs", postgresTarget) }
        // The targets are for durable PostgreSQL at concurrency 64.
        let verdict =
            !tag.isEmpty ? "not comparable (non-durable)" : top != 64 ? "not comparable (the target is at c=64)" : met ? "**met**" : "**missed**"
        lines.append(String(
            format: "| %@%@ | **%.0f** | %.0f | %.0f | %.0f%% | %.0f | %.0f | %.1f | %.0f | %@: %@ |", tag, title, server, passkeyd, postgres,
            postgres / server * 100, figures["\(key)\(top)_completed"] ?? .nan, figures["\(key)\(top)_rate"] ?? .nan,
            figures["\(key)\(top)_p99"] ?? .nan, figures["\(key)\(top)_errors"] ?? .nan, targetText, verdict))
    }
    row("mixed", "complete sign-in (begin + finish)", target: (700, 300))
    row("registration", "registration (begin + finish)", target: (1400, nil))
    lines.append("")

    lines.append("## \(tag)Statement profile (pg_stat_statements)")
    lines.append("")
    if statementProfiler == nil {
        lines.append("Not measured: pg_stat_statements is not loaded in this cluster (`scripts/postgres.sh --durable` preloads it; the load generator reads it with `--statements-url`).")
        lines.append("")
    } else if statementProfiles.isEmpty {
        lines.append("Not measured: neither begin + finish nor registration ran at concurrency \(top).")
        lines.append("")
    }
    for profile in statementProfiles {
        let operations = Double(max(profile.operations, 1))
        let topLevel = profile.statements.filter(\.topLevel)
        let totalMilliseconds = topLevel.reduce(0) { $0 + $1.totalMilliseconds }
        let totalCalls = topLevel.reduce(0) { $0 + $1.calls }
        let totalWAL = topLevel.reduce(0) { $0 + $1.walBytes }
        lines.append("### \(tag)\(profile.title), c=\(profile.concurrency): \(grouped(profile.operations)) \(profile.unit)s")
        lines.append("")
        lines.append(
            "pg_stat_statements was reset after the warm-up and read before and after this phase; the table is the difference, the top \(min(10, profile.statements.count)) of \(profile.statements.count) statements by total execution time. "
                + "Execution time is the executor's only: parsing, planning, the protocol, commit and its WAL flush and the background processes are not in it. "
                + "A batched statement (one call for several concurrent begins or finishes) has fewer calls than \(profile.unit)s, and its mean covers the whole batch.")
        lines.append("")
        lines.append("| statement | calls | calls per \(profile.unit) | mean µs per call | µs per \(profile.unit) | share of execution | WAL bytes per \(profile.unit) |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|")
        for statement in profile.statements.prefix(10) {
            lines.append(String(
                format: "| %@%@ | %.0f | %.2f | %.1f | **%.1f** | %.0f%% | %.0f |", statementCell(statement.query), statement.topLevel ? "" : " (nested)",
                statement.calls, statement.calls / operations, statement.totalMilliseconds * 1000 / statement.calls,
                statement.totalMilliseconds * 1000 / operations, totalMilliseconds > 0 ? statement.totalMilliseconds / totalMilliseconds * 100 : 0,
                statement.walBytes / operations))
        }
        var total = String(
            format: "All top-level statements: %.2f calls, **%.1f µs of execution** and %.0f WAL bytes per %@", totalCalls / operations,
            totalMilliseconds * 1000 / operations, totalWAL / operations, profile.unit)
        if let postgres = profile.postgresMicros {
            total += String(format: ", against %.0f µs of PostgreSQL CPU per %@ from /proc (the rest is outside the executor)", postgres, profile.unit)
        }
        lines.append("")
        lines.append(total + ".")
        lines.append("")
    }

    lines.append("## \(tag)Table health (pg_stat_user_tables)")
    lines.append("")
    if let tables {
        lines.append(
            "Read after the main run's phases (\(options.soak > 0 ? "soak included, " : "")11 s after the last one, so that idle backends have flushed their counters), in the benchmark database: tables with any rows or writes, largest first. Times are seconds before the reading.")
        lines.append("")
        lines.append("| table | n_live_tup | n_dead_tup | dead share | inserts / updates (HOT) / deletes | last_autovacuum | autovacuums | last_autoanalyze | autoanalyzes |")
        lines.append("|---|---:|---:|---:|---|---|---:|---|---:|")
        for table in tables {
            let all = table.live + table.dead
            lines.append(String(
                format: "| %@ | %d | %d | %@ | %d / %d (%d) / %d | %@ | %d | %@ | %d |", table.name, table.live, table.dead,
                all > 0 ? String(format: "%.0f%%", Double(table.dead) / Double(all) * 100) : "–", table.inserted, table.updated,
                table.hotUpdated, table.deleted, table.lastAutovacuum, table.autovacuums, table.lastAutoanalyze, table.autoanalyzes))
        }
    } else {
        lines.append("Not read\(tablesError.map { ": \($0)" } ?? "").")
    }
    return lines
}

/// Writes the lead to --lead-out (after the main run's phases): waits for idle backends to flush their table
/// counters, reads table health and writes the section, replacing the file.
@MainActor func writeLead() async throws {
    guard let leadOut = options.leadOut else { return }
    // A backend that has gone idle flushes its pending table counters within 10 s (PGSTAT_IDLE_INTERVAL).
    log("waiting 11 s for PostgreSQL's idle backends to flush their table statistics")
    try await Task.sleep(for: .seconds(11))
    var tables: [TableHealth]?
    var tablesError: String?
    do { tables = try TableHealth.read(options.databaseURL, directory: options.workDirectory) } catch {
        tablesError = "\(error)"
        log("table health: \(error)")
    }
    let markdown = leadSection(tables: tables, tablesError: tablesError).joined(separator: "\n") + "\n\n"
    print(markdown, terminator: "")
    try Data(markdown.utf8).write(to: URL(fileURLWithPath: leadOut))
}
