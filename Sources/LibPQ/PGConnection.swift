internal import CLibPQ
internal import Synchronization

/// One libpq connection (`PGconn`), its only owner.
///
/// ## Blocking and threads
/// Every method blocks the calling thread on network I/O. Call them from a thread pool (NIO's
/// `NIOThreadPool`), never from a Swift concurrency task or an event loop.
///
/// libpq allows one thread at a time per connection. This class is `@unchecked Sendable` so that a pool can
/// hand it to whichever pool thread runs the next operation, and callers must serialize its use (lease it for
/// one operation or transaction at a time). That rule is also checked: every method takes an atomic "busy"
/// flag around its libpq calls, and a call that finds the connection busy throws
/// ``PGError/Code/concurrentUse`` without touching libpq, so a bug surfaces as an error instead of memory
/// corruption. The flag is held per call, not across ``transaction(_:)``'s body, so statements of two
/// threads interleaving inside one transaction is still the caller's bug to avoid.
///
/// ## Lifetime
/// `deinit` (or ``close()``) calls `PQfinish`. A failed ``connect(url:)`` frees its `PGconn` too.
@safe
public final class PGConnection: @unchecked Sendable {
    // Safety: `handle` and `preparedStatements` are only read or written while `busy` is held (acquire on
    // take, release on give back), or in `deinit`, when no other reference exists. `handle` is private to this
    // file, the only code that opens or frees it; `preparedStatements` is internal for PGConnection+Prepared.swift.
    private var handle: OpaquePointer?
    var preparedStatements: [String: [PGType]] = [:]
    private let busy = Atomic<Bool>(false)

    private init(takingOwnershipOf handle: OpaquePointer) {
        unsafe self.handle = handle
    }

    deinit {
        if let handle = unsafe handle {
            unsafe PQfinish(handle)
        }
    }

    // MARK: - Connecting

    /// Opens a connection (blocking).
    ///
    /// `url` may be a URI (`postgresql://user@host:port/db?sslmode=disable`) or a `key=value` string; it is
    /// passed as libpq's `dbname` with `expand_dbname = 1`. Defaults that the string may override:
    /// `connect_timeout` (`connectTimeout`, 10 s unless given), `fallback_application_name=passkeyd`. Always set: `client_encoding=UTF8`, since
    /// text values are decoded as UTF-8. libpq's `PG*` environment variables fill parameters left unset.
    /// NOTICE and WARNING messages from the server are dropped (libpq's default prints them to stderr).
    ///
    /// - Parameters:
    ///   - url: The connection string. It may contain a password, which no error ever includes.
    ///   - connectTimeout: libpq's `connect_timeout` in seconds (per host of a multi-host string), unless `url`
    ///     sets its own. Values below 2 become 2 (libpq's own minimum).
    /// - Returns: A connection in state `CONNECTION_OK`.
    /// - Throws: ``PGError/Code/connectionFailed`` (unreachable server, authentication, malformed string),
    ///   ``PGError/Code/invalidArgument`` for a NUL byte in `url`, ``PGError/Code/protocolViolation`` if the
    ///   server does not use integer timestamps or UTF8.
    public static func connect(url: String, connectTimeout: Int = 10) throws(PGError) -> PGConnection {
        guard !url.utf8.contains(0) else {
            throw PGError(code: .invalidArgument, message: "connection string contains a NUL byte")
        }
        // Later entries override earlier ones, including what the expanded dbname string sets.
        let keywords = ["connect_timeout", "fallback_application_name", "dbname", "client_encoding"]
        let values = [String(max(2, connectTimeout)), "passkeyd", url, "UTF8"]
        let raw: OpaquePointer? = unsafe withCStrings(keywords + values) { pointers in
            // Two NULL-terminated arrays: keywords, then values.
            let keywordPointers = unsafe pointers[..<keywords.count].map(Optional.some) + [nil]
            let valuePointers = unsafe pointers[keywords.count...].map(Optional.some) + [nil]
            return unsafe PQconnectdbParams(keywordPointers, valuePointers, 1)
        }
        guard let raw = unsafe raw else {
            throw PGError(code: .connectionFailed, message: "libpq could not allocate a connection")
        }
        // From here the connection object owns `raw`: every throw below frees it through deinit.
        let connection = unsafe PGConnection(takingOwnershipOf: raw)
        try unsafe connection.withHandle { (conn) throws(PGError) in
            guard unsafe PQstatus(conn) == CONNECTION_OK else {
                throw PGError(code: .connectionFailed, message: unsafe connectionErrorMessage(conn))
            }
            try unsafe checkSession(conn)
            unsafe clibpq_silence_notices(conn)
        }
        return connection
    }

