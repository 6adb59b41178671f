import Foundation
import PasskeyBuildInfo
import Testing
import WebAuthnModel

/// One version number for the service and its clients (issue 28): VERSION (which the build embeds in passkeyd),
/// openapi.json's info.version, the Python, TypeScript and Swift clients' versions and the CHANGELOG's latest entry.
@Suite("Release version")
struct ReleaseVersionTests {
    static let root = OpenAPIDocument.packageRoot

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The first capture of `pattern` in the file at `path`.
    static func capture(_ pattern: String, in path: String) throws -> String? {
        let text = try text(path)
        let regex = try Regex(pattern).anchorsMatchLineEndings()
        guard let match = text.firstMatch(of: regex), match.output.count > 1, let range = match.output[1].range else {
            return nil
        }
        return String(text[range])
    }

    @Test("The build embeds VERSION, and the revision is the commit's or unknown")
    func buildInfo() throws {
        let version = try Self.text("VERSION").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(BuildInfo.version == version)
        #expect(version.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?/) != nil)
        #expect(BuildInfo.revision == "unknown" || BuildInfo.revision.wholeMatch(of: /[0-9a-f]{12}/) != nil)
        #expect(BuildInfo.description == "passkeyd \(version) (revision \(BuildInfo.revision))")
    }

    @Test("openapi.json, the three clients and the CHANGELOG carry the same version as VERSION")
    func oneVersion() throws {
        let version = BuildInfo.version
        let places: [(String, String)] = [
            ("clients/python/pyproject.toml", #"^version = "([^"]+)""#),
            ("clients/python/passkeyd_client/_version.py", #"^__version__ = "([^"]+)""#),
            ("clients/typescript/package.json", #"^  "version": "([^"]+)""#),
            ("clients/swift/Sources/PasskeydClient/PasskeydClient.swift", #"public static let version = "([^"]+)""#),
            ("CHANGELOG.md", #"^## \[?([0-9][^ \]]*)"#),  // the first release heading
        ]
        for (path, pattern) in places {
            #expect(try Self.capture(pattern, in: path) == version, "\(path) does not say \(version)")
        }
        let document = try OpenAPIDocument.load()
        #expect(document.root["info"]?["version"]?.stringValue == version)
    }
}
