// passkeyd: the WebAuthn relying-party service.
//
//   passkeyd           apply pending migrations (under an advisory lock), then serve
//   passkeyd migrate   apply pending migrations and exit
//
// Configuration comes from the environment (see README "Configuration").
import Foundation
import Hummingbird
import LibPQ
import NIOPosix
import PasskeyHTTP
import PasskeyStore
import PasskeyStorePostgres
import WebAuthnCore

struct ConfigurationError: Error, CustomStringConvertible { let description: String }

struct Settings {
    let host: String
    let port: Int
    let databaseURL: String
    let poolSize: Int
    let migrations: URL
    let relyingParty: RelyingParty
    let http: HTTPConfiguration

    init(_ environment: [String: String]) throws {
        func value(_ key: String, _ fallback: String) -> String { environment[key].flatMap { $0.isEmpty ? nil : $0 } ?? fallback }
        func list(_ key: String, _ fallback: String) -> [String] {
            value(key, fallback).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let listen = value("PASSKEYD_LISTEN", "127.0.0.1:8080")
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]) else {
            throw ConfigurationError(description: "PASSKEYD_LISTEN must be host:port")
        }
        host = String(listen[..<colon])
        self.port = port
        guard let url = environment["PASSKEYD_DATABASE_URL"], !url.isEmpty else {
            throw ConfigurationError(description: "PASSKEYD_DATABASE_URL is required")
        }
        databaseURL = url
        poolSize = Int(value("PASSKEYD_POOL_SIZE", "8")) ?? 8
        migrations = URL(fileURLWithPath: value("PASSKEYD_MIGRATIONS", "Migrations"))

        var rp = RelyingParty(
            id: value("PASSKEYD_RP_ID", "localhost"), name: value("PASSKEYD_RP_NAME", "passkeyd"),
            allowedOrigins: Set(list("PASSKEYD_ORIGINS", "http://localhost:8080")))
        switch value("PASSKEYD_USER_VERIFICATION", "required") {
        case "required": rp.userVerification = .required
        case "preferred-unsafe": rp.userVerification = .preferredUnsafe
        case "discouraged-unsafe": rp.userVerification = .discouragedUnsafe
        case let other: throw ConfigurationError(description: "PASSKEYD_USER_VERIFICATION: unknown value \(other)")
        }
        guard let ttl = Int(value("PASSKEYD_CHALLENGE_TTL", "300")), (30...3600).contains(ttl) else {
            throw ConfigurationError(description: "PASSKEYD_CHALLENGE_TTL must be 30...3600 seconds")
        }
        rp.challengeTimeout = .seconds(ttl)
        relyingParty = rp
        http = HTTPConfiguration(apiKeys: list("PASSKEYD_API_KEYS", ""))
    }
}

let arguments = CommandLine.arguments.dropFirst()
do {
    let settings = try Settings(ProcessInfo.processInfo.environment)
    let pool = PGPool(url: settings.databaseURL, size: settings.poolSize, threadPool: .singleton)
    let applied = try await Migrator(directory: settings.migrations).migrate(using: pool)
    for migration in applied { print("passkeyd: applied migration \(migration)") }
    if arguments.first == "migrate" { exit(0) }

    let store = PostgresPasskeyStore(pool: pool)
    let service = CeremonyService(relyingParty: settings.relyingParty, store: store)
    // Purge expired ceremonies in the background; requests never wait for it.
    let purger = Task {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(60))
            _ = try? await store.purgeExpiredCeremonies()
        }
    }
    let app = Application(
        router: buildRouter(service: service, configuration: settings.http),
        configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "passkeyd"))
    try await app.runService()
    purger.cancel()
    await pool.shutdown()
} catch {
    FileHandle.standardError.write(Data("passkeyd: \(error)\n".utf8))
    exit(1)
}