    /// Whether libpq considers the connection usable (`PQstatus == CONNECTION_OK`).
    ///
    /// libpq notices a dead server only when a call fails, so `true` is not a guarantee. `false` also while
    /// another thread is using the connection, or after ``close()``.
    public var isHealthy: Bool {
        unsafe (try? withHandle { (conn) throws(PGError) in unsafe PQstatus(conn) == CONNECTION_OK }) ?? false
    }

    /// Whether the session is not idle: a transaction is open, failed or in progress, or the state is unknown
    /// because the connection is bad (`PQtransactionStatus` is not `PQTRANS_IDLE`).
    ///
    /// A pool must not hand out a connection for which this is `true`. Also `true` while another thread is
    /// using the connection, and `false` after ``close()``.
    public var isInTransaction: Bool {
        do {
            return try unsafe withHandle { (conn) throws(PGError) in
                unsafe PQtransactionStatus(conn) != PQTRANS_IDLE
            }
        } catch {
            return error.code == .concurrentUse
        }
    }

    /// The server version as an integer, e.g. `150018` for 15.18; `nil` when closed or in use elsewhere.
    public var serverVersion: Int? {
        try? unsafe withHandle { (conn) throws(PGError) in Int(unsafe PQserverVersion(conn)) }
    }

    /// Closes the connection and reopens it with the same parameters (`PQreset`, blocking).
    /// Prepared statements are gone afterwards.
    /// - Throws: ``PGError/Code/connectionFailed`` if the new connection fails (the object stays usable for a
    ///   later `reset()`), ``PGError/Code/connectionClosed`` after ``close()``.
    public func reset() throws(PGError) {
        try unsafe withHandle { (conn) throws(PGError) in
            preparedStatements.removeAll()
            unsafe PQreset(conn)
            guard unsafe PQstatus(conn) == CONNECTION_OK else {
                throw PGError(code: .connectionFailed, message: unsafe connectionErrorMessage(conn))
            }
            try unsafe checkSession(conn)
        }
    }

    /// Closes the connection now (`PQfinish`) instead of at `deinit`. Later calls throw
    /// ``PGError/Code/connectionClosed``; closing twice does nothing.
    /// - Throws: ``PGError/Code/concurrentUse`` if another thread is using the connection.
    public func close() throws(PGError) {
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw PGError(code: .concurrentUse, message: "close() while the connection is in use")
        }
        defer { busy.store(false, ordering: .releasing) }
        if let handle = unsafe handle {
            unsafe self.handle = nil
            preparedStatements.removeAll()
            unsafe PQfinish(handle)
        }
    }

    // MARK: - Internals

    static let maximumParameterCount = 65_535

    /// Runs `body` with the libpq handle while holding the busy flag.
    func withHandle<R>(_ body: (OpaquePointer) throws(PGError) -> R) throws(PGError) -> R {
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw PGError(code: .concurrentUse, message: "connection used by two threads at once")
        }
        defer { busy.store(false, ordering: .releasing) }
        guard let handle = unsafe handle else {
            throw PGError(code: .connectionClosed, message: "connection was closed")
        }
        return try unsafe body(handle)
    }
}

/// Verifies the session parameters binary decoding relies on.
private func checkSession(_ conn: OpaquePointer) throws(PGError) {
    let integerDatetimes = unsafe copyString(PQparameterStatus(conn, "integer_datetimes"))
    guard integerDatetimes == "on" else {
        throw PGError(code: .protocolViolation, message: "server does not use integer timestamps")
    }
    let encoding = unsafe copyString(PQparameterStatus(conn, "client_encoding"))
    guard encoding == "UTF8" else {
        throw PGError(code: .protocolViolation, message: "client_encoding is \(encoding ?? "unknown"), not UTF8")
    }
}
