import Logging

// The variables of the server, its database and its access limits (sections Server, Database, API keys and abuse
// limits), each declared once; Settings.swift and LimitSettings.swift read them.

extension ConfigurationCatalog {
    static let serverVariables: [ConfigVariable] = [.configFile, .listen, .logLevel, .metrics, .shutdownTimeout, .demo]
    static let databaseVariables: [ConfigVariable] = [
        .databaseURL, .poolSize, .databaseReadURL, .databaseReadPoolSize, .databaseGenericPlans, .databaseBatchLanes, .databaseConnectTimeout, .databaseStatementTimeout,
        .databasePoolTimeout, .migrations,
    ]
    static let accessVariables: [ConfigVariable] = [
        .apiKeys, .adminKeys, .rateLimitUser, .rateLimitClient, .rateLimitAPIKey, .rateLimitAdmin, .rateLimitMetrics, .clientAddressHeader,
        .trustedProxyHops, .pendingPerUser, .pendingMax, .httpIdleTimeout, .httpReadTimeout, .httpMaxHeaderBytes,
    ]
}

extension ConfigVariable {
    // MARK: server

    public static let configFile = ConfigVariable(
        "PASSKEYD_CONFIG_FILE", .server, .text("a file"), default: .unset("none"),
        "a `KEY=VALUE` file with any of these variables (`#` comments, optional `export ` and quotes), read under the environment: a variable set in both is taken from the environment")
    public static let listen = ConfigVariable(
        "PASSKEYD_LISTEN", .server, .text("`host:port` or `[v6 address]:port`"), default: .value("127.0.0.1:8080"),
        "the address the HTTP server listens on")
    public static let logLevel = ConfigVariable(
        "PASSKEYD_LOG_LEVEL", .server, .choice(Logger.Level.allCases.map(\.rawValue), anyCase: true),
        default: .value("info"), "the least severe level logged (JSON Lines on stderr)")
    public static let metrics = ConfigVariable(
        "PASSKEYD_METRICS", .server, .onOff, default: .value("on"), "`off` removes `/metrics`")
    public static let shutdownTimeout = ConfigVariable(
        "PASSKEYD_SHUTDOWN_TIMEOUT", .server, .integer(1...3600, .seconds), default: .value("30"),
        "seconds in-flight requests may take after SIGTERM/SIGINT before they are cancelled")
    public static let demo = ConfigVariable(
        "PASSKEYD_DEMO", .server, .onOff, default: .value("off"),
        "`on` serves the [demo page](testing.md#demo-page-off-by-default) and its routes under `/demo` (never in production)")

    // MARK: database

    public static let databaseURL = ConfigVariable(
        "PASSKEYD_DATABASE_URL", .database, .text("a libpq URI (`postgresql://…`) or `key=value` connection string"),
        default: .unset("(required; `scripts/dev.sh run` sets it)"), "the PostgreSQL database; never logged", secret: true)
    public static let poolSize = ConfigVariable(
        "PASSKEYD_POOL_SIZE", .database, .integer(1...1000), default: .value("8"), "database connections per instance")
    public static let databaseReadURL = ConfigVariable(
        "PASSKEYD_DATABASE_READ_URL", .database, .text("a libpq URI (`postgresql://…`) or `key=value` connection string"),
        default: .unset("none (begins read the primary)"),
        "a hot standby of that database (streaming replication): with ceremony keys, begins read the user they name from it, on a read-only pool, and ask the primary only for what it does not know yet or when it fails ([Read replica](operations.md#read-replica)); unused without ceremony keys (begins then write); never logged",
        secret: true)
    public static let databaseReadPoolSize = ConfigVariable(
        "PASSKEYD_DATABASE_READ_POOL_SIZE", .database, .integer(1...1000), default: .value("4"),
        "connections per instance to `PASSKEYD_DATABASE_READ_URL`")
    public static let databaseGenericPlans = ConfigVariable(
        "PASSKEYD_DB_GENERIC_PLANS", .database, .onOff, default: .value("off"),
        "`on`: `plan_cache_mode = force_generic_plan` on every connection (each prepared statement planned once per connection; see \"Storage and many instances\")")
    public static let databaseBatchLanes = ConfigVariable(
        "PASSKEYD_DB_BATCH_LANES", .database, .integer(0...500), default: .unset("one per two cores, at most half the pool"),
        "connections on which concurrent sign-in finishes (one read and one write statement per batch), begins no cap counts, registrations of sealed challenges (one statement and one commit per batch) and the user reads of stateless begins (one statement per batch) run in batches, each of these four on at most this many connections at a time; `0`: each on its own connection; at most half of `PASSKEYD_POOL_SIZE`")
    public static let databaseConnectTimeout = ConfigVariable(
        "PASSKEYD_DB_CONNECT_TIMEOUT", .database, .integer(2...300, .seconds), default: .value("5"),
        "seconds libpq may take to connect, per host (libpq's `connect_timeout`, unless the URL sets its own)")
    public static let databaseStatementTimeout = ConfigVariable(
        "PASSKEYD_DB_STATEMENT_TIMEOUT", .database, .integer(0...3_600_000, .milliseconds), default: .value("5000"),
        "`statement_timeout` set on every pooled connection (`0` leaves the server's); also bounds a request's database work client-side at this + connect timeout + 1 s")
    public static let databasePoolTimeout = ConfigVariable(
        "PASSKEYD_DB_POOL_TIMEOUT", .database, .integer(1...600_000, .milliseconds), default: .value("2000"),
        "how long a request waits for a free pooled connection before `503 storage_unavailable`")
    public static let migrations = ConfigVariable(
        "PASSKEYD_MIGRATIONS", .database, .text("a directory"), default: .value("Migrations"),
        "the numbered `.sql` files applied at start (`passkeyd migrate` applies them and exits; so does `passkeyd rotate-session-key` before adding a signing key)")

