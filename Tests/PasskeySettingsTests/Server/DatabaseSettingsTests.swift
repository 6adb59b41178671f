import Foundation
import LibPQ
import PasskeySettings
import Testing
import SettingsTestSupport

@Suite("Settings: database timeouts and shutdown")
struct DatabaseSettingsTests {
    static func environment(_ extra: [String: String] = [:]) -> [String: String] { SettingsFixtures.environment(extra) }

    @Test("bounded by default: connect 5 s, statement 5 s, pool wait 2 s, lease 11 s, shutdown 30 s")
    func defaults() throws {
        let settings = try Settings(Self.environment())
        #expect(settings.databaseConnectTimeout == 5)
        #expect(settings.databaseStatementTimeout == .seconds(5))
        #expect(settings.databasePoolTimeout == .seconds(2))
        #expect(settings.shutdownTimeout == .seconds(30))
        let pool = settings.poolConfiguration
        #expect(pool.connectTimeout == 5 && pool.statementTimeout == .seconds(5) && pool.acquireTimeout == .seconds(2))
        #expect(pool.leaseTimeout == .seconds(11), "connect + statement + 1 s")
        #expect(settings.warnings.isEmpty)
    }

    @Test("set, and 0 turns the statement timeout (and the lease bound) off")
    func set() throws {
        let settings = try Settings(Self.environment([
            "PASSKEYD_DB_CONNECT_TIMEOUT": "3", "PASSKEYD_DB_STATEMENT_TIMEOUT": "250", "PASSKEYD_DB_POOL_TIMEOUT": "100",
            "PASSKEYD_SHUTDOWN_TIMEOUT": "7",
        ]))
        #expect(settings.databaseConnectTimeout == 3 && settings.databaseStatementTimeout == .milliseconds(250))
        #expect(settings.databasePoolTimeout == .milliseconds(100) && settings.shutdownTimeout == .seconds(7))
        #expect(settings.poolConfiguration.leaseTimeout == .milliseconds(4250))
        #expect(settings.warnings.isEmpty, "known variables")
        let off = try Settings(Self.environment(["PASSKEYD_DB_STATEMENT_TIMEOUT": "0"]))
        #expect(off.databaseStatementTimeout == nil && off.poolConfiguration.leaseTimeout == nil)
    }

    @Test("out of range or not a number stops the start, naming the variable")
    func invalid() {
        for (variable, value) in [
            ("PASSKEYD_DB_CONNECT_TIMEOUT", "1"), ("PASSKEYD_DB_CONNECT_TIMEOUT", "301"), ("PASSKEYD_DB_CONNECT_TIMEOUT", "5s"),
            ("PASSKEYD_DB_STATEMENT_TIMEOUT", "-1"), ("PASSKEYD_DB_STATEMENT_TIMEOUT", "3600001"),
            ("PASSKEYD_DB_POOL_TIMEOUT", "0"), ("PASSKEYD_DB_POOL_TIMEOUT", "fast"), ("PASSKEYD_SHUTDOWN_TIMEOUT", "0"),
        ] {
            #expect(SettingsFixtures.error([variable: value])?.variable == variable, "\(variable)=\(value)")
        }
    }
}
