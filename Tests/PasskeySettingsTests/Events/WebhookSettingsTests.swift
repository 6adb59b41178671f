import Foundation
import PasskeyApp
import PasskeySettings
import PasskeyStore
import SettingsTestSupport
import Testing
import WebhookCore

/// `PASSKEYD_WEBHOOKS_*`: off until the endpoints file is set; the file's endpoints, secrets and filters; the URL
/// policy at start; every refusal names the variable and never shows a secret.
@Suite("Settings: webhooks")
struct WebhookSettingsTests {
    static let secret = "whsec_" + Data((0..<32).map { UInt8($0) }).base64EncodedString()

    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-webhooks-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func settings(_ extra: [String: String]) throws -> Settings { try Settings(SettingsFixtures.environment(extra)) }

    @Test("off by default (its other variables are then warned about)")
    func off() throws {
        #expect(try Self.settings([:]).webhooks == nil)
        let settings = try Self.settings(["PASSKEYD_WEBHOOKS_TIMEOUT": "5"])
        #expect(settings.webhooks == nil)
        #expect(settings.warnings.contains { $0.hasPrefix("PASSKEYD_WEBHOOKS_TIMEOUT: ignored") })
    }

    @Test("endpoints with a secret file, an inline secret, a previous secret and an event filter; the defaults")
    func endpoints() throws {
        let secretFile = try Self.file(Self.secret + "\n")
        let path = try Self.file("""
            [{"id": "app", "url": "https://hooks.example.com/in", "secret_file": "\(secretFile)"},
             {"id": "audit-2", "url": "https://8.8.8.8/x", "secret": "\(Self.secret)", "previous_secret": "\(Self.secret)",
              "events": ["user.deleted", "session.revoked"]}]
            """)
        let webhooks = try #require(try Self.settings(["PASSKEYD_WEBHOOKS_FILE": path]).webhooks)
        #expect(webhooks.endpoints.map(\.id) == ["app", "audit-2"])
        #expect(webhooks.endpoints.map(\.secrets.count) == [1, 2])
        #expect(webhooks.endpoints[0].secrets[0].encoded == Self.secret)
        #expect(webhooks.storeEndpoints == [
            WebhookEndpointConfig(id: "app", url: "https://hooks.example.com/in", events: nil),
            WebhookEndpointConfig(id: "audit-2", url: "https://8.8.8.8/x", events: [.userDeleted, .sessionRevoked]),
        ])
        #expect(webhooks.policy.timeout == .seconds(10))
        #expect(webhooks.policy.retry.window == 86_400)
        #expect(webhooks.policy.concurrency == 8)
        #expect(webhooks.policy.pollInterval == .milliseconds(1000))
        #expect(!webhooks.urlPolicy.allowsPrivateTargets)
        let tuned = try #require(try Self.settings([
            "PASSKEYD_WEBHOOKS_FILE": path, "PASSKEYD_WEBHOOKS_TIMEOUT": "3", "PASSKEYD_WEBHOOKS_RETRY_WINDOW": "172800",
            "PASSKEYD_WEBHOOKS_CONCURRENCY": "2", "PASSKEYD_WEBHOOKS_POLL_INTERVAL": "250",
        ]).webhooks)
        #expect(tuned.policy.timeout == .seconds(3) && tuned.policy.retry.window == 172_800)
        #expect(tuned.policy.concurrency == 2 && tuned.policy.pollInterval == .milliseconds(250))
    }

    @Test("http and private targets only with the unsafe setting, which is warned about")
    func unsafePrivate() throws {
        let path = try Self.file(#"[{"id": "local", "url": "http://127.0.0.1:9000/in", "secret": "\#(Self.secret)"}]"#)
        let error = try #require(SettingsFixtures.error(["PASSKEYD_WEBHOOKS_FILE": path]))
        #expect(error.variable == "PASSKEYD_WEBHOOKS_FILE")
        #expect("\(error)".contains("webhook_url_not_https"))
        let settings = try Self.settings(["PASSKEYD_WEBHOOKS_FILE": path, "PASSKEYD_WEBHOOKS_UNSAFE_ALLOW_PRIVATE": "on"])
        #expect(settings.webhooks?.urlPolicy.allowsPrivateTargets == true)
        #expect(settings.warnings.contains { $0.hasPrefix("PASSKEYD_WEBHOOKS_UNSAFE_ALLOW_PRIVATE:") })
    }

    @Test("every refusal names the file's variable and the endpoint, and never shows a secret")
    func refusals() throws {
        let url = "https://hooks.example.com/in"
        let cases: [(String, String)] = [
            ("{}", "not a JSON list"),
            ("[]", "1 to 64 endpoints"),
            (#"[{"id": "a b", "url": "\#(url)", "secret": "\#(Self.secret)"}]"#, "\"id\""),
            (#"[{"id": "a", "url": "\#(url)", "secret": "\#(Self.secret)"}, {"id": "a", "url": "\#(url)", "secret": "\#(Self.secret)"}]"#, "twice"),
            (#"[{"id": "a", "url": "\#(url)", "secret": "\#(Self.secret)", "evnts": []}]"#, "unknown key \"evnts\""),
            (#"[{"id": "a", "secret": "\#(Self.secret)"}]"#, "\"url\" is required"),
            (#"[{"id": "a", "url": "https://169.254.169.254/", "secret": "\#(Self.secret)"}]"#, "webhook_address_forbidden"),
            (#"[{"id": "a", "url": "https://u:p@hooks.example.com/", "secret": "\#(Self.secret)"}]"#, "webhook_url_credentials"),
            (#"[{"id": "a", "url": "\#(url)"}]"#, "is required"),
            (#"[{"id": "a", "url": "\#(url)", "secret": "whsec_c2hvcnQ="}]"#, "webhook_secret_length"),
            (#"[{"id": "a", "url": "\#(url)", "secret": "hunter2-hunter2-hunter2-hunter2"}]"#, "webhook_secret_malformed"),
            (#"[{"id": "a", "url": "\#(url)", "secret": "\#(Self.secret)", "secret_file": "/x"}]"#, "exclusive"),
            (#"[{"id": "a", "url": "\#(url)", "secret_file": "/nonexistent/secret"}]"#, "cannot be read"),
            (#"[{"id": "a", "url": "\#(url)", "secret": "\#(Self.secret)", "events": ["user.exploded"]}]"#, "unknown event type"),
            (#"[{"id": "a", "url": "\#(url)", "secret": "\#(Self.secret)", "events": []}]"#, "non-empty list"),
        ]
        for (text, expected) in cases {
            let error = try #require(SettingsFixtures.error(["PASSKEYD_WEBHOOKS_FILE": try Self.file(text)]), "\(text)")
            #expect(error.variable == "PASSKEYD_WEBHOOKS_FILE")
            #expect("\(error)".contains(expected), "\(error)")
            #expect(!"\(error)".contains("hunter2") && !"\(error)".contains(Self.secret.dropFirst(6)), "\(error)")
        }
        #expect(SettingsFixtures.error(["PASSKEYD_WEBHOOKS_FILE": "/nonexistent/webhooks.json"])?.variable == "PASSKEYD_WEBHOOKS_FILE")
        let path = try Self.file(#"[{"id": "a", "url": "\#(url)", "secret": "\#(Self.secret)"}]"#)
        for (name, value) in [("PASSKEYD_WEBHOOKS_RETRY_WINDOW", "3600"), ("PASSKEYD_WEBHOOKS_TIMEOUT", "0"), ("PASSKEYD_WEBHOOKS_CONCURRENCY", "65")] {
            #expect(SettingsFixtures.error(["PASSKEYD_WEBHOOKS_FILE": path, name: value])?.variable == name)
        }
    }
}