    // MARK: API keys and abuse limits

    public static let apiKeys = ConfigVariable(
        "PASSKEYD_API_KEYS", .access, .list("bearer keys (visible ASCII, no spaces)"), default: .unset("none (open)"),
        "bearer keys required on the ceremony endpoints; a key shorter than 16 characters is a start-up warning", secret: true)
    public static let adminKeys = ConfigVariable(
        "PASSKEYD_ADMIN_KEYS", .access, .list("bearer keys (visible ASCII, no spaces)"), default: .unset("none (no admin API)"),
        "bearer keys for `/v1/admin/*`; must differ from the API keys", secret: true)
    public static let rateLimitUser = ConfigVariable(
        "PASSKEYD_RATE_LIMIT_USER", .access, .rateLimit, default: .value("1/s:10"),
        "begin requests per user name or id ([Abuse limits](operations.md#abuse-limits)); RATE is a number above 0 and may be fractional (`0.4/s:8`: one request every 2.5 s, up to 8 at once); BURST an integer of at least 1, by default one second's worth rounded up (at least 1)")
    public static let rateLimitClient = ConfigVariable(
        "PASSKEYD_RATE_LIMIT_CLIENT", .access, .rateLimit, default: .value("off"), "ceremony requests per client address")
    public static let rateLimitAPIKey = ConfigVariable(
        "PASSKEYD_RATE_LIMIT_API_KEY", .access, .rateLimit, default: .value("off"), "ceremony requests per API key")
    public static let rateLimitAdmin = ConfigVariable(
        "PASSKEYD_RATE_LIMIT_ADMIN", .access, .rateLimit, default: .value("20/s:100"),
        "admin API requests per client address (their own buckets)")
    public static let rateLimitMetrics = ConfigVariable(
        "PASSKEYD_RATE_LIMIT_METRICS", .access, .rateLimit, default: .value("2/s:10"),
        "`/metrics` requests per client address (their own buckets)")
    public static let clientAddressHeader = ConfigVariable(
        "PASSKEYD_CLIENT_ADDRESS_HEADER", .access, .text("a header name: letters, digits and `-`"), default: .unset("none (the TCP peer)"),
        "a header set by your reverse proxy with the client's address, e.g. `X-Forwarded-For` (a start-up warning says it is in use); a request without that header, or whose header has fewer comma-separated entries than `PASSKEYD_TRUSTED_PROXY_HOPS`, is counted under the TCP peer's address (your proxy's), silently: nothing is logged or refused; the entry taken is used as it is, not checked to be an address")
    public static let trustedProxyHops = ConfigVariable(
        "PASSKEYD_TRUSTED_PROXY_HOPS", .access, .integer(1...10), default: .value("1"),
        "which entry of that header counts, from the right: the number of proxies in front of passkeyd")
    public static let pendingPerUser = ConfigVariable(
        "PASSKEYD_PENDING_PER_USER", .access, .integer(0...10_000), default: .value("20"),
        "unexpired ceremonies one user may have pending (429 past it); `0` = no cap")
    public static let pendingMax = ConfigVariable(
        "PASSKEYD_PENDING_MAX", .access, .integer(0...100_000_000), default: .value("1000000"),
        "ceremonies the table may hold (503 past it); `0` = no cap")
    public static let httpIdleTimeout = ConfigVariable(
        "PASSKEYD_HTTP_IDLE_TIMEOUT", .access, .integer(1...3600, .seconds), default: .value("30"),
        "seconds a connection may go without a complete request head (idle keep-alive, or headers trickled in)")
    public static let httpReadTimeout = ConfigVariable(
        "PASSKEYD_HTTP_READ_TIMEOUT", .access, .integer(1...600, .seconds), default: .value("10"),
        "seconds from a request's head to the end of its body")
    public static let httpMaxHeaderBytes = ConfigVariable(
        "PASSKEYD_HTTP_MAX_HEADER_BYTES", .access, .integer(1024...1_048_576, .bytes), default: .value("16384"),
        "the largest request head (request line and headers); larger ones close the connection")
}
