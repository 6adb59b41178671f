import PasskeyApp
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport
import SettingsTestSupport

/// `PASSKEYD_PROVIDER_NAMES_FILE`: the community list's format parsed strictly, and `provider` on every credential
/// of every response, replaced when the file is reloaded.
@Suite("Provider names")
struct ProviderNamesTests {
    static let iCloud = "fbfc3007-154e-4ecc-8c0b-6e020557d7bd"
    static let google = "EA9B8D66-4D01-1D21-3CE4-B6B48CB575D4"
    static let icon = "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4="
    /// A file in the list's format: lower- and upper-case keys, icons present, absent and null, an unknown member.
    static let file = """
        {"\(iCloud)": {"name": "iCloud Keychain", "icon_light": "\(icon)", "icon_dark": "\(icon)"},
         "\(google)": {"name": "Google Password Manager", "icon_light": null, "extra": 1}}
        """

    static func bytes(_ uuid: String) -> [UInt8] {
        let value = UUID(uuidString: uuid)!.uuid
        return withUnsafeBytes(of: value) { Array($0) }
    }

    @Test("parsed: keys in any case, optional icons, unknown members ignored; the FIDO description wins the name")
    func parsed() throws {
        let names = try ProviderNames(json: Array(Self.file.utf8))
        #expect(names.count == 2)
        let apple = try #require(names.provider(aaguid: Self.bytes(Self.iCloud), metadataDescription: nil))
        #expect(apple == ProviderNames.Provider(name: "iCloud Keychain", iconLight: Self.icon, iconDark: Self.icon))
        let google = try #require(names.provider(aaguid: Self.bytes(Self.google), metadataDescription: nil))
        #expect(google.name == "Google Password Manager" && google.iconLight == nil && google.iconDark == nil)
        // Attested: the metadata's description names it, the list's icons stay.
        let attested = names.provider(aaguid: Self.bytes(Self.iCloud), metadataDescription: "Some Attested Key")
        #expect(attested == ProviderNames.Provider(name: "Some Attested Key", iconLight: Self.icon, iconDark: Self.icon))
        #expect(names.provider(aaguid: Array(repeating: 0x11, count: 16), metadataDescription: "Key")?.name == "Key")
        // Unknown, all-zero (U2F, hidden) and malformed AAGUIDs are not named.
        #expect(names.provider(aaguid: Array(repeating: 0x11, count: 16), metadataDescription: nil) == nil)
        #expect(names.provider(aaguid: Array(repeating: 0, count: 16), metadataDescription: nil) == nil)
        #expect(names.provider(aaguid: [1, 2, 3], metadataDescription: nil) == nil)
    }

    @Test("refused: every malformed entry, with the key it is about")
    func refused() {
        let cases: [(String, String)] = [
            ("[]", "not a JSON object"),
            ("{\"not-a-uuid\": {\"name\": \"x\"}}", "not-a-uuid"),
            ("{\"\(Self.iCloud)\": {}}", "name"),
            ("{\"\(Self.iCloud)\": {\"name\": \"\"}}", "name"),
            ("{\"\(Self.iCloud)\": {\"name\": \"\(String(repeating: "n", count: 257))\"}}", "name"),
            ("{\"\(Self.iCloud)\": \"iCloud\"}", "name"),
            ("{\"\(Self.iCloud)\": {\"name\": \"x\", \"icon_light\": \"javascript:alert(1)\"}}", "icon_light"),
            ("{\"\(Self.iCloud)\": {\"name\": \"x\", \"icon_dark\": 7}}", "icon_dark"),
            ("{\"\(Self.iCloud)\": {\"name\": \"x\"}, \"\(Self.iCloud.uppercased())\": {\"name\": \"y\"}}", "twice"),
        ]
        for (text, mention) in cases {
            do {
                _ = try ProviderNames(json: Array(text.utf8))
                Issue.record("accepted: \(text.prefix(60))")
            } catch {
                #expect(error.description.contains(mention), "\(text.prefix(60)): \(error)")
            }
        }
    }

