extension ConfigurationCatalog {
    /// `passkeyd config [--markdown]` and `passkeyd --help`: what to print and the exit status; nil for every other
    /// command line (serve, `migrate`, `rotate-session-key`).
    public struct Command: Sendable, Equatable {
        public let output: String
        public let status: Int32

        public static let usage = """
            usage: passkeyd                       apply pending migrations, then serve
                   passkeyd migrate               apply pending migrations and exit
                   passkeyd rotate-session-key    add a new access-token signing key now and exit
                   passkeyd config [--markdown]   print the configuration reference (--markdown: docs/configuration.md's tables)
                   passkeyd --version             print the version and source revision
            Configuration comes from PASSKEYD_* environment variables (and PASSKEYD_CONFIG_FILE).

            """

        public init?(_ arguments: some Collection<String>) {
            switch Array(arguments) {
            case ["config"]: (output, status) = (ConfigurationCatalog.render(.text), 0)
            case ["config", "--markdown"]: (output, status) = (ConfigurationCatalog.render(.markdown), 0)
            case ["--help"], ["-h"], ["help"]: (output, status) = (Self.usage + "\n" + ConfigurationCatalog.render(.text), 0)
            case let other where other.first == "config": (output, status) = ("passkeyd: unknown arguments\n" + Self.usage, 2)
            default: return nil
            }
        }
    }
}
