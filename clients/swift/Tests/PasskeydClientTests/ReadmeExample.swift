// The README's example, compiled and run: the lines between the two marker comments below are the last code block of
// README.md's <!-- example:swift --> region, word for word (ReadmeExampleTests checks it, and that passkeyd's
// README.md and docs/clients.md show the same region), and the live test runs them against a real passkeyd.
// <example:swift>
import Foundation
import PasskeydClient

// A value on AsyncHTTPClient's HTTPClient.shared; the key is one of passkeyd's PASSKEYD_API_KEYS.
let passkeyd = PasskeydClient(
    baseURL: ProcessInfo.processInfo.environment["PASSKEYD_URL"] ?? "http://127.0.0.1:8080",
    apiKey: ProcessInfo.processInfo.environment["PASSKEYD_API_KEY"])

func beginSignIn() async throws -> AuthenticationBeginResponse {  // your route the page calls first (JSON-encode it)
    try await passkeyd.authenticationBegin()  // no user named: any passkey of this site may answer
}

func finishSignIn(_ credential: AuthenticationResponseJSON) async throws -> String? {  // the page's credential
    let signedIn = try await passkeyd.authenticationFinish(credential)  // refused: throws PasskeydError (.status, .code)
    return signedIn.user?.id  // passkeyd's user id: start your own session for it
}
// </example:swift>

import Testing

@Suite("README example")
struct ReadmeExampleTests {
    static let thisFile = URL(fileURLWithPath: #filePath)
    static let client = thisFile.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let repository = client.deletingLastPathComponent().deletingLastPathComponent()

    /// The lines strictly between the first line equal to `start` and the next one equal to `end`.
    static func lines(of url: URL, from start: String, to end: String) throws -> [Substring] {
        let all = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let first = try #require(all.firstIndex { $0.hasPrefix(start) }, "\(url.path): no line \(start)")
        let last = try #require(all[(first + 1)...].firstIndex { $0 == end }, "\(url.path): no line \(end)")
        #expect(!all[(last + 1)...].contains { $0.hasPrefix(start) }, "\(url.path): more than one \(start)")
        return Array(all[(first + 1)..<last])
    }

    /// The example's region of a Markdown page.
    static func region(_ url: URL) throws -> [Substring] {
        try lines(of: url, from: "<!-- example:swift ", to: "<!-- /example:swift -->")
    }

    @Test("the README's example is this file's marked code, and passkeyd's README.md and docs/clients.md show it")
    func sameEverywhere() throws {
        let readme = try Self.region(Self.client.appendingPathComponent("README.md"))
        // The region's last fenced block (the one before it is the dependency lines).
        let fences = readme.indices.filter { readme[$0].hasPrefix("```") }
        try #require(fences.count >= 2 && fences.count % 2 == 0, "unbalanced fences in README.md's example region")
        let example = readme[(fences[fences.count - 2] + 1)..<fences[fences.count - 1]]
        #expect(Array(example) == (try Self.lines(of: Self.thisFile, from: "// <example:swift>", to: "// </example:swift>")))

        for page in ["README.md", "docs/clients.md"] {
            let url = Self.repository.appendingPathComponent(page)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }  // a copy outside passkeyd's repository
            #expect(try Self.region(url) == readme, "\(page)'s example differs from clients/swift/README.md's")
        }
    }

    @Test("the example signs in against passkeyd", .enabled(if: Live.enabled, "PASSKEYD_URL and PASSKEYD_SOFTKEY not set"))
    func signsIn() async throws {
        // A user with a passkey of `authenticator`, made with a client of the test's own.
        let authenticator = try Authenticator()
        let registered = try await Live.client().signUp(authenticator, name: Live.unique("readme"))

        let options = try await beginSignIn()  // → the page
        #expect(options.publicKey.allowCredentials.isEmpty)
        let credential = try authenticator.sign(options)  // the page's credential
        #expect(try await finishSignIn(credential) == registered.user.id)
        // "refused: throws PasskeydError (.status, .code)"
        await expectError(400, .challengeUnknownOrExpired) { try await finishSignIn(credential) }
    }
}