    @Test("settings: the file is read at start; unreadable or malformed stops the start, naming the variable")
    func settings() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-providers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.json")
        try Data(Self.file.utf8).write(to: good)
        let bad = directory.appendingPathComponent("bad.json")
        try Data("{\"x\": 1}".utf8).write(to: bad)

        let loaded = try Settings(SettingsFixtures.environment(["PASSKEYD_PROVIDER_NAMES_FILE": good.path]))
        #expect(loaded.providerNames?.names.count == 2 && loaded.providerNames?.path == good.path)
        #expect(!loaded.warnings.contains { $0.hasPrefix("PASSKEYD_PROVIDER_NAMES_FILE") })
        #expect(try Settings(SettingsFixtures.environment([:])).providerNames == nil)
        for path in [bad.path, directory.appendingPathComponent("missing.json").path] {
            let error = SettingsFixtures.error(["PASSKEYD_PROVIDER_NAMES_FILE": path])
            #expect(error?.variable == "PASSKEYD_PROVIDER_NAMES_FILE", "\(path)")
        }
    }

    @Test("provider on the credential of registration finish, authentication finish, the admin API; null when unknown; replaced on reload")
    func responses() async throws {
        let adminKey = "provider-admin-key"
        let settings = try TestPasskeyd.unboundedSettings([
            "PASSKEYD_ADMIN_KEYS": adminKey, "PASSKEYD_PROVIDER_NAMES_FILE": try TestFiles.write(Self.file, name: "providers.json"),
        ])
        let passkeyd = try await TestPasskeyd.build(settings, store: TestPasskeyd.store(for: settings))
        let service = passkeyd.ceremonies
        let app = passkeyd.http
        try await app.test(.router) { client in
            var (registered, credential) = try await Flow.register(client, name: "ivy") { $0.aaguid = Self.bytes(Self.iCloud) }
            #expect(registered.status == 201)
            let expected: [String: Any] = ["name": "iCloud Keychain", "iconLight": Self.icon, "iconDark": Self.icon]
            func provider(_ credential: Any?) -> NSDictionary? { (credential as? [String: Any])?["provider"] as? NSDictionary }
            #expect(provider(registered.json["credential"])?.isEqual(to: expected) == true, "registration finish")

            let signIn = try await Flow.assertion(client, name: "ivy", credential: &credential)
            let signedIn = try await client.post("/v1/authentication/finish", json: signIn)
            #expect(provider(signedIn.json["credential"])?.isEqual(to: expected) == true, "authentication finish")

            let admin: HTTPFields = [.authorization: "Bearer \(adminKey)"]
            let listed = try await client.send(.get, "/v1/admin/credentials/\(Base64URL.encode(credential.id))", headers: admin)
            #expect(provider(listed.json["credential"])?.isEqual(to: expected) == true, "admin API: \(listed.json)")

            // An AAGUID the list does not have: null, present.
            let (unknown, _) = try await Flow.register(client, name: "jon") { $0.aaguid = Array(repeating: 0x42, count: 16) }
            let unknownCredential = try #require(unknown.json["credential"] as? [String: Any])
            #expect(unknownCredential.keys.contains("provider") && unknownCredential["provider"] is NSNull)

            // A reloaded file replaces the names for the next responses.
            service.replaceProviderNames(try ProviderNames(json: Array("{\"\(Self.iCloud)\": {\"name\": \"Apple Passwords\"}}".utf8)))
            let again = try await client.send(.get, "/v1/admin/credentials/\(Base64URL.encode(credential.id))", headers: admin)
            #expect(provider(again.json["credential"])?.isEqual(to: ["name": "Apple Passwords", "iconLight": NSNull(), "iconDark": NSNull()]) == true)
        }
    }
}
