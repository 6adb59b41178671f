import Foundation
import PasskeydClient
import Testing

/// What the live tests need, from the environment scripts/test/swift-client-test.sh sets (a passkeyd with sessions,
/// ID tokens, the App Store, App Attest, the app-association documents and the conformance binding on):
///
///     PASSKEYD_URL, PASSKEYD_API_KEY, PASSKEYD_ADMIN_KEY    the server and its keys
///     PASSKEYD_SOFTKEY, PASSKEYD_ORIGIN                     passkeyd-softkey (a software authenticator), its origin
///     PASSKEYD_IDP, PASSKEYD_IDP_DIR                        passkeyd-idp and its key directory (trusted for "apple",
///                                                           client id com.example.app)
///     PASSKEYD_STOREKIT_CERTS                               the vectors' apple/storekit/certs (testCA trusted)
///     PASSKEYD_APPATTEST_DEVICE, PASSKEYD_APPATTEST_APP_ID  a passkeyd-softkey App Attest device the server trusts
///
/// Without PASSKEYD_URL and PASSKEYD_SOFTKEY the live tests are skipped, unless PASSKEYD_LIVE_REQUIRED is set (as
/// the stage script sets it): then they fail.
enum Live {
    static let environment = ProcessInfo.processInfo.environment
    static let configured = environment["PASSKEYD_URL"] != nil && environment["PASSKEYD_SOFTKEY"] != nil
    static let enabled = configured || environment["PASSKEYD_LIVE_REQUIRED"] != nil

    static func value(_ name: String) throws -> String {
        try #require(environment[name], "\(name) is not set (scripts/test/swift-client-test.sh sets it)")
    }

    static func client(apiKey: String?? = .none) throws -> PasskeydClient {
        PasskeydClient(
            baseURL: try value("PASSKEYD_URL"), apiKey: apiKey ?? environment["PASSKEYD_API_KEY"],
            adminKey: environment["PASSKEYD_ADMIN_KEY"])
    }

    static func unique(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.lowercased().prefix(12))"
    }

    /// Runs a program; its standard output (it must exit 0).
    @discardableResult
    static func run(_ arguments: [String], input: Data? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let output = Pipe()
        let errors = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = standardInput
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(input) }
        try standardInput.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let failure = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw LiveFailure(description: "\(arguments.joined(separator: " ")): exit \(process.terminationStatus): \(String(decoding: failure, as: UTF8.self))")
        }
        return data
    }

    static func text(_ arguments: [String]) throws -> String {
        String(decoding: try run(arguments), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-swift-client-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()
}

struct LiveFailure: Error, CustomStringConvertible { let description: String }

/// passkeyd-softkey with a key file of its own: `register` and `sign` take a begin's answer, return the credential.
struct Authenticator {
    let key = Live.directory.appendingPathComponent("key-\(UUID().uuidString).json").path
    let origin: String

    init() throws {
        origin = try Live.value("PASSKEYD_ORIGIN")
    }

    private struct Output<Credential: Decodable>: Decodable { let credential: Credential }

    private func softkey<Credential: Decodable>(_ command: String, _ answer: some Encodable, _ extra: [String] = []) throws -> Credential {
        let output = try Live.run(
            [try Live.value("PASSKEYD_SOFTKEY"), command, "--key", key, "--origin", origin] + extra,
            input: try JSONEncoder().encode(answer))
        return try JSONDecoder().decode(Output<Credential>.self, from: output).credential
    }

    /// `silently`: as a passkey provider answers a conditional create (no user presence or verification).
    func register(_ begun: RegistrationBeginResponse, silently: Bool = false) throws -> RegistrationResponseJSON {
        try softkey("register", begun, silently ? ["--up", "0", "--uv", "0"] : [])
    }

    func sign(_ begun: AuthenticationBeginResponse) throws -> AuthenticationResponseJSON {
        try softkey("sign", begun)
    }

    /// The conformance binding's options are the W3C options with the profile's members: softkey reads them as they are.
    func register(conformance options: ConformanceCreationOptionsResponse) throws -> RegistrationResponseJSON {
        try softkey("register", options)
    }

    func sign(conformance options: ConformanceGetOptionsResponse) throws -> AuthenticationResponseJSON {
        try softkey("sign", options)
    }
}

extension PasskeydClient {
    /// A new user with one passkey of `authenticator`.
    func signUp(_ authenticator: Authenticator, name: String = Live.unique("ada")) async throws -> RegistrationFinishResponse {
        let begun = try await registrationBegin(for: .new(name: name, displayName: "Ada L."))
        return try await registrationFinish(try authenticator.register(begun))
    }

    func signIn(_ authenticator: Authenticator, as user: SignInUser? = nil) async throws -> AuthenticationFinishResponse {
        try await authenticationFinish(try authenticator.sign(try await authenticationBegin(for: user)))
    }
}

/// Whether `body` throws a PasskeydError with this status and code; the error.
@discardableResult
func expectError<Answer>(
    _ status: Int, _ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Answer
) async -> PasskeydError? {
    do {
        _ = try await body()
        Issue.record("no error; expected \(status) \(code)", sourceLocation: sourceLocation)
        return nil
    } catch let error as PasskeydError {
        #expect(error.status == status && error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("\(error); expected \(status) \(code)", sourceLocation: sourceLocation)
        return nil
    }
}
