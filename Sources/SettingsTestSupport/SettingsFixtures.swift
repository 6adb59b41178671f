public import COSECrypto
public import Foundation
public import PasskeySettings
import WebAuthnTestSupport

/// What the tests of settings share (PasskeySettingsTests, and PasskeyHTTPTests where settings meet HTTP): an
/// environment with the one required variable, the error of an environment, trust root files, and the shared test
/// vectors' paths.
public enum SettingsFixtures {
    /// Sources/SettingsTestSupport/this file → the repository.
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The StoreKit vectors (`../shared/vectors/apple/storekit`).
    public static let storeKitVectors = repository.deletingLastPathComponent().appendingPathComponent("shared/vectors/apple/storekit")

    /// A directory that exists, for PASSKEYD_MIGRATIONS.
    public static let migrations: String = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-settings-migrations")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }()

    public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ["PASSKEYD_DATABASE_URL": "postgresql://passkeyd:hunter2@db/passkeyd", "PASSKEYD_MIGRATIONS": migrations]
            .merging(extra) { _, new in new }
    }

    public static func error(_ extra: [String: String], without: [String] = []) -> ConfigurationError? {
        var environment = environment(extra)
        for key in without { environment[key] = nil }
        do {
            _ = try Settings(environment)
            return nil
        } catch {
            return error
        }
    }

    /// A temporary directory with `count` PEM root certificates (and a non-PEM file that is skipped).
    public static func trustRootDirectory(count: Int) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-roots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for index in 0..<count {
            let root = try TestAttestationCA(name: "root \(index)").root
            try Data(pem(root).utf8).write(to: directory.appendingPathComponent("root\(index).pem"))
        }
        try Data("not a certificate".utf8).write(to: directory.appendingPathComponent("README.txt"))
        return directory.path
    }

    public static func pem(_ certificate: Certificate) -> String {
        let base64 = Data(certificate.derEncoded).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }
}
